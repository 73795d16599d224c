import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { Link } from '../router';
import { ErrorText, Loading, when } from '../ui';

export function Alerts() {
  const [all, setAll] = useState(false);
  const list = useQuery({
    queryKey: ['alerts', all],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/alerts', { params: { query: all ? { include_resolved: 'true' } : {} } })),
  });
  return (
    <>
      <h1>Alerts</h1>
      <p className="muted">An alert resolves by itself when its deal or subject moves on. The API answers at most 500, newest first.</p>
      <label className="check">
        <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Include resolved alerts
      </label>
      <ErrorText error={list.error} />
      {list.isPending ? (
        <Loading what="alerts" />
      ) : (
        list.data && (
          <table>
            <caption className="sr-only">Alerts, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Raised</th>
                <th scope="col">Kind</th>
                <th scope="col">Message</th>
                <th scope="col">Deal</th>
                <th scope="col">Resolved</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((a) => (
                <tr key={a.alert_id}>
                  <td>{when(a.created_at)}</td>
                  <td>{a.kind}</td>
                  <td>{a.message}</td>
                  <td>{a.deal_id ? <Link to={`/deals/${a.deal_id}`}>{a.deal_id.slice(0, 8)}</Link> : ''}</td>
                  <td>{a.resolved_at ? when(a.resolved_at) : 'open'}</td>
                </tr>
              ))}
              {list.data.data.length === 0 && (
                <tr>
                  <td colSpan={5}>No alerts.</td>
                </tr>
              )}
            </tbody>
          </table>
        )
      )}
    </>
  );
}
