import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { Link } from '../router';
import { Action, ErrorText, Loading, Pager, usePages, when } from '../ui';

export function Alerts() {
  const [all, setAll] = useState(false);
  const pages = usePages(String(all));
  const list = useQuery({
    queryKey: ['alerts', all, pages.token],
    queryFn: () =>
      unwrap(api.GET('/api/v1/p2p/admin/alerts', { params: { query: { page_size: 50, page_token: pages.token, ...(all ? { include_resolved: 'true' as const } : {}) } } })),
  });
  return (
    <>
      <h1>Alerts</h1>
      <p className="muted">
        An alert resolves by itself when its deal or subject moves on. Acknowledge one to say you are on it; resolve it by hand when it needs nothing more.
      </p>
      <label className="check">
        <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Include resolved alerts
      </label>
      <ErrorText error={list.error} />
      {list.isPending ? (
        <Loading what="alerts" />
      ) : (
        list.data && (
          <>
            <table>
              <caption className="sr-only">Alerts, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Raised</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Message</th>
                  <th scope="col">Deal or subject</th>
                  <th scope="col">Acknowledged</th>
                  <th scope="col">Resolved</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((a) => {
                  const path = { params: { path: { alert_id: a.alert_id } } };
                  return (
                    <tr key={a.alert_id} data-alert={a.alert_id}>
                      <td>{when(a.created_at)}</td>
                      <td>{a.kind}</td>
                      <td>{a.message}</td>
                      <td>{a.deal_id ? <Link to={`/deals/${a.deal_id}`}>{a.deal_id.slice(0, 8)}</Link> : <span className="mono">{a.subject}</span>}</td>
                      <td data-testid="acknowledged">{a.acknowledged_at ? `${when(a.acknowledged_at)} by ${a.acknowledged_by}` : '—'}</td>
                      <td data-testid="resolved">{a.resolved_at ? `${when(a.resolved_at)}${a.resolved_by ? ` by ${a.resolved_by}` : ' (by the gateway)'}` : 'open'}</td>
                      <td>
                        {!a.resolved_at && !a.acknowledged_at && (
                          <Action op="adminAcknowledgeAlert" label="Acknowledge" run={() => unwrap(api.POST('/api/v1/p2p/admin/alerts/{alert_id}/acknowledge', path))} />
                        )}
                        {!a.resolved_at && (
                          <Action
                            op="adminResolveAlert"
                            label="Resolve"
                            confirm={{
                              title: 'Resolve this alert?',
                              text: `“${a.message}” is marked resolved by you. If the condition persists, the gateway raises a new alert.`,
                              label: 'Resolve alert',
                            }}
                            run={() => unwrap(api.POST('/api/v1/p2p/admin/alerts/{alert_id}/resolve', path))}
                          />
                        )}
                      </td>
                    </tr>
                  );
                })}
                {list.data.data.length === 0 && (
                  <tr>
                    <td colSpan={7}>No alerts.</td>
                  </tr>
                )}
              </tbody>
            </table>
            <Pager pages={pages} nextToken={list.data.next_page_token} />
          </>
        )
      )}
    </>
  );
}
