/**
 * An appeal as the desk's case: its deadline, who works on it (take, assign, leave to nobody), the
 * papers operators attached (uploaded as evidence files, shown to operators only), and its two
 * parties — the merchant's statement and the deal's trader's answer, each with its name.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fileUrl, unwrap, type Schemas } from '../api';
import { useCan, useSession } from '../session';
import { Action, Field, Submit, when } from '../ui';
import { plainText, Text } from '../text';
import { Named } from '../names';

export function CaseSection({ appeal }: { appeal: Schemas['AdminAppeal'] }) {
  const can = useCan();
  const session = useSession().data!;
  const me = session.operator.operator_id;
  const assignees = useQuery({ queryKey: ['appeal-assignees'], queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/appeal-assignees')), staleTime: 60_000 });
  const emailOf = (id: string) => assignees.data?.data.find((o) => o.operator_id === id)?.email ?? id.slice(0, 8);
  const [pick, setPick] = useState('');
  const path = { params: { path: { appeal_id: appeal.appeal_id } } };
  // A console account takes an appeal; the operator JWT (no email) assigns it to an account.
  const hasAccount = session.operator.email !== '';
  return (
    <section aria-labelledby="case-h" className="case">
      <h2 id="case-h">The case</h2>
      <dl>
        <dt>Respond by</dt>
        <dd data-testid="respond-by">
          {when(appeal.respond_by)} {appeal.overdue && <span className="badge danger">overdue</span>}
        </dd>
        <dt>Assignee</dt>
        <dd data-testid="assignee">
          {appeal.assignee_id ? (
            <>
              <Text value={emailOf(appeal.assignee_id)} title={appeal.assignee_id} /> (since {when(appeal.assigned_at)})
            </>
          ) : (
            'nobody'
          )}
        </dd>
      </dl>
      <div className="actions">
        {hasAccount && appeal.assignee_id !== me && (
          <Action op="adminTakeAppeal" label="Take it" run={() => unwrap(api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/take', path))} />
        )}
        {appeal.assignee_id && (
          <Action op="adminUnassignAppeal" label="Leave it to nobody" run={() => unwrap(api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/unassign', path))} />
        )}
        {can('adminAssignAppeal') && (
          <span className="inline-form">
            <Field label="Assign to">
              <select value={pick} onChange={(e) => setPick(e.target.value)}>
                <option value="">choose an operator…</option>
                {(assignees.data?.data ?? []).map((o) => (
                  <option key={o.operator_id} value={o.operator_id}>
                    {plainText(o.email)} ({o.role})
                  </option>
                ))}
              </select>
            </Field>
            <Action
              op="adminAssignAppeal"
              label="Assign"
              disabled={!pick || pick === appeal.assignee_id}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/assign', { ...path, body: { operator_id: pick } }))}
              onDone={() => setPick('')}
            />
          </span>
        )}
      </div>
      <h3>Papers of the case</h3>
      <p className="muted">Files operators attach here are for operators only; the merchant sees a file only when it is attached to a message.</p>
      {appeal.attachments.length === 0 ? (
        <p>None attached.</p>
      ) : (
        <ul className="evidence" data-testid="attachments">
          {appeal.attachments.map((f) => (
            <li key={f.file_id}>
              <a href={fileUrl(f.file_id)} download>
                {f.note ? <Text value={f.note} /> : `File ${f.file_id.slice(0, 8)}`}
              </a>{' '}
              <span className="muted">
                by <Text value={f.attached_by_name} /> · {when(f.created_at)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {can('adminAttachAppealFiles') && can('adminUploadFile') && <Attach appealId={appeal.appeal_id} />}
    </section>
  );
}

/** Upload a file as an operator (the evidence upload) and attach it to the case, with a note. */
function Attach({ appealId }: { appealId: string }) {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [note, setNote] = useState('');
  const [inputKey, setInputKey] = useState(0);
  const attach = useMutation({
    mutationFn: async () => {
      if (!file) throw new Error('Choose a file first.');
      const form = new FormData();
      form.append('file', file, file.name);
      const uploaded = await unwrap(api.POST('/api/v1/p2p/admin/files', { body: form as never, bodySerializer: (body: unknown) => body as FormData }));
      return unwrap(
        api.POST('/api/v1/p2p/admin/appeals/{appeal_id}/attachments', {
          params: { path: { appeal_id: appealId } },
          body: { file_ids: [uploaded.file.file_id], ...(note.trim() ? { note: note.trim() } : {}) },
        }),
      );
    },
    onSuccess: async () => {
      setFile(null);
      setNote('');
      setInputKey((k) => k + 1);
      await queryClient.invalidateQueries({ queryKey: ['appeal', appealId] });
    },
  });
  return (
    <form
      className="attach"
      aria-label="Attach a file to the case"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        attach.mutate();
      }}
    >
      <Field label="File (PDF, PNG, JPEG, WebP or text)">
        <input key={inputKey} type="file" accept=".pdf,.png,.jpg,.jpeg,.webp,.txt" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      </Field>
      <Field label="What it is">
        <input value={note} maxLength={1000} onChange={(e) => setNote(e.target.value)} />
      </Field>
      <Submit label="Attach" mutation={attach} done="Attached" />
    </form>
  );
}

/** Who a message or a file comes from, as the case names the parties. */
export const PARTY_LABEL: Record<'MERCHANT' | 'ADMIN' | 'TRADER', string> = { MERCHANT: 'Merchant', ADMIN: 'Operator', TRADER: 'Trader' };

const ANSWER_TEXT: Record<Schemas['AppealTraderParty']['answer'], string> = {
  ANSWERED: 'answered',
  WAITING: 'not yet answered (its time runs)',
  MISSED: 'did not answer in time',
};

/** The two parties side by side: the merchant's statement and files, the trader's answer, its deadline and files. */
export function PartiesSection({ appeal }: { appeal: Schemas['AdminAppeal'] }) {
  const trader = appeal.trader;
  const statementFiles = appeal.file_ids.length;
  return (
    <section aria-labelledby="parties-h">
      <h2 id="parties-h">The parties</h2>
      <div className="card wide" data-testid="party-merchant">
        <h3>
          Merchant: <Named kind="merchant" id={appeal.merchant_id} name={appeal.merchant_name} />
        </h3>
        <p>
          <Text value={appeal.reason} />
        </p>
        <p className="muted">
          {statementFiles === 0 ? 'No file with the statement.' : `${statementFiles} file${statementFiles === 1 ? '' : 's'} with the statement.`}
        </p>
      </div>
      <div className="card wide" data-testid="party-trader">
        <h3>Trader: {trader.trader_id ? <Named kind="trader" id={trader.trader_id} name={trader.name} /> : <span className="muted">none</span>}</h3>
        <p data-testid="trader-answer">
          <span className={`badge${trader.answer === 'MISSED' ? ' danger' : ''}`}>{trader.answer}</span> {ANSWER_TEXT[trader.answer]}
          {trader.responded_at ? ` · first answer ${when(trader.responded_at)}` : ''}
        </p>
        <p className="muted">
          Respond by {when(trader.respond_by)} · {trader.file_ids.length} evidence file{trader.file_ids.length === 1 ? '' : 's'}. The trader's messages are in
          the conversation below; the merchant does not see them.
        </p>
      </div>
    </section>
  );
}
