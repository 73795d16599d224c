import { api, unwrap, type Schemas } from '../api';
import { PagedTable, usePagedList } from '../list';
import { FilterBar, useUrlFilters, type FilterSpec } from '../filters';
import { AuditDiff, ExportCsv, IdLink, Named, type ObjectKind } from '../names';
import { Text } from '../text';
import { when } from '../ui';

type Entry = Schemas['AuditEntry'];

const NAMED_KINDS: readonly string[] = ['merchant', 'trader', 'operator'];

const FILTERS: FilterSpec[] = [
  { key: 'actor', label: 'Actor id', kind: 'text', placeholder: 'account id (or its start) or JWT sub' },
  { key: 'credential', label: 'Session or token', kind: 'text', placeholder: 'session:… or jwt:…' },
  { key: 'action', label: 'Action', kind: 'text', placeholder: 'e.g. withdrawal.approve' },
  { key: 'object_type', label: 'Object type', kind: 'text' },
  { key: 'object_id', label: 'Object id', kind: 'text', placeholder: 'whole or first 8 characters' },
];

export function Audit() {
  const filters = useUrlFilters();
  const filter = Object.fromEntries(FILTERS.map((f) => [f.key, filters.get(f.key)]));
  const query = Object.fromEntries(Object.entries(filter).filter(([, v]) => v));
  const entries = usePagedList(['audit', filter], (page_token) =>
    unwrap(api.GET('/api/v1/p2p/admin/audit', { params: { query: { page_size: 50, page_token, ...query } } })),
  );
  return (
    <>
      <h1>Audit log</h1>
      <FilterBar label="Filter the audit log" specs={FILTERS} filters={filters} view="audit" />
      <div className="list-actions">
        <ExportCsv op="adminExportAudit" path="/audit/export" query={query} />
      </div>
      <PagedTable
        paged={entries}
        what="the audit log"
        className="audit"
        caption="Audit entries, newest first"
        columns={['At', 'Who', 'Action', 'Object', 'What changed', 'Request']}
        rowKey={(e) => e.id}
        row={(e) => (
          <tr data-action={e.action}>
            <td>{when(e.at)}</td>
            <td data-testid="actor">
              <Actor e={e} />
            </td>
            <td>{e.action}</td>
            <td data-testid="object">
              {e.object_type}{' '}
              {NAMED_KINDS.includes(e.object_type) ? (
                <Named kind={e.object_type as ObjectKind} id={e.object_id} name={e.object_name} />
              ) : (
                <IdLink kind={e.object_type} id={e.object_id} />
              )}
            </td>
            <td data-testid="diff">
              <AuditDiff before={e.before} after={e.after} />
            </td>
            <td className="mono" title={e.request_id}>
              {e.request_id.slice(0, 12)}
            </td>
          </tr>
        )}
        empty="No entries."
      />
    </>
  );
}

/** Who acted: the account (its email, linked, its id on hover), the JWT by its sub, the gateway, or a failed sign-in; the role then; the session or token. */
function Actor({ e }: { e: Entry }) {
  return (
    <>
      {e.actor_kind === 'operator_account' ? (
        <Named kind="operator" id={e.actor_id} name={e.actor_email || e.actor_name} />
      ) : (
        <Text value={e.actor_name} title={`${e.actor_kind} ${e.actor_id}`} />
      )}
      {e.role && (
        <>
          {' '}
          <span className="badge">{e.role}</span>
        </>
      )}
      {e.actor_credential && (
        <div className="muted mono" title="The session or token the action was taken with (a one-way reference)">
          {e.actor_credential.startsWith('session:') ? 'session ' : 'token '}
          {e.actor_credential.split(':')[1]}
        </div>
      )}
    </>
  );
}
