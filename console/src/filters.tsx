/**
 * The filter bar of the console's lists, bound to the page's URL: every filter is a query
 * parameter, so a reload, a shared link or Back from an item shows the list as it was filtered.
 * Statuses and types are choices (the caller passes the state table's list); free text is sent
 * once the typing pauses (DEBOUNCE_MS), not per keystroke; times are typed and shown in UTC, the
 * zone written beside them; saved views keep a filter under a name in this browser's localStorage.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { setSearch, useRoute, Link } from './router';
import { Field } from './ui';

const DEBOUNCE_MS = 400;

export type FilterSpec =
  | { key: string; label: string; kind: 'text'; placeholder?: string; hint?: string }
  | { key: string; label: string; kind: 'select'; options: readonly string[]; anyLabel?: string; optionLabel?: (value: string) => string }
  | { key: string; label: string; kind: 'multi'; options: readonly string[] }
  | { key: string; label: string; kind: 'datetime' };

/**
 * The filters as the URL holds them: `get(key)` a single value ('' when absent, unless `defaults`
 * names one — a key present and empty means "any" even where a default exists), `all(key)` the
 * values of a repeated one, `set` writes them back.
 */
export function useUrlFilters(defaults: Record<string, string> = {}) {
  const { search } = useRoute();
  const get = (key: string) => search.get(key) ?? defaults[key] ?? '';
  const all = (key: string) => search.getAll(key).filter(Boolean);
  const set = (key: string, value: string | readonly string[]) => {
    const next = new URLSearchParams(window.location.search);
    next.delete(key);
    const values = typeof value === 'string' ? [value] : value;
    // An emptied filter that has a default stays in the URL, empty: "any", not the default again.
    if (values.length === 0 || (values.length === 1 && values[0] === '')) {
      if (defaults[key] !== undefined) next.set(key, '');
    } else for (const v of values) next.append(key, v);
    setSearch(next);
  };
  return { get, all, set, search };
}

export type UrlFilters = ReturnType<typeof useUrlFilters>;

/** A value that follows `value` once it has stopped changing for `ms`. */
function useDebounced<T>(value: T, ms = DEBOUNCE_MS): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** A text filter: typed freely, written to the URL when the typing pauses (Enter writes at once). */
function TextFilterField({ spec, filters }: { spec: Extract<FilterSpec, { kind: 'text' }>; filters: UrlFilters }) {
  const current = filters.get(spec.key);
  const [text, setText] = useState(current);
  const typed = useRef(false);
  const settled = useDebounced(text);
  // The URL changed from elsewhere (Back, a saved view): show it.
  useEffect(() => {
    if (!typed.current) setText(current);
  }, [current]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the URL is written when the debounced text settles, not on every render that brings a new `filters`.
  useEffect(() => {
    if (!typed.current) return;
    typed.current = false;
    filters.set(spec.key, settled.trim());
  }, [settled]);
  return (
    <Field label={spec.label} hint={spec.hint}>
      <input
        value={text}
        placeholder={spec.placeholder}
        onChange={(e) => {
          typed.current = true;
          setText(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            typed.current = false;
            filters.set(spec.key, text.trim());
          }
        }}
      />
    </Field>
  );
}

/** "2031-03-01T11:00:00Z" ↔ the datetime-local field's "2031-03-01T11:00:00", both UTC. */
const isoToField = (iso: string) => (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?Z$/.test(iso) ? iso.slice(0, -1) : '');
const fieldToIso = (value: string) => (value ? `${value.length === 16 ? `${value}:00` : value}Z` : '');

/** The browser's own zone and offset now, to say beside a UTC field what it is not. */
function browserZone(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const minutes = -new Date().getTimezoneOffset();
  const sign = minutes < 0 ? '−' : '+';
  const hh = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
  const mm = String(Math.abs(minutes) % 60).padStart(2, '0');
  return `${zone} (UTC${sign}${hh}:${mm})`;
}

function DateTimeField({ spec, filters }: { spec: Extract<FilterSpec, { kind: 'datetime' }>; filters: UrlFilters }) {
  const hintId = useId();
  return (
    <label className="field">
      <span>
        {spec.label} <abbr title="Coordinated Universal Time">UTC</abbr>
      </span>
      <input
        type="datetime-local"
        step={1}
        aria-describedby={hintId}
        value={isoToField(filters.get(spec.key))}
        onChange={(e) => filters.set(spec.key, fieldToIso(e.target.value))}
      />
      <small id={hintId}>In UTC, as the lists show times (this browser: {browserZone()}).</small>
    </label>
  );
}

/** A set of choices as checkboxes in a disclosure whose summary says what is chosen. */
function MultiField({ spec, filters }: { spec: Extract<FilterSpec, { kind: 'multi' }>; filters: UrlFilters }) {
  const chosen = filters.all(spec.key);
  const toggle = (value: string, on: boolean) => filters.set(spec.key, on ? [...chosen, value] : chosen.filter((v) => v !== value));
  return (
    <details className="multi">
      <summary>
        {spec.label}: {chosen.length ? chosen.join(', ') : 'any'}
      </summary>
      <fieldset>
        <legend className="sr-only">{spec.label}</legend>
        {spec.options.map((option) => (
          <label key={option} className="check">
            <input type="checkbox" checked={chosen.includes(option)} onChange={(e) => toggle(option, e.target.checked)} /> {option}
          </label>
        ))}
        {chosen.length > 0 && (
          <button type="button" onClick={() => filters.set(spec.key, [])}>
            Any {spec.label.toLowerCase()}
          </button>
        )}
      </fieldset>
    </details>
  );
}

function FilterField({ spec, filters }: { spec: FilterSpec; filters: UrlFilters }) {
  switch (spec.kind) {
    case 'text':
      return <TextFilterField spec={spec} filters={filters} />;
    case 'datetime':
      return <DateTimeField spec={spec} filters={filters} />;
    case 'multi':
      return <MultiField spec={spec} filters={filters} />;
    default:
      return (
        <Field label={spec.label}>
          <select value={filters.get(spec.key)} onChange={(e) => filters.set(spec.key, e.target.value)}>
            <option value="">{spec.anyLabel ?? 'any'}</option>
            {spec.options.map((option) => (
              <option key={option} value={option}>
                {spec.optionLabel ? spec.optionLabel(option) : option}
              </option>
            ))}
          </select>
        </Field>
      );
  }
}

/** The filter bar: each spec as its field, a reset, and the saved views of this page. */
export function FilterBar({
  label,
  specs,
  filters,
  view,
  children,
}: {
  label: string;
  specs: readonly FilterSpec[];
  filters: UrlFilters;
  view: string;
  children?: ReactNode;
}) {
  const { path } = useRoute();
  return (
    <div className="filter-bar">
      <form className="filters" aria-label={label} onSubmit={(e) => e.preventDefault()}>
        {specs.map((spec) => (
          <FilterField key={spec.key} spec={spec} filters={filters} />
        ))}
        {children}
        {filters.search.toString() && (
          <Link to={path} className="reset">
            Clear filters
          </Link>
        )}
      </form>
      <SavedViews view={view} />
    </div>
  );
}

type SavedView = { name: string; search: string };

/** Saved views live in this browser only (localStorage), per list page. */
function readViews(view: string): SavedView[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(`console.views.${view}`) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((v): v is SavedView => typeof v?.name === 'string' && typeof v?.search === 'string') : [];
  } catch {
    return [];
  }
}

function SavedViews({ view }: { view: string }) {
  const { path, search } = useRoute();
  const [views, setViews] = useState(() => readViews(view));
  const [name, setName] = useState('');
  const store = (next: SavedView[]) => {
    setViews(next);
    localStorage.setItem(`console.views.${view}`, JSON.stringify(next));
  };
  const current = search.toString();
  return (
    <details className="saved-views">
      <summary>Saved views{views.length ? ` (${views.length})` : ''}</summary>
      <ul>
        {views.map((v) => (
          <li key={v.name}>
            <Link to={`${path}${v.search ? `?${v.search}` : ''}`} aria-current={v.search === current ? 'true' : undefined}>
              {v.name}
            </Link>{' '}
            <button type="button" aria-label={`Delete the view ${v.name}`} onClick={() => store(views.filter((w) => w.name !== v.name))}>
              Delete
            </button>
          </li>
        ))}
        {views.length === 0 && <li className="muted">None yet.</li>}
      </ul>
      <form
        className="inline-form"
        aria-label="Save this view"
        onSubmit={(e) => {
          e.preventDefault();
          const trimmed = name.trim();
          if (!trimmed) return;
          store([...views.filter((v) => v.name !== trimmed), { name: trimmed, search: current }]);
          setName('');
        }}
      >
        <Field label="Name of this view">
          <input value={name} maxLength={60} onChange={(e) => setName(e.target.value)} />
        </Field>
        <button type="submit">Save view</button>
      </form>
      <p className="muted">Kept in this browser only.</p>
    </details>
  );
}
