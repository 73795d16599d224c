/** The merchant's team (owner): its members and their roles, disabling and removing, invitations (docs/cabinet.md). */
import { EXAMPLES } from '../../schemas/examples';
import { defineRoute } from '../../route';
import {
  inviteMemberBody,
  memberInvitationParams,
  memberInvitationResponse,
  memberInvitationsResponse,
  memberInviteResponse,
  memberListResponse,
  memberParams,
  memberResponse,
  updateMemberBody,
} from '../../schemas/cabinet';
import { inviteMember, listMemberInvitations, listTeam, removeMember, revokeMemberInvitation, updateMember } from '../../services/members';
import { actorOf, personOf, tags } from './session';

export const cabinetTeamRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/team/invitations',
      operationId: 'cabinetInviteMember',
      example: EXAMPLES.cabinetInviteMember,
      auth: 'cabinet',
      summary: 'Invite a person to the merchant by e-mail link, with a role: the invitee sets a password, then must set up an authenticator',
      description:
        'Answers the invitation and its link (shown this once; there is no SMTP: the e-mail is appended to the development mailbox ' +
        'MERCHANT_MAILBOX_FILE). The link works once, for OPERATOR_INVITE_TTL_SECONDS; a new invitation of the same email withdraws ' +
        'this merchant’s earlier one. 409 when a cabinet account has the email (a person belongs to one merchant). Audited ' +
        '(member.invite; never the link).',
      tags,
      body: inviteMemberBody,
      status: 201,
      response: memberInviteResponse,
      errors: [409],
      openWhileDisabled: true,
      audit: { action: 'member.invite', objectType: 'member_invitation', by: 'service' },
    },
    ({ identity, body, actor }, deps) => inviteMember(deps, personOf(identity).merchantId, body, actorOf(actor)),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/team/invitations',
      operationId: 'cabinetListInvitations',
      example: EXAMPLES.cabinetListInvitations,
      auth: 'cabinet',
      summary: 'The merchant’s invitations neither accepted nor withdrawn (expired ones marked), newest first',
      tags,
      response: memberInvitationsResponse,
      openWhileDisabled: true,
    },
    async ({ identity }, deps) => ({ data: await listMemberInvitations(deps, personOf(identity).merchantId) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/team/invitations/{invitation_id}/revoke',
      operationId: 'cabinetRevokeInvitation',
      example: EXAMPLES.cabinetRevokeInvitation,
      auth: 'cabinet',
      summary: 'Withdraw an invitation: its link stops working',
      description:
        'Another merchant’s invitation is 404; an accepted one is 400 (disable or remove the member instead); a withdrawn one is ' +
        'answered as it is. Audited (member.invite_revoke).',
      tags,
      params: memberInvitationParams,
      response: memberInvitationResponse,
      errors: [404],
      openWhileDisabled: true,
      audit: { action: 'member.invite_revoke', objectType: 'member_invitation', by: 'service' },
    },
    async ({ identity, params, actor }, deps) => ({
      invitation: await revokeMemberInvitation(deps, personOf(identity).merchantId, params.invitation_id, actorOf(actor)),
    }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/team',
      operationId: 'cabinetListMembers',
      example: EXAMPLES.cabinetListMembers,
      auth: 'cabinet',
      summary: 'The merchant’s members (not the removed), oldest first, with role, authenticator, status and last sign-in',
      tags,
      response: memberListResponse,
      openWhileDisabled: true,
    },
    async ({ identity }, deps) => ({ data: await listTeam(deps, personOf(identity).merchantId) }),
  ),
  defineRoute(
    {
      method: 'patch',
      path: '/team/{member_id}',
      operationId: 'cabinetUpdateMember',
      example: EXAMPLES.cabinetUpdateMember,
      auth: 'cabinet',
      summary: "Set a member's role, or disable or enable it",
      description:
        'A role change or disabling ends the member’s sessions at once (an owner changing its own role keeps the session it does ' +
        'it with). The merchant keeps at least one enabled owner: a change that would leave none — the last owner demoting or ' +
        'disabling itself included — is 400 FAILED_PRECONDITION; concurrent changes take turns, so of any number at once at ' +
        'most all but the last owner succeed. Another merchant’s member is 404. Audited (member.update, before and after).',
      tags,
      params: memberParams,
      body: updateMemberBody,
      response: memberResponse,
      errors: [404],
      openWhileDisabled: true,
      audit: { action: 'member.update', objectType: 'merchant_member', by: 'service' },
    },
    async ({ identity, params, body, actor }, deps) => {
      const person = personOf(identity);
      return { member: await updateMember(deps, person.merchantId, params.member_id, body, person, actorOf(actor)) };
    },
  ),
  defineRoute(
    {
      method: 'delete',
      path: '/team/{member_id}',
      operationId: 'cabinetRemoveMember',
      auth: 'cabinet',
      summary: 'Remove a member: it can never sign in again and is no longer listed; its email may be invited again',
      description:
        'Its sessions end at once. The last enabled owner is never removed (400 FAILED_PRECONDITION). A removed or another ' +
        'merchant’s member is 404. Audited (member.remove); the member stays in the audit trail.',
      tags,
      params: memberParams,
      status: 204,
      errors: [404],
      openWhileDisabled: true,
      audit: { action: 'member.remove', objectType: 'merchant_member', by: 'service' },
    },
    async ({ identity, params, actor }, deps, ctx) => {
      await removeMember(deps, personOf(identity).merchantId, params.member_id, actorOf(actor));
      ctx.status = 204;
      return undefined;
    },
  ),
];
