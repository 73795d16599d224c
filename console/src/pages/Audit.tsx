import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { ErrorText, Field, Loading, Pager, usePages, when } from '../ui';

export function Audit() {
  const empty = { actor: '', action: '', object_type: '', object_id: '' };
  const [form, setForm] = useState(empty);
  const [filter, setFilter] = useState(empty);
  const pages = usePages(JSON.stringify(filter));
  const list = useQuery({
    queryKey: ['audit', filter, pages.token],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/p2p/admin/audit', {
          params: { query: { page_size: 50, page_token: pages.token, ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v)) } },
        }),
      ),
  });
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value.trim() });
  return (
    <>
      <h1>Audit log</h1>
      <form
        className="filters"
        aria-label="Filter the audit log"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setFilter({ ...form });
        }}
      >
        <Field label="Actor id">
          <input value={form.actor} onChange={set('actor')} />
        </Field>
        <Field label="Action">
          <input value={form.action} onChange={set('action')} placeholder="e.g. withdrawal.approve" />
        </Field>
        <Field label="Object type">
          <input value={form.object_type} onChange={set('object_type')} />
        </Field>
        <Field label="Object id">
          <input value={form.object_id} onChange={set('object_id')} />
        </Field>
        <button type="submit">Filter</button>
      </form>
      <ErrorText error={list.error} />
      {list.isPending ? (
        <Loading what="the audit log" />
      ) : (
        list.data && (
          <>
            <table className="audit">
              <caption className="sr-only">Audit entries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">At</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Role</th>
                  <th scope="col">Action</th>
                  <th scope="col">Object</th>
                  <th scope="col">Request</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((e) => (
                  <tr key={e.id} data-action={e.action}>
                    <td>{when(e.at)}</td>
                    <td className="mono">
                      {e.actor_kind === 'operator_jwt' ? 'JWT ' : ''}
                      {e.actor_id.slice(0, 8)}
                    </td>
                    <td>{e.role}</td>
                    <td>{e.action}</td>
                    <td className="mono">
                      {e.object_type} {e.object_id.slice(0, 8)}
                    </td>
                    <td className="mono">{e.request_id.slice(0, 12)}</td>
                  </tr>
                ))}
                {list.data.data.length === 0 && (
                  <tr>
                    <td colSpan={6}>No entries.</td>
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
