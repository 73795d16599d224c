import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { Action, ErrorText, Field, Loading, money, Pager, usePages, when } from '../ui';

export function Traders() {
  const pages = usePages('');
  const [name, setName] = useState('');
  const list = useQuery({
    queryKey: ['traders', pages.token],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/traders', { params: { query: { page_size: 25, page_token: pages.token } } })),
  });
  return (
    <>
      <h1>Traders and requisites</h1>
      <div className="filters">
        <Field label="New trader's name">
          <input value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Action op="adminCreateTrader" label="Create trader" run={() => unwrap(api.POST('/api/v1/p2p/admin/traders', { body: { name } }))} onDone={() => setName('')} />
      </div>
      <ErrorText error={list.error} />
      {list.isPending ? (
        <Loading what="traders" />
      ) : (
        list.data && (
          <>
            {list.data.data.map((t) => (
              <section key={t.trader_id} className="card wide" aria-label={`Trader ${t.name}`}>
                <h2>
                  {t.name} <span className="badge">{t.status}</span>
                </h2>
                <p>
                  <span className="mono">{t.trader_id}</span> · balance {money(t.balance_usdt)} USDT, frozen {money(t.frozen_usdt)} · since {when(t.created_at)}
                </p>
                <table>
                  <caption className="sr-only">Requisites of {t.name}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Method</th>
                      <th scope="col">Type</th>
                      <th scope="col">Number</th>
                      <th scope="col">Holder / bank</th>
                      <th scope="col">Limits</th>
                      <th scope="col">Status</th>
                    </tr>
                  </thead>
                  <tbody>
                    {t.requisites.map((r) => (
                      <tr key={r.requisite_id}>
                        <td>{r.payment_method}</td>
                        <td>{r.requisite_type}</td>
                        <td className="mono">{r.card_number || r.phone_number || r.iban}</td>
                        <td>
                          {r.holder_name} / {r.bank_name}
                        </td>
                        <td className="num">
                          {money(r.min_amount)} – {money(r.max_amount)}
                          {r.daily_limit && `, daily ${money(r.daily_limit)}`}
                        </td>
                        <td>{r.status}</td>
                      </tr>
                    ))}
                    {t.requisites.length === 0 && (
                      <tr>
                        <td colSpan={6}>No requisites.</td>
                      </tr>
                    )}
                  </tbody>
                </table>
              </section>
            ))}
            {list.data.data.length === 0 && <p>No traders.</p>}
            <Pager pages={pages} nextToken={list.data.next_page_token} />
          </>
        )
      )}
    </>
  );
}
