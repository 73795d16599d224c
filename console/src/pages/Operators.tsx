/** Operator accounts (admin): invitations, list with the last sign-in, create, change role, disable/enable, new password, remove TOTP. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { DataTable, Loaded } from '../list';
import { useSession } from '../session';
import { Action, Field, Submit, when } from '../ui';
import { plainText, Text } from '../text';
import { InviteLink } from '../invite-link';

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
      <h2>Invite an operator</h2>
      <InviteOperator />
      <Invitations />
      <h2>Or create an account with a password</h2>
      <p className="muted">
        For an account you hand over yourself: its password is yours to pass on, and it signs in without an authenticator until it sets one up.
      </p>
      <CreateOperator />
      <Loaded query={list} what="operators">
        {(operators) => (
          <DataTable
            caption="Operator accounts, oldest first"
            columns={['Email', 'Role', 'Authenticator', 'Status', 'Last sign-in', 'Created', 'Actions']}
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

/**
 * An invitation by e-mail link: the link is shown here once (no e-mail is sent from this
 * gateway: pass it on; development writes it to the mailbox file too). The invitee chooses a
 * password and must set up an authenticator before anything else.
 */
function InviteOperator() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('support');
  const invite = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/admin/operators/invitations', { body: { email, role } })),
    onSuccess: async () => {
      setEmail('');
      await queryClient.invalidateQueries({ queryKey: ['invitations'] });
    },
  });
  return (
    <>
      <form
        className="filters"
        aria-label="Invite an operator"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          invite.mutate();
        }}
      >
        <Field label="Invite by email">
          <input type="email" autoComplete="off" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Role of the invitee">
          <RoleSelect role={role} onChange={setRole} />
        </Field>
        <Submit label="Invite" mutation={invite} done={`Invited ${plainText(invite.data?.invitation.email)}`} />
      </form>
      {invite.data && <InviteLink email={invite.data.invitation.email} expiresAt={invite.data.invitation.expires_at} url={invite.data.invite_url} />}
    </>
  );
}

function Invitations() {
  const list = useQuery({ queryKey: ['invitations'], queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/operators/invitations')) });
  return (
    <Loaded query={list} what="invitations">
      {(invitations) =>
        invitations.data.length > 0 && (
          <DataTable
            caption="Invitations not yet accepted"
            columns={['Invited', 'Role', 'Sent', 'Link works until', 'Actions']}
            rows={invitations.data}
            rowKey={(i) => i.invitation_id}
            row={(i) => (
              <tr data-invitation={i.email}>
                <td>
                  <Text value={i.email} />
                </td>
                <td>{i.role}</td>
                <td>{when(i.created_at)}</td>
                <td>{i.expired ? <span className="badge danger">expired</span> : when(i.expires_at)}</td>
                <td>
                  <Action
                    op="adminRevokeInvitation"
                    label="Withdraw"
                    confirm={{ title: `Withdraw the invitation of ${plainText(i.email)}?`, text: 'Its link stops working.', label: 'Withdraw' }}
                    run={() =>
                      unwrap(
                        api.POST('/api/v1/p2p/admin/operators/invitations/{invitation_id}/revoke', { params: { path: { invitation_id: i.invitation_id } } }),
                      )
                    }
                  />
                </td>
              </tr>
            )}
          />
        )
      }
    </Loaded>
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
      <td>{o.totp_enrolled ? 'enrolled' : o.totp_required ? 'none yet (required)' : 'none'}</td>
      <td>{o.disabled ? `disabled ${when(o.disabled_at)}` : 'active'}</td>
      <td data-testid="last-sign-in">{o.last_sign_in_at ? `${when(o.last_sign_in_at)} from ${o.last_sign_in_address || 'an unknown address'}` : 'never'}</td>
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
