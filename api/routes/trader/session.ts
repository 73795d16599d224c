/**
 * The trader app's door: sign-in and the trader account's session, its TOTP (required before
 * anything else) and password, and accepting an invitation — the console's rules, at
 * /api/v1/p2p/trader. docs/trader.md says how the app uses them.
 */
import { doorSessionRoutes } from '../door-session';
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
import { traderActor } from '../../services/deal-workflows';

const door = doorSessionRoutes({
  prefix: 'trader',
  tags: ['Trader'],
  auth: 'trader',
  accountOf: traderOf,
  // Its auth mode lets only a trader's session in.
  actorOf: traderActor,
  audit: { objectType: 'trader_account', actions: 'trader_account' },
  words: {
    app: 'the trader app',
    whoAmI: 'the signed-in account, its trader and whether it is approved',
    signedIn: 'trader',
    invitation: 'a trader invitation',
    invites: 'email, trader',
    invitee: 'trader',
    created: 'account',
  },
  descriptions: {
    signIn:
      'Sets the cookie gw_trader (HttpOnly, SameSite=Strict, Path=/, Secure on https or in production) and answers the account, ' +
      'its trader (approved or not) and the session with its csrf_token: every later request but GET/HEAD sends it as ' +
      'X-CSRF-Token. Any failure — unknown email, wrong password, missing, wrong or already used code, disabled account — is ' +
      'the same 401, audited (session.sign_in_failed) when the email names an account. The console’s limits apply ' +
      '(OPERATOR_SIGN_IN_*): then 429 with Retry-After.',
    enrollTotp:
      'As the console’s POST /admin/session/totp: code is a code of the new secret; confirm_password the account’s password, ' +
      'or confirm_code a current code of the authenticator enrolled so far. A wrong confirmation is 400 naming the field and ' +
      'counts as a failed sign-in. Setting it ends the account’s other sessions; from then on sign-in needs totp_code. An ' +
      'invited trader must do this before anything else.',
    changeOwnPassword:
      'confirm_password is the present password, or confirm_code a current code of the authenticator. A wrong one is 400 ' +
      'naming the field and counted as a failed sign-in. The account’s other sessions end; this one stays.',
    checkInvitation: 'An unknown token (or another door’s) is 404; a link used, withdrawn or expired is 400 saying which.',
    acceptInvitation:
      'Once per link, before it expires (a second acceptance is 400: used already; 409 when the email has an account meanwhile). ' +
      'The new account must set up an authenticator before anything else: until POST /session/totp has set one, every other ' +
      'trader route answers 403. The trader works once an operator approves it (trader.approved). Audited ' +
      '(trader_account.invite_accept).',
  },
  schemas: {
    signInBody: traderSignInBody,
    sessionResponse: traderSessionResponse,
    totpBody: traderTotpBody,
    totpResponse: traderTotpResponse,
    ownPasswordBody: traderOwnPasswordBody,
    ownPasswordResponse: traderOwnPasswordResponse,
    invitationTokenBody: traderInvitationTokenBody,
    invitationCheckResponse: traderInvitationCheckResponse,
    acceptInvitationBody: traderAcceptInvitationBody,
  },
  service: {
    signIn,
    currentSession,
    signOut,
    enrollTotp,
    changeOwnPassword,
    checkInvitation: checkTraderInvitation,
    acceptInvitation: acceptTraderInvitation,
  },
});

export const traderSessionRoutes = [...door.session, ...door.invitation];
