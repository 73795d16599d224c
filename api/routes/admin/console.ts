/**
 * The operator console's own API: sign-in and the session, operator accounts (admin),
 * the audit trail and the queues of the home page. docs/console.md says how a console uses them.
 */
import { defineRoute, sendCsv } from '../../route';
import { doorSessionRoutes } from '../door-session';
import { operatorOf } from '../../auth/authenticate';
import {
  auditFilters,
  auditListResponse,
  auditQuery,
  createOperatorBody,
  operatorListResponse,
  operatorParams,
  operatorResponse,
  acceptInvitationBody,
  invitationCheckResponse,
  invitationParams,
  invitationResponse,
  invitationsResponse,
  invitationTokenBody,
  inviteOperatorBody,
  inviteResponse,
  ownPasswordBody,
  ownPasswordResponse,
  queuesResponse,
  sessionResponse,
  signInBody,
  totpBody,
  totpResponse,
  updateOperatorBody,
} from '../../schemas/console';
import { exportAudit, listAuditPage } from '../../services/audit';
import { consoleQueues } from '../../services/queues';
import { invite, listInvitations, revoke } from '../../services/invitations';
import {
  acceptOperatorInvitation,
  changeOwnPassword,
  checkOperatorInvitation,
  createOperatorAccount,
  currentSession,
  enrollTotp,
  listOperatorAccounts,
  presentOperator,
  signIn,
  signOut,
  updateOperatorAccount,
} from '../../services/operators';
import { operatorActor } from '../../services/deal-workflows';

const tags = ['Operator: console'];
/** The operators' invitations: the door's own (no merchant, no trader). */
const OPERATORS = { party: 'operator' } as const;

const door = doorSessionRoutes({
  prefix: 'admin',
  tags,
  auth: 'operator',
  accountOf: operatorOf,
  actorOf: operatorActor,
  audit: { objectType: 'operator', actions: 'operator' },
  words: {
    app: 'the console',
    whoAmI: 'the signed-in operator, its role',
    signedIn: 'account',
    invitation: 'an invitation',
    invites: 'email, role',
    invitee: 'invitee',
    created: 'account',
  },
  descriptions: {
    signIn:
      'Sets the cookie gw_operator (HttpOnly, SameSite=Strict, Path=/, Secure on https or in production) and answers the ' +
      'session with its csrf_token: every later request but GET/HEAD sends it as X-CSRF-Token. Any failure — unknown email, ' +
      'wrong password, missing, wrong or already used code, disabled account — is the same 401, and is audited ' +
      '(session.sign_in_failed) when the email names an account. Failed sign-ins within OPERATOR_SIGN_IN_WINDOW_SECONDS are ' +
      'limited per email and client address (OPERATOR_SIGN_IN_MAX_FAILURES), per email (…_PER_EMAIL) and per address ' +
      '(…_PER_ADDRESS), counted before the password is checked: then 429 with Retry-After, the right password included. 429 ' +
      'also when too many passwords are being checked at that moment.',
    getSession: 'With the operator JWT: its sub as operator_id and the role admin, no session (csrf_token and times empty).',
    enrollTotp:
      'code is a code of the new secret; confirm_password is the account’s password, or confirm_code a current code of the ' +
      'authenticator enrolled so far (a re-enrolment). A wrong confirmation is 400 naming the field and counts as a failed sign-in ' +
      '(the same limits, 429 beyond). Setting it ends the account’s other sessions; a code is accepted once (the new code’s time ' +
      'step too). From then on sign-in needs totp_code. An admin removes a lost enrolment with PATCH /operators/{id} ' +
      '{ reset_totp: true }. Console sessions only.',
    changeOwnPassword:
      'confirm_password is the present password, or confirm_code a current code of the account’s authenticator. A wrong one ' +
      'is 400 naming the field, audited (operator.confirm_failed) and counted as a failed sign-in (the same limits, 429 ' +
      'beyond). The account’s other sessions end; this one stays. Audited (operator.password_change). Console sessions only.',
    checkInvitation: 'An unknown token is 404; a link used, withdrawn or expired is 400 saying which.',
    acceptInvitation:
      'Once per link, before it expires (a second acceptance, concurrent or later, is 400: used already). The new account must set ' +
      'up an authenticator before anything else: until POST /session/totp has set one, every other operator route answers 403. ' +
      'Audited (operator.invite_accept).',
  },
  schemas: {
    signInBody,
    sessionResponse,
    totpBody,
    totpResponse,
    ownPasswordBody,
    ownPasswordResponse,
    invitationTokenBody,
    invitationCheckResponse,
    acceptInvitationBody,
  },
  service: {
    signIn,
    currentSession,
    signOut,
    enrollTotp,
    changeOwnPassword,
    checkInvitation: checkOperatorInvitation,
    acceptInvitation: acceptOperatorInvitation,
  },
});

export const consoleRoutes = [
  ...door.session,
  defineRoute(
    {
      method: 'post',
      path: '/operators/invitations',
      operationId: 'adminInviteOperator',
      auth: 'operator',
      summary: 'Invite an operator by e-mail link: the invitee sets a password, then must set up an authenticator',
      description:
        'Answers the invitation and its link (shown this once; there is no SMTP: the e-mail is appended to the development ' +
        'mailbox OPERATOR_MAILBOX_FILE). The link works once, for OPERATOR_INVITE_TTL_SECONDS; a new invitation of the same email ' +
        'withdraws the earlier one. 409 when an account has the email. Audited (operator.invite; never the link).',
      tags,
      body: inviteOperatorBody,
      status: 201,
      response: inviteResponse,
      errors: [409],
      audit: { action: 'operator.invite', objectType: 'operator_invitation', by: 'service' },
    },
    ({ body, actor }, deps) => invite(deps, OPERATORS, body, operatorActor(actor)),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/operators/invitations',
      operationId: 'adminListInvitations',
      auth: 'operator',
      summary: 'Invitations neither accepted nor withdrawn (expired ones marked), newest first',
      tags,
      response: invitationsResponse,
    },
    async (_input, deps) => ({ data: await listInvitations(deps, OPERATORS) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/operators/invitations/{invitation_id}/revoke',
      operationId: 'adminRevokeInvitation',
      auth: 'operator',
      summary: 'Withdraw an invitation: its link stops working',
      description: 'An accepted invitation is 400 (disable the account instead); a withdrawn one is answered as it is. Audited (operator.invite_revoke).',
      tags,
      params: invitationParams,
      response: invitationResponse,
      errors: [404],
      audit: { action: 'operator.invite_revoke', objectType: 'operator_invitation', by: 'service' },
    },
    async ({ params, actor }, deps) => ({ invitation: await revoke(deps, OPERATORS, params.invitation_id, operatorActor(actor)) }),
  ),
  ...door.invitation,
  defineRoute(
    {
      method: 'get',
      path: '/operators',
      operationId: 'adminListOperators',
      auth: 'operator',
      summary: 'Operator accounts, oldest first',
      tags,
      response: operatorListResponse,
    },
    async (_input, deps) => ({ data: await listOperatorAccounts(deps) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/operators',
      operationId: 'adminCreateOperator',
      auth: 'operator',
      summary: 'Create an operator account with a role (arbiter, finance, support, admin)',
      description: 'The email is stored lower-cased; one account per email (409). The password has at least 12 characters.',
      tags,
      body: createOperatorBody,
      status: 201,
      response: operatorResponse,
      errors: [409],
      audit: { action: 'operator.create', objectType: 'operator', by: 'service' },
    },
    async ({ body, actor }, deps) => ({ operator: presentOperator(await createOperatorAccount(deps, body, operatorActor(actor))) }),
  ),
  defineRoute(
    {
      method: 'patch',
      path: '/operators/{operator_id}',
      operationId: 'adminUpdateOperator',
      auth: 'operator',
      summary: "Set an operator's role, disable or enable it, set a new password, or remove its TOTP",
      description:
        'Disabling, a role change, a new password and removing the TOTP enrolment end the account’s sessions at once (an admin ' +
        'changing its own account keeps the session it does it with). reset_totp needs the acting admin’s own password ' +
        '(confirm_password) or a current code of its authenticator (confirm_code); with the operator JWT it needs neither. An ' +
        'account cannot disable or demote itself.',
      tags,
      params: operatorParams,
      body: updateOperatorBody,
      response: operatorResponse,
      errors: [404],
      audit: { action: 'operator.update', objectType: 'operator', by: 'service' },
    },
    async ({ params, body, identity, actor }, deps, ctx) => ({
      operator: presentOperator(await updateOperatorAccount(deps, ctx, params.operator_id, body, operatorOf(identity), operatorActor(actor))),
    }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/audit',
      operationId: 'adminListAudit',
      auth: 'operator',
      summary: 'The audit trail, newest first: every operator action with who, role, object, before/after and request id',
      description:
        'Filters: actor (actor_id, or an account id by its start), credential (one session or token), object_type, object_id (or ' +
        'its start), action, from (inclusive) and to (exclusive), RFC 3339. Each entry names who acted (actor_name, actor_email, ' +
        'actor_credential) and the object (object_name for merchants, traders and operators). Keyset pages ' +
        '(page_size default 50, clamped to 200; page_token from next_page_token, valid with the same filters). Append-only: ' +
        'no row is ever changed or removed.',
      tags,
      query: auditQuery,
      response: auditListResponse,
    },
    ({ query }, deps) => listAuditPage(deps, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/audit/export',
      operationId: 'adminExportAudit',
      auth: 'operator',
      summary: 'CSV of every audit entry the filters select, newest first; the file is named for the filters',
      description:
        'The filters of GET /audit, no paging, streamed in constant memory. Columns: id, at, actor_kind, actor_id, actor_name, ' +
        'actor_credential, role, action, object_type, object_id, object_name, before, after (JSON text), request_id. RFC 4180; ' +
        'a cell starting with =, +, -, @, tab or CR is prefixed with a single quote.',
      tags,
      query: auditFilters,
      responseContentType: 'text/csv',
    },
    async ({ query }, deps, ctx) => sendCsv(ctx, await exportAudit(deps, query)),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/queues',
      operationId: 'adminGetQueues',
      auth: 'operator',
      summary:
        "The console's home: how many wait and for how long — appeals for an arbiter (those past their deadline, those assigned to you), withdrawals for approval, open alerts, stuck deals",
      tags,
      response: queuesResponse,
    },
    ({ identity }, deps) => {
      const operator = operatorOf(identity);
      return consoleQueues(deps, operator.via === 'session' ? operator.operatorId : undefined);
    },
  ),
];
