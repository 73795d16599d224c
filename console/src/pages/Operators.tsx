/** Operator accounts (admin): list, create, change role, disable/enable, new password, remove TOTP. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { DataTable, Loaded } from '../list';
import { useSession } from '../session';
import { Action, Field, Submit, when } from '../ui';
import { plainText, Text } from '../text';

const ROLES = ['arbiter', 'finance', 'support', 'admin'] as const;
type Role = (typeof ROLES)[number];
type Operator = Schemas['Operator'];

export function Operators() {
  const list = useQuery({ queryKey: ['operators'], queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/operators')) });
  return (
    <>
      <h1>Operators</h1>
      <p className="muted">
        Disabling an account, changing its role, setting a new password or removing its authenticator ends its sessions at once (removing an authenticator asks
        for your own password). No one can disable or demote themselves.
      </p>
      <CreateOperator />
      <Loaded query={list} what="operators">
        {(operators) => (
          <DataTable
            caption="Operator accounts, oldest first"
            columns={['Email', 'Role', 'Authenticator', 'Status', 'Created', 'Actions']}
            rows={operators.data}
            rowKey={(o) => o.operator_id}
            row={(o) => <OperatorRow o={o} />}
          />
        )}
      </Loaded>
    </>
  );
}

function RoleSelect({ role, onChange }: { role: Role; onChange: (role: Role) => void }) {
  return (
    <select value={role} onChange={(e) => onChange(e.target.value as Role)}>
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}

function CreateOperator() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('support');
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/admin/operators', { body: { email, password, role } })),
    onSuccess: async () => {
      setEmail('');
      setPassword('');
      await queryClient.invalidateQueries();
    },
  });
  return (
    <form
      className="filters"
      aria-label="Create an operator"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <Field label="New operator's email">
        <input type="email" autoComplete="off" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
      <Field label="Initial password" hint="At least 12 characters; give it to the operator over a safe channel.">
        <input type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
      <Field label="Role">
        <RoleSelect role={role} onChange={setRole} />
      </Field>
      <Submit label="Create operator" mutation={create} done={`Created ${plainText(create.data?.operator.email)}`} />
    </form>
  );
}

function OperatorRow({ o }: { o: Operator }) {
  const me = useSession().data?.operator.operator_id === o.operator_id;
  const [role, setRole] = useState<Role>(o.role);
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const update = (body: Schemas['OperatorUpdate']) => () =>
    unwrap(api.PATCH('/api/v1/p2p/admin/operators/{operator_id}', { params: { path: { operator_id: o.operator_id } }, body }));
  return (
    <tr data-operator={o.email} id={`operator-${o.operator_id}`}>
      <td>
        <Text value={o.email} title={o.operator_id} /> {me && <span className="badge">you</span>}
      </td>
      <td>
        <div className="inline-form">
          <Field label={`Role of ${plainText(o.email)}`} hideLabel>
            <RoleSelect role={role} onChange={setRole} />
          </Field>
          <Action
            op="adminUpdateOperator"
            label="Change role"
            disabled={role === o.role}
            confirm={{
              title: `Make ${plainText(o.email)} ${role}?`,
              text: `The role goes from ${o.role} to ${role}; the account's sessions end now.`,
              label: 'Change role',
            }}
            run={update({ role })}
          />
        </div>
      </td>
      <td>{o.totp_enrolled ? 'enrolled' : 'none'}</td>
      <td>{o.disabled ? `disabled ${when(o.disabled_at)}` : 'active'}</td>
      <td>{when(o.created_at)}</td>
      <td>
        <div className="deal-actions">
          {o.disabled ? (
            <Action
              op="adminUpdateOperator"
              label="Enable"
              confirm={{ title: `Enable ${plainText(o.email)}?`, text: 'The account may sign in again.', label: 'Enable' }}
              run={update({ disabled: false })}
            />
          ) : (
            <Action
              op="adminUpdateOperator"
              label="Disable"
              className="danger"
              confirm={{ title: `Disable ${plainText(o.email)}?`, text: 'The account cannot sign in, and its sessions end now.', label: 'Disable' }}
              run={update({ disabled: true })}
            />
          )}
          {o.totp_enrolled && (
            <Action
              op="adminUpdateOperator"
              label="Remove authenticator"
              confirm={{
                title: `Remove ${plainText(o.email)}'s authenticator?`,
                text: (
                  <>
                    <p>Sign-in needs only the password until the operator enrolls a new one; the account's sessions end now.</p>
                    <Field label="Your own password, to confirm">
                      <input type="password" autoComplete="current-password" value={confirmPassword} onChange={(e) => setConfirmPassword(e.target.value)} />
                    </Field>
                  </>
                ),
                label: 'Remove',
              }}
              run={update({ reset_totp: true, confirm_password: confirmPassword })}
              onDone={() => setConfirmPassword('')}
            />
          )}
          <div className="inline-form">
            <Field label={`New password for ${plainText(o.email)}`} hideLabel>
              <input type="password" autoComplete="new-password" placeholder="New password" value={password} onChange={(e) => setPassword(e.target.value)} />
            </Field>
            <Action
              op="adminUpdateOperator"
              label="Set password"
              disabled={!password}
              confirm={{
                title: `Set a new password for ${plainText(o.email)}?`,
                text: "The account's sessions end now; it signs in with the new password.",
                label: 'Set password',
              }}
              run={update({ password })}
              onDone={() => setPassword('')}
            />
          </div>
        </div>
      </td>
    </tr>
  );
}
