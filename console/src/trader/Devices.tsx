/**
 * The trader's bank devices (/trader/requisites/devices): the phones that forward the bank's
 * notifications so deals confirm themselves. Each device with its presence in words (a silent one
 * takes its requisites out of the matcher), the requisites it serves and its app version; pairing
 * a phone (a name, then the one-time code as a large QR code and as text, with its countdown,
 * until the phone pairs; then the requisites it serves); revoking one, with a dialog that says
 * what follows. Below, what the phones forwarded and what became of each. Reached from the
 * Requisites page and from Today's banner when a device falls silent (docs/trader.md says why it
 * is not a tab of its own).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { Confirm } from '../dialog';
import { QrCode } from '../qr';
import { Link } from '../router';
import { Text } from '../text';
import { ErrorText, Field, Loading } from '../ui';
import { moneyOf, requisiteSummaryWords } from './words';

type Device = Schemas['TraderDevice'];
type Pairing = Schemas['TraderDevicePairing'];
type Notification = Schemas['BankNotification'];

const DEVICES_KEY = ['trader-devices'];
const NOTIFICATIONS_KEY = ['trader-bank-notifications'];

const useDevices = (poll = 30_000) => useQuery({ queryKey: DEVICES_KEY, queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/devices')), refetchInterval: poll });

/** A time as the trader reads it: "10:42" today, "28 Nov 10:42" another day (the phone's own time zone). */
function clock(iso: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  const time = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  return d.toDateString() === new Date().toDateString() ? time : `${d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' })} ${time}`;
}

/** The requisites a device serves, by name: "card •••• 4242 tbank, SBP phone •••• 1234 sber". */
const requisitesOf = (d: Device) => d.requisites.map((r) => requisiteSummaryWords(r.summary)).join(', ');

/** The device's presence in words, with what it means for the trader's deals. */
function presenceWords(d: Device, now: number): string {
  switch (d.presence) {
    case 'waiting_for_pairing':
      return `Waiting for pairing: the code works until ${clock(d.pairing_expires_at)}`;
    case 'pairing_expired':
      return 'Pairing code expired: pair the phone again';
    case 'heard': {
      const minutes = d.heartbeat_at ? Math.max(0, Math.floor((now - Date.parse(d.heartbeat_at)) / 60_000)) : 0;
      return minutes === 0 ? 'Heard less than a minute ago' : `Heard ${minutes} min ago`;
    }
    case 'silent':
      return `Silent since ${clock(d.heartbeat_at || d.paired_at)}: its requisites get no deals until it is heard again`;
    case 'revoked':
      return `Revoked ${clock(d.revoked_at)}: it confirms nothing`;
  }
}

/** Ticks every `ms` so "heard N min ago" and countdowns stay true while the page is open. */
function useNow(ms: number) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export function TraderDevices() {
  const devices = useDevices(10_000);
  const [pairing, setPairing] = useState<Pairing | null>(null);
  return (
    <section className="trader-devices">
      <p>
        <Link to="/requisites" className="back">
          ← Requisites
        </Link>
      </p>
      <h1>Bank devices</h1>
      <p>
        A phone with the bank device app forwards your bank’s notifications: a payment of a deal’s exact amount on a requisite it serves confirms the deal with
        no tap of yours. A phone that falls silent takes its requisites out of the deals until it is heard again.
      </p>
      {pairing ? <PairingPanel pairing={pairing} onDone={() => setPairing(null)} onRestart={setPairing} /> : <StartPairing onStarted={setPairing} />}
      {devices.error ? (
        <ErrorText error={devices.error} />
      ) : !devices.data ? (
        <Loading what="your devices" />
      ) : (
        <>
          {devices.data.data.length === 0 && <p>No devices yet.</p>}
          {devices.data.data
            .filter((d) => d.device_id !== pairing?.device.device_id || d.status !== 'PAIRING')
            .map((d) => (
              <DeviceCard key={d.device_id} device={d} />
            ))}
        </>
      )}
      <Forwarded />
    </section>
  );
}

function StartPairing({ onStarted }: { onStarted: (p: Pairing) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [open, setOpen] = useState(false);
  const start = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/trader/devices', { body: { name: name.trim() } })),
    onSuccess: async (p) => {
      setName('');
      setOpen(false);
      onStarted(p);
      await queryClient.invalidateQueries({ queryKey: DEVICES_KEY });
    },
  });
  if (!open)
    return (
      <button type="button" className="primary" onClick={() => setOpen(true)}>
        Pair a phone
      </button>
    );
  return (
    <form
      className="card grid"
      aria-label="Pair a phone"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        start.mutate();
      }}
    >
      <h2>Pair a phone</h2>
      <Field label="Device name" hint="How you tell your phones apart, e.g. “Pixel 8 (T-Bank)”.">
        <input required maxLength={80} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <p>Next you scan a QR code with the bank device app on that phone. The code works once, for a few minutes.</p>
      <div className="actions">
        <button type="submit" className="primary" disabled={start.isPending}>
          Show the pairing code
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      <ErrorText error={start.error} />
    </form>
  );
}

/**
 * The pairing code until the phone pairs (the list is read every 2 s), then the requisites it
 * serves; a code that expired offers a new one under the same name, in one tap.
 */
function PairingPanel({ pairing, onDone, onRestart }: { pairing: Pairing; onDone: () => void; onRestart: (p: Pairing) => void }) {
  const queryClient = useQueryClient();
  const devices = useDevices(2_000);
  const now = useNow(1000);
  const again = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/trader/devices', { body: { name: pairing.device.name } })),
    onSuccess: async (p) => {
      onRestart(p);
      await queryClient.invalidateQueries({ queryKey: DEVICES_KEY });
    },
  });
  const device = devices.data?.data.find((d) => d.device_id === pairing.device.device_id) ?? pairing.device;
  const left = Math.max(0, Math.floor((Date.parse(pairing.expires_at) - now) / 1000));
  if (device.status === 'ACTIVE') {
    return (
      <section className="card" aria-label="Phone paired" data-testid="paired">
        <h2>
          <Text value={device.name} /> is paired
        </h2>
        <p>Pick the requisites whose bank notifications this phone forwards.</p>
        <ServedRequisites device={device} onSaved={onDone} submitLabel="Save and finish" />
        <button type="button" onClick={onDone}>
          Later
        </button>
      </section>
    );
  }
  return (
    <section className="card pairing" aria-label="Pairing code" data-testid="pairing">
      <h2>
        Pair <Text value={device.name} />
      </h2>
      {left === 0 || device.presence === 'pairing_expired' ? (
        <>
          <p role="alert">The pairing code expired before the phone used it. A new code takes one tap.</p>
          <div className="actions">
            <button type="button" className="primary" disabled={again.isPending} onClick={() => again.mutate()}>
              Get a new code
            </button>
            <button type="button" onClick={onDone}>
              Close
            </button>
          </div>
          <ErrorText error={again.error} />
        </>
      ) : (
        <>
          <p>In the bank device app on the phone: “Pair with the gateway”, then scan this code.</p>
          <QrCode text={pairing.pairing_uri} label={`Pairing QR code for ${device.name}`} testId="pairing-qr" />
          <p>
            Or type this code in the app: <code data-testid="pairing-code">{pairing.pairing_code}</code>
          </p>
          <p className="trader-timer" role="timer" data-expires-at={pairing.expires_at}>
            The code works for{' '}
            <strong>
              {Math.floor(left / 60)}:{String(left % 60).padStart(2, '0')}
            </strong>{' '}
            more, once.
          </p>
          <p role="status" aria-live="polite">
            Waiting for the phone…
          </p>
          <p className="muted">The code is shown only here: closing this panel hides it for good (a phone that read it may still pair).</p>
          <button type="button" onClick={onDone}>
            Close
          </button>
        </>
      )}
    </section>
  );
}

/** Checkboxes of the trader's requisites (archived ones cannot be served): exactly the ones ticked are served. */
function ServedRequisites({ device, onSaved, submitLabel = 'Save requisites' }: { device: Device; onSaved?: () => void; submitLabel?: string }) {
  const queryClient = useQueryClient();
  const requisites = useQuery({ queryKey: ['trader-requisites'], queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/requisites')) });
  const [chosen, setChosen] = useState<string[]>(() => device.requisites.map((r) => r.requisite_id));
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v1/p2p/trader/devices/{device_id}/requisites', { params: { path: { device_id: device.device_id } }, body: { requisite_ids: chosen } }),
      ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: DEVICES_KEY });
      onSaved?.();
    },
  });
  if (!requisites.data) return requisites.error ? <ErrorText error={requisites.error} /> : <Loading what="your requisites" />;
  const servable = requisites.data.data.filter((r) => r.status !== 'ARCHIVED');
  return (
    <form
      className="grid"
      aria-label={`Requisites ${device.name} serves`}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      {servable.length === 0 && (
        <p>
          You have no requisites yet: <Link to="/requisites">add one</Link>.
        </p>
      )}
      <fieldset className="checks">
        <legend>Its notifications confirm deals on</legend>
        {servable.map((r) => {
          const number = r.card_number || r.phone_number || r.iban;
          return (
            <label key={r.requisite_id} className="check">
              <input
                type="checkbox"
                checked={chosen.includes(r.requisite_id)}
                onChange={(e) => setChosen(e.target.checked ? [...chosen, r.requisite_id] : chosen.filter((id) => id !== r.requisite_id))}
              />{' '}
              <span className="mono">{number}</span> · <Text value={r.bank_name} />
            </label>
          );
        })}
      </fieldset>
      <p>A requisite another of your phones serves moves to this one.</p>
      <div>
        <button type="submit" className="primary" disabled={save.isPending}>
          {submitLabel}
        </button>
        {save.isSuccess && (
          <span role="status" className="done">
            Saved
          </span>
        )}
        <ErrorText error={save.error} />
      </div>
    </form>
  );
}

function DeviceCard({ device: d }: { device: Device }) {
  const now = useNow(30_000);
  const served = requisitesOf(d);
  return (
    <section className="card" aria-label={`Device ${d.name}`} data-testid="device" data-presence={d.presence}>
      <h2>
        <Text value={d.name} />
      </h2>
      <p className={d.presence === 'silent' ? 'error' : undefined} data-testid="device-presence">
        {presenceWords(d, now)}
      </p>
      <ul className="limits">
        <li>{d.status === 'REVOKED' ? 'Served nothing since its revocation' : served ? <>Confirms deals on {served}</> : 'Serves no requisite yet'}</li>
        {d.app_version && <li>App version {d.app_version}</li>}
        {d.paired_at && <li>Paired {clock(d.paired_at)}</li>}
      </ul>
      {d.status !== 'REVOKED' && (
        <>
          {d.status === 'ACTIVE' && (
            <details>
              <summary>Requisites it serves</summary>
              <ServedRequisites device={d} />
            </details>
          )}
          <div className="actions">
            <Revoke device={d} />
          </div>
        </>
      )}
    </section>
  );
}

function Revoke({ device }: { device: Device }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const revoke = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/trader/devices/{device_id}/revoke', { params: { path: { device_id: device.device_id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: DEVICES_KEY }),
  });
  const served = requisitesOf(device);
  return (
    <>
      <button type="button" className="danger" disabled={revoke.isPending} onClick={() => setAsking(true)}>
        Revoke…
      </button>
      {asking && (
        <Confirm
          title={`Revoke ${device.name}`}
          confirmLabel="Revoke"
          tone="danger"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            revoke.mutate();
          }}
        >
          {device.status === 'PAIRING' ? (
            <p>
              Its pairing code stops working: <Text value={device.name} /> will not be able to pair with it. This cannot be undone: pair the phone again for a
              new code.
            </p>
          ) : (
            <p>
              <Text value={device.name} /> will not be able to confirm payments any more
              {served ? `; ${served} go back to confirmation by hand` : ''}. This cannot be undone: pair the phone again to use it.
            </p>
          )}
        </Confirm>
      )}
      <ErrorText error={revoke.error} />
    </>
  );
}

/** What became of a forwarded notification, in the trader's words. */
function outcomeWords(n: Notification): string {
  const deal = n.deal_id ? n.deal_id.slice(0, 8) : '';
  switch (n.status) {
    case 'RECEIVED':
      return 'a payment: finding its deal';
    case 'MATCHED':
      return `confirmed deal ${deal}`;
    case 'ATTACHED':
      return `an operator confirmed deal ${deal} with it`;
    case 'UNMATCHED':
      if (n.reason === 'already_matched') return 'the deal of this amount was confirmed already — an operator looks';
      if (n.reason === 'deal_refused') return `deal ${deal} had ended — an operator looks`;
      return 'no deal of this amount — an operator looks';
    case 'UNPARSED':
      return 'could not be read — an operator looks';
    case 'IGNORED':
      return 'not a payment';
    case 'DISMISSED':
      return n.resolution_note ? `an operator closed it: ${n.resolution_note}` : 'an operator closed it';
  }
}

const BANK_NAMES: Record<string, string> = { sberbank: 'Sberbank', tbank: 'T-Bank', kaspi: 'Kaspi', kapitalbank: 'Kapitalbank', ziraat: 'Ziraat', sbp: 'SBP' };
/** The bank that wrote it: the parser that read it, else who sent it. */
const bankOf = (n: Pick<Notification, 'parser' | 'sender'>) => (n.parser ? (BANK_NAMES[n.parser] ?? n.parser) : n.sender);

function Forwarded() {
  const list = useQuery({
    queryKey: NOTIFICATIONS_KEY,
    queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/bank-notifications', { params: { query: { page_size: 50 } } })),
    refetchInterval: 10_000,
  });
  return (
    <section aria-labelledby="forwarded-heading">
      <h2 id="forwarded-heading">What your phones forwarded</h2>
      {list.error ? (
        <ErrorText error={list.error} />
      ) : !list.data ? (
        <Loading what="the forwarded notifications" />
      ) : list.data.data.length === 0 ? (
        <p>Nothing forwarded yet.</p>
      ) : (
        <ul className="forwarded">
          {list.data.data.map((n) => (
            <li key={n.notification_id} className="card" data-testid="forwarded" data-status={n.status}>
              <p>
                <strong>{n.amount ? moneyOf(n.amount, n.currency) : 'no amount read'}</strong> · <Text value={bankOf(n)} /> · {clock(n.received_at)}
              </p>
              <p>{outcomeWords(n)}</p>
              <p className="muted">
                by <Text value={n.device_name} />
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The Requisites page's way in: how many phones confirm payments, and whether one is silent. */
export function DevicesLine() {
  const devices = useDevices();
  const live = devices.data?.data.filter((d) => d.status === 'ACTIVE') ?? [];
  const silent = live.filter((d) => d.presence === 'silent').length;
  return (
    <p className="card" data-testid="devices-line">
      <Link to="/requisites/devices" className="thumb">
        Bank devices
      </Link>
      :{' '}
      {live.length === 0
        ? 'pair a phone to confirm payments with no tap'
        : `${live.length} phone${live.length === 1 ? '' : 's'} confirm${live.length === 1 ? 's' : ''} payments${silent ? `, ${silent} silent` : ''}`}
    </p>
  );
}

/** Today's banner: each silent phone, the requisites that get no deals while it is, and what to do. */
export function SilentDevices() {
  const devices = useDevices();
  const silent = devices.data?.data.filter((d) => d.presence === 'silent') ?? [];
  if (silent.length === 0) return null;
  return (
    <>
      {silent.map((d) => (
        <div key={d.device_id} className="card banner" role="alert" data-testid="silent-device">
          <p>
            <strong>
              <Text value={d.name} />
            </strong>{' '}
            is silent since {clock(d.heartbeat_at || d.paired_at)}: {d.requisites.length > 0 ? `${requisitesOf(d)} get no deals` : 'it serves no requisite'}.
            Open the bank device app.{' '}
            <Link to="/requisites/devices" className="thumb">
              Bank devices
            </Link>
          </p>
        </div>
      ))}
    </>
  );
}
