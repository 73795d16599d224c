/**
 * The scaffolding of the console's list pages: a filter form, a query paged with the API's
 * tokens, its error and loading states, a table with a (screen-reader) caption and header row,
 * and the pager.
 */
import { Fragment, useState, type InputHTMLAttributes, type ReactNode } from 'react';
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

/** A table: optional caption (for screen readers only), a header row of `columns`, a row per item, `empty` in one row when none. */
type DataTableProps<T> = {
  caption?: ReactNode;
  columns: readonly string[];
  rows: readonly T[];
  rowKey: (item: T) => string;
  row: (item: T) => ReactNode;
  empty?: string;
  className?: string;
};

export function DataTable<T>({ caption, columns, rows, rowKey, row, empty, className }: DataTableProps<T>) {
  return (
    <table className={className}>
      {caption && <caption className="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
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

/** Filter fields edited in a form (trimmed as typed) and applied on submit: `input(key)` binds one text field. */
export function useFilterForm<F extends Record<string, string>>(initial: F) {
  const [form, setForm] = useState(initial);
  const [filter, setFilter] = useState(initial);
  const input = (key: keyof F) => ({
    value: form[key],
    onChange: (e: { target: { value: string } }) => {
      const value = e.target.value.trim();
      setForm((f) => ({ ...f, [key]: value }));
    },
  });
  return { filter, input, apply: () => setFilter({ ...form }) };
}

/** A labelled text field of a filter form. */
export function TextFilter({ label, ...input }: { label: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field label={label}>
      <input {...input} />
    </Field>
  );
}

/** The queues' filter (appeals, withdrawals): a status ('' = any) and a merchant id, applied as they change. */
export function useStatusMerchantFilter<S extends string>(initial: S | '') {
  const [status, setStatus] = useState<S | ''>(initial);
  const [merchant, setMerchant] = useState('');
  const query: { status?: S[]; merchant_id?: string } = { ...(status ? { status: [status] } : {}), ...(merchant ? { merchant_id: merchant } : {}) };
  return { status, setStatus, merchant, setMerchant, query };
}

export function StatusMerchantFilter<S extends string>({
  label,
  statuses,
  filter,
  optionLabel = (s) => s || 'any',
}: {
  label: string;
  statuses: readonly (S | '')[];
  filter: ReturnType<typeof useStatusMerchantFilter<S>>;
  optionLabel?: (status: S | '') => string;
}) {
  return (
    <FilterForm label={label}>
      <Field label="Status">
        <select value={filter.status} onChange={(e) => filter.setStatus(e.target.value as S | '')}>
          {statuses.map((s) => (
            <option key={s} value={s}>
              {optionLabel(s)}
            </option>
          ))}
        </select>
      </Field>
      <TextFilter label="Merchant id" value={filter.merchant} onChange={(e) => filter.setMerchant(e.target.value.trim())} />
    </FilterForm>
  );
}
