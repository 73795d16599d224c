/**
 * The cabinet's door for a merchant's people: sign-in and the member's session, its TOTP and
 * password, and accepting an invitation — the console's rules (docs/console.md, "Sessions"), at
 * /api/v1/p2p/cabinet. docs/cabinet.md says how a cabinet uses them.
 */
import { doorSessionRoutes } from '../door-session';
import type { Identity, MerchantIdentity } from '../../auth/authenticate';
import {
  cabinetAcceptInvitationBody,
  cabinetInvitationCheckResponse,
  cabinetInvitationTokenBody,
  cabinetOwnPasswordBody,
  cabinetOwnPasswordResponse,
  cabinetSessionResponse,
  cabinetSignInBody,
  cabinetTotpBody,
  cabinetTotpResponse,
} from '../../schemas/cabinet';
import { acceptMemberInvitation, changeOwnPassword, checkMemberInvitation, currentSession, enrollTotp, signIn, signOut } from '../../services/members';
import { PermissionDenied } from '../../../domain/errors';
import type { AuditActor } from '../../../domain/audit';

export const tags = ['Cabinet'];

/** The merchant's person of a cabinet route (its auth mode lets no one else in). */
export function personOf(identity: Identity): MerchantIdentity {
  if (identity.kind !== 'merchant' || identity.role === undefined) throw new PermissionDenied('a merchant member or the cabinet JWT is required');
  return identity;
}
export const actorOf = (actor: AuditActor | undefined) => {
  if (!actor) throw new PermissionDenied('a merchant member or the cabinet JWT is required');
  return actor;
};

const door = doorSessionRoutes({
  prefix: 'cabinet',
  tags,
  auth: 'cabinet',
  accountOf: personOf,
  actorOf,
  audit: { objectType: 'merchant_member', actions: 'member' },
  openWhileDisabled: true,
  words: {
    app: "the merchant's cabinet",
    whoAmI: 'the signed-in member, its role and merchant',
    signedIn: 'member',
    invitation: 'a cabinet invitation',
    invites: 'email, role, merchant',
    invitee: 'invitee',
    created: 'member',
  },
  descriptions: {
    signIn:
      'Sets the cookie gw_merchant (HttpOnly, SameSite=Strict, Path=/, Secure on https or in production) and answers the member, ' +
      'its merchant and the session with its csrf_token: every later request but GET/HEAD sends it as X-CSRF-Token. The session ' +
      'is accepted wherever the cabinet JWT is, scoped to the member’s merchant and its role (x-roles). Any failure — unknown ' +
      'email, wrong password, missing, wrong or already used code, disabled or removed member — is the same 401, audited ' +
      '(session.sign_in_failed) when the email names a member. The console’s limits apply (OPERATOR_SIGN_IN_*: per email and ' +
      'address, per email, per address, counted before the password is checked): then 429 with Retry-After.',
    getSession: 'With the cabinet JWT: its sub as member_id and the role owner, no session (csrf_token and times empty). Open while the kill-switch is on.',
    enrollTotp:
      'As the console’s POST /admin/session/totp: code is a code of the new secret; confirm_password the member’s password, or ' +
      'confirm_code a current code of the authenticator enrolled so far. A wrong confirmation is 400 naming the field and counts ' +
      'as a failed sign-in. Setting it ends the member’s other sessions; from then on sign-in needs totp_code. An invited member ' +
      'must do this before anything else. Member sessions only (the cabinet JWT: 403).',
    changeOwnPassword:
      'confirm_password is the present password, or confirm_code a current code of the member’s authenticator. A wrong one is ' +
      '400 naming the field, audited (member.confirm_failed) and counted as a failed sign-in. The member’s other sessions end; ' +
      'this one stays. Audited (member.password_change). Member sessions only (the cabinet JWT: 403).',
    checkInvitation: 'An unknown token (or a console invitation’s) is 404; a link used, withdrawn or expired is 400 saying which.',
    acceptInvitation:
      'Once per link, before it expires (a second acceptance, concurrent or later, is 400: used already; 409 when the email has ' +
      'become a member meanwhile). The new member must set up an authenticator before anything else: until POST /session/totp ' +
      'has set one, every other cabinet route answers 403. Audited (member.invite_accept).',
  },
  schemas: {
    signInBody: cabinetSignInBody,
    sessionResponse: cabinetSessionResponse,
    totpBody: cabinetTotpBody,
    totpResponse: cabinetTotpResponse,
    ownPasswordBody: cabinetOwnPasswordBody,
    ownPasswordResponse: cabinetOwnPasswordResponse,
    invitationTokenBody: cabinetInvitationTokenBody,
    invitationCheckResponse: cabinetInvitationCheckResponse,
    acceptInvitationBody: cabinetAcceptInvitationBody,
  },
  service: {
    signIn,
    currentSession,
    signOut,
    enrollTotp,
    changeOwnPassword,
    checkInvitation: checkMemberInvitation,
    acceptInvitation: acceptMemberInvitation,
  },
});

export const cabinetSessionRoutes = [...door.session, ...door.invitation];
