import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, fileUrl, int64, unwrap, type Schemas } from '../api';
import { DataTable, FilterForm, PagedTable, TextFilter, useFilterForm, usePagedList } from '../list';
import { Link, navigate, useRoute } from '../router';
import { useCan } from '../session';
import { Action, ErrorText, Field, Loading, money, when } from '../ui';

export function Deals() {
  const { search } = useRoute();
  const filters = useFilterForm({
    deal_id: search.get('deal_id') ?? '',
    merchant_id: search.get('merchant_id') ?? '',
    status: search.get('status') ?? '',
    from: '',
    to: '',
  });
  const { filter } = filters;
  const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);
  const deals = usePagedList(['deals', filter], (page_token) =>
    unwrap(
      api.GET('/api/v1/p2p/admin/deals', {
        params: {
          query: {
            page_size: 25,
            page_token,
            deal_id: filter.deal_id || undefined,
            merchant_id: filter.merchant_id || undefined,
            status: filter.status || undefined,
            created_after: toIso(filter.from),
            created_before: toIso(filter.to),
          },
        },
      }),
    ),
  );
  return (
    <>
      <h1>Deals</h1>
      <FilterForm label="Search deals" submit="Search" onApply={filters.apply}>
        <TextFilter label="Deal id" {...filters.input('deal_id')} />
        <TextFilter label="Merchant id" {...filters.input('merchant_id')} />
        <TextFilter label="Status" {...filters.input('status')} placeholder="e.g. COMPLETED" />
        <TextFilter label="Created from" type="datetime-local" {...filters.input('from')} />
        <TextFilter label="Created to" type="datetime-local" {...filters.input('to')} />
      </FilterForm>
      <PagedTable
        paged={deals}
        what="deals"
        caption="Deals, newest first"
        columns={['Deal', 'Type', 'Status', 'Amount', 'Merchant', 'Created']}
        rowKey={(d) => d.deal_id}
        row={(d) => (
          <tr>
            <td>
              <Link to={`/deals/${d.deal_id}`}>{d.deal_id.slice(0, 8)}</Link>
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
              {money(d.amount)} {d.currency}
            </td>
            <td>
              <Link to={`/merchants/${d.merchant_id}`}>{d.merchant_id.slice(0, 8)}</Link>
            </td>
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
  const { deal: d, workflow, events, webhook_attempts: attempts, operator_moves: moves, payer_proof: proof } = deal.data;
  return (
    <>
      {back}
      <h1>
        Deal {d.deal_id.slice(0, 8)} <span className="badge">{d.status}</span>
      </h1>
      <dl>
        <dt>Deal id</dt>
        <dd className="mono">{d.deal_id}</dd>
        <dt>Type</dt>
        <dd>{d.deal_type}</dd>
        <dt>Amount</dt>
        <dd>
          {money(d.amount)} {d.currency} (received {money(d.received_amount)}, {d.amount_match_status || 'not reconciled'})
        </dd>
        <dt>Merchant</dt>
        <dd>
          <Link to={`/merchants/${d.merchant_id}`}>{d.merchant_id}</Link>
        </dd>
        <dt>Trader / requisite</dt>
        <dd className="mono">{d.trader_id ? `${d.trader_id} / ${d.requisite_id}` : 'unassigned'}</dd>
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
      <DealActions d={d} moves={moves} />
      {d.deal_type === 'PAYIN' && <PayerProof proof={proof} />}
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
                    {r.file_name || r.file_id.slice(0, 8)} ({r.content_type}, {Math.ceil(Number(r.size) / 1024)} KB)
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

/** The operator moves the deal's state allows now, as the API answers them (from the state tables); the API refuses any other. */
function DealActions({ d, moves }: { d: ConsoleDeal; moves: readonly OperatorMove[] }) {
  const can = useCan();
  const [received, setReceived] = useState('');
  const [amount, setAmount] = useState('');
  const [amountReason, setAmountReason] = useState('');
  const [amountKey] = useState(() => crypto.randomUUID());
  const [rejectReason, setRejectReason] = useState('');
  const [requisite, setRequisite] = useState('');
  const path = { params: { path: { deal_id: d.deal_id } } };
  const at = (move: OperatorMove) => moves.includes(move);
  const shown = moves.length > 0;
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
  const amountText = (digits: string) => (/^\d+$/.test(digits.trim()) ? `${money(digits.trim())} ${d.currency}` : digits);
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
                text: `The trader's receipt of ${money(d.amount)} ${d.currency} is confirmed: the deal becomes PAYMENT_VERIFIED, then COMPLETED unless the reconciliation was partial or overpaid.`,
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
              confirm={{ title: 'Complete the deal?', text: 'The deal is COMPLETED: the escrow is debited and the merchant credited.', label: 'Complete' }}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/deals/{deal_id}/complete', path))}
            />
          )}
          {at('reconcile') && can('adminReconcileDeal') && (
            <div className="inline-form">
              <Field label="Amount received (minor units)">
                <input inputMode="numeric" value={received} onChange={(e) => setReceived(e.target.value.trim())} />
              </Field>
              <Action
                op="adminReconcileDeal"
                label="Record received amount…"
                confirm={{
                  title: 'Record the received amount?',
                  text: `The payer paid ${amountText(received)} (the deal asks ${money(d.amount)} ${d.currency}); a partial or overpaid amount blocks the automatic completion.`,
                  label: 'Record',
                }}
                run={() => unwrap(api.POST('/api/v1/p2p/admin/deals/{deal_id}/reconciliation', { ...path, body: { received_amount: int64(received) } }))}
              />
            </div>
          )}
          {at('change_amount') && can('changeDealAmount') && (
            <div className="inline-form">
              <Field label="New amount (minor units)">
                <input inputMode="numeric" value={amount} onChange={(e) => setAmount(e.target.value.trim())} />
              </Field>
              <Field label="Reason for the change">
                <input maxLength={1000} value={amountReason} onChange={(e) => setAmountReason(e.target.value)} />
              </Field>
              <Action
                op="changeDealAmount"
                label="Change amount…"
                confirm={{
                  title: 'Change the deal amount?',
                  text: `The amount goes from ${money(d.amount)} ${d.currency} to ${amountText(amount)} (a new amount version); the escrow is recreated and the merchant notified.`,
                  label: 'Change amount',
                }}
                run={() =>
                  unwrap(
                    api.POST('/api/v1/p2p/deals/{deal_id}/amount', {
                      ...path,
                      body: { amount_fiat: int64(amount), reason: amountReason, idempotency_key: amountKey },
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
              confirm={{ title: 'Start the transfer?', text: 'The trader starts the transfer: MATCHED → PROCESSING.', label: 'Start' }}
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
                text: 'The transfer succeeded: the deal is COMPLETED and the merchant’s hold is debited.',
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
                confirm={{ title: 'Reject the payout?', text: 'The transfer failed: the deal is FAILED and the merchant’s hold is returned.', label: 'Reject' }}
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
                  text: `The payout is MATCHED to requisite ${requisite || '?'}; a new transfer window starts.`,
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
