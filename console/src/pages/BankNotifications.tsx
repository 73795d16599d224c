/**
 * The operators' queue of bank notifications (/console/bank-notifications): credits a trader's
 * paired phone forwarded that matched no deal by themselves (UNMATCHED) and messages no bank
 * parser could read (UNPARSED), newest first as the API lists them, each with its trader and
 * device by name, what was read from it, its text folded, and the deals it could be for. An
 * operator attaches a credit to one of those deals (the trader's confirmation with the credit's
 * amount, sent as the operator) or dismisses it with a reason; each dialog says what will happen
 * and shows the API's refusal in words. Other statuses are one filter away.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { PAYIN_CONFIRMABLE, type PayinStatus } from '../../../domain/state/payin';
import { api, unwrap, type Schemas } from '../api';
import { Confirm } from '../dialog';
import { FilterBar, useUrlFilters, type FilterSpec } from '../filters';
import { PagedTable, usePagedList } from '../list';
import { useFormatMoney, Money } from '../money';
import { IdLink, Named } from '../names';
import { POLL_MS } from '../notifications';
import { Link } from '../router';
import { useCan } from '../session';
import { Text } from '../text';
import { ErrorText, Field, age, when } from '../ui';

type Notification = Schemas['BankNotification'];
type Candidate = Schemas['BankNotificationCandidate'];
type StatusFilter = 'queue' | 'MATCHED' | 'ATTACHED' | 'DISMISSED' | 'IGNORED' | 'UNMATCHED' | 'UNPARSED';

const STATUS_LABELS: Record<string, string> = {
  queue: 'waiting for an operator',
  UNMATCHED: 'matched no deal',
  UNPARSED: 'could not be read',
  MATCHED: 'confirmed a deal by itself',
  ATTACHED: 'attached by an operator',
  DISMISSED: 'dismissed',
  IGNORED: 'not a payment',
};

const REASON_WORDS: Record<string, string> = {
  no_live_deal: 'No live deal of this amount on the requisites this phone serves',
  ambiguous: 'More than one deal could be it',
  already_matched: 'The deal of this amount was confirmed by another notification already: this may be a second payment',
  deal_refused: 'Its deal refused the confirmation (it had ended)',
};

/** Where the notification stands, in words. */
function statusWords(n: Notification): string {
  const deal = n.deal_id.slice(0, 8);
  switch (n.status) {
    case 'UNMATCHED':
      return REASON_WORDS[n.reason] ?? 'Matched no deal';
    case 'UNPARSED':
      return 'Nothing could be read from it: no bank parser knew the message';
    case 'RECEIVED':
      return 'A credit being matched';
    case 'MATCHED':
      return `Confirmed deal ${deal} by itself`;
    case 'ATTACHED':
      return `Attached to deal ${deal} by an operator`;
    case 'DISMISSED':
      return 'Dismissed by an operator';
    case 'IGNORED':
      return 'Not a payment (a message the bank sends besides credits)';
  }
}

const BANK_NAMES: Record<string, string> = { sberbank: 'Sberbank', tbank: 'T-Bank', kaspi: 'Kaspi', kapitalbank: 'Kapitalbank', ziraat: 'Ziraat', sbp: 'SBP' };
const bankOf = (n: Notification) => (n.parser ? `${BANK_NAMES[n.parser] ?? n.parser} (parser v${n.parser_version})` : `unknown (sender ${n.sender})`);

const DEAL_STATUS_WORDS: Record<string, string> = {
  ESCROW_LOCKED: 'waiting for the payer',
  PAYMENT_NOTIFIED: 'payer says paid',
  PAYMENT_VERIFIED: 'confirmed, waiting for a reconciliation',
  SOFT_DISPUTED: 'under review',
  APPEALED: 'appealed',
  COMPLETED: 'completed',
  EXPIRED: 'expired',
  CANCELLED: 'cancelled',
  SPAM_REJECTED: 'rejected as spam',
};
const dealStatusWords = (s: string) => DEAL_STATUS_WORDS[s] ?? s.toLowerCase().replace(/_/g, ' ');

/**
 * Why a live or completed candidate takes no attach: only a deal still waiting for its money
 * (PAYIN_CONFIRMABLE) accepts the confirmation, so the button would promise what the API refuses.
 */
const NOT_ATTACHABLE_WORDS: Record<string, string> = {
  PAYMENT_VERIFIED: 'confirmed already: no attach (a second payment?)',
  COMPLETED: 'completed already: no attach (a second payment?)',
  SOFT_DISPUTED: 'under review: decide it on the deal',
  APPEALED: 'appealed: decide it in the appeal',
};
const attachable = (status: string) => PAYIN_CONFIRMABLE.includes(status as PayinStatus);

export function BankNotifications() {
  const filters = useUrlFilters();
  const status = (filters.get('status') || 'queue') as StatusFilter;
  const traderId = filters.get('trader_id');
  const traders = useQuery({
    queryKey: ['traders-for-filter'],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/traders', { params: { query: { page_size: 200 } } })),
    staleTime: 60_000,
  });
  const traderNames = new Map((traders.data?.data ?? []).map((t) => [t.trader_id, t.name]));
  const specs: FilterSpec[] = [
    {
      key: 'status',
      label: 'Status',
      kind: 'select',
      // No status: the queue (UNMATCHED and UNPARSED), as the API reads it.
      options: ['UNMATCHED', 'UNPARSED', 'MATCHED', 'ATTACHED', 'DISMISSED', 'IGNORED'],
      anyLabel: STATUS_LABELS.queue,
      optionLabel: (s) => STATUS_LABELS[s] ?? s,
    },
    {
      key: 'trader_id',
      label: 'Trader',
      kind: 'select',
      options: [...traderNames.keys()],
      anyLabel: 'any trader',
      optionLabel: (id) => traderNames.get(id) ?? id.slice(0, 8),
    },
  ];
  const query = { status, ...(traderId ? { trader_id: traderId } : {}) };
  const list = usePagedList(
    ['bank-notifications', query],
    (page_token) => unwrap(api.GET('/api/v1/p2p/admin/bank-notifications', { params: { query: { page_size: 25, page_token, ...query } } })),
    { refetchInterval: POLL_MS },
  );
  return (
    <>
      <h1>Bank notifications</h1>
      <p className="muted">
        What traders’ paired phones forwarded and no deal took by itself, newest first: a credit that matched no live deal exactly, and a message no bank parser
        could read. Attach a credit to the deal it paid, or dismiss it with the reason. Money for a deal that had ended is settled through an appeal of that
        deal.
      </p>
      <FilterBar label="Filter bank notifications" specs={specs} filters={filters} view="bank-notifications" />
      <PagedTable
        paged={list}
        what="bank notifications"
        caption={`Bank notifications ${STATUS_LABELS[status] ?? status}, newest first`}
        columns={[
          'Received',
          'Trader and device',
          'Bank',
          'Amount',
          'Payer',
          status === 'queue' || status === 'UNMATCHED' || status === 'UNPARSED' ? 'Why it waits' : 'What became of it',
          'Text',
          'Deals it could be for',
          'Actions',
        ]}
        rowKey={(n) => n.notification_id}
        row={(n) => <Row n={n} />}
        empty={status === 'queue' ? 'Nothing waits: every forwarded credit found its deal.' : 'None.'}
      />
    </>
  );
}

function Row({ n }: { n: Notification }) {
  const waiting = n.status === 'UNMATCHED' || n.status === 'UNPARSED';
  const seconds = Math.max(0, Math.floor((Date.now() - Date.parse(n.received_at)) / 1000));
  return (
    <tr data-notification={n.notification_id} data-status={n.status}>
      <td>
        <div>
          {when(n.received_at)}
          {waiting && <div className="muted">{age(seconds)} ago</div>}
        </div>
      </td>
      <td>
        <div>
          <Named kind="trader" id={n.trader_id} name={n.trader_name} />
          <div>
            phone <Text value={n.device_name} />
          </div>
        </div>
      </td>
      <td>
        <Text value={bankOf(n)} />
      </td>
      <td>{n.amount ? <Money minor={n.amount} currency={n.currency} /> : <span className="muted">not read</span>}</td>
      <td>
        {n.payer_name || n.card_tail ? (
          <div>
            <Text value={n.payer_name} />
            {n.card_tail && <div className="mono">card •••• {n.card_tail}</div>}
          </div>
        ) : (
          <span className="muted">not in the message</span>
        )}
      </td>
      <td data-testid="why">
        <div>
          {statusWords(n)}
          {n.deal_id && (
            <div>
              <IdLink kind="deal" id={n.deal_id} />
            </div>
          )}
          {n.resolution_note && (
            <div>
              “<Text value={n.resolution_note} />”
            </div>
          )}
        </div>
      </td>
      <td>
        <details>
          <summary>Text from {n.sender}</summary>
          <p className="bank-text">
            <Text value={n.text} />
          </p>
        </details>
      </td>
      <td>
        <Candidates n={n} />
      </td>
      <td>{waiting ? <Dismiss n={n} /> : <span className="muted">—</span>}</td>
    </tr>
  );
}

function Candidates({ n }: { n: Notification }) {
  if (n.status !== 'UNMATCHED' && n.status !== 'UNPARSED') return <span className="muted">—</span>;
  if (!n.amount) return <span className="muted">Nothing read, so no deal to attach: dismiss it, or the trader confirms the deal by hand.</span>;
  const candidates = n.candidates ?? [];
  if (candidates.length === 0) return <span className="muted">No deal on this phone’s requisites in {n.currency}.</span>;
  return (
    <ul className="candidates">
      {candidates.map((c) => (
        <li key={c.deal_id} data-candidate={c.deal_id}>
          <Link to={`/deals/${c.deal_id}`}>
            <span className="mono">{c.deal_id.slice(0, 8)}</span>
          </Link>{' '}
          <Text value={c.merchant_name} /> · <Money minor={c.amount_to_pay} currency={c.currency} /> · {dealStatusWords(c.status)}
          {c.exact_amount && <span className="badge">exact amount</span>}
          <Attach n={n} deal={c} />
        </li>
      ))}
    </ul>
  );
}

/**
 * The attach button and dialog: what the deal becomes with this credit, from the amounts; the
 * API's refusal stays in the dialog. A deal that takes no attach says why instead of the button;
 * an open dialog stays open when the queue's next read finds the deal moved on, so the operator
 * reads the refusal rather than seeing the dialog vanish.
 */
function Attach({ n, deal }: { n: Notification; deal: Candidate }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const format = useFormatMoney();
  const [asking, setAsking] = useState(false);
  const [note, setNote] = useState('');
  const attach = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/p2p/admin/bank-notifications/{notification_id}/attach', {
          params: { path: { notification_id: n.notification_id } },
          body: { deal_id: deal.deal_id, ...(note.trim() ? { note: note.trim() } : {}) },
        }),
      ),
    onSuccess: async () => {
      setAsking(false);
      await queryClient.invalidateQueries();
    },
  });
  const takes = !deal.settlement_path && attachable(deal.status);
  const why = deal.settlement_path ? (
    <span className="badge warn">settle through an appeal</span>
  ) : takes ? null : (
    <span className="badge warn">{NOT_ATTACHABLE_WORDS[deal.status] ?? 'no attach'}</span>
  );
  if (!can('adminAttachBankNotification')) return why;
  const received = BigInt(n.amount);
  const toPay = BigInt(deal.amount_to_pay);
  const outcome =
    received === toPay ? 'it completes' : `it stays for a reconciliation (${received < toPay ? 'partial: less than asked' : 'overpaid: more than asked'})`;
  return (
    <>
      {why}
      {takes && (
        <>
          {' '}
          <button
            type="button"
            onClick={() => {
              attach.reset();
              setAsking(true);
            }}
          >
            Attach to deal {deal.deal_id.slice(0, 8)}…
          </button>
        </>
      )}
      {asking && (
        <Confirm
          title={`Attach to deal ${deal.deal_id.slice(0, 8)}`}
          confirmLabel={attach.isPending ? 'Attaching…' : 'Attach'}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            if (!attach.isPending) attach.mutate();
          }}
        >
          <p data-testid="attach-says">
            Confirms deal {deal.deal_id.slice(0, 8)} of <Text value={deal.merchant_name} /> with{' '}
            <span className="money whole">{format(n.amount, n.currency)}</span> received. The deal’s amount to pay is{' '}
            <span className="money whole">{format(deal.amount_to_pay, deal.currency)}</span>: {outcome}. The confirmation is sent as you, as the trader’s would
            be.
          </p>
          <Field label="Note (optional)">
            <textarea maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />
          </Field>
          <ErrorText error={attach.error} />
        </Confirm>
      )}
    </>
  );
}

function Dismiss({ n }: { n: Notification }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const format = useFormatMoney();
  const [asking, setAsking] = useState(false);
  const [note, setNote] = useState('');
  const [missing, setMissing] = useState(false);
  const dismiss = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/p2p/admin/bank-notifications/{notification_id}/dismiss', {
          params: { path: { notification_id: n.notification_id } },
          body: { note: note.trim() },
        }),
      ),
    onSuccess: async () => {
      setAsking(false);
      await queryClient.invalidateQueries();
    },
  });
  if (!can('adminDismissBankNotification')) return null;
  const what = n.amount ? `The credit of ${format(n.amount, n.currency)}` : 'The message';
  return (
    <>
      <button
        type="button"
        onClick={() => {
          dismiss.reset();
          setMissing(false);
          setAsking(true);
        }}
      >
        Dismiss…
      </button>
      {asking && (
        <Confirm
          title="Dismiss this notification"
          confirmLabel={dismiss.isPending ? 'Dismissing…' : 'Dismiss'}
          tone="danger"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            if (!note.trim()) return setMissing(true);
            if (!dismiss.isPending) dismiss.mutate();
          }}
        >
          <p data-testid="dismiss-says">
            {what} forwarded by <Text value={n.device_name} /> (<Text value={n.trader_name} />) leaves the queue for good and confirms no deal. Your reason is
            kept with it and in the audit log.
          </p>
          <Field label="Reason (required)" hint="e.g. a transfer between the trader’s own accounts, a test message, a duplicate">
            <textarea required maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />
          </Field>
          {missing && !note.trim() && (
            <p role="alert" className="error">
              Say why it needs no deal.
            </p>
          )}
          <ErrorText error={dismiss.error} />
        </Confirm>
      )}
    </>
  );
}
