import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api';
import { PagedTable, usePagedList } from '../list';
import { Link } from '../router';
import { Action, when } from '../ui';
import { useCan } from '../session';
import { BulkResults, SelectBox, useSelection, type BulkResult } from '../bulk';
import { POLL_MS } from '../notifications';
import { plainText, Text } from '../text';

export function Alerts() {
  const can = useCan();
  const [all, setAll] = useState(false);
  const alerts = usePagedList(
    ['alerts', all],
    (page_token) =>
      unwrap(api.GET('/api/v1/p2p/admin/alerts', { params: { query: { page_size: 50, page_token, ...(all ? { include_resolved: 'true' as const } : {}) } } })),
    { refetchInterval: POLL_MS },
  );
  const open = (alerts.list.data?.data ?? []).filter((a) => !a.resolved_at).map((a) => a.alert_id);
  const selection = useSelection(open);
  const [results, setResults] = useState<BulkResult[] | undefined>();
  const n = selection.ids.length;
  return (
    <>
      <h1>Alerts</h1>
      <p className="muted">
        An alert resolves by itself when its deal or subject moves on. Acknowledge one to say you are on it; resolve it by hand when it needs nothing more.
      </p>
      <label className="check">
        <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Include resolved alerts
      </label>
      {can('adminBulkResolveAlerts') && (
        <section className="bulk" aria-label="Selected alerts">
          <p>
            <strong data-testid="selected-count">{n}</strong> selected{' '}
            <button type="button" onClick={() => selection.setAll(true)}>
              Select all open on this page
            </button>{' '}
            <button type="button" onClick={() => selection.setAll(false)} disabled={n === 0}>
              Clear
            </button>
          </p>
          <Action
            op="adminBulkResolveAlerts"
            label="Resolve selected"
            disabled={n === 0}
            confirm={{
              title: `Resolve ${n} alert${n === 1 ? '' : 's'}?`,
              text: 'Each is marked resolved by you, as if you resolved it alone. If a condition persists, the gateway raises a new alert.',
              label: 'Resolve each',
            }}
            run={() => unwrap(api.POST('/api/v1/p2p/admin/alerts/bulk-resolve', { body: { alert_ids: selection.ids } }))}
            onDone={(answer) => {
              setResults(answer.results);
              selection.clear();
            }}
          />
          <BulkResults results={results} names={{ resolved: 'resolved' }} />
        </section>
      )}
      <PagedTable
        paged={alerts}
        what="alerts"
        caption="Alerts, newest first"
        columns={['Select', 'Raised', 'Kind', 'Message', 'Deal or subject', 'Acknowledged', 'Resolved', 'Actions']}
        rowKey={(a) => a.alert_id}
        row={(a) => <AlertRow a={a} selection={selection} />}
        empty="No alerts."
      />
    </>
  );
}

function AlertRow({ a, selection }: { a: Schemas['OperatorAlert']; selection: ReturnType<typeof useSelection> }) {
  const path = { params: { path: { alert_id: a.alert_id } } };
  return (
    <tr data-alert={a.alert_id}>
      <td>
        {!a.resolved_at && (
          <SelectBox label={`Select alert ${a.kind} ${when(a.created_at)}`} checked={selection.has(a.alert_id)} onChange={() => selection.toggle(a.alert_id)} />
        )}
      </td>
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
