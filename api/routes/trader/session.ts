/**
 * The trader app's door: sign-in and the trader account's session, its TOTP (required before
 * anything else) and password, and accepting an invitation — the console's rules, at
 * /api/v1/p2p/trader. docs/trader.md says how the app uses them.
 */
import { defineRoute } from '../../route';
import { traderOf } from '../../auth/authenticate';
import {
  traderAcceptInvitationBody,
  traderInvitationCheckResponse,
  traderInvitationTokenBody,
  traderOwnPasswordBody,
  traderOwnPasswordResponse,
  traderSessionResponse,
  traderSignInBody,
  traderTotpBody,
  traderTotpResponse,
} from '../../schemas/trader-accounts';
import { acceptTraderInvitation, changeOwnPassword, checkTraderInvitation, currentSession, enrollTotp, signIn, signOut } from '../../services/trader-accounts';
import { PermissionDenied } from '../../../domain/errors';
import type { AuditActor } from '../../../domain/audit';

const tags = ['Trader'];

/** The actor of a trader route (its auth mode lets only a trader's session in). */
const traderActor = (actor: AuditActor | undefined) => {
  if (!actor) throw new PermissionDenied("a trader's session is required");
  return actor;
};

export const traderSessionRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/session',
      operationId: 'traderSignIn',
      auth: 'public',
      summary: 'Sign in to the trader app: email, password and (when enrolled) a TOTP code → the session cookie and its CSRF token',
      description:
        'Sets the cookie gw_trader (HttpOnly, SameSite=Strict, Path=/, Secure on https or in production) and answers the account, ' +
        'its trader (approved or not) and the session with its csrf_token: every later request but GET/HEAD sends it as ' +
        'X-CSRF-Token. Any failure — unknown email, wrong password, missing, wrong or already used code, disabled account — is ' +
        'the same 401, audited (session.sign_in_failed) when the email names an account. The console’s limits apply ' +
        '(OPERATOR_SIGN_IN_*): then 429 with Retry-After.',
      tags,
      body: traderSignInBody,
      response: traderSessionResponse,
      errors: [401, 429],
    },
    ({ body }, deps, ctx) => signIn(deps, ctx, body),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/session',
      operationId: 'traderGetSession',
      auth: 'trader',
      summary: 'Who am I: the signed-in account, its trader and whether it is approved, the CSRF token and when the session ends',
      tags,
      response: traderSessionResponse,
    },
    ({ identity }, deps) => currentSession(deps, traderOf(identity)),
  ),
  defineRoute(
    {
      method: 'delete',
      path: '/session',
      operationId: 'traderDeleteSession',
      auth: 'trader',
      summary: 'Sign out: the session ends at once and the cookie is cleared',
      tags,
      status: 204,
      audit: { action: 'session.sign_out', objectType: 'trader_account', by: 'service' },
    },
    async ({ identity, actor }, deps, ctx) => {
      await signOut(deps, ctx, traderOf(identity), traderActor(actor));
      ctx.status = 204;
      return undefined;
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/session/totp',
      operationId: 'traderEnrollTotp',
      auth: 'trader',
      summary: 'Enroll TOTP for the signed-in trader: {} answers a new secret and otpauth URI; { secret, code, confirm_password | confirm_code } sets it',
      description:
        'As the console’s POST /admin/session/totp: code is a code of the new secret; confirm_password the account’s password, ' +
        'or confirm_code a current code of the authenticator enrolled so far. A wrong confirmation is 400 naming the field and ' +
        'counts as a failed sign-in. Setting it ends the account’s other sessions; from then on sign-in needs totp_code. An ' +
        'invited trader must do this before anything else.',
      tags,
      body: traderTotpBody,
      bodyOptional: true,
      response: traderTotpResponse,
      audit: { action: 'trader_account.totp_enroll', objectType: 'trader_account', by: 'service' },
    },
    ({ identity, actor, body }, deps, ctx) => enrollTotp(deps, ctx, traderOf(identity), body ?? {}, traderActor(actor)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/session/password',
      operationId: 'traderChangeOwnPassword',
      auth: 'trader',
      summary: 'Change the signed-in trader’s own password: { new_password, confirm_password | confirm_code }',
      description:
        'confirm_password is the present password, or confirm_code a current code of the authenticator. A wrong one is 400 ' +
        'naming the field and counted as a failed sign-in. The account’s other sessions end; this one stays.',
      tags,
      body: traderOwnPasswordBody,
      response: traderOwnPasswordResponse,
      audit: { action: 'trader_account.password_change', objectType: 'trader_account', by: 'service' },
    },
    ({ identity, actor, body }, deps, ctx) => changeOwnPassword(deps, ctx, traderOf(identity), body, traderActor(actor)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/invitation/check',
      operationId: 'traderCheckInvitation',
      auth: 'public',
      summary: 'What a trader invitation link invites to (email, trader, until when), before the trader chooses a password',
      description: 'An unknown token (or another door’s) is 404; a link used, withdrawn or expired is 400 saying which.',
      tags,
      body: traderInvitationTokenBody,
      response: traderInvitationCheckResponse,
      errors: [404],
    },
    ({ body }, deps) => checkTraderInvitation(deps, body.token),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/invitation/accept',
      operationId: 'traderAcceptInvitation',
      auth: 'public',
      summary: 'Accept a trader invitation: the account is created with the chosen password and signed in (the session cookie, as sign-in)',
      description:
        'Once per link, before it expires (a second acceptance is 400: used already; 409 when the email has an account meanwhile). ' +
        'The new account must set up an authenticator before anything else: until POST /session/totp has set one, every other ' +
        'trader route answers 403. The trader works once an operator approves it (trader.approved). Audited ' +
        '(trader_account.invite_accept).',
      tags,
      body: traderAcceptInvitationBody,
      status: 201,
      response: traderSessionResponse,
      errors: [404, 409],
    },
    ({ body }, deps, ctx) => acceptTraderInvitation(deps, ctx, body),
  ),
];
