import { api, unwrap } from '../api';
import { PagedTable, usePagedList } from '../list';
import { FilterBar, useUrlFilters, type FilterSpec } from '../filters';
import { when } from '../ui';

const FILTERS: FilterSpec[] = [
  { key: 'actor', label: 'Actor id', kind: 'text' },
  { key: 'action', label: 'Action', kind: 'text', placeholder: 'e.g. withdrawal.approve' },
  { key: 'object_type', label: 'Object type', kind: 'text' },
  { key: 'object_id', label: 'Object id', kind: 'text' },
];

export function Audit() {
  const filters = useUrlFilters();
  const filter = Object.fromEntries(FILTERS.map((f) => [f.key, filters.get(f.key)]));
  const entries = usePagedList(['audit', filter], (page_token) =>
    unwrap(
      api.GET('/api/v1/p2p/admin/audit', {
        params: { query: { page_size: 50, page_token, ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v)) } },
      }),
    ),
  );
  return (
    <>
      <h1>Audit log</h1>
      <FilterBar label="Filter the audit log" specs={FILTERS} filters={filters} view="audit" />
      <PagedTable
        paged={entries}
        what="the audit log"
        className="audit"
        caption="Audit entries, newest first"
        columns={['At', 'Actor', 'Role', 'Action', 'Object', 'Request']}
        rowKey={(e) => e.id}
        row={(e) => (
          <tr data-action={e.action}>
            <td>{when(e.at)}</td>
            <td className="mono">
              {e.actor_kind === 'operator_jwt' ? 'JWT ' : ''}
              {e.actor_kind === 'system' ? e.actor_id : e.actor_id.slice(0, 8)}
            </td>
            <td>{e.role}</td>
            <td>{e.action}</td>
            <td className="mono">
              {e.object_type} {e.object_id.slice(0, 8)}
            </td>
            <td className="mono">{e.request_id.slice(0, 12)}</td>
          </tr>
        )}
        empty="No entries."
      />
    </>
  );
}
