/**
 * The one search box (in the header) and its results page: deals, appeals, withdrawals,
 * merchants, traders and operators by any id or its start, name, email, client id, amount, card
 * or phone tail — the server's search (GET /admin/search), which looks only into the kinds the
 * role may list.
 */
import { useEffect, useState, type FormEvent } from 'react';
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

function Groups({ r }: { r: Result }) {
  const total = r.deals.length + r.appeals.length + r.withdrawals.length + r.merchants.length + r.traders.length + r.operators.length;
  if (total === 0) return <p role="status">Nothing found in {r.kinds.join(', ')}.</p>;
  return (
    <>
      <p role="status">
        {total} found in {r.kinds.join(', ')}.
      </p>
      {r.deals.length > 0 && (
        <section aria-labelledby="found-deals" data-kind="deals">
          <h2 id="found-deals">Deals</h2>
          <ul>
            {r.deals.map((d) => (
              <li key={d.deal_id} data-deal={d.deal_id}>
                <IdLink kind="deal" id={d.deal_id} /> {d.deal_type} <span className="badge">{d.status}</span> {money(d.amount)} {d.currency} ·{' '}
                <Named kind="merchant" id={d.merchant_id} name={d.merchant_name} /> · {when(d.created_at)} <Matched why={d.matched} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {r.appeals.length > 0 && (
        <section aria-labelledby="found-appeals" data-kind="appeals">
          <h2 id="found-appeals">Appeals</h2>
          <ul>
            {r.appeals.map((a) => (
              <li key={a.appeal_id}>
                <IdLink kind="appeal" id={a.appeal_id} /> <span className="badge">{a.status}</span> on deal <IdLink kind="deal" id={a.deal_id} /> ·{' '}
                <Named kind="merchant" id={a.merchant_id} name={a.merchant_name} /> · {when(a.created_at)} <Matched why={a.matched} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {r.withdrawals.length > 0 && (
        <section aria-labelledby="found-withdrawals" data-kind="withdrawals">
          <h2 id="found-withdrawals">Withdrawals</h2>
          <ul>
            {r.withdrawals.map((w) => (
              <li key={w.withdrawal_id}>
                <IdLink kind="withdrawal" id={w.withdrawal_id} /> <span className="badge">{w.status}</span> {money(w.amount)} USDT to{' '}
                <span className="mono">{w.address}</span> · <Named kind="merchant" id={w.merchant_id} name={w.merchant_name} /> · {when(w.created_at)}{' '}
                <Matched why={w.matched} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {r.merchants.length > 0 && (
        <section aria-labelledby="found-merchants" data-kind="merchants">
          <h2 id="found-merchants">Merchants</h2>
          <ul>
            {r.merchants.map((m) => (
              <li key={m.merchant_id}>
                <Named kind="merchant" id={m.merchant_id} name={m.name} /> <Text value={m.email} /> · {m.status} <Matched why={m.matched} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {r.traders.length > 0 && (
        <section aria-labelledby="found-traders" data-kind="traders">
          <h2 id="found-traders">Traders</h2>
          <ul>
            {r.traders.map((t) => (
              <li key={t.trader_id}>
                <Named kind="trader" id={t.trader_id} name={t.name} /> · {t.status} <Matched why={t.matched} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {r.operators.length > 0 && (
        <section aria-labelledby="found-operators" data-kind="operators">
          <h2 id="found-operators">Operators</h2>
          <ul>
            {r.operators.map((o) => (
              <li key={o.operator_id}>
                <Named kind="operator" id={o.operator_id} name={o.email} /> · {o.role}
                {o.disabled ? ' (disabled)' : ''} <Matched why={o.matched} />
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
