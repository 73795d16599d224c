/**
 * The one search box (in the header) and its results page: deals, appeals, withdrawals,
 * merchants, traders and operators by any id or its start, name, email, client id, amount, card
 * or phone tail — the server's search (GET /admin/search), which looks only into the kinds the
 * role may list.
 */
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { Loaded } from '../list';
import { IdLink, Named } from '../names';
import { navigate, useRoute } from '../router';
import { useCan } from '../session';
import { Text } from '../text';
import { money, when } from '../ui';

export function SearchBox() {
  const can = useCan();
  const { path, search } = useRoute();
  const current = path === '/search' ? (search.get('q') ?? '') : '';
  const [q, setQ] = useState(current);
  useEffect(() => setQ(current), [current]);
  if (!can('adminSearch')) return null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = q.trim();
    if (text) navigate(`/search?q=${encodeURIComponent(text)}`);
  };
  return (
    <search>
      <form className="search" aria-label="Search the console" onSubmit={submit}>
        <label htmlFor="console-search" className="sr-only">
          Search by id, name, email, client id, amount, card or phone tail
        </label>
        <input
          id="console-search"
          type="search"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          placeholder="Id, name, email, amount, card tail…"
          maxLength={200}
          autoComplete="off"
        />
        <button type="submit">Find</button>
      </form>
    </search>
  );
}

type Result = Schemas['ConsoleSearchResult'];

const Matched = ({ why }: { why: string[] }) => <span className="matched">by {why.join(', ')}</span>;

export function SearchResults() {
  const q = useRoute().search.get('q') ?? '';
  const result = useQuery({
    queryKey: ['search', q],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/search', { params: { query: { q, limit: 25 } } })),
    enabled: q.trim().length > 0,
  });
  return (
    <div className="search-results">
      <h1>
        Search: <Text value={q} />
      </h1>
      {!q.trim() ? (
        <p>Type an id (or its first characters), a name, an email, a client id, an amount or the last four digits of a card or phone in the box above.</p>
      ) : (
        <Loaded query={result} what="the results">
          {(r) => <Groups r={r} />}
        </Loaded>
      )}
    </div>
  );
}

/** One kind's hits: a labelled section with its list, or nothing when the kind found none. */
function Found<T>({
  kind,
  title,
  rows,
  keyOf,
  children,
}: {
  kind: string;
  title: string;
  rows: T[];
  keyOf: (row: T) => string;
  children: (row: T) => ReactNode;
}) {
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby={`found-${kind}`} data-kind={kind}>
      <h2 id={`found-${kind}`}>{title}</h2>
      <ul>
        {rows.map((row) => (
          <li key={keyOf(row)} data-deal={kind === 'deals' ? keyOf(row) : undefined}>
            {children(row)}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Groups({ r }: { r: Result }) {
  const total = r.deals.length + r.appeals.length + r.withdrawals.length + r.merchants.length + r.traders.length + r.operators.length;
  if (total === 0) return <p role="status">Nothing found in {r.kinds.join(', ')}.</p>;
  return (
    <>
      <p role="status">
        {total} found in {r.kinds.join(', ')}.
      </p>
      <Found kind="deals" title="Deals" rows={r.deals} keyOf={(d) => d.deal_id}>
        {(d) => (
          <>
            <IdLink kind="deal" id={d.deal_id} /> {d.deal_type} <span className="badge">{d.status}</span> {money(d.amount)} {d.currency} ·{' '}
            <Named kind="merchant" id={d.merchant_id} name={d.merchant_name} /> · {when(d.created_at)} <Matched why={d.matched} />
          </>
        )}
      </Found>
      <Found kind="appeals" title="Appeals" rows={r.appeals} keyOf={(a) => a.appeal_id}>
        {(a) => (
          <>
            <IdLink kind="appeal" id={a.appeal_id} /> <span className="badge">{a.status}</span> on deal <IdLink kind="deal" id={a.deal_id} /> ·{' '}
            <Named kind="merchant" id={a.merchant_id} name={a.merchant_name} /> · {when(a.created_at)} <Matched why={a.matched} />
          </>
        )}
      </Found>
      <Found kind="withdrawals" title="Withdrawals" rows={r.withdrawals} keyOf={(w) => w.withdrawal_id}>
        {(w) => (
          <>
            <IdLink kind="withdrawal" id={w.withdrawal_id} /> <span className="badge">{w.status}</span> {money(w.amount)} USDT to{' '}
            <span className="mono">{w.address}</span> · <Named kind="merchant" id={w.merchant_id} name={w.merchant_name} /> · {when(w.created_at)}{' '}
            <Matched why={w.matched} />
          </>
        )}
      </Found>
      <Found kind="merchants" title="Merchants" rows={r.merchants} keyOf={(m) => m.merchant_id}>
        {(m) => (
          <>
            <Named kind="merchant" id={m.merchant_id} name={m.name} /> <Text value={m.email} /> · {m.status} <Matched why={m.matched} />
          </>
        )}
      </Found>
      <Found kind="traders" title="Traders" rows={r.traders} keyOf={(t) => t.trader_id}>
        {(t) => (
          <>
            <Named kind="trader" id={t.trader_id} name={t.name} /> · {t.status} <Matched why={t.matched} />
          </>
        )}
      </Found>
      <Found kind="operators" title="Operators" rows={r.operators} keyOf={(o) => o.operator_id}>
        {(o) => (
          <>
            <Named kind="operator" id={o.operator_id} name={o.email} /> · {o.role}
            {o.disabled ? ' (disabled)' : ''} <Matched why={o.matched} />
          </>
        )}
      </Found>
    </>
  );
}
