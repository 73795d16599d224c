/**
 * The scaffolding of the console's list pages: a filter form, a query paged with the API's
 * tokens, its error and loading states, a table with a (screen-reader) caption and header row —
 * sortable where the API sorts, and shown as one card per row at phone width — and the pager.
 */
import { Fragment, useEffect, useRef, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { ErrorText, Field, Loading } from './ui';

/** Keyset paging with the API's tokens: the token of the page shown, and the way back. */
function usePages(resetKey: string) {
  const [tokens, setTokens] = useState<string[]>(['']);
  // A new filter starts at its first page in the same render, so no request goes out with the old filter's token.
  const [pagedKey, setPagedKey] = useState(resetKey);
  if (pagedKey !== resetKey) {
    setPagedKey(resetKey);
    setTokens(['']);
  }
  const token = tokens[tokens.length - 1] ?? '';
  return {
    token: token || undefined,
    page: tokens.length,
    next: (nextToken: string) => setTokens((t) => [...t, nextToken]),
    previous: () => setTokens((t) => (t.length > 1 ? t.slice(0, -1) : t)),
  };
}

function Pager({ pages, nextToken }: { pages: ReturnType<typeof usePages>; nextToken: string | undefined }) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={pages.previous} disabled={pages.page <= 1}>
        Previous page
      </button>
      <span>Page {pages.page}</span>
      <button type="button" onClick={() => nextToken && pages.next(nextToken)} disabled={!nextToken}>
        Next page
      </button>
    </nav>
  );
}

/** One page of a list endpoint's answer. */
export type ListPage<T> = { data: T[]; next_page_token?: string };

/**
 * A list endpoint read a page at a time: the query key is `key` and the page's token; a change of
 * `key` (the filter) starts again at the first page. `fetchPage` gets the token (undefined: the first page);
 * `refetchInterval` reads the page again that often (a queue others work on too).
 */
export function usePagedList<T>(
  key: readonly unknown[],
  fetchPage: (pageToken: string | undefined) => Promise<ListPage<T>>,
  options: { refetchInterval?: number } = {},
): Paged<T> {
  const pages = usePages(JSON.stringify(key));
  const list = useQuery({ queryKey: [...key, pages.token], queryFn: () => fetchPage(pages.token), ...options });
  return { pages, list };
}

export type Paged<T> = { pages: ReturnType<typeof usePages>; list: UseQueryResult<ListPage<T>> };

/** A query's error (role="alert"), its loading state (aria-busy), then what its data shows. */
export function Loaded<D>({ query, what, children }: { query: UseQueryResult<D>; what: string; children: (data: D) => ReactNode }) {
  return (
    <>
      <ErrorText error={query.error} />
      {query.isPending ? <Loading what={what} /> : query.data !== undefined && children(query.data)}
    </>
  );
}

/** A paged list's error, loading state, items (as `children` shows them) and pager. */
export function PagedList<T>({ paged, what, children }: { paged: Paged<T>; what: string; children: (items: T[]) => ReactNode }) {
  return (
    <Loaded query={paged.list} what={what}>
      {(page) => (
        <>
          {children(page.data)}
          <Pager pages={paged.pages} nextToken={page.next_page_token} />
        </>
      )}
    </Loaded>
  );
}

/**
 * A table: optional caption (for screen readers only), a header row of `columns`, a row per item,
 * `empty` in one row when none. `sort` makes the named columns sortable: each column's key for the
 * API ascending, the current order ("-key" descending), and what to do on a click.
 */
type DataTableProps<T> = {
  caption?: ReactNode;
  columns: readonly string[];
  rows: readonly T[];
  rowKey: (item: T) => string;
  row: (item: T) => ReactNode;
  empty?: string;
  className?: string;
  sort?: { columns: Readonly<Record<string, string>>; current: string; onSort: (order: string) => void };
};

/**
 * At phone width the stylesheet shows each row as a card, every cell under its column's name: the
 * names go on the cells as data-label, kept up to date as rows come and go.
 */
function useCellLabels() {
  const ref = useRef<HTMLTableElement>(null);
  useEffect(() => {
    const table = ref.current;
    if (!table) return;
    const label = () => {
      const names = Array.from(table.tHead?.rows[0]?.cells ?? [], (th) => th.dataset.name ?? th.textContent ?? '');
      for (const body of Array.from(table.tBodies))
        for (const tr of Array.from(body.rows)) {
          if (tr.cells.length === 1 && tr.cells[0]!.colSpan > 1) continue;
          Array.from(tr.cells).forEach((cell, i) => {
            if (names[i] !== undefined && cell.dataset.label !== names[i]) cell.dataset.label = names[i];
          });
        }
    };
    label();
    const observer = new MutationObserver(label);
    observer.observe(table, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);
  return ref;
}

export function DataTable<T>({ caption, columns, rows, rowKey, row, empty, className, sort }: DataTableProps<T>) {
  const ref = useCellLabels();
  return (
    <table ref={ref} className={['cards-on-phone', className].filter(Boolean).join(' ')}>
      {caption && <caption className="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((column) => {
            const key = sort?.columns[column];
            if (!sort || !key)
              return (
                <th key={column} scope="col">
                  {column}
                </th>
              );
            const direction = sort.current === key ? 'ascending' : sort.current === `-${key}` ? 'descending' : undefined;
            return (
              <th key={column} scope="col" aria-sort={direction ?? 'none'} data-name={column}>
                <button
                  type="button"
                  className="sort"
                  onClick={() => sort.onSort(direction === 'descending' ? key : `-${key}`)}
                  aria-label={`${column}: sort ${direction === 'descending' ? 'ascending' : 'descending'}`}
                >
                  {column} <span aria-hidden="true">{direction === 'ascending' ? '▲' : direction === 'descending' ? '▼' : '↕'}</span>
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {rows.map((item) => (
          <Fragment key={rowKey(item)}>{row(item)}</Fragment>
        ))}
        {empty && rows.length === 0 && (
          <tr>
            <td colSpan={columns.length}>{empty}</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/** A paged list shown as a DataTable, with its error, loading state and pager. */
export function PagedTable<T>({ paged, what, ...table }: { paged: Paged<T>; what: string } & Omit<DataTableProps<T>, 'rows'>) {
  return (
    <PagedList paged={paged} what={what}>
      {(rows) => <DataTable rows={rows} {...table} />}
    </PagedList>
  );
}

/**
 * A filter form: Enter or the submit button (when `submit` names one) calls `onApply`; without
 * `onApply` the fields filter as they change.
 */
export function FilterForm({ label, submit, onApply, children }: { label: string; submit?: string; onApply?: () => void; children: ReactNode }) {
  return (
    <form
      className="filters"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onApply?.();
      }}
    >
      {children}
      {submit && <button type="submit">{submit}</button>}
    </form>
  );
}

/** A labelled text field of a filter form. */
export function TextFilter({ label, ...input }: { label: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field label={label}>
      <input {...input} />
    </Field>
  );
}
