import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api';
import { PagedTable, usePagedList } from '../list';
import { Link } from '../router';
import { Action, when } from '../ui';
import { plainText, Text } from '../text';

export function Alerts() {
  const [all, setAll] = useState(false);
  const alerts = usePagedList(['alerts', all], (page_token) =>
    unwrap(api.GET('/api/v1/p2p/admin/alerts', { params: { query: { page_size: 50, page_token, ...(all ? { include_resolved: 'true' as const } : {}) } } })),
  );
  return (
    <>
      <h1>Alerts</h1>
      <p className="muted">
        An alert resolves by itself when its deal or subject moves on. Acknowledge one to say you are on it; resolve it by hand when it needs nothing more.
      </p>
      <label className="check">
        <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Include resolved alerts
      </label>
      <PagedTable
        paged={alerts}
        what="alerts"
        caption="Alerts, newest first"
        columns={['Raised', 'Kind', 'Message', 'Deal or subject', 'Acknowledged', 'Resolved', 'Actions']}
        rowKey={(a) => a.alert_id}
        row={(a) => <AlertRow a={a} />}
        empty="No alerts."
      />
    </>
  );
}

function AlertRow({ a }: { a: Schemas['OperatorAlert'] }) {
  const path = { params: { path: { alert_id: a.alert_id } } };
  return (
    <tr data-alert={a.alert_id}>
      <td>{when(a.created_at)}</td>
      <td>{a.kind}</td>
      <td>
        <Text value={a.message} />
      </td>
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
              text: `“${plainText(a.message)}” is marked resolved by you. If the condition persists, the gateway raises a new alert.`,
              label: 'Resolve alert',
            }}
            run={() => unwrap(api.POST('/api/v1/p2p/admin/alerts/{alert_id}/resolve', path))}
          />
        )}
      </td>
    </tr>
  );
}
