/**
 * The cabinet's Appeals page: the merchant's appeals (status in the URL), opening one on a deal
 * with a reason and evidence files, an appeal's conversation with the operators and its outcome
 * (docs/cabinet.md, "Appeals"). The spec's merchant routes: /appeals, /appeals/{id}/messages, /files.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { Confirm } from '../dialog';
import { FilterBar, useUrlFilters, type FilterSpec } from '../filters';
import { Loaded, PagedTable, usePagedList } from '../list';
import { Fact } from '../names';
import { Link, navigate, useRoute } from '../router';
import { useCan } from '../session';
import { Text } from '../text';
import { ErrorText, Field, when } from '../ui';

const STATUSES = ['OPEN', 'IN_REVIEW', 'RESOLVED_MERCHANT', 'RESOLVED_TRADER', 'CLOSED', 'REOPENED'] as const;
const SPECS: readonly FilterSpec[] = [{ key: 'status', label: 'Status', kind: 'multi', options: STATUSES }];
const OUTCOME: Record<string, string> = {
  OPEN: 'Waiting for an operator',
  IN_REVIEW: 'An operator is reviewing it',
  RESOLVED_MERCHANT: 'Resolved in your favour',
  RESOLVED_TRADER: 'Resolved in the provider’s favour',
  CLOSED: 'Closed without a decision on the money',
  REOPENED: 'Reopened: an operator looks again',
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Appeal = Schemas['Appeal'];

export function CabinetAppeals() {
  const { path } = useRoute();
  if (path === '/appeals/new') return <OpenAppeal />;
  const id = path.startsWith('/appeals/') ? path.slice('/appeals/'.length) : '';
  return id ? <AppealPage id={id} /> : <AppealList />;
}

function AppealList() {
  const can = useCan();
  const filters = useUrlFilters();
  const status = filters.all('status');
  const paged = usePagedList(['cabinet-appeals', status], (page_token) =>
    unwrap(api.GET('/api/v1/p2p/merchant/appeals', { params: { query: { status: status.length ? status : undefined, page_token } as never } })),
  );
  return (
    <>
      <h1>Appeals</h1>
      {can('createAppeal') && (
        <p>
          <Link to="/appeals/new" className="button primary">
            Open an appeal
          </Link>
        </p>
      )}
      <FilterBar label="Filter appeals" specs={SPECS} filters={filters} view="cabinet-appeals" />
      <PagedTable
        paged={paged}
        what="the appeals"
        caption="Appeals, newest first"
        columns={['Appeal', 'Deal', 'Status', 'Reason', 'Opened']}
        rowKey={(a: Appeal) => a.appeal_id}
        empty={status.length ? 'No appeal has the chosen status.' : 'No appeals yet. An appeal asks an operator to look again at a deal that went wrong.'}
        row={(a: Appeal) => (
          <tr>
            <td>
              <Link to={`/appeals/${a.appeal_id}`} className="mono" title={`appeal ${a.appeal_id}`}>
                {a.appeal_id.slice(0, 8)}
              </Link>
            </td>
            <td>
              <Link to={`/deals/${a.deal_id}`} className="mono" title={`deal ${a.deal_id}`}>
                {a.deal_id.slice(0, 8)}
              </Link>
            </td>
            <td>{OUTCOME[a.status] ?? a.status}</td>
            <td>
              <Text value={a.reason.length > 80 ? `${a.reason.slice(0, 80)}…` : a.reason} />
            </td>
            <td>{when(a.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

/** Uploads each file (POST /files) and answers their ids, in order. */
async function uploadAll(files: File[]): Promise<string[]> {
  const ids: string[] = [];
  for (const file of files) {
    const form = new FormData();
    form.append('file', file, file.name);
    const uploaded = await unwrap(api.POST('/api/v1/p2p/merchant/files', { body: form as never, bodySerializer: (b: unknown) => b as FormData }));
    ids.push(uploaded.file.file_id);
  }
  return ids;
}

function FilesField({ files, setFiles, label }: { files: File[]; setFiles: (f: File[]) => void; label: string }) {
  return (
    <Field label={label} hint="PDF, PNG, JPEG, WebP or plain text; each one is checked by its content.">
      <input
        type="file"
        multiple
        accept="application/pdf,image/png,image/jpeg,image/webp,text/plain"
        onChange={(e) => setFiles(Array.from(e.target.files ?? []))}
      />
      {files.length > 0 && <span className="muted">{files.map((f) => f.name).join(', ')}</span>}
    </Field>
  );
}

function OpenAppeal() {
  const { search } = useRoute();
  const queryClient = useQueryClient();
  const [dealId, setDealId] = useState(search.get('deal_id') ?? '');
  const [reason, setReason] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [asking, setAsking] = useState(false);
  const deal = useQuery({
    queryKey: ['cabinet-deal', dealId.trim()],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/cabinet/deals/{deal_id}', { params: { path: { deal_id: dealId.trim() } } })),
    enabled: UUID.test(dealId.trim()),
  });
  const open = useMutation({
    mutationFn: async () => {
      const file_ids = await uploadAll(files);
      return unwrap(api.POST('/api/v1/p2p/merchant/appeals', { body: { deal_id: dealId.trim(), reason, file_ids } }));
    },
    onSuccess: async (created) => {
      await queryClient.invalidateQueries();
      navigate(`/appeals/${created.data.appeal_id}`);
    },
  });
  const d = deal.data?.deal;
  return (
    <>
      <p>
        <Link to="/appeals">← All appeals</Link>
      </p>
      <h1>Open an appeal</h1>
      <form
        aria-label="Open an appeal"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setAsking(true);
        }}
      >
        <Field label="Deal id" hint="The whole id, as the deal's page shows it.">
          <input value={dealId} required onChange={(e) => setDealId(e.target.value)} className="mono" />
        </Field>
        {d && (
          <p data-testid="appeal-deal">
            {d.deal_type === 'PAYIN' ? 'PayIn' : 'PayOut'} of {d.amount} minor units {d.currency}, now {d.status}
            {d.client_id && (
              <>
                , client <Text value={d.client_id} />
              </>
            )}
            .
          </p>
        )}
        <ErrorText error={deal.error} />
        <Field label="What went wrong" hint="At least 10 characters: what you expected, what happened, what the files show.">
          <textarea rows={5} required minLength={10} maxLength={4000} value={reason} onChange={(e) => setReason(e.target.value)} />
        </Field>
        <FilesField files={files} setFiles={setFiles} label="Evidence files" />
        <button type="submit" className="primary" disabled={open.isPending || !d}>
          {open.isPending ? 'Opening…' : 'Open the appeal…'}
        </button>
        <ErrorText error={open.error} />
      </form>
      {asking && d && (
        <Confirm
          title="Open this appeal?"
          confirmLabel="Open the appeal"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            open.mutate();
          }}
        >
          <p>
            An appeal is opened on deal <span className="mono">{d.deal_id.slice(0, 8)}</span> ({d.status}) with your reason and {files.length} file
            {files.length === 1 ? '' : 's'}. An operator reviews it and answers here; one appeal per deal. Nothing moves until the operator resolves it.
          </p>
        </Confirm>
      )}
    </>
  );
}

function AppealPage({ id }: { id: string }) {
  const appeal = useQuery({
    queryKey: ['cabinet-appeal', id],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/merchant/appeals/{appeal_id}', { params: { path: { appeal_id: id } } })),
    refetchInterval: 10_000,
  });
  return (
    <>
      <p>
        <Link to="/appeals">← All appeals</Link>
      </p>
      <h1>
        Appeal <span className="mono">{id.slice(0, 8)}</span>
      </h1>
      <Loaded query={appeal} what="the appeal">
        {({ data: a }) => (
          <>
            <p className="outcome" data-testid="appeal-outcome" data-status={a.status}>
              <strong>{OUTCOME[a.status] ?? a.status}</strong>
              {a.resolution_note && (
                <>
                  : <Text value={a.resolution_note} />
                </>
              )}
            </p>
            <dl className="facts">
              <Fact label="Deal">
                <Link to={`/deals/${a.deal_id}`} className="mono">
                  {a.deal_id.slice(0, 8)}
                </Link>
              </Fact>
              <Fact label="Opened">{when(a.created_at)}</Fact>
              <Fact label="Resolved">{a.resolved_at ? when(a.resolved_at) : ''}</Fact>
              <Fact label="Reason">
                <Text value={a.reason} />
              </Fact>
              <Fact label="Evidence">{a.file_ids.length ? <FileLinks ids={a.file_ids} /> : 'none'}</Fact>
            </dl>
            <Conversation appeal={a} />
          </>
        )}
      </Loaded>
    </>
  );
}

function FileLinks({ ids }: { ids: string[] }) {
  return (
    <ul className="files" data-testid="appeal-files">
      {ids.map((f) => (
        <li key={f}>
          <a href={`/api/v1/p2p/merchant/files/${f}`} download className="mono">
            file {f.slice(0, 8)}
          </a>
        </li>
      ))}
    </ul>
  );
}

function Conversation({ appeal }: { appeal: Schemas['AppealDetail'] }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const messages = useQuery({
    queryKey: ['cabinet-appeal-messages', appeal.appeal_id],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/merchant/appeals/{appeal_id}/messages', { params: { path: { appeal_id: appeal.appeal_id } } })),
    refetchInterval: 10_000,
  });
  const [body, setBody] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const send = useMutation({
    mutationFn: async () => {
      const file_ids = await uploadAll(files);
      return unwrap(
        api.POST('/api/v1/p2p/merchant/appeals/{appeal_id}/messages', { params: { path: { appeal_id: appeal.appeal_id } }, body: { body, file_ids } }),
      );
    },
    onSuccess: async () => {
      setBody('');
      setFiles([]);
      await queryClient.invalidateQueries({ queryKey: ['cabinet-appeal-messages', appeal.appeal_id] });
    },
  });
  const closed = ['RESOLVED_MERCHANT', 'RESOLVED_TRADER', 'CLOSED'].includes(appeal.status);
  return (
    <section aria-labelledby="conversation-heading">
      <h2 id="conversation-heading">Conversation</h2>
      <Loaded query={messages} what="the messages">
        {(m) =>
          m.data.messages.length === 0 ? (
            <p>No messages yet. The operator's answers appear here.</p>
          ) : (
            <ol className="messages">
              {m.data.messages.map((msg) => (
                <li key={msg.message_id} className={msg.sender_role === 'MERCHANT' ? 'mine' : 'theirs'}>
                  <p className="muted">
                    {msg.sender_role === 'MERCHANT' ? 'You' : 'Operator'}, {when(msg.created_at)}
                  </p>
                  <p>
                    <Text value={msg.body} />
                  </p>
                  {msg.file_ids.length > 0 && <FileLinks ids={msg.file_ids} />}
                </li>
              ))}
            </ol>
          )
        }
      </Loaded>
      {can('createAppealMessage') &&
        (closed ? (
          <p>This appeal takes no more messages; an operator may reopen it.</p>
        ) : (
          <form
            aria-label="Write to the operators"
            onSubmit={(e: FormEvent) => {
              e.preventDefault();
              send.mutate();
            }}
          >
            <Field label="Your message">
              <textarea rows={3} required maxLength={4000} value={body} onChange={(e) => setBody(e.target.value)} />
            </Field>
            <FilesField files={files} setFiles={setFiles} label="Files to add" />
            <button type="submit" className="primary" disabled={send.isPending}>
              Send message
            </button>
            <ErrorText error={send.error} />
          </form>
        ))}
    </section>
  );
}
