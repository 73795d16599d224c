/**
 * The cabinet's Team page (owners): the merchant's members and their roles, role changes,
 * disabling and removing, invitations with their link shown once, withdrawing one. Other roles
 * see what their role may do, and no actions (docs/cabinet.md, "Team").
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { CABINET_DOOR } from '../door';
import { DataTable, Loaded } from '../list';
import { useCan } from '../session';
import { Text } from '../text';
import { Action, Field, Submit, when } from '../ui';

type Role = Schemas['CabinetMember']['role'];
const ROLES: readonly Role[] = ['owner', 'developer', 'finance', 'support'];
const ROLE_WORDS: Record<Role, string> = {
  owner: 'everything, and the team',
  developer: 'settings, webhooks, keys; reads everything',
  finance: 'money and disputes: PayOuts, withdrawals, the deposit address; appeals and their evidence; reads everything',
  support: 'reads everything, changes nothing',
};

export function CabinetTeam() {
  const can = useCan();
  const queryClient = useQueryClient();
  const me = queryClient.getQueryData<Schemas['CabinetSession']>(CABINET_DOOR.sessionKey)?.member;
  return (
    <>
      <h1>Team</h1>
      <dl className="roles">
        {ROLES.map((r) => (
          <div key={r}>
            <dt>{r}</dt>
            <dd>{ROLE_WORDS[r]}</dd>
          </div>
        ))}
      </dl>
      {can('cabinetListMembers') ? (
        <>
          <Members meId={me?.member_id ?? ''} />
          <Invite />
          <Invitations />
        </>
      ) : (
        <p data-testid="team-not-owner">
          You are <strong>{me?.role}</strong>: only an owner sees and changes the team.
        </p>
      )}
    </>
  );
}

function Members({ meId }: { meId: string }) {
  const members = useQuery({ queryKey: ['cabinet-team'], queryFn: () => unwrap(api.GET('/api/v1/p2p/cabinet/team')) });
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <Loaded query={members} what="the members">
        {(list) => (
          <DataTable
            caption="The merchant's members"
            columns={['Email', 'Role', 'State', 'Last sign-in', 'Actions']}
            rows={list.data}
            rowKey={(m) => m.member_id}
            row={(m) => (
              <tr data-testid="member-row">
                <td>
                  {/* One child, so on a phone the card keeps "(you)" beside the address. */}
                  <span>
                    <Text value={m.email} />
                    {m.member_id === meId && ' (you)'}
                  </span>
                </td>
                <td>{m.role}</td>
                <td>{m.disabled ? 'disabled' : m.totp_required && !m.totp_enrolled ? 'setting up' : 'active'}</td>
                <td>{m.last_sign_in_at ? when(m.last_sign_in_at) : 'never'}</td>
                <td className="actions-cell">
                  {/* One child, so on a phone the card's grid keeps every action under the label. */}
                  <div className="actions">
                    <RoleChange member={m} />
                    <Action
                      op="cabinetUpdateMember"
                      label={m.disabled ? 'Enable' : 'Disable'}
                      run={() =>
                        unwrap(
                          api.PATCH('/api/v1/p2p/cabinet/team/{member_id}', { params: { path: { member_id: m.member_id } }, body: { disabled: !m.disabled } }),
                        )
                      }
                      confirm={{
                        title: `${m.disabled ? 'Enable' : 'Disable'} ${m.email}?`,
                        text: m.disabled ? (
                          <p>
                            <Text value={m.email} /> may sign in again as {m.role}.
                          </p>
                        ) : (
                          <p>
                            <Text value={m.email} /> is signed out at once and cannot sign in until an owner enables the account again. Invitations it made and
                            nobody accepted stop working.
                          </p>
                        ),
                        label: m.disabled ? 'Enable' : 'Disable',
                        tone: m.disabled ? 'primary' : 'danger',
                      }}
                    />
                    <Action
                      op="cabinetRemoveMember"
                      label="Remove"
                      className="danger"
                      run={() => unwrap(api.DELETE('/api/v1/p2p/cabinet/team/{member_id}', { params: { path: { member_id: m.member_id } } }))}
                      confirm={{
                        title: `Remove ${m.email}?`,
                        text: (
                          <p>
                            <Text value={m.email} /> is signed out and never signs in again; the audit trail keeps what it did. The address may be invited
                            again. The last owner cannot be removed.
                          </p>
                        ),
                        label: 'Remove',
                        tone: 'danger',
                      }}
                    />
                  </div>
                </td>
              </tr>
            )}
          />
        )}
      </Loaded>
    </section>
  );
}

function RoleChange({ member }: { member: Schemas['CabinetMember'] }) {
  const [role, setRole] = useState<Role>(member.role);
  return (
    <span className="role-change">
      <Field label={`Role of ${member.email}`} hideLabel>
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </Field>
      <Action
        op="cabinetUpdateMember"
        label="Change role"
        disabled={role === member.role}
        run={() => unwrap(api.PATCH('/api/v1/p2p/cabinet/team/{member_id}', { params: { path: { member_id: member.member_id } }, body: { role } }))}
        confirm={{
          title: `Make ${member.email} ${role}?`,
          text: (
            <p>
              <Text value={member.email} /> becomes <strong>{role}</strong> (now {member.role}): {ROLE_WORDS[role]}. Its sessions end; it signs in again with
              the new role.
            </p>
          ),
          label: `Make ${role}`,
        }}
      />
    </span>
  );
}

function Invite() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const invite = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/cabinet/team/invitations', { body: { email: email.trim(), role } })),
    onSuccess: async () => {
      setEmail('');
      await queryClient.invalidateQueries({ queryKey: ['cabinet-invitations'] });
    },
  });
  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <form
        aria-label="Invite a member"
        className="inline-form"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          invite.mutate();
        }}
      >
        <Field label="Email">
          <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Role">
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <Submit label="Invite" mutation={invite} done="Invited" />
      </form>
      {invite.data && (
        <div className="secret-once" data-testid="invite-link">
          <p>
            Give this link to <Text value={invite.data.invitation.email} /> ({invite.data.invitation.role}). It works once, until{' '}
            {when(invite.data.invitation.expires_at)}, and is not shown again:
          </p>
          <p className="mono break" data-testid="invite-url">
            {invite.data.invite_url}
          </p>
        </div>
      )}
    </section>
  );
}

function Invitations() {
  const invitations = useQuery({ queryKey: ['cabinet-invitations'], queryFn: () => unwrap(api.GET('/api/v1/p2p/cabinet/team/invitations')) });
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Open invitations</h2>
      <Loaded query={invitations} what="the invitations">
        {(list) => (
          <DataTable
            caption="Invitations nobody accepted yet"
            columns={['Email', 'Role', 'Until', '']}
            rows={list.data}
            rowKey={(i) => i.invitation_id}
            empty="No invitation is waiting to be accepted."
            row={(i) => (
              <tr>
                <td>
                  <Text value={i.email} />
                </td>
                <td>{i.role}</td>
                <td>{i.expired ? 'expired' : when(i.expires_at)}</td>
                <td>
                  <Action
                    op="cabinetRevokeInvitation"
                    label="Withdraw"
                    run={() =>
                      unwrap(api.POST('/api/v1/p2p/cabinet/team/invitations/{invitation_id}/revoke', { params: { path: { invitation_id: i.invitation_id } } }))
                    }
                    confirm={{
                      title: `Withdraw the invitation of ${i.email}?`,
                      text: <p>Its link stops working at once; nobody joins with it.</p>,
                      label: 'Withdraw',
                      tone: 'danger',
                    }}
                  />
                </td>
              </tr>
            )}
          />
        )}
      </Loaded>
    </section>
  );
}
