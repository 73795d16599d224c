/**
 * The cabinet's Deals page: the merchant's deals with a search (a deal id, a payer's client id)
 * and filters in the URL, the CSV export of the same selection; a deal's page with its timeline —
 * the events it emitted and every webhook attempt with the receiver's answer — and the retry of a
 * failed delivery (docs/cabinet.md, "Deals").
 */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { FilterBar, useUrlFilters, type FilterSpec } from '../filters';
import { DataTable, Loaded, PagedTable, usePagedList } from '../list';
import { Fact } from '../names';
import { Link, useRoute } from '../router';
import { useCan } from '../session';
import { Text } from '../text';
import { Action, money, when } from '../ui';

const DEAL_STATUSES = [
  'INITIALIZED',
  'ESCROW_LOCKED',
  'PAYMENT_NOTIFIED',
  'PAYMENT_VERIFIED',
  'COMPLETED',
  'EXPIRED',
  'APPEALED',
  'CANCELLED',
  'FAILED',
  'PENDING',
  'IN_PROGRESS',
] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const SPECS: readonly FilterSpec[] = [
  { key: 'q', label: 'Deal id or client id', kind: 'text', placeholder: 'a whole deal id, or a client id' },
  { key: 'deal_type', label: 'Type', kind: 'select', options: ['PAYIN', 'PAYOUT'], anyLabel: 'PayIns and PayOuts' },
  { key: 'statuses', label: 'Status', kind: 'multi', options: DEAL_STATUSES },
  { key: 'created_after', label: 'Created from', kind: 'datetime' },
  { key: 'created_before', label: 'Created until', kind: 'datetime' },
];

type Deal = Schemas['MerchantDealInfo'];

export function CabinetDeals() {
  const { path } = useRoute();
  const id = path.startsWith('/deals/') ? path.slice('/deals/'.length) : '';
  return id ? <DealPage id={id} /> : <DealList />;
}

/** The search box: a whole deal id selects that deal; anything else is a client id. */
function queryOf(filters: ReturnType<typeof useUrlFilters>) {
  const q = filters.get('q').trim();
  return {
    deal_id: UUID.test(q) ? q.toLowerCase() : undefined,
    client_id: q && !UUID.test(q) ? q : undefined,
    deal_type: filters.get('deal_type') || undefined,
    statuses: filters.all('statuses').length ? filters.all('statuses') : undefined,
    created_after: filters.get('created_after') || undefined,
    created_before: filters.get('created_before') || undefined,
  };
}

function DealList() {
  const filters = useUrlFilters();
  const query = queryOf(filters);
  const paged = usePagedList(['cabinet-deals', query], (page_token) =>
    unwrap(api.GET('/api/v1/p2p/cabinet/deals', { params: { query: { ...query, page_token } } })),
  );
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) for (const v of Array.isArray(value) ? value : [value]) if (v) params.append(key, v);
  const can = useCan();
  return (
    <>
      <h1>Deals</h1>
      <FilterBar label="Search and filter deals" specs={SPECS} filters={filters} view="cabinet-deals">
        {can('cabinetExportDeals') && (
          <a className="button export" href={`/api/v1/p2p/cabinet/deals/export${params.size ? `?${params}` : ''}`} download>
            Export CSV
          </a>
        )}
      </FilterBar>
      <PagedTable
        paged={paged}
        what="the deals"
        caption="Deals, newest first"
        columns={['Deal', 'Type', 'Status', 'Amount', 'Client or recipient', 'Created']}
        rowKey={(d: Deal) => d.deal_id}
        empty="No deal matches."
        row={(d: Deal) => (
          <tr>
            <td>
              <Link to={`/deals/${d.deal_id}`} className="mono" title={`deal ${d.deal_id}`}>
                {d.deal_id.slice(0, 8)}
              </Link>
            </td>
            <td>{d.deal_type === 'PAYIN' ? 'PayIn' : 'PayOut'}</td>
            <td>{d.status}</td>
            <td className="num">
              {money(d.amount)} {d.currency}
            </td>
            <td>
              <Text value={d.client_id || d.target_requisite || ''} />
            </td>
            <td>{when(d.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

type Timeline = Schemas['CabinetDealTimeline'];
type Attempt = Timeline['webhook_attempts'][number];

function DealPage({ id }: { id: string }) {
  const timeline = useQuery({
    queryKey: ['cabinet-deal', id],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/cabinet/deals/{deal_id}', { params: { path: { deal_id: id } } })),
    // A retried delivery's outcome arrives within moments: read the timeline again while one is on its way.
    refetchInterval: (q) => (q.state.data?.webhook_attempts.some((a) => a.delivery_status === 'RETRY' || a.delivery_status === 'PENDING') ? 2000 : false),
  });
  return (
    <>
      <p>
        <Link to="/deals">← All deals</Link>
      </p>
      <h1>
        Deal <span className="mono">{id.slice(0, 8)}</span>
      </h1>
      <Loaded query={timeline} what="the deal">
        {(t) => <DealDetail timeline={t} />}
      </Loaded>
    </>
  );
}

function DealDetail({ timeline }: { timeline: Timeline }) {
  const can = useCan();
  const d = timeline.deal;
  // The deliveries, each once, with its attempts under it.
  const deliveries = new Map<string, Attempt[]>();
  for (const a of timeline.webhook_attempts) deliveries.set(a.callback_id, [...(deliveries.get(a.callback_id) ?? []), a]);
  return (
    <>
      <dl className="facts" data-testid="deal-facts">
        <Fact label="Deal id">
          <span className="mono">{d.deal_id}</span>
        </Fact>
        <Fact label="Type">{d.deal_type === 'PAYIN' ? 'PayIn' : 'PayOut'}</Fact>
        <Fact label="Status">{d.status}</Fact>
        <Fact label="Amount">
          {money(d.amount)} {d.currency}
        </Fact>
        <Fact label="Received">{d.received_amount ? `${money(d.received_amount)} ${d.currency}` : ''}</Fact>
        <Fact label="Client id">{d.client_id ? <Text value={d.client_id} /> : ''}</Fact>
        <Fact label="Recipient">{d.target_requisite ? <Text value={d.target_requisite} /> : ''}</Fact>
        {d.payout_proof && (
          <Fact label="Proof of transfer">
            <span data-testid="payout-proof">
              Bank reference <Text value={d.payout_proof.bank_reference} />
              {d.payout_proof.file_id && (
                <>
                  {' · '}
                  <a href={`/api/v1/p2p/merchant/files/${encodeURIComponent(d.payout_proof.file_id)}`} download>
                    the trader's receipt
                  </a>
                </>
              )}
            </span>
          </Fact>
        )}
        <Fact label="Created">{when(d.created_at)}</Fact>
        <Fact label="Updated">{when(d.updated_at)}</Fact>
      </dl>
      {can('createAppeal') && (
        <p>
          <Link to={`/appeals/new?deal_id=${d.deal_id}`}>Open an appeal on this deal</Link>
        </p>
      )}
      <h2>Events</h2>
      <DataTable
        caption="The deal's events, oldest first"
        columns={['Event', 'Happened', 'Handed to delivery']}
        rows={timeline.events}
        rowKey={(e) => e.event_id}
        empty="No event yet."
        row={(e) => (
          <tr>
            <td className="mono">{e.event_type}</td>
            <td>{when(e.created_at)}</td>
            <td>{e.dispatched_at ? when(e.dispatched_at) : 'waiting'}</td>
          </tr>
        )}
      />
      <h2>Webhook deliveries</h2>
      {deliveries.size === 0 && <p>No webhook was sent for this deal (no webhook URL, or nothing happened yet).</p>}
      {[...deliveries.entries()].map(([callbackId, attempts]) => (
        <Delivery key={callbackId} callbackId={callbackId} attempts={attempts} />
      ))}
    </>
  );
}

function Delivery({ callbackId, attempts }: { callbackId: string; attempts: Attempt[] }) {
  const first = attempts[0]!;
  const tried = attempts.filter((a) => a.attempt > 0);
  const retryable = first.delivery_status === 'ERROR' || first.delivery_status === 'RETRY';
  return (
    <section className="delivery" aria-label={`Delivery of ${first.event_type}`} data-testid="delivery" data-status={first.delivery_status}>
      <h3>
        <span className="mono">{first.event_type}</span> → <Text value={first.url} />: <strong>{first.delivery_status}</strong>
      </h3>
      {retryable && (
        <Action
          op="cabinetRetryDelivery"
          label="Retry delivery"
          run={() => unwrap(api.POST('/api/v1/p2p/cabinet/deliveries/{callback_id}/retry', { params: { path: { callback_id: callbackId } } }))}
          confirm={{
            title: `Retry the ${first.event_type} webhook?`,
            text: (
              <p>
                The same event (same event id and signature scheme) is sent once more to <Text value={first.url} />, now, through its delivery workflow. The
                delivery becomes RETRY until the answer; then SUCCESS, or {first.delivery_status} again if it fails. No money moves.
              </p>
            ),
            label: 'Send it again',
          }}
        />
      )}
      {tried.length === 0 ? (
        <p>Not tried yet.</p>
      ) : (
        <DataTable
          caption={`Attempts of the ${first.event_type} delivery`}
          columns={['Attempt', 'When', 'Outcome', 'HTTP', 'Took', 'Answer']}
          rows={tried}
          rowKey={(a) => `${a.callback_id}:${a.attempt}`}
          row={(a) => (
            <tr>
              <td>{a.attempt}</td>
              <td>{when(a.at)}</td>
              <td>{a.status}</td>
              <td>{a.http_status || 'none'}</td>
              <td>{a.duration_ms} ms</td>
              <td>
                {a.error && (
                  <p className="error-text">
                    <Text value={a.error} />
                  </p>
                )}
                <pre className="response-body" data-testid="response-body">
                  <Text value={a.response_body || '(empty)'} />
                </pre>
              </td>
            </tr>
          )}
        />
      )}
    </section>
  );
}
