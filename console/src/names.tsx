/**
 * Names instead of ids: a merchant, trader or operator shown by its name (its id on hover and a
 * copy button), every object id a link to its page, the audit's before/after as a diff, and the
 * lists' "Export CSV" link. One place, so every page shows them alike.
 */
import { useState, type ReactNode } from 'react';
import { Link } from './router';
import { useCan, type OperationId } from './session';
import { Text } from './text';

/** The first 8 hex digits: what lists show of an id, and what every id filter and the search accept. */
const shortId = (id: string) => id.slice(0, 8);

export type ObjectKind = 'deal' | 'appeal' | 'withdrawal' | 'merchant' | 'trader' | 'operator' | 'alert';

/** The console page of an object, by the kind the API names it with (an audit row's object_type). */
function objectPath(kind: string, id: string): string | undefined {
  if (!id) return undefined;
  switch (kind) {
    case 'deal':
      return `/deals/${id}`;
    case 'appeal':
      return `/appeals/${id}`;
    case 'merchant':
      return `/merchants/${id}`;
    case 'withdrawal':
      return `/withdrawals?withdrawal_id=${id}&status=`;
    case 'trader':
      return `/traders#trader-${id}`;
    case 'operator':
      return `/operators#operator-${id}`;
    case 'alert':
      return '/alerts';
    default:
      return undefined;
  }
}

/** Copies `text` to the clipboard; says so next to the button (role="status"). */
function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | ''>('');
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
      <button type="button" className="copy" aria-label={label} title={`${label}: the whole id`} onClick={copy}>
        <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
          <rect x="5" y="5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" strokeWidth="1.5" />
          <path d="M11 5V3.5A1.5 1.5 0 0 0 9.5 2h-6A1.5 1.5 0 0 0 2 3.5v6A1.5 1.5 0 0 0 3.5 11H5" fill="none" stroke="currentColor" strokeWidth="1.5" />
        </svg>
      </button>
      {copied && (
        <span role="status" className="copied">
          {copied === 'yes' ? 'Copied' : 'Copy failed: select the id'}
        </span>
      )}
    </>
  );
}

/**
 * A named object: its name (or its short id when it has none), linked to its page when it has
 * one, its whole id on hover and behind a copy button.
 */
export function Named({ kind, id, name, link = true }: { kind: ObjectKind; id: string; name?: string; link?: boolean }) {
  const can = useCan();
  if (!id) return <span className="muted">—</span>;
  // The operators page is the admin's: for other roles an operator is named, not linked.
  const to = link && (kind !== 'operator' || can('adminListOperators')) ? objectPath(kind, id) : undefined;
  const named = !!name?.trim();
  // Text: a name is someone else's text, so its bidirectional controls show as markers.
  const text = <Text value={named ? name : shortId(id)} title={`${kind} ${id}`} className={named ? 'name' : 'mono'} />;
  return (
    <span className="named">
      {to ? <Link to={to}>{text}</Link> : text}
      <CopyButton text={id} label={`Copy ${kind} ${shortId(id)}`} />
    </span>
  );
}

/** An object's id as a link to its page: the short id shown, the whole id on hover and copied by the button. */
export function IdLink({ kind, id, full }: { kind: string; id: string; full?: boolean }) {
  if (!id) return <span className="muted">—</span>;
  const to = objectPath(kind, id);
  const text = (
    <span className="mono" title={`${kind} ${id}`}>
      {full ? id : shortId(id)}
    </span>
  );
  return (
    <span className="named">
      {to ? <Link to={to}>{text}</Link> : text}
      <CopyButton text={id} label={`Copy ${kind} ${shortId(id)}`} />
    </span>
  );
}

/** The list's "Export CSV": a download of the same filters from the API (the session cookie goes along), for roles that may. */
export function ExportCsv({ op, path, query }: { op: OperationId; path: string; query: Record<string, string | number | readonly string[] | undefined> }) {
  const can = useCan();
  if (!can(op)) return null;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined && v !== '') params.append(key, String(v));
  }
  const search = params.toString();
  return (
    <a className="button export" href={`/api/v1/p2p/admin${path}${search ? `?${search}` : ''}`} download>
      Export CSV
    </a>
  );
}

type Json = unknown;
const show = (value: Json) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/**
 * What an audited action changed: each field of `before` and `after` whose value differs, old
 * and new side by side (a field only in `after` was set, one only in `before` removed).
 */
export function AuditDiff({ before, after }: { before: Json; after: Json }) {
  const b = before && typeof before === 'object' && !Array.isArray(before) ? (before as Record<string, Json>) : undefined;
  const a = after && typeof after === 'object' && !Array.isArray(after) ? (after as Record<string, Json>) : undefined;
  if (!a && !b) {
    if (before === null && after === null) return <span className="muted">no change kept</span>;
    return <DiffTable rows={[['value', show(before), show(after)]]} />;
  }
  const keys = [...new Set([...Object.keys(b ?? {}), ...Object.keys(a ?? {})])];
  const rows: Array<[string, string, string]> = keys
    .filter((k) => show(b?.[k]) !== show(a?.[k]))
    .map((k) => [k, b ? (k in b ? show(b[k]) : '(unset)') : '', a ? (k in a ? show(a[k]) : '(removed)') : '']);
  if (rows.length === 0) return <span className="muted">nothing changed</span>;
  return <DiffTable rows={rows} hasBefore={!!b} />;
}

function DiffTable({ rows, hasBefore = true }: { rows: Array<[string, string, string]>; hasBefore?: boolean }) {
  return (
    <table className="diff">
      <thead>
        <tr>
          <th scope="col">Field</th>
          {hasBefore && <th scope="col">Before</th>}
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([key, old, now]) => (
          <tr key={key}>
            <th scope="row" className="mono">
              <Text value={key} />
            </th>
            {hasBefore && (
              <td className="before">
                <Text value={old} />
              </td>
            )}
            <td className="after">
              <Text value={now} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A labelled value of a detail list, or nothing when empty. */
export function Fact({ label, children }: { label: string; children: ReactNode }) {
  if (children === '' || children === undefined || children === null) return null;
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}
