/**
 * The trader app's deal queue (/trader/deals): the trader's live deals as big cards with their
 * timers counting down and one-thumb buttons for the moves the deal's state allows now (the API
 * answers them from the state tables), the UNASSIGNED payouts it may take, and its history. A
 * PayIn's confirm is prefilled with the amount the payer was asked to pay; a PayOut's completion
 * takes the bank's reference and a photo of the receipt (the phone's camera opens).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { formatMinor, parseMajor } from '../amounts';
import { Confirm } from '../dialog';
import { ErrorText, Field, Loading, when } from '../ui';
import { Link } from '../router';
import { Text } from '../text';
import { AMOUNT_MATCH_WORDS, dealStatusWords, requisiteSummaryWords } from './words';

type TraderDeal = Schemas['TraderDeal'];

const DEALS_KEY = ['trader-deals'];
const AVAILABLE_KEY = ['trader-payouts-available'];

const useDeals = () => useQuery({ queryKey: DEALS_KEY, queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/deals')), refetchInterval: 10_000 });
const useAvailable = () =>
  useQuery({ queryKey: AVAILABLE_KEY, queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/payouts/available')), refetchInterval: 10_000 });

/** The deal's amount in major units with its currency: "1 500.00 RUB". */
const amountOf = (minor: string, deal: TraderDeal) => `${formatMinor(minor, deal.currency_exponent)} ${deal.currency}`;

/** Seconds left until `iso`, ticking every second (0 once passed). */
function useSecondsLeft(iso: string): number | undefined {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!iso) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [iso]);
  if (!iso) return undefined;
  return Math.max(0, Math.floor((Date.parse(iso) - now) / 1000));
}

const TIMER_LABEL: Record<string, string> = {
  payment_timeout: 'Expires in',
  assign_sla: 'Free to take for',
  transfer_sla: 'Start within',
};

function Countdown({ deal }: { deal: TraderDeal }) {
  const left = useSecondsLeft(deal.expires_at);
  if (left === undefined || !deal.timer) return null;
  const minutes = Math.floor(left / 60);
  const seconds = String(left % 60).padStart(2, '0');
  return (
    <p className={`trader-timer${left < 120 ? ' urgent' : ''}`} data-expires-at={deal.expires_at}>
      {TIMER_LABEL[deal.timer] ?? 'Deadline in'} <strong role="timer">{left === 0 ? 'now' : `${minutes}:${seconds}`}</strong>
    </p>
  );
}

/** A move of the card: one full-width button, its pending state and the API's refusal under it. */
function useMove<T>(run: () => Promise<T>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: async () => {
      await Promise.all([queryClient.invalidateQueries({ queryKey: DEALS_KEY }), queryClient.invalidateQueries({ queryKey: AVAILABLE_KEY })]);
    },
  });
}

const path = (deal: TraderDeal) => ({ params: { path: { deal_id: deal.deal_id } } });

function ConfirmPayin({ deal }: { deal: TraderDeal }) {
  const [amount, setAmount] = useState(() => formatMinor(deal.amount_to_pay, deal.currency_exponent).replace(/\s/g, ''));
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  let minor: string | undefined;
  try {
    minor = parseMajor(amount, deal.currency_exponent, 'the amount received');
  } catch {
    minor = undefined;
  }
  const confirm = useMove(() =>
    unwrap(
      api.POST('/api/v1/p2p/trader/deals/{deal_id}/confirm', {
        ...path(deal),
        // int64 exactly: api.ts writes a bigint's digits into the JSON.
        body: { received_amount: BigInt(minor!) as unknown as number },
      }),
    ),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    try {
      parseMajor(amount, deal.currency_exponent, 'the amount received');
      setProblem(undefined);
      setAsking(true);
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    }
  };
  const received = minor ? amountOf(minor, deal) : '';
  const short = minor !== undefined && BigInt(minor) < BigInt(deal.amount_to_pay);
  const over = minor !== undefined && BigInt(minor) > BigInt(deal.amount_to_pay);
  return (
    <form className="trader-move" onSubmit={submit}>
      <Field label={`Amount received (${deal.currency})`} hint={problem ?? `The payer was asked to pay ${amountOf(deal.amount_to_pay, deal)}.`}>
        <input inputMode="decimal" autoComplete="off" required value={amount} onChange={(e) => setAmount(e.target.value)} />
      </Field>
      <button type="submit" className="primary big" disabled={confirm.isPending}>
        {confirm.isPending ? 'Confirming…' : 'Confirm received'}
      </button>
      <ErrorText error={confirm.error} />
      {asking && minor && (
        <Confirm
          title={`${received} arrived?`}
          confirmLabel={`Yes, ${received} arrived`}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            confirm.mutate();
          }}
        >
          <span data-testid="confirm-text">
            You confirm that {received} arrived on your <Text value={requisiteSummaryWords(deal.requisite_summary)} />.{' '}
            {short || over ? (
              <>
                That is {short ? 'less' : 'more'} than the {amountOf(deal.amount_to_pay, deal)} the payer was asked to pay: the deal stops as confirmed and an
                operator decides how it ends.
              </>
            ) : (
              <>The deal completes at once and the USDT held in escrow for it goes to the merchant.</>
            )}{' '}
            This cannot be undone: check your bank app first.
          </span>
        </Confirm>
      )}
    </form>
  );
}

function NotReceived({ deal }: { deal: TraderDeal }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const report = useMove(() => unwrap(api.POST('/api/v1/p2p/trader/deals/{deal_id}/not-received', { ...path(deal), body: reason ? { reason } : {} })));
  if (!open)
    return (
      <button type="button" className="big" onClick={() => setOpen(true)}>
        Not received
      </button>
    );
  return (
    <form
      className="trader-move"
      onSubmit={(e) => {
        e.preventDefault();
        report.mutate();
      }}
    >
      <Field label="What you saw (optional)" hint="The deal stays open until it expires; an operator is alerted.">
        <input value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
      </Field>
      <button type="submit" className="danger big" disabled={report.isPending}>
        {report.isPending ? 'Reporting…' : 'Report not received'}
      </button>
      <ErrorText error={report.error} />
    </form>
  );
}

function StartPayout({ deal }: { deal: TraderDeal }) {
  const start = useMove(() => unwrap(api.POST('/api/v1/p2p/trader/deals/{deal_id}/start', path(deal))));
  return (
    <div className="trader-move">
      <button type="button" className="primary big" disabled={start.isPending} onClick={() => start.mutate()}>
        {start.isPending ? 'Starting…' : 'Start transfer'}
      </button>
      <small className="muted">Tap as you begin the transfer in your bank app; then send its bank reference and receipt here.</small>
      <ErrorText error={start.error} />
    </div>
  );
}

function CompletePayout({ deal }: { deal: TraderDeal }) {
  const [reference, setReference] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const complete = useMove(() => {
    const form = new FormData();
    form.append('bank_reference', reference);
    if (file) form.append('file', file, file.name);
    return unwrap(
      api.POST('/api/v1/p2p/trader/deals/{deal_id}/complete', { ...path(deal), body: form as never, bodySerializer: (b: unknown) => b as FormData }),
    );
  });
  return (
    <form
      className="trader-move"
      onSubmit={(e) => {
        e.preventDefault();
        complete.mutate();
      }}
    >
      <Field label="Bank reference of the transfer">
        <input required maxLength={100} autoComplete="off" value={reference} onChange={(e) => setReference(e.target.value)} />
      </Field>
      <Field label="Receipt (photo, screenshot or PDF)" hint="The merchant sees it with the bank reference.">
        <input
          type="file"
          required
          accept="image/png,image/jpeg,image/webp,application/pdf"
          capture="environment"
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        />
      </Field>
      <button type="submit" className="primary big" disabled={complete.isPending}>
        {complete.isPending ? 'Completing…' : 'Complete with proof'}
      </button>
      <ErrorText error={complete.error} />
    </form>
  );
}

function RejectPayout({ deal }: { deal: TraderDeal }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const reject = useMove(() => unwrap(api.POST('/api/v1/p2p/trader/deals/{deal_id}/reject', { ...path(deal), body: { reason } })));
  if (!open)
    return (
      <button type="button" className="big" onClick={() => setOpen(true)}>
        Reject
      </button>
    );
  return (
    <form
      className="trader-move"
      onSubmit={(e) => {
        e.preventDefault();
        reject.mutate();
      }}
    >
      <Field label="Why the transfer cannot be made" hint="The merchant's hold is returned.">
        <input required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
      </Field>
      <button type="submit" className="danger big" disabled={reject.isPending}>
        {reject.isPending ? 'Rejecting…' : 'Reject payout'}
      </button>
      <ErrorText error={reject.error} />
    </form>
  );
}

function TakePayout({ deal }: { deal: TraderDeal }) {
  const take = useMove(() => unwrap(api.POST('/api/v1/p2p/trader/deals/{deal_id}/take', path(deal))));
  return (
    <div className="trader-move">
      <button type="button" className="primary big" disabled={take.isPending} onClick={() => take.mutate()}>
        {take.isPending ? 'Taking…' : 'Take'}
      </button>
      <small className="muted">The payout becomes yours: start the transfer before its time runs out, or it expires.</small>
      <ErrorText error={take.error} />
    </div>
  );
}

/** A card number in groups of four, as printed on the card ("4111 1111 1111 1111"); any other number as it is. */
const groupedNumber = (n: string) => (/^\d{13,19}$/.test(n) ? n.replace(/(\d{4})(?=\d)/g, '$1 ') : n);

/** Copies the recipient's number for the bank app, digits only; says so for a moment. */
function CopyNumber({ text }: { text: string }) {
  const [copied, setCopied] = useState<'' | 'yes' | 'no'>('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
    setTimeout(() => setCopied(''), 2000);
  };
  return (
    <>
      <button type="button" className="copy-number" aria-label="Copy the recipient's number" onClick={() => void copy()}>
        Copy
      </button>
      <span role="status" className="muted">
        {copied === 'yes' ? ' Copied' : copied === 'no' ? ' Copy it by hand' : ''}
      </span>
    </>
  );
}

function DealCard({ deal }: { deal: TraderDeal }) {
  const payin = deal.deal_type === 'PAYIN';
  const can = (move: TraderDeal['moves'][number]) => deal.moves.includes(move);
  return (
    <article className="trader-card" aria-label={`${payin ? 'PayIn' : 'PayOut'} ${amountOf(deal.amount, deal)}`} data-deal-id={deal.deal_id}>
      <header>
        <span className="badge">{payin ? 'PayIn: you receive' : 'PayOut: you send'}</span>
        <span className="status" data-status={deal.status}>
          {dealStatusWords(deal.status)}
        </span>
      </header>
      <p className="trader-amount">{amountOf(payin ? deal.amount_to_pay : deal.amount, deal)}</p>
      <Countdown deal={deal} />
      {payin ? (
        <p className="muted">
          To your <Text value={requisiteSummaryWords(deal.requisite_summary)} />
        </p>
      ) : (
        <div className="trader-target">
          <p>
            To <Text value={deal.target_name || 'the recipient'} />
            {deal.target_bank && (
              <>
                {' '}
                · <Text value={deal.target_bank} />
              </>
            )}
          </p>
          {deal.target_requisite && (
            <p>
              <span className="mono trader-number" data-testid="target-requisite">
                <Text value={groupedNumber(deal.target_requisite)} />
              </span>{' '}
              <CopyNumber text={deal.target_requisite} />
            </p>
          )}
        </div>
      )}
      {deal.amount_match_status && (
        <p>
          Received {amountOf(deal.received_amount, deal)} ({AMOUNT_MATCH_WORDS[deal.amount_match_status] ?? deal.amount_match_status})
        </p>
      )}
      {deal.not_received_at && <p className="muted">You reported it not received {when(deal.not_received_at)}.</p>}
      {deal.bank_reference && (
        <p className="muted">
          Proof sent: <Text value={deal.bank_reference} />
        </p>
      )}
      {can('confirm') && <ConfirmPayin deal={deal} />}
      {can('not_received') && <NotReceived deal={deal} />}
      {can('take') && <TakePayout deal={deal} />}
      {can('start') && <StartPayout deal={deal} />}
      {can('complete') && <CompletePayout deal={deal} />}
      {can('reject') && <RejectPayout deal={deal} />}
    </article>
  );
}

/** The home page's line about the queue: how many deals wait for the trader, and the payouts it may take. */
export function DealsToday() {
  const deals = useDeals();
  const available = useAvailable();
  if (!deals.data || !available.data) return null;
  const waiting = deals.data.live.filter((d) => d.moves.length > 0).length;
  return (
    <p data-testid="deals-today">
      <Link to="/deals">Deals</Link>: {waiting === 0 ? 'nothing waits for you' : `${waiting} waiting for you`}
      {available.data.data.length > 0 ? `, ${available.data.data.length} payouts you may take` : ''}.
    </p>
  );
}

export function TraderDeals() {
  const [tab, setTab] = useState<'mine' | 'available'>('mine');
  const deals = useDeals();
  const available = useAvailable();
  return (
    <section className="trader-deals">
      <h1>Deals</h1>
      <div className="trader-tabs" role="tablist">
        <button type="button" role="tab" aria-selected={tab === 'mine'} onClick={() => setTab('mine')}>
          My deals{deals.data ? ` (${deals.data.live.length})` : ''}
        </button>
        <button type="button" role="tab" aria-selected={tab === 'available'} onClick={() => setTab('available')}>
          Available payouts{available.data ? ` (${available.data.data.length})` : ''}
        </button>
      </div>
      {tab === 'mine' ? (
        deals.isPending ? (
          <Loading what="your deals" />
        ) : deals.error ? (
          <ErrorText error={deals.error} />
        ) : (
          <>
            {deals.data.live.length === 0 && <p className="muted">No live deals right now.</p>}
            {deals.data.live.map((deal) => (
              <DealCard key={deal.deal_id} deal={deal} />
            ))}
            {deals.data.history.length > 0 && (
              <>
                <h2>History</h2>
                <ul className="trader-history">
                  {deals.data.history.map((deal) => (
                    <li key={deal.deal_id} data-deal-id={deal.deal_id}>
                      <span>{deal.deal_type === 'PAYIN' ? 'PayIn' : 'PayOut'}</span> <strong>{amountOf(deal.amount, deal)}</strong>{' '}
                      <span className="status" data-status={deal.status}>
                        {dealStatusWords(deal.status)}
                      </span>{' '}
                      <span className="muted">{when(deal.updated_at)}</span>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        )
      ) : available.isPending ? (
        <Loading what="the payouts you may take" />
      ) : available.error ? (
        <ErrorText error={available.error} />
      ) : (
        <>
          {available.data.data.length === 0 && <p className="muted">No payout is waiting for a trader right now.</p>}
          {available.data.data.map((deal) => (
            <DealCard key={deal.deal_id} deal={deal} />
          ))}
        </>
      )}
    </section>
  );
}
