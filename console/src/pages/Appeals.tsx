import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fileUrl, int64, unwrap } from '../api';
import type { paths } from '@merchant-gateway/sdk/openapi';
import { PagedTable, StatusMerchantFilter, usePagedList, useStatusMerchantFilter } from '../list';
import { Link, navigate, useRoute } from '../router';
import { useCan } from '../session';
import { Action, Confirm, ErrorText, Field, Loading, money, Submit, when } from '../ui';
import { CaseSection } from './AppealCase';

const STATUSES = ['', 'OPEN', 'IN_REVIEW', 'REOPENED', 'RESOLVED_MERCHANT', 'RESOLVED_TRADER', 'CLOSED'] as const;
type AppealStatus = Exclude<(typeof STATUSES)[number], ''>;

type AppealQuery = NonNullable<paths['/api/v1/p2p/admin/appeals']['get']['parameters']['query']>;
/** The appeals that still wait for an answer: their deadline runs. */
const WAITING = ['OPEN', 'IN_REVIEW', 'REOPENED'];
/** The desk's queues of appeals (the `queue` of the URL): what each asks the API for. */
const QUEUES: Record<'newest' | 'oldest' | 'mine' | 'unassigned' | 'overdue', { label: string; query: AppealQuery }> = {
  newest: { label: 'All, newest first', query: {} },
  oldest: { label: 'Waiting, oldest first', query: { sort: 'oldest', status: WAITING } },
  mine: { label: 'Assigned to me, oldest first', query: { sort: 'oldest', assignee: 'me', status: WAITING } },
  unassigned: { label: 'Nobody’s, oldest first', query: { sort: 'oldest', assignee: 'none', status: WAITING } },
  overdue: { label: 'Past their deadline, oldest first', query: { sort: 'oldest', overdue: 'true' } },
};
type QueueName = keyof typeof QUEUES;
const isQueue = (v: string | null): v is QueueName => v !== null && v in QUEUES;

export function Appeals() {
  const filter = useStatusMerchantFilter<AppealStatus>('');
  const { search } = useRoute();
  const wanted = search.get('queue');
  const queue: QueueName = isQueue(wanted) ? wanted : 'newest';
  const assignees = useAssignees();
  const appeals = usePagedList(['appeals', queue, filter.status, filter.merchant], (page_token) =>
    unwrap(
      api.GET('/api/v1/p2p/admin/appeals', {
        params: { query: { page_size: 25, page_token, ...QUEUES[queue].query, ...filter.query } },
      }),
    ),
  );
  return (
    <>
      <h1>Appeals</h1>
      <Field label="Queue">
        <select value={queue} onChange={(e) => navigate(`/appeals${e.target.value === 'newest' ? '' : `?queue=${e.target.value}`}`, true)}>
          {Object.entries(QUEUES).map(([name, q]) => (
            <option key={name} value={name}>
              {q.label}
            </option>
          ))}
        </select>
      </Field>
      <StatusMerchantFilter label="Filter appeals" statuses={STATUSES} filter={filter} />
      <PagedTable
        paged={appeals}
        what="appeals"
        caption={`Appeals: ${QUEUES[queue].label}`}
        columns={['Appeal', 'Status', 'Reason', 'Merchant', 'Respond by', 'Assignee', 'Updated']}
        rowKey={(a) => a.appeal_id}
        row={(a) => (
          <tr data-appeal={a.appeal_id}>
            <td>
              <Link to={`/appeals/${a.appeal_id}`}>{a.appeal_id.slice(0, 8)}</Link>
            </td>
            <td>
              <span className="badge">{a.status}</span>
            </td>
            <td>{a.reason}</td>
            <td className="mono">{a.merchant_id.slice(0, 8)}</td>
            <td>
              {when(a.respond_by)} {a.overdue && <span className="badge danger">overdue</span>}
            </td>
            <td>{a.assignee_id ? (assignees.get(a.assignee_id) ?? a.assignee_id.slice(0, 8)) : '—'}</td>
            <td>{when(a.updated_at)}</td>
          </tr>
        )}
        empty="No appeals."
      />
    </>
  );
}

/** The accounts an appeal may be assigned to: id → email. */
function useAssignees(): Map<string, string> {
  const list = useQuery({ queryKey: ['appeal-assignees'], queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/appeal-assignees')), staleTime: 60_000 });
  return new Map((list.data?.data ?? []).map((o) => [o.operator_id, o.email]));
}

export function AppealDetail({ id }: { id: string }) {
  const can = useCan();
  const appeal = useQuery({
    queryKey: ['appeal', id],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/appeals/{appeal_id}', { params: { path: { appeal_id: id } } })),
    // The merchant may write meanwhile: the conversation is read again while the page is open.
    refetchInterval: 10_000,
  });
  if (appeal.isPending) return <Loading what="the appeal" />;
  if (appeal.error)
    return (
      <>
        <p>
          <Link to="/appeals">← Appeals</Link>
        </p>
        <ErrorText error={appeal.error} />
      </>
    );
  const a = appeal.data.data;
  const files = new Map(a.files.map((f) => [f.file_id, f]));
  const open = a.status === 'OPEN' || a.status === 'IN_REVIEW' || a.status === 'REOPENED';
  const path = { params: { path: { appeal_id: id } } };
  return (
    <>
      <p>
        <Link to="/appeals">← Appeals</Link>
      </p>
      <h1>
        Appeal {a.appeal_id.slice(0, 8)}{' '}
        <span className="badge" data-testid="appeal-status">
          {a.status}
        </span>
      </h1>
      <dl>
        <dt>Reason</dt>
        <dd>{a.reason}</dd>
        <dt>Merchant</dt>
        <dd className="mono">{a.merchant_id}</dd>
        <dt>Opened</dt>
        <dd>{when(a.created_at)}</dd>
        {a.outcome && (
          <>
            <dt>Outcome</dt>
            <dd>{a.outcome}</dd>
            <dt>Resolution note</dt>
            <dd>{a.resolution_note}</dd>
          </>
        )}
        {a.settlement_deal_id && (
          <>
            <dt>Settlement deal</dt>
            <dd>
              <Link to={`/deals/${a.settlement_deal_id}`}>{a.settlement_deal_id}</Link>
            </dd>
          </>
        )}
      </dl>

      <CaseSection appeal={a} />

      <section aria-labelledby="deal-h">
        <h2 id="deal-h">The deal</h2>
        <dl>
          <dt>Deal</dt>
          <dd>
            <Link to={`/deals/${a.deal.deal_id}`}>{a.deal.deal_id}</Link>
          </dd>
          <dt>Type</dt>
          <dd>{a.deal.deal_type}</dd>
          <dt>Status</dt>
          <dd>
            {a.deal.status} (at the appeal's opening: {a.deal_status_at_open})
          </dd>
          <dt>Amount</dt>
          <dd>
            {money(a.deal.amount)} {a.deal.currency} (received {money(a.deal.received_amount)})
          </dd>
          <dt>Created</dt>
          <dd>{when(a.deal.created_at)}</dd>
        </dl>
      </section>

      <section aria-labelledby="evidence-h">
        <h2 id="evidence-h">Evidence</h2>
        {a.files.length === 0 && <p>No files.</p>}
        <ul className="evidence">
          {a.files.map((f) => (
            <li key={f.file_id}>
              {f.content_type.startsWith('image/') ? (
                <a href={fileUrl(f.file_id)} target="_blank" rel="noreferrer">
                  <img src={fileUrl(f.file_id)} alt={`Evidence ${f.file_id.slice(0, 8)} (${f.content_type})`} />
                </a>
              ) : null}
              <a href={fileUrl(f.file_id)} download>
                Download {f.content_type} ({f.size} bytes)
              </a>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="chat-h">
        <h2 id="chat-h">Conversation</h2>
        <ol className="chat">
          {a.messages.map((m) => (
            <li key={m.message_id} className={m.sender_role === 'ADMIN' ? 'mine' : ''}>
              <p className="meta">
                {m.sender_role === 'ADMIN' ? 'Operator' : 'Merchant'} · {when(m.created_at)}
              </p>
              <p>{m.body}</p>
              {m.file_ids.map((fid) => (
                <a key={fid} href={fileUrl(fid)} download>
                  Attachment {files.get(fid)?.content_type ?? fid.slice(0, 8)}
                </a>
              ))}
            </li>
          ))}
          {a.messages.length === 0 && <li>No messages yet.</li>}
        </ol>
        {can('adminCreateAppealMessage') && <Reply appealId={id} />}
      </section>

      <section aria-labelledby="actions-h">
        <h2 id="actions-h">Actions</h2>
        <div className="actions">
          {a.status !== 'IN_REVIEW' && open && (
            <Action op="adminReviewAppeal" label="Take into review" run={() => unwrap(api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/review', path))} />
          )}
          {!open && a.status !== 'CLOSED' && (
            <Action op="adminReopenAppeal" label="Reopen" run={() => unwrap(api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/reopen', path))} />
          )}
          {a.status !== 'CLOSED' && (
            <Action
              op="adminCloseAppeal"
              label="Close"
              confirm={{ title: 'Close this appeal?', text: 'The appeal is closed without a resolution.', label: 'Close appeal' }}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/close', path))}
            />
          )}
        </div>
        {open && can('adminResolveAppeal') && <Resolve appealId={id} dealStatus={a.deal.status} />}
        {can('settleAppeal') && a.deal.status === 'EXPIRED' && !a.settlement_deal_id && <Settle appealId={id} received={a.deal.received_amount} />}
      </section>
    </>
  );
}

function Reply({ appealId }: { appealId: string }) {
  const [body, setBody] = useState('');
  const queryClient = useQueryClient();
  const send = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/messages', { params: { path: { appeal_id: appealId } }, body: { body } })),
    onSuccess: async () => {
      setBody('');
      await queryClient.invalidateQueries({ queryKey: ['appeal', appealId] });
    },
  });
  return (
    <form
      className="reply"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        send.mutate();
      }}
    >
      <Field label="Reply to the merchant">
        <textarea required maxLength={4000} rows={3} value={body} onChange={(e) => setBody(e.target.value)} />
      </Field>
      <button type="submit" disabled={send.isPending || !body.trim()}>
        Send
      </button>
      <ErrorText error={send.error} />
    </form>
  );
}

function Resolve({ appealId, dealStatus }: { appealId: string; dealStatus: string }) {
  const [outcome, setOutcome] = useState<'SATISFIED' | 'REJECTED'>('SATISFIED');
  const [note, setNote] = useState('');
  const [asking, setAsking] = useState(false);
  const queryClient = useQueryClient();
  const resolve = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/resolve', { params: { path: { appeal_id: appealId } }, body: { outcome, ...(note ? { note } : {}) } }),
      ),
    onSuccess: () => queryClient.invalidateQueries(),
  });
  return (
    <form
      className="resolve"
      aria-label="Resolve the appeal"
      onSubmit={(e) => {
        e.preventDefault();
        setAsking(true);
      }}
    >
      <fieldset>
        <legend>Resolution</legend>
        <label>
          <input type="radio" name="outcome" value="SATISFIED" checked={outcome === 'SATISFIED'} onChange={() => setOutcome('SATISFIED')} /> SATISFIED (the
          merchant is right)
        </label>
        <label>
          <input type="radio" name="outcome" value="REJECTED" checked={outcome === 'REJECTED'} onChange={() => setOutcome('REJECTED')} /> REJECTED (the trader
          is right)
        </label>
      </fieldset>
      <Field label="Note">
        <textarea rows={2} maxLength={4000} value={note} onChange={(e) => setNote(e.target.value)} />
      </Field>
      <Submit label="Resolve…" mutation={resolve} done="Resolved" />
      {asking && (
        <Confirm
          title={`Resolve as ${outcome}?`}
          confirmLabel={`Resolve ${outcome}`}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            resolve.mutate();
          }}
        >
          <p>
            {outcome === 'SATISFIED'
              ? `The merchant's claim is upheld: the deal (now ${dealStatus}) is completed in the merchant's favour and the ledger moves accordingly.`
              : `The claim is rejected: the deal stays as it is (${dealStatus}).`}{' '}
            The merchant is notified. This cannot be undone (only reopened).
          </p>
        </Confirm>
      )}
    </form>
  );
}

function Settle({ appealId, received }: { appealId: string; received: string }) {
  const [override, setOverride] = useState('');
  const [reason, setReason] = useState('');
  const [key] = useState(() => crypto.randomUUID());
  const run = () =>
    unwrap(
      api.POST('/api/v1/p2p/appeals/{appeal_id}/settlement', {
        params: { path: { appeal_id: appealId } },
        body: { idempotency_key: key, ...(override ? { received_amount_override: int64(override) } : {}), ...(reason ? { reason } : {}) },
      }),
    );
  return (
    <div className="settle">
      <h3>Settlement of the expired deal</h3>
      <Field label="Received amount override (minor units)" hint={`Default: the received amount, ${money(received)}. An override needs a reason.`}>
        <input inputMode="numeric" pattern="\d*" value={override} onChange={(e) => setOverride(e.target.value.trim())} />
      </Field>
      <Field label="Reason">
        <input value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} />
      </Field>
      <Action
        op="settleAppeal"
        label="Settle…"
        confirm={{
          title: 'Create the settlement deal?',
          text: `A settlement deal is created for ${override ? (/^\d+$/.test(override) ? money(override) : override) : money(received)} and completed; the merchant is credited. One settlement per appeal.`,
          label: 'Settle',
        }}
        run={run}
      />
    </div>
  );
}
