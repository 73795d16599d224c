import { api, unwrap, type Schemas } from '../api';
import { FilterForm, PagedTable, TextFilter, useFilterForm, usePagedList } from '../list';
import { AuditDiff, ExportCsv, IdLink, Named, type ObjectKind } from '../names';
import { useRoute } from '../router';
import { when } from '../ui';

type Entry = Schemas['AuditEntry'];

const NAMED_KINDS: readonly string[] = ['merchant', 'trader', 'operator'];

export function Audit() {
  const { search } = useRoute();
  const filters = useFilterForm({
    actor: search.get('actor') ?? '',
    credential: search.get('credential') ?? '',
    action: search.get('action') ?? '',
    object_type: search.get('object_type') ?? '',
    object_id: search.get('object_id') ?? '',
  });
  const { filter } = filters;
  const query = Object.fromEntries(Object.entries(filter).filter(([, v]) => v));
  const entries = usePagedList(['audit', filter], (page_token) =>
    unwrap(api.GET('/api/v1/p2p/admin/audit', { params: { query: { page_size: 50, page_token, ...query } } })),
  );
  return (
    <>
      <h1>Audit log</h1>
      <FilterForm label="Filter the audit log" submit="Filter" onApply={filters.apply}>
        <TextFilter label="Actor id" {...filters.input('actor')} placeholder="account id (or its start) or JWT sub" />
        <TextFilter label="Session or token" {...filters.input('credential')} placeholder="session:… or jwt:…" />
        <TextFilter label="Action" {...filters.input('action')} placeholder="e.g. withdrawal.approve" />
        <TextFilter label="Object type" {...filters.input('object_type')} />
        <TextFilter label="Object id" {...filters.input('object_id')} placeholder="whole or first 8 characters" />
      </FilterForm>
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
        <span title={`${e.actor_kind} ${e.actor_id}`}>{e.actor_name}</span>
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
