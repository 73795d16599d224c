import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, fileUrl, int64, unwrap, type Schemas } from '../api';
import { DataTable, PagedTable, usePagedList } from '../list';
import { FilterBar, useUrlFilters, type FilterSpec } from '../filters';
import { ExportCsv, Fact, IdLink, Named } from '../names';
import { PAYIN_STATUSES } from '../../../domain/state/payin';
import { PAYOUT_STATUSES } from '../../../domain/state/payout';
import type { operations } from '@merchant-gateway/sdk/openapi';
import { Link, navigate } from '../router';
import { useCan } from '../session';
import { Action, ErrorText, Field, Loading, StatusAfter, when } from '../ui';
import { Money, MoneyInput, useFormatMoney, useToMinor } from '../money';
import { Text } from '../text';

/** The statuses a deal can have: the PayIn and PayOut state tables'. */
const DEAL_STATUSES = [...new Set([...PAYIN_STATUSES, ...PAYOUT_STATUSES])];
type DealStatus = (typeof DEAL_STATUSES)[number];
type DealSort = NonNullable<operations['adminSearchDeals']['parameters']['query']>['sort'];

const FILTERS: FilterSpec[] = [
  { key: 'deal_id', label: 'Deal id', kind: 'text', placeholder: 'whole or first 8 characters' },
  { key: 'merchant_id', label: 'Merchant id', kind: 'text', placeholder: 'whole or first 8 characters' },
  { key: 'status', label: 'Status', kind: 'multi', options: DEAL_STATUSES },
  { key: 'deal_type', label: 'Type', kind: 'select', options: ['PAYIN', 'PAYOUT'] },
  { key: 'from', label: 'Created from', kind: 'datetime' },
  { key: 'to', label: 'Created to', kind: 'datetime' },
];

export function Deals() {
  const filters = useUrlFilters();
  const statuses = filters.all('status').filter((s): s is DealStatus => (DEAL_STATUSES as readonly string[]).includes(s));
  const type = filters.get('deal_type') as 'PAYIN' | 'PAYOUT' | '';
  const sort: NonNullable<DealSort> = (filters.get('sort') || '-created_at') as NonNullable<DealSort>;
  const query = {
    deal_id: filters.get('deal_id') || undefined,
    merchant_id: filters.get('merchant_id') || undefined,
    status: statuses.length ? statuses : undefined,
    deal_type: type || undefined,
    created_after: filters.get('from') || undefined,
    created_before: filters.get('to') || undefined,
    sort,
  };
  const deals = usePagedList(['deals', query], (page_token) =>
    unwrap(api.GET('/api/v1/p2p/admin/deals', { params: { query: { page_size: 25, page_token, ...query } } })),
  );
  return (
    <>
      <h1>Deals</h1>
      <FilterBar label="Filter deals" specs={FILTERS} filters={filters} view="deals" />
      <div className="list-actions">
        <ExportCsv op="adminExportDeals" path="/deals/export" query={query} />
      </div>
      <PagedTable
        paged={deals}
        what="deals"
        caption="Deals"
        columns={['Deal', 'Type', 'Status', 'Amount', 'Merchant', 'Trader', 'Created']}
        sort={{ columns: { Amount: 'amount', Created: 'created_at' }, current: sort, onSort: (order) => filters.set('sort', order) }}
        rowKey={(d) => d.deal_id}
        row={(d) => (
          <tr data-deal={d.deal_id}>
            <td>
              <IdLink kind="deal" id={d.deal_id} />
              {d.appeal_id && (
                <>
                  {' '}
                  <Link to={`/appeals/${d.appeal_id}`} className="badge">
                    appeal
                  </Link>
                </>
              )}
              {d.sandbox ? (
                <>
                  {' '}
                  <span className="badge sandbox">sandbox</span>
                </>
              ) : null}
            </td>
            <td>{d.deal_type}</td>
            <td>
              <span className="badge">{d.status}</span>
            </td>
            <td className="num">
              <Money minor={d.amount} currency={d.currency} />
            </td>
            <td>
              <Named kind="merchant" id={d.merchant_id} name={d.merchant_name} />
            </td>
            <td>{d.trader_id ? <Named kind="trader" id={d.trader_id} name={d.trader_name} /> : <span className="muted">unassigned</span>}</td>
            <td>{when(d.created_at)}</td>
          </tr>
        )}
        empty="No deals match."
      />
    </>
  );
}

export function DealDetail({ id }: { id: string }) {
  const deal = useQuery({ queryKey: ['deal', id], queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/deals/{deal_id}', { params: { path: { deal_id: id } } })) });
  if (deal.isPending) return <Loading what="the deal" />;
  const back = (
    <p>
      <a
        href="/console/deals"
        onClick={(e) => {
          e.preventDefault();
          navigate('/deals');
        }}
      >
        ← Deals
      </a>
    </p>
  );
  if (deal.error)
    return (
      <>
        {back}
        <ErrorText error={deal.error} />
      </>
    );
  const { deal: d, workflow, events, webhook_attempts: attempts, move_outcomes: outcomes, payer_proof: proof, routing } = deal.data;
  return (
    <>
      {back}
      <h1>
        Deal {d.deal_id.slice(0, 8)} <span className="badge">{d.status}</span>
      </h1>
      <dl>
        <dt>Deal id</dt>
        <dd>
          <IdLink kind="deal" id={d.deal_id} full />
        </dd>
        <dt>Type</dt>
        <dd>{d.deal_type}</dd>
        <dt>Amount</dt>
        <dd>
          <Money minor={d.amount} currency={d.currency} /> (received <Money minor={d.received_amount} currency={d.currency} />,{' '}
          {d.amount_match_status || 'not reconciled'})
        </dd>
        <dt>Merchant</dt>
        <dd>
          <Named kind="merchant" id={d.merchant_id} name={d.merchant_name} />
        </dd>
        <dt>Trader</dt>
        <dd>{d.trader_id ? <Named kind="trader" id={d.trader_id} name={d.trader_name} /> : 'unassigned'}</dd>
        <Fact label="Trader's requisite">
          {d.requisite_id && (
            <>
              <Text value={d.requisite_summary} /> <IdLink kind="requisite" id={d.requisite_id} />
            </>
          )}
        </Fact>
        {d.deal_type === 'PAYOUT' && (
          <>
            <dt>Recipient</dt>
            <dd data-testid="recipient">
              <span className="mono">{d.target_requisite}</span>
              {d.target_name && (
                <>
                  {' · '}
                  <Text value={d.target_name} />
                </>
              )}
              {d.target_bank && (
                <>
                  {' · '}
                  <Text value={d.target_bank} />
                </>
              )}
            </dd>
          </>
        )}
        <Fact label="Appeal">{d.appeal_id && <IdLink kind="appeal" id={d.appeal_id} />}</Fact>
        <Fact label="Settles">
          {d.parent_deal_id && (
            <>
              the expired deal <IdLink kind="deal" id={d.parent_deal_id} /> under appeal <IdLink kind="appeal" id={d.origin_appeal_id ?? ''} />
            </>
          )}
        </Fact>
        <dt>Created / updated</dt>
        <dd>
          {when(d.created_at)} / {when(d.updated_at)}
        </dd>
        <dt>Workflow</dt>
        <dd>
          {workflow.ui_url ? (
            <a href={workflow.ui_url} target="_blank" rel="noreferrer">
              {workflow.workflow_id} in the Temporal UI ({workflow.namespace})
            </a>
          ) : (
            <span className="mono">{workflow.workflow_id}</span>
          )}
        </dd>
      </dl>
      <DealActions d={d} outcomes={outcomes} />
      {routing && <Routing routing={routing} />}
      {d.deal_type === 'PAYIN' && <PayerProof proof={proof} />}
      <ConfirmedByBank n={deal.data.bank_notification} traderId={d.trader_id} />
      <section aria-labelledby="events-h">
        <h2 id="events-h">Events</h2>
        <DataTable
          columns={['At', 'Event', 'Status in the event', 'Dispatched']}
          rows={events}
          rowKey={(e) => e.event_id}
          row={(e) => (
            <tr>
              <td>{when(e.created_at)}</td>
              <td>{e.event_type}</td>
              <td>{String((e.payload as { status?: string } | null)?.status ?? '')}</td>
              <td>{when(e.dispatched_at)}</td>
            </tr>
          )}
          empty="No events."
        />
      </section>
      <section aria-labelledby="attempts-h">
        <h2 id="attempts-h">Webhook attempts</h2>
        <DataTable
          columns={['At', 'Event', 'URL', 'Attempt', 'Result', 'Delivery']}
          rows={attempts}
          rowKey={(a) => `${a.callback_id}:${a.attempt}`}
          row={(a) => (
            <tr>
              <td>{when(a.at)}</td>
              <td>{a.event_type}</td>
              <td className="mono">{a.url}</td>
              <td>{a.attempt || 'not yet'}</td>
              <td>{a.attempt ? `${a.status} ${a.http_status || ''} ${a.duration_ms} ms ${a.error}` : ''}</td>
              <td>{a.delivery_status}</td>
            </tr>
          )}
          empty="No webhook deliveries."
        />
      </section>
    </>
  );
}

/** The bank notification that confirmed the deal: which phone forwarded it, whose, when, and what the bank said. */
function ConfirmedByBank({ n, traderId }: { n: Schemas['DealBankNotification']; traderId: string }) {
  const format = useFormatMoney();
  if (!n) return null;
  const bank = { sberbank: 'Sberbank', tbank: 'T-Bank', kaspi: 'Kaspi', kapitalbank: 'Kapitalbank', ziraat: 'Ziraat', sbp: 'SBP' }[n.parser] ?? n.parser;
  return (
    <p data-testid="confirmed-by-bank" data-notification={n.notification_id}>
      Confirmed by the bank notification forwarded by <Text value={n.device_name} /> (<Text value={n.trader_name} />) at {when(n.received_at)}:{' '}
      <Text value={bank} /> credit of {format(n.amount, n.currency)}
      {n.status === 'ATTACHED' ? ', attached by an operator' : ''}.{' '}
      <Link to={`/bank-notifications?status=${n.status}${traderId ? `&trader_id=${traderId}` : ''}`}>This trader’s bank notifications</Link>
    </p>
  );
}

/**
 * Why the deal went to its requisite (docs/routing.md): "Routed to <trader> · <requisite> — best score
 * of 4 candidates (812 vs 640, 500, 455)", then the candidates by name with their scores.
 */
function Routing({ routing: r }: { routing: NonNullable<Schemas['RoutingDecision']> }) {
  return (
    <section aria-labelledby="routing-h">
      <h2 id="routing-h">Routing</h2>
      <p data-testid="routing">
        Routed to <Named kind="trader" id={r.chosen.trader_id} name={r.chosen.trader_name} />
        {r.chosen.requisite_summary && (
          <>
            {' · '}
            <Text value={r.chosen.requisite_summary} />
          </>
        )}{' '}
        — {r.reason_text}
      </p>
      {r.candidates.length > 1 && (
        <details>
          <summary>
            {r.candidates.length} candidates{r.explored ? ', tried in random order' : ', best score first'}
          </summary>
          <ol>
            {r.candidates.map((c) => (
              <li key={c.requisite_id}>
                <Named kind="trader" id={c.trader_id} name={c.trader_name} /> · score {c.score}
                {c.same_bank ? ' · same bank' : ''}
                {c.chosen ? ' · chosen' : ''} <IdLink kind="requisite" id={c.requisite_id} />
              </li>
            ))}
          </ol>
        </details>
      )}
    </section>
  );
}

/** What the payer sent from the payment page: the reference they were shown, the card's last digits, their receipts. */
function PayerProof({ proof }: { proof: Schemas['PayerProof'] }) {
  return (
    <section aria-labelledby="payer-proof-h">
      <h2 id="payer-proof-h">Payer's proof</h2>
      <dl>
        <dt>Payment reference</dt>
        <dd className="mono">{proof.reference || '—'}</dd>
        <dt>Card paid with</dt>
        <dd>{proof.card_last4 ? `ending in ${proof.card_last4}` : 'not given'}</dd>
        <dt>Receipts</dt>
        <dd>
          {proof.receipts.length === 0
            ? 'none sent'
            : proof.receipts.map((r) => (
                <span key={r.file_id}>
                  <a href={fileUrl(r.file_id)} target="_blank" rel="noreferrer">
                    {r.file_name ? <Text value={r.file_name} /> : r.file_id.slice(0, 8)} ({r.content_type}, {Math.ceil(Number(r.size) / 1024)} KB)
                  </a>{' '}
                  {when(r.created_at)}{' '}
                </span>
              ))}
        </dd>
      </dl>
    </section>
  );
}

type ConsoleDeal = Schemas['ConsoleDeal'];

type OperatorMove = Schemas['ConsoleDealTimeline']['operator_moves'][number];
type MoveOutcome = Schemas['ConsoleDealTimeline']['move_outcomes'][number];

/** A move's promise: the deal's status after it and the money, both as the API answered them from the state table. */
function Outcome({ d, after, money: what }: { d: ConsoleDeal; after: string; money: string }) {
  return (
    <>
      <p>
        <StatusAfter subject="The deal" now={d.status} after={after} kind="deal" />.
      </p>
      <p className="muted">Money: {what}.</p>
    </>
  );
}

/**
 * The operator moves the deal's state allows now, as the API answers them (from the state tables),
 * each confirmed with what it will do; the API refuses any other.
 */
function DealActions({ d, outcomes }: { d: ConsoleDeal; outcomes: readonly MoveOutcome[] }) {
  const can = useCan();
  const [received, setReceived] = useState('');
  const [amount, setAmount] = useState('');
  const [amountReason, setAmountReason] = useState('');
  const [amountKey] = useState(() => crypto.randomUUID());
  const [rejectReason, setRejectReason] = useState('');
  const [requisite, setRequisite] = useState('');
  const path = { params: { path: { deal_id: d.deal_id } } };
  const format = useFormatMoney();
  const toMinor = useToMinor(d.currency);
  /** The minor units of what the operator typed, or undefined while it is not an amount. */
  const minorOf = (text: string) => {
    try {
      return toMinor(text);
    } catch {
      return undefined;
    }
  };
  const outcome = (move: OperatorMove) => outcomes.find((o) => o.move === move);
  const at = (move: OperatorMove) => outcome(move) !== undefined;
  const shown = outcomes.length > 0;
  const promise = (move: OperatorMove) => {
    const o = outcome(move)!;
    return <Outcome d={d} after={o.status_after} money={o.money} />;
  };
  // What recording this amount does: the full amount to pay may complete a verified deal; any other amount leaves it.
  const reconciled = (text: string) => {
    const o = outcome('reconcile');
    if (!o) return null;
    const minor = minorOf(text);
    const full = minor !== undefined && minor === o.full_match_amount;
    return (
      <>
        <Outcome d={d} after={full ? o.status_after_full_match : o.status_after} money={o.money} />
        <p className="muted">
          {full
            ? 'It is the full amount to pay.'
            : `The full amount to pay is ${format(o.full_match_amount, d.currency)}; a partial or overpaid amount blocks the automatic completion.`}
        </p>
      </>
    );
  };
  const anyRole = [
    'adminConfirmDeal',
    'adminCompleteDeal',
    'adminReconcileDeal',
    'changeDealAmount',
    'adminStartPayout',
    'adminCompletePayout',
    'adminRejectPayout',
    'adminAssignPayout',
  ] as const;
  if (!shown || !anyRole.some((op) => can(op))) return null;
  const amountText = (text: string) => {
    const minor = minorOf(text);
    return minor === undefined ? `“${text}” (not an amount)` : format(minor, d.currency);
  };
  return (
    <section aria-labelledby="deal-actions-h">
      <h2 id="deal-actions-h">Actions</h2>
      {d.deal_type === 'PAYIN' ? (
        <div className="deal-actions">
          {at('confirm') && (
            <Action
              op="adminConfirmDeal"
              label="Confirm payment…"
              className="primary"
              confirm={{
                title: 'Confirm the payment?',
                text: (
                  <>
                    <p>
                      The trader's receipt of {format(d.amount, d.currency)} is confirmed
                      {outcome('confirm')?.status_after === 'PAYMENT_VERIFIED'
                        ? '; the recorded amount (partial or overpaid) blocks the automatic completion, so an operator completes it later.'
                        : ' and the deal completes in the same step.'}
                    </p>
                    {promise('confirm')}
                  </>
                ),
                label: 'Confirm payment',
              }}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/deals/{deal_id}/confirm', path))}
            />
          )}
          {at('complete') && (
            <Action
              op="adminCompleteDeal"
              label="Complete…"
              className="primary"
              confirm={{ title: 'Complete the deal?', text: promise('complete'), label: 'Complete' }}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/deals/{deal_id}/complete', path))}
            />
          )}
          {at('reconcile') && can('adminReconcileDeal') && (
            <div className="inline-form">
              <MoneyInput label="Amount received" currency={d.currency} value={received} onChange={setReceived} />
              <Action
                op="adminReconcileDeal"
                label="Record received amount…"
                confirm={{
                  title: 'Record the received amount?',
                  text: (
                    <>
                      <p>
                        The payer paid {amountText(received)} (the deal asks {format(d.amount, d.currency)}).
                      </p>
                      {reconciled(received)}
                    </>
                  ),
                  label: 'Record',
                }}
                run={() =>
                  unwrap(
                    api.POST('/api/v1/p2p/admin/deals/{deal_id}/reconciliation', {
                      ...path,
                      body: { received_amount: int64(toMinor(received, 'the amount received')) },
                    }),
                  )
                }
              />
            </div>
          )}
          {at('change_amount') && can('changeDealAmount') && (
            <div className="inline-form">
              <MoneyInput label="New amount" currency={d.currency} value={amount} onChange={setAmount} />
              <Field label="Reason for the change">
                <input maxLength={1000} value={amountReason} onChange={(e) => setAmountReason(e.target.value)} />
              </Field>
              <Action
                op="changeDealAmount"
                label="Change amount…"
                confirm={{
                  title: 'Change the deal amount?',
                  text: (
                    <>
                      <p>
                        The amount goes from {format(d.amount, d.currency)} to {amountText(amount)} (a new amount version); the merchant is notified.
                      </p>
                      {promise('change_amount')}
                    </>
                  ),
                  label: 'Change amount',
                }}
                run={() =>
                  unwrap(
                    api.POST('/api/v1/p2p/deals/{deal_id}/amount', {
                      ...path,
                      body: { amount_fiat: int64(toMinor(amount, 'the new amount')), reason: amountReason, idempotency_key: amountKey },
                    }),
                  )
                }
              />
            </div>
          )}
        </div>
      ) : (
        <div className="deal-actions">
          {at('payout_start') && (
            <Action
              op="adminStartPayout"
              label="Start transfer…"
              confirm={{ title: 'Start the transfer?', text: promise('payout_start'), label: 'Start' }}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/deals/{deal_id}/payout/start', path))}
            />
          )}
          {at('payout_complete') && (
            <Action
              op="adminCompletePayout"
              label="Complete transfer…"
              className="primary"
              confirm={{
                title: 'Complete the payout?',
                text: promise('payout_complete'),
                label: 'Complete',
              }}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/deals/{deal_id}/payout/complete', path))}
            />
          )}
          {at('payout_reject') && can('adminRejectPayout') && (
            <div className="inline-form">
              <Field label="Rejection reason">
                <input maxLength={500} value={rejectReason} onChange={(e) => setRejectReason(e.target.value)} />
              </Field>
              <Action
                op="adminRejectPayout"
                label="Reject transfer…"
                className="danger"
                confirm={{ title: 'Reject the payout?', text: promise('payout_reject'), label: 'Reject' }}
                run={() => unwrap(api.POST('/api/v1/p2p/admin/deals/{deal_id}/payout/reject', { ...path, body: { reason: rejectReason } }))}
              />
            </div>
          )}
          {at('payout_assign') && can('adminAssignPayout') && (
            <div className="inline-form">
              <Field label="Requisite id">
                <input value={requisite} onChange={(e) => setRequisite(e.target.value.trim())} />
              </Field>
              <Action
                op="adminAssignPayout"
                label="Assign…"
                confirm={{
                  title: 'Assign the payout?',
                  text: (
                    <>
                      <p>The payout goes to requisite {requisite || '?'}; a new transfer window starts.</p>
                      {promise('payout_assign')}
                    </>
                  ),
                  label: 'Assign',
                }}
                run={() => unwrap(api.POST('/api/v1/p2p/admin/deals/{deal_id}/payout/assign', { ...path, body: { requisite_id: requisite } }))}
              />
            </div>
          )}
        </div>
      )}
    </section>
  );
}
