import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fileUrl, int64, unwrap, type Schemas } from '../api';
import { PagedTable, usePagedList } from '../list';
import { FilterBar, useUrlFilters, type FilterSpec } from '../filters';
import { ExportCsv, IdLink, Named } from '../names';
import { APPEAL_STATUSES, type AppealStatus } from '../../../domain/state/appeals';
import { Link } from '../router';
import type { paths } from '@merchant-gateway/sdk/openapi';
import { useCan } from '../session';
import { Action, Confirm, ErrorText, Field, Loading, StatusAfter, Submit, when } from '../ui';
import { Money, MoneyInput, useFormatMoney, useToMinor } from '../money';
import { Text } from '../text';
import { CaseSection, PARTY_LABEL, PartiesSection } from './AppealCase';

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

const FILTERS: FilterSpec[] = [
  {
    key: 'queue',
    label: 'Queue',
    kind: 'select',
    options: ['oldest', 'mine', 'unassigned', 'overdue'],
    anyLabel: QUEUES.newest.label,
    optionLabel: (v) => (isQueue(v) ? QUEUES[v].label : v),
  },
  { key: 'status', label: 'Status', kind: 'select', options: APPEAL_STATUSES },
  { key: 'merchant_id', label: 'Merchant id', kind: 'text', placeholder: 'whole or first 8 characters' },
];

export function Appeals() {
  const filters = useUrlFilters();
  const wanted = filters.get('queue');
  const queue: QueueName = isQueue(wanted) ? wanted : 'newest';
  const status = filters.get('status') as AppealStatus | '';
  // A status chosen narrows the queue's own (a waiting queue asks for the waiting statuses).
  const query: AppealQuery = { ...QUEUES[queue].query, ...(status ? { status: [status] } : {}), merchant_id: filters.get('merchant_id') || undefined };
  const assignees = useAssignees();
  const appeals = usePagedList(['appeals', query], (page_token) =>
    unwrap(api.GET('/api/v1/p2p/admin/appeals', { params: { query: { page_size: 25, page_token, ...query } } })),
  );
  return (
    <>
      <h1>Appeals</h1>
      <FilterBar label="Filter appeals" specs={FILTERS} filters={filters} view="appeals" />
      <div className="list-actions">
        <ExportCsv op="adminExportAppeals" path="/appeals/export" query={query} />
      </div>
      <PagedTable
        paged={appeals}
        what="appeals"
        caption={`Appeals: ${QUEUES[queue].label}`}
        columns={['Appeal', 'Status', 'Reason', 'Merchant', 'Respond by', 'Assignee', 'Updated']}
        rowKey={(a) => a.appeal_id}
        row={(a) => (
          <tr data-appeal={a.appeal_id}>
            <td>
              <IdLink kind="appeal" id={a.appeal_id} />
            </td>
            <td>
              <span className="badge">{a.status}</span>
            </td>
            <td>
              <Text value={a.reason} />
            </td>
            <td>
              <Named kind="merchant" id={a.merchant_id} name={a.merchant_name} />
            </td>
            <td>
              {when(a.respond_by)} {a.overdue && <span className="badge danger">overdue</span>}
            </td>
            <td>{a.assignee_id ? <Text value={assignees.get(a.assignee_id) ?? a.assignee_id.slice(0, 8)} title={a.assignee_id} /> : '—'}</td>
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
  const path = { params: { path: { appeal_id: id } } };
  // The moves the API offers now, each with what it does (from the appeal's and the deal's state tables).
  const move = (name: AppealMove['move']) => a.moves.find((m) => m.move === name)!;
  const offered = (name: AppealMove['move']) => move(name).offered;
  const resolvable = offered('resolve_satisfied') || offered('resolve_rejected');
  const settleFirst = move('resolve_satisfied').first === 'settle';
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
        <dd>
          <Text value={a.reason} />
        </dd>
        <dt>Merchant</dt>
        <dd>
          <Named kind="merchant" id={a.merchant_id} name={a.merchant_name} />
        </dd>
        <dt>Opened</dt>
        <dd>{when(a.created_at)}</dd>
        {a.outcome && (
          <>
            <dt>Outcome</dt>
            <dd>{a.outcome}</dd>
            <dt>Resolution note</dt>
            <dd>
              <Text value={a.resolution_note} />
            </dd>
          </>
        )}
        {a.settlement_deal_id && (
          <>
            <dt>Settlement deal</dt>
            <dd>
              <IdLink kind="deal" id={a.settlement_deal_id} full />
            </dd>
          </>
        )}
      </dl>

      <PartiesSection appeal={a} />

      <CaseSection appeal={a} />

      <section aria-labelledby="deal-h">
        <h2 id="deal-h">The deal</h2>
        <dl>
          <dt>Deal</dt>
          <dd>
            <IdLink kind="deal" id={a.deal.deal_id} full />
          </dd>
          <dt>Type</dt>
          <dd>{a.deal.deal_type}</dd>
          <dt>Status</dt>
          <dd>
            {a.deal.status} (at the appeal's opening: {a.deal_status_at_open})
          </dd>
          <dt>Amount</dt>
          <dd>
            <Money minor={a.deal.amount} currency={a.deal.currency} /> (received <Money minor={a.deal.received_amount} currency={a.deal.currency} />)
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
            <li key={f.file_id} data-party={f.party}>
              <span className="badge">{PARTY_LABEL[f.party]}</span>{' '}
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
            <li key={m.message_id} className={m.sender_role === 'ADMIN' ? 'mine' : ''} data-party={m.sender_role}>
              <p className="meta">
                {PARTY_LABEL[m.sender_role]} <Text value={m.sender_name} /> · {when(m.created_at)}
              </p>
              <p>
                <Text value={m.body} />
              </p>
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
          {offered('review') && (
            <Action op="adminReviewAppeal" label="Take into review" run={() => unwrap(api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/review', path))} />
          )}
          {offered('reopen') && (
            <Action
              op="adminReopenAppeal"
              label="Reopen"
              confirm={{
                title: 'Reopen this appeal?',
                text: <MovePromise appeal={a} preview={move('reopen')} />,
                label: 'Reopen',
              }}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/reopen', path))}
            />
          )}
          {offered('close') && (
            <Action
              op="adminCloseAppeal"
              label="Close"
              confirm={{
                title: 'Close this appeal?',
                text: (
                  <>
                    <p>The appeal is closed without a resolution.</p>
                    <MovePromise appeal={a} preview={move('close')} />
                  </>
                ),
                label: 'Close appeal',
              }}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/close', path))}
            />
          )}
        </div>
        {!offered('close') && move('close').refusal && resolvable && <p className="muted">Close is not offered: {move('close').refusal}.</p>}
        {/* Where the API requires the settlement before SATISFIED, the settlement comes first. */}
        {can('settleAppeal') && offered('settle') && <Settle appeal={a} preview={move('settle')} then={settleFirst ? 'resolve_satisfied' : undefined} />}
        {resolvable && can('adminResolveAppeal') && <Resolve appeal={a} satisfied={move('resolve_satisfied')} rejected={move('resolve_rejected')} />}
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

type AdminAppeal = Schemas['AdminAppeal'];
type AppealMove = AdminAppeal['moves'][number];

/** What a move does to the appeal, the deal and the money, as the API answered it from the state tables. */
function MovePromise({ appeal, preview }: { appeal: AdminAppeal; preview: AppealMove }) {
  return (
    <>
      <p>
        <StatusAfter subject="The appeal" now={appeal.status} after={preview.appeal_status_after} kind="appeal" />;{' '}
        <StatusAfter subject="the deal" now={appeal.deal.status} after={preview.deal_status_after} kind="deal" />
        {preview.new_deal_status_after && (
          <>
            ; a new settlement deal is made and becomes{' '}
            <strong className="status-after" data-after={preview.new_deal_status_after} data-kind="new-deal">
              {preview.new_deal_status_after}
            </strong>
          </>
        )}
        .
      </p>
      <p className="muted">Money: {preview.money}.</p>
    </>
  );
}

const OUTCOME_LABEL = { SATISFIED: 'SATISFIED (the merchant is right)', REJECTED: 'REJECTED (the trader is right)' } as const;

/** The resolution: only the outcomes the API offers now; the other one says why not (and what must come first). */
function Resolve({ appeal, satisfied, rejected }: { appeal: AdminAppeal; satisfied: AppealMove; rejected: AppealMove }) {
  const previews = { SATISFIED: satisfied, REJECTED: rejected };
  const choices = (['SATISFIED', 'REJECTED'] as const).filter((o) => previews[o].offered);
  const [picked, setOutcome] = useState<'SATISFIED' | 'REJECTED'>(choices[0] ?? 'REJECTED');
  const outcome = previews[picked].offered ? picked : (choices[0] ?? picked);
  const [note, setNote] = useState('');
  const [asking, setAsking] = useState(false);
  const queryClient = useQueryClient();
  const resolve = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/resolve', {
          params: { path: { appeal_id: appeal.appeal_id } },
          body: { outcome, ...(note ? { note } : {}) },
        }),
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
        {choices.map((o) => (
          <label key={o}>
            <input type="radio" name="outcome" value={o} checked={outcome === o} onChange={() => setOutcome(o)} /> {OUTCOME_LABEL[o]}
          </label>
        ))}
        {(['SATISFIED', 'REJECTED'] as const)
          .filter((o) => !previews[o].offered)
          .map((o) => (
            <p key={o} className="muted" data-testid={`not-offered-${o}`}>
              {o} is not possible now: {previews[o].refusal}
              {previews[o].first === 'settle' && ' — the settlement form above does that first.'}
            </p>
          ))}
      </fieldset>
      <Field label="Note">
        <textarea rows={2} maxLength={4000} value={note} onChange={(e) => setNote(e.target.value)} />
      </Field>
      <Submit label="Resolve…" mutation={resolve} done="Resolved" />
      {asking && (
        <Confirm
          title={`Resolve as ${outcome}?`}
          confirmLabel={`Resolve ${outcome}`}
          tone={outcome === 'REJECTED' ? 'danger' : 'primary'}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            resolve.mutate();
          }}
        >
          <p>{outcome === 'SATISFIED' ? "The merchant's claim is upheld." : "The merchant's claim is rejected."}</p>
          <MovePromise appeal={appeal} preview={previews[outcome]} />
          <p>The merchant is notified. This cannot be undone (only reopened).</p>
        </Confirm>
      )}
    </form>
  );
}

function Settle({ appeal, preview, then }: { appeal: AdminAppeal; preview: AppealMove; then?: 'resolve_satisfied' }) {
  const received = appeal.deal.received_amount;
  const currency = appeal.deal.currency;
  const [override, setOverride] = useState('');
  const [reason, setReason] = useState('');
  const [key] = useState(() => crypto.randomUUID());
  const format = useFormatMoney();
  const toMinor = useToMinor(currency);
  const run = () =>
    unwrap(
      api.POST('/api/v1/p2p/appeals/{appeal_id}/settlement', {
        params: { path: { appeal_id: appeal.appeal_id } },
        body: {
          idempotency_key: key,
          ...(override.trim() ? { received_amount_override: int64(toMinor(override, 'the received amount')) } : {}),
          ...(reason ? { reason } : {}),
        },
      }),
    );
  let amount = format(received, currency);
  if (override.trim()) {
    try {
      amount = format(toMinor(override), currency);
    } catch (error) {
      amount = `“${override}” (${(error as Error).message})`;
    }
  }
  return (
    <div className="settle">
      <h3>Settlement of the expired deal</h3>
      {then && <p>To resolve SATISFIED, settle the expired deal first: the settlement is what credits the merchant.</p>}
      <MoneyInput
        label="Received amount override"
        currency={currency}
        value={override}
        onChange={setOverride}
        hint={`Default: the received amount, ${format(received, currency)}. An override needs a reason.`}
      />
      <Field label="Reason">
        <input value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} />
      </Field>
      <Action
        op="settleAppeal"
        label="Settle…"
        confirm={{
          title: 'Create the settlement deal?',
          text: (
            <>
              <p>A settlement deal for {amount} is created and completed; the merchant is credited. One settlement per appeal.</p>
              <MovePromise appeal={appeal} preview={preview} />
              {then && <p>Then SATISFIED can be resolved.</p>}
            </>
          ),
          label: 'Settle',
        }}
        run={run}
      />
    </div>
  );
}
