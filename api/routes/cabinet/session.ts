/**
 * The cabinet's door for a merchant's people: sign-in and the member's session, its TOTP and
 * password, and accepting an invitation — the console's rules (docs/console.md, "Sessions"), at
 * /api/v1/p2p/cabinet. docs/cabinet.md says how a cabinet uses them.
 */
import { EXAMPLES } from '../../schemas/examples';
import { defineRoute } from '../../route';
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

export const cabinetSessionRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/session',
      operationId: 'cabinetSignIn',
      auth: 'public',
      summary: "Sign in to the merchant's cabinet: email, password and (when enrolled) a TOTP code → the session cookie and its CSRF token",
      description:
        'Sets the cookie gw_merchant (HttpOnly, SameSite=Strict, Path=/, Secure on https or in production) and answers the member, ' +
        'its merchant and the session with its csrf_token: every later request but GET/HEAD sends it as X-CSRF-Token. The session ' +
        'is accepted wherever the cabinet JWT is, scoped to the member’s merchant and its role (x-roles). Any failure — unknown ' +
        'email, wrong password, missing, wrong or already used code, disabled or removed member — is the same 401, audited ' +
        '(session.sign_in_failed) when the email names a member. The console’s limits apply (OPERATOR_SIGN_IN_*: per email and ' +
        'address, per email, per address, counted before the password is checked): then 429 with Retry-After.',
      tags,
      body: cabinetSignInBody,
      response: cabinetSessionResponse,
      errors: [401, 429],
    },
    ({ body }, deps, ctx) => signIn(deps, ctx, body),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/session',
      operationId: 'cabinetGetSession',
      example: EXAMPLES.cabinetGetSession,
      auth: 'cabinet',
      summary: 'Who am I: the signed-in member, its role and merchant, the CSRF token and when the session ends',
      description: 'With the cabinet JWT: its sub as member_id and the role owner, no session (csrf_token and times empty). Open while the kill-switch is on.',
      tags,
      response: cabinetSessionResponse,
      openWhileDisabled: true,
    },
    ({ identity }, deps) => currentSession(deps, personOf(identity)),
  ),
  defineRoute(
    {
      method: 'delete',
      path: '/session',
      operationId: 'cabinetDeleteSession',
      auth: 'cabinet',
      summary: 'Sign out: the session ends at once and the cookie is cleared',
      tags,
      status: 204,
      openWhileDisabled: true,
      audit: { action: 'session.sign_out', objectType: 'merchant_member', by: 'service' },
    },
    async ({ identity, actor }, deps, ctx) => {
      await signOut(deps, ctx, personOf(identity), actorOf(actor));
      ctx.status = 204;
      return undefined;
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/session/totp',
      operationId: 'cabinetEnrollTotp',
      example: EXAMPLES.cabinetEnrollTotp,
      auth: 'cabinet',
      summary: 'Enroll TOTP for the signed-in member: {} answers a new secret and otpauth URI; { secret, code, confirm_password | confirm_code } sets it',
      description:
        'As the console’s POST /admin/session/totp: code is a code of the new secret; confirm_password the member’s password, or ' +
        'confirm_code a current code of the authenticator enrolled so far. A wrong confirmation is 400 naming the field and counts ' +
        'as a failed sign-in. Setting it ends the member’s other sessions; from then on sign-in needs totp_code. An invited member ' +
        'must do this before anything else. Member sessions only (the cabinet JWT: 403).',
      tags,
      body: cabinetTotpBody,
      bodyOptional: true,
      response: cabinetTotpResponse,
      openWhileDisabled: true,
      audit: { action: 'member.totp_enroll', objectType: 'merchant_member', by: 'service' },
    },
    ({ identity, actor, body }, deps, ctx) => enrollTotp(deps, ctx, personOf(identity), body ?? {}, actorOf(actor)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/session/password',
      operationId: 'cabinetChangeOwnPassword',
      example: EXAMPLES.cabinetChangeOwnPassword,
      auth: 'cabinet',
      summary: 'Change the signed-in member’s own password: { new_password, confirm_password | confirm_code }',
      description:
        'confirm_password is the present password, or confirm_code a current code of the member’s authenticator. A wrong one is ' +
        '400 naming the field, audited (member.confirm_failed) and counted as a failed sign-in. The member’s other sessions end; ' +
        'this one stays. Audited (member.password_change). Member sessions only (the cabinet JWT: 403).',
      tags,
      body: cabinetOwnPasswordBody,
      response: cabinetOwnPasswordResponse,
      openWhileDisabled: true,
      audit: { action: 'member.password_change', objectType: 'merchant_member', by: 'service' },
    },
    ({ identity, actor, body }, deps, ctx) => changeOwnPassword(deps, ctx, personOf(identity), body, actorOf(actor)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/invitation/check',
      operationId: 'cabinetCheckInvitation',
      auth: 'public',
      summary: 'What a cabinet invitation link invites to (email, role, merchant, until when), before the invitee chooses a password',
      description: 'An unknown token (or a console invitation’s) is 404; a link used, withdrawn or expired is 400 saying which.',
      tags,
      body: cabinetInvitationTokenBody,
      response: cabinetInvitationCheckResponse,
      errors: [404],
    },
    ({ body }, deps) => checkMemberInvitation(deps, body.token),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/invitation/accept',
      operationId: 'cabinetAcceptInvitation',
      auth: 'public',
      summary: 'Accept a cabinet invitation: the member is created with the chosen password and signed in (the session cookie, as sign-in)',
      description:
        'Once per link, before it expires (a second acceptance, concurrent or later, is 400: used already; 409 when the email has ' +
        'become a member meanwhile). The new member must set up an authenticator before anything else: until POST /session/totp ' +
        'has set one, every other cabinet route answers 403. Audited (member.invite_accept).',
      tags,
      body: cabinetAcceptInvitationBody,
      status: 201,
      response: cabinetSessionResponse,
      errors: [404, 409],
    },
    ({ body }, deps, ctx) => acceptMemberInvitation(deps, ctx, body),
  ),
];
