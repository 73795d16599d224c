/**
 * Bulk actions in a list: a checkbox per row that may be acted on, and a bar acting on those
 * selected — the API does the single action once per object and answers each (its status and
 * message), which the bar then lists. Nothing is decided here that the single action would not.
 */
import { useState } from 'react';

export type BulkResult = { id: string; status: number; outcome: string; message: string };

/** The ids selected in a list; kept only while their rows are shown (a refreshed page drops the others). */
export function useSelection(shown: readonly string[]) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const visible = new Set(shown);
  const ids = [...selected].filter((id) => visible.has(id));
  return {
    ids,
    has: (id: string) => selected.has(id),
    toggle: (id: string) =>
      setSelected((s) => {
        const next = new Set(s);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    setAll: (on: boolean) => setSelected(on ? new Set(shown) : new Set()),
    clear: () => setSelected(new Set()),
  };
}

export function SelectBox({ label, checked, onChange }: { label: string; checked: boolean; onChange: () => void }) {
  return <input type="checkbox" aria-label={label} checked={checked} onChange={onChange} />;
}

/** What a bulk action answered, one line per object that was refused, and the totals of the rest. */
export function BulkResults({ results, names }: { results: BulkResult[] | undefined; names: Record<string, string> }) {
  if (!results) return null;
  const counts = new Map<string, number>();
  for (const r of results) if (r.outcome !== 'refused') counts.set(names[r.outcome] ?? r.outcome, (counts.get(names[r.outcome] ?? r.outcome) ?? 0) + 1);
  const refused = results.filter((r) => r.outcome === 'refused');
  return (
    <div role="status" className="bulk-results" data-testid="bulk-results">
      <p>
        {[...counts].map(([what, n]) => `${n} ${what}`).join('; ') || 'None done'}
        {refused.length > 0 ? `; ${refused.length} refused:` : '.'}
      </p>
      {refused.length > 0 && (
        <ul>
          {refused.map((r) => (
            <li key={r.id}>
              <span className="mono">{r.id.slice(0, 8)}</span>: {r.message} ({r.status})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
