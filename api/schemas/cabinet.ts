/** The merchant cabinet's own API: a member's session, TOTP and password, the team and its invitations (docs/cabinet.md). */
import { z } from 'zod';
import { MERCHANT_ROLES } from '../../domain/roles';
import {
  email,
  invitationSchemas,
  invitationToken,
  ownPasswordFields,
  ownPasswordResult,
  password,
  sessionFields,
  signInFields,
  totpFields,
  totpResult,
} from './accounts';
import { uuid } from './common';

const memberRole = z.enum(MERCHANT_ROLES).openapi({
  description:
    'owner (everything; alone: the team), developer (profile settings, keys, passes), finance (money and disputes: PayOuts, withdrawals, the deposit address; appeals, their messages and evidence), support (read-only)',
});

export const cabinetSignInBody = z.object(signInFields).strict().openapi('CabinetSignIn');

const memberSchema = z
  .object({
    member_id: z.string(),
    email: z.string(),
    role: memberRole,
    totp_enrolled: z.boolean(),
    disabled: z.boolean(),
    disabled_at: z.string().openapi({ description: "RFC 3339, '' while enabled" }),
    created_at: z.string(),
    totp_required: z
      .boolean()
      .openapi({ description: 'the member must set up an authenticator (an invited member): until it has, its session may only do that' }),
    last_sign_in_at: z.string().openapi({ description: "RFC 3339 of the last sign-in; '' before the first" }),
    last_sign_in_address: z.string().openapi({ description: "the client address of the last sign-in; ''" }),
  })
  .openapi('CabinetMember');

export const cabinetSessionResponse = z
  .object({
    member: memberSchema,
    merchant: z.object({ merchant_id: z.string().uuid(), name: z.string() }).openapi({ description: "the member's merchant" }),
    ...sessionFields,
  })
  .openapi('CabinetSession');

export const cabinetTotpBody = z.object(totpFields).strict().openapi('CabinetTotpEnroll');
export const cabinetTotpResponse = z.object(totpResult).openapi('CabinetTotp');
export const cabinetOwnPasswordBody = z.object(ownPasswordFields).strict().openapi('CabinetOwnPassword');
export const cabinetOwnPasswordResponse = z.object(ownPasswordResult).openapi('CabinetOwnPasswordResult');

export const memberParams = z.object({ member_id: uuid('member_id') });
export const memberListResponse = z.object({ data: z.array(memberSchema) }).openapi('CabinetMembers');
export const memberResponse = z.object({ member: memberSchema }).openapi('CabinetMemberResult');
export const updateMemberBody = z
  .object({
    role: memberRole.optional(),
    disabled: z.boolean().optional().openapi({ description: 'true disables the member and ends its sessions at once; false enables it' }),
  })
  .strict()
  .openapi('CabinetMemberUpdate');

export const inviteMemberBody = z.object({ email, role: memberRole }).strict().openapi('CabinetInvite');
const memberInvitations = invitationSchemas('Cabinet', memberRole, {
  invitedBy: '`<actor_kind>:<id>` of the inviter (a member, the cabinet JWT, or the operator who created the merchant)',
  mailbox: 'MERCHANT_MAILBOX_FILE',
  revokedEarlier: "the email's earlier invitation (of this merchant) withdrawn by this one (0 or 1)",
});
const invitationSchema = memberInvitations.invitation;
export const memberInviteResponse = memberInvitations.inviteResult;
export const memberInvitationsResponse = memberInvitations.invitations;
export const memberInvitationParams = z.object({ invitation_id: uuid('invitation_id') });
export const memberInvitationResponse = z.object({ invitation: invitationSchema }).openapi('CabinetInvitationResult');

export const cabinetInvitationTokenBody = z.object({ token: invitationToken }).strict().openapi('CabinetInvitationCheck');
export const cabinetInvitationCheckResponse = z
  .object({ email: z.string(), role: memberRole, merchant_name: z.string(), expires_at: z.string() })
  .openapi('CabinetInvitationDetails', { description: 'What the link invites to: a role in a merchant.' });
export const cabinetAcceptInvitationBody = z
  .object({ token: invitationToken, password: password.openapi({ description: 'the password the new member chooses (at least 12 characters)' }) })
  .strict()
  .openapi('CabinetInvitationAccept');

/** The operator's invitation of a merchant's owner (at creation, or later: a merchant without one, a lost owner). */
export const ownerInvitationBody = z.object({ email }).strict().openapi('MerchantOwnerInvite');
/** The first owner's invitation in the answer of a merchant's creation. */
export const firstOwnerInvitation = z
  .object({ invitation: invitationSchema, invite_url: z.string().openapi({ description: 'the link to give the owner (shown this once)' }) })
  .openapi('MerchantOwnerInvitation');
