/** The trader app's door: a trader account's session, TOTP and password, its invitation; the operators' invitations and approval (docs/trader.md). */
import { z } from 'zod';
import { TRADER_ROLES } from '../../domain/roles';
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

const traderRole = z.enum(TRADER_ROLES).openapi({ description: 'trader: acts for its own trader (requisites, deals, wallet, appeals)' });

export const traderSignInBody = z.object(signInFields).strict().openapi('TraderSignIn');

const traderAccountSchema = z
  .object({
    account_id: z.string(),
    email: z.string(),
    role: traderRole,
    totp_enrolled: z.boolean(),
    disabled: z.boolean(),
    disabled_at: z.string().openapi({ description: "RFC 3339, '' while enabled" }),
    created_at: z.string(),
    totp_required: z.boolean().openapi({ description: 'the account must set up an authenticator: until it has, its session may only do that' }),
    last_sign_in_at: z.string().openapi({ description: "RFC 3339 of the last sign-in; '' before the first" }),
    last_sign_in_address: z.string().openapi({ description: "the client address of the last sign-in; ''" }),
  })
  .openapi('TraderAccount');

/** A trader as its own people and the operators' approval see it. */
export const traderStanding = z
  .object({
    trader_id: z.string().uuid(),
    name: z.string(),
    status: z.enum(['ACTIVE', 'PENDING_APPROVAL']).openapi({
      description: 'ACTIVE: the matcher may give it deals; PENDING_APPROVAL: invited, matched to nothing until an operator approves it',
    }),
    approved: z.boolean(),
  })
  .openapi('TraderStanding');

export const traderSessionResponse = z
  .object({ account: traderAccountSchema, trader: traderStanding.openapi({ description: "the account's trader" }), ...sessionFields })
  .openapi('TraderSession');

export const traderTotpBody = z.object(totpFields).strict().openapi('TraderTotpEnroll');
export const traderTotpResponse = z.object(totpResult).openapi('TraderTotp');
export const traderOwnPasswordBody = z.object(ownPasswordFields).strict().openapi('TraderOwnPassword');
export const traderOwnPasswordResponse = z.object(ownPasswordResult).openapi('TraderOwnPasswordResult');

const traderInvitations = invitationSchemas('Trader', traderRole, {
  invitedBy: '`<actor_kind>:<id>` of the operator who invited the trader',
  mailbox: 'TRADER_MAILBOX_FILE',
  revokedEarlier: "the email's earlier invitation (of this trader) withdrawn by this one (0 or 1)",
});
export const traderInviteResponse = traderInvitations.inviteResult;
/** The account's invitation in the answer of a trader's creation. */
export const traderAccountInvitation = z
  .object({ invitation: traderInvitations.invitation, invite_url: z.string().openapi({ description: 'the link to give the trader (shown this once)' }) })
  .openapi('TraderAccountInvitation');
export const traderInvitationBody = z.object({ email }).strict().openapi('TraderAccountInvite');

export const traderInvitationTokenBody = z.object({ token: invitationToken }).strict().openapi('TraderInvitationCheck');
export const traderInvitationCheckResponse = z
  .object({ email: z.string(), role: traderRole, trader_name: z.string(), expires_at: z.string() })
  .openapi('TraderInvitationDetails', { description: 'What the link invites to: the account of a trader.' });
export const traderAcceptInvitationBody = z
  .object({ token: invitationToken, password: password.openapi({ description: 'the password the trader chooses (at least 12 characters)' }) })
  .strict()
  .openapi('TraderInvitationAccept');
