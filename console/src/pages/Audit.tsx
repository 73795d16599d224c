import { api, unwrap } from '../api';
import { FilterForm, PagedTable, TextFilter, useFilterForm, usePagedList } from '../list';
import { when } from '../ui';

export function Audit() {
  const filters = useFilterForm({ actor: '', action: '', object_type: '', object_id: '' });
  const { filter } = filters;
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
      <FilterForm label="Filter the audit log" submit="Filter" onApply={filters.apply}>
        <TextFilter label="Actor id" {...filters.input('actor')} />
        <TextFilter label="Action" {...filters.input('action')} placeholder="e.g. withdrawal.approve" />
        <TextFilter label="Object type" {...filters.input('object_type')} />
        <TextFilter label="Object id" {...filters.input('object_id')} />
      </FilterForm>
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
