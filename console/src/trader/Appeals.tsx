/**
 * The trader app's Disputes page (docs/trader.md, "Disputes"): the appeals on the trader's deals,
 * waiting ones first with the time left to answer; one appeal with the merchant's statement and
 * files, the trader's answers, and a form to answer with text and a file from the phone (a photo
 * of a receipt, a PDF statement) before the deadline.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { Loaded } from '../list';
import { Link, useRoute } from '../router';
import { Text } from '../text';
import { ErrorText, Field, when } from '../ui';
import { dealStatusWords, moneyOf } from './words';

const BASE = '/api/v1/p2p/trader/appeals';
type Summary = Schemas['TraderAppealSummary'];

const STATUS_TEXT: Record<string, string> = {
  OPEN: 'Waiting for the arbiter',
  IN_REVIEW: 'The arbiter is reviewing it',
  REOPENED: 'Reopened: the arbiter looks again',
  RESOLVED_MERCHANT: 'Decided for the merchant',
  RESOLVED_TRADER: 'Decided for you',
  CLOSED: 'Closed',
};

/** The time left until `iso`, ticking each second: "2 h 05 min left", or undefined once it passed. */
function useTimeLeft(iso: string): string | undefined {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const ms = Date.parse(iso) - now;
  if (!(ms > 0)) return undefined;
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min left`;
  if (m > 0) return `${m} min ${String(sec).padStart(2, '0')} s left`;
  return `${sec} s left`;
}

/** Where the trader stands: answered, the countdown while it may answer, or that its time ran out. */
function Deadline({ appeal }: { appeal: Pick<Summary, 'respond_by' | 'answer' | 'can_answer' | 'responded_at'> }) {
  const left = useTimeLeft(appeal.respond_by);
  if (appeal.answer === 'ANSWERED' && !appeal.can_answer) return <span className="badge">You answered</span>;
  if (appeal.can_answer && left) {
    return (
      <span className="badge warn" data-testid="countdown" title={`Answer by ${when(appeal.respond_by)}`}>
        {appeal.answer === 'ANSWERED' ? 'Answered · ' : ''}
        {left}
      </span>
    );
  }
  if (appeal.answer === 'MISSED') return <span className="badge danger">Time to answer ended</span>;
  return <span className="badge">{appeal.answer === 'ANSWERED' ? 'You answered' : 'No answer needed now'}</span>;
}

export function TraderAppeals() {
  const { path } = useRoute();
  const id = path.startsWith('/appeals/') ? path.slice('/appeals/'.length) : '';
  return id ? <AppealCase id={id} /> : <AppealList />;
}

function AppealList() {
  const list = useQuery({ queryKey: ['trader-appeals'], queryFn: () => unwrap(api.GET(BASE)), refetchInterval: 15_000 });
  return (
    <>
      <h1>Disputes</h1>
      <p className="muted">A merchant disputes a deal of yours: answer with what happened and a receipt or statement before the time runs out.</p>
      <Loaded query={list} what="the disputes">
        {({ data }) =>
          data.length === 0 ? (
            <p>No disputes on your deals.</p>
          ) : (
            <ul className="cards" aria-label="Disputes, waiting ones first">
              {data.map((a) => (
                <li key={a.appeal_id} className="card" data-testid="trader-appeal">
                  <Link to={`/appeals/${a.appeal_id}`}>
                    <strong>{moneyOf(a.amount, a.currency)}</strong> · deal <span className="mono">{a.deal_id.slice(0, 8)}</span>
                  </Link>
                  <p>{STATUS_TEXT[a.status] ?? a.status}</p>
                  <p>
                    <Deadline appeal={a} />
                  </p>
                  <p className="muted">
                    <Text value={a.reason.length > 100 ? `${a.reason.slice(0, 100)}…` : a.reason} />
                  </p>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </>
  );
}

const fileHref = (appealId: string, fileId: string) => `${BASE}/${appealId}/files/${fileId}`;

function AppealCase({ id }: { id: string }) {
  const appeal = useQuery({
    queryKey: ['trader-appeal', id],
    queryFn: () => unwrap(api.GET(`${BASE}/{appeal_id}`, { params: { path: { appeal_id: id } } })),
    refetchInterval: 15_000,
  });
  return (
    <>
      <p>
        <Link to="/appeals">← All disputes</Link>
      </p>
      <Loaded query={appeal} what="the dispute">
        {({ data: a }) => (
          <>
            <h1>Dispute on {moneyOf(a.amount, a.currency)}</h1>
            <p data-testid="appeal-state">
              {STATUS_TEXT[a.status] ?? a.status} · <Deadline appeal={a} />
            </p>
            <p className="muted">
              Deal <span className="mono">{a.deal_id.slice(0, 8)}</span> ({dealStatusWords(a.deal_status).toLowerCase()}) · opened {when(a.created_at)} · answer
              by {when(a.respond_by)}
            </p>
            <section aria-labelledby="statement-h">
              <h2 id="statement-h">The merchant says</h2>
              <p data-testid="merchant-statement">
                <Text value={a.reason} />
              </p>
              <FileList appealId={a.appeal_id} ids={a.file_ids} files={a.files} />
            </section>
            <section aria-labelledby="thread-h">
              <h2 id="thread-h">Messages</h2>
              {a.messages.length === 0 ? (
                <p>No messages yet.</p>
              ) : (
                <ol className="chat">
                  {a.messages.map((m) => (
                    <li key={m.message_id} className={m.sender_role === 'TRADER' ? 'mine' : 'theirs'} data-party={m.sender_role}>
                      <p className="muted">
                        {m.sender_role === 'TRADER' ? 'You' : 'Merchant'}, {when(m.created_at)}
                      </p>
                      {m.body && (
                        <p>
                          <Text value={m.body} />
                        </p>
                      )}
                      <FileList appealId={a.appeal_id} ids={m.file_ids} files={a.files} />
                    </li>
                  ))}
                </ol>
              )}
            </section>
            {a.can_answer ? (
              <Answer appealId={a.appeal_id} />
            ) : (
              <p data-testid="no-answer">
                {a.answer === 'MISSED' ? 'The time to answer ended: the arbiter decides without your answer.' : 'This dispute no longer takes answers.'}
              </p>
            )}
          </>
        )}
      </Loaded>
    </>
  );
}

const FILE_KINDS: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG image',
  'image/jpeg': 'JPEG photo',
  'image/webp': 'WebP image',
  'text/plain': 'Text',
};

/** A file as the trader reads it: its kind and size ("PNG image, 12 KB"). */
function fileWords(f: Schemas['TraderAppeal']['files'][number] | undefined): string {
  if (!f) return 'File';
  const bytes = Number(f.size);
  const size = bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${FILE_KINDS[f.content_type] ?? f.content_type}, ${size}`;
}

function FileList({ appealId, ids, files }: { appealId: string; ids: string[]; files: Schemas['TraderAppeal']['files'] }) {
  if (ids.length === 0) return null;
  const byId = new Map(files.map((f) => [f.file_id, f]));
  return (
    <ul className="files">
      {ids.map((fid) => (
        <li key={fid}>
          <a href={fileHref(appealId, fid)} download title={byId.get(fid)?.content_type}>
            {fileWords(byId.get(fid))}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** The answer: text, a file, or both (then the text is the file's note), as one message to the arbiter. */
function Answer({ appealId }: { appealId: string }) {
  const queryClient = useQueryClient();
  const [body, setBody] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const send = useMutation({
    mutationFn: async () => {
      const path = { params: { path: { appeal_id: appealId } } };
      if (file) {
        const form = new FormData();
        form.append('file', file, file.name);
        if (body.trim()) form.append('note', body.trim());
        return unwrap(api.POST(`${BASE}/{appeal_id}/evidence`, { ...path, body: form as never, bodySerializer: (b: unknown) => b as FormData }));
      }
      if (!body.trim()) throw new Error('Write what happened, or add a file.');
      return unwrap(api.POST(`${BASE}/{appeal_id}/messages`, { ...path, body: { body: body.trim() } }));
    },
    onSuccess: async () => {
      setBody('');
      setFile(null);
      setInputKey((k) => k + 1);
      await queryClient.invalidateQueries({ queryKey: ['trader-appeal', appealId] });
      await queryClient.invalidateQueries({ queryKey: ['trader-appeals'] });
    },
  });
  return (
    <form
      aria-label="Answer the dispute"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        send.mutate();
      }}
    >
      <h2>Your answer</h2>
      <p className="muted">The arbiter reads it; the merchant does not.</p>
      <Field label="What happened">
        <textarea rows={4} maxLength={4000} value={body} onChange={(e) => setBody(e.target.value)} />
      </Field>
      <Field label="A receipt or statement (photo or PDF)" hint="PNG, JPEG, WebP, PDF or plain text.">
        <input
          key={inputKey}
          type="file"
          accept="image/png,image/jpeg,image/webp,application/pdf,text/plain"
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        />
      </Field>
      <button type="submit" className="primary" disabled={send.isPending}>
        Send answer
      </button>
      {send.isSuccess && (
        <p role="status" data-testid="answer-sent">
          Sent to the arbiter.
        </p>
      )}
      <ErrorText error={send.error} />
    </form>
  );
}
