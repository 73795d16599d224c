/** The operator console's API: sessions, accounts, the audit trail, the queues. */
import { z } from 'zod';
import { OPERATOR_ROLES } from '../../domain/roles';
import {
  confirmation,
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
import { line, pageSize, rfc3339, timestamp, uuid } from './common';

const role = z.enum(OPERATOR_ROLES).openapi({
  description: 'arbiter (appeals), finance (withdrawals, deposits, rates), support (read-only), admin (everything; merchants, traders, operators)',
});

export const signInBody = z.object(signInFields).strict().openapi('OperatorSignIn');

const operatorSchema = z
  .object({
    operator_id: z.string(),
    email: z.string(),
    role,
    totp_enrolled: z.boolean(),
    disabled: z.boolean(),
    disabled_at: z.string().openapi({ description: "RFC 3339, '' while enabled" }),
    created_at: z.string(),
    totp_required: z
      .boolean()
      .openapi({ description: 'the account must set up an authenticator (an invited account): until it has, its session may only do that' }),
    last_sign_in_at: z.string().openapi({ description: "RFC 3339 of the last sign-in; '' before the first" }),
    last_sign_in_address: z.string().openapi({ description: "the client address of the last sign-in; ''" }),
  })
  .openapi('Operator');

export const sessionResponse = z
  .object({
    operator: operatorSchema,
    ...sessionFields,
  })
  .openapi('OperatorSession');

export const createOperatorBody = z.object({ email, password, role }).strict().openapi('OperatorCreate');
export const updateOperatorBody = z
  .object({
    role: role.optional(),
    disabled: z.boolean().optional().openapi({ description: 'true disables the account and ends its sessions at once; false enables it' }),
    password: password.optional().openapi({ description: 'a new password (ends its sessions)' }),
    reset_totp: z
      .literal(true)
      .optional()
      .openapi({ description: 'removes the TOTP enrollment (a lost authenticator); needs confirm_password or confirm_code' }),
    ...confirmation,
  })
  .strict()
  .openapi('OperatorUpdate');
export const operatorParams = z.object({ operator_id: uuid('operator_id') });

export const ownPasswordBody = z.object(ownPasswordFields).strict().openapi('OperatorOwnPassword');
export const ownPasswordResponse = z.object(ownPasswordResult).openapi('OperatorOwnPasswordResult');

export const inviteOperatorBody = z.object({ email, role }).strict().openapi('OperatorInvite');
const operatorInvitations = invitationSchemas('Operator', role, {
  invitedBy: '`<actor_kind>:<id>` of the inviting admin',
  mailbox: 'OPERATOR_MAILBOX_FILE',
  revokedEarlier: "the email's earlier invitation withdrawn by this one (0 or 1)",
});
const invitationSchema = operatorInvitations.invitation;
export const inviteResponse = operatorInvitations.inviteResult;
export const invitationsResponse = operatorInvitations.invitations;
export const invitationParams = z.object({ invitation_id: uuid('invitation_id') });
export const invitationResponse = z.object({ invitation: invitationSchema });

export const invitationTokenBody = z.object({ token: invitationToken }).strict().openapi('OperatorInvitationCheck');
export const invitationCheckResponse = z
  .object({ email: z.string(), role, expires_at: z.string() })
  .openapi('OperatorInvitationDetails', { description: 'What the link invites to.' });
export const acceptInvitationBody = z
  .object({ token: invitationToken, password: password.openapi({ description: 'the password the new operator chooses (at least 12 characters)' }) })
  .strict()
  .openapi('OperatorInvitationAccept');
export const operatorResponse = z.object({ operator: operatorSchema });
export const operatorListResponse = z.object({ data: z.array(operatorSchema) });

export const totpBody = z.object(totpFields).strict().openapi('OperatorTotpEnroll');
export const totpResponse = z.object(totpResult).openapi('OperatorTotp');

/** The audit trail's filters: the list and its export take the same. */
export const auditFilters = z.object({
  actor: line('actor').optional().openapi({
    description: "actor_id: an account's id (or its start, at least 4 hex digits), a JWT's sub, a system actor's name",
  }),
  credential: line('credential', 64)
    .optional()
    .openapi({ description: 'actor_credential: every action of one console session (`session:<ref>`) or one operator JWT (`jwt:<ref>`)' }),
  object_type: line('object_type', 64).optional(),
  object_id: line('object_id').optional().openapi({ description: "the object's id, or its start (at least 4 hex digits)" }),
  action: line('action', 64).optional(),
  from: rfc3339('from').optional().openapi({ description: 'at or after (RFC 3339)' }),
  to: rfc3339('to').optional().openapi({ description: 'before (RFC 3339)' }),
});
export const auditQuery = auditFilters.extend({
  page_size: pageSize(200, 50),
  page_token: z.string().optional().openapi({ description: 'opaque cursor from next_page_token' }),
});

const auditEntrySchema = z
  .object({
    id: z.string().openapi({ description: 'int64 as a digit string; newer entries have larger ids' }),
    at: timestamp,
    actor_kind: z
      .enum(['operator_account', 'operator_jwt', 'merchant_account', 'merchant_jwt', 'trader_account', 'bank_device', 'system', 'anonymous'])
      .openapi({
        description:
          "merchant_account: a member of a merchant (its cabinet session; role is the member's); merchant_jwt: the cabinet JWT (actor_id its sub, role owner); " +
          "bank_device: a trader's paired bank device (actor_id the device's id; its notification confirmed a deal, it paired or was heard again); " +
          'system: the gateway itself (the sandbox arbiter, actor_id sandbox-arbiter); anonymous: a failed sign-in (actor_id the client address, role empty; object the account it named)',
      }),
    actor_id: z.string(),
    actor_name: z.string().openapi({
      description:
        "who, for people: a console account's or a merchant member's email (as the account is now), `operator JWT <sub>`, `cabinet JWT <sub>`, `bank device <name> of <trader>`, the system actor's name, or `failed sign-in from <address>`",
    }),
    actor_email: z.string().openapi({ description: "a console account's or merchant member's email; empty for other actors" }),
    actor_credential: z.string().openapi({
      description:
        'which console session (`session:<ref>`) or which operator JWT (`jwt:<ref>`) acted: a one-way reference, filterable with credential; empty for system actors, failed sign-ins and older rows',
    }),
    role: z.string().openapi({ description: "the actor's role when it acted" }),
    action: z.string().openapi({ example: 'withdrawal.approve' }),
    object_type: z.string().openapi({ example: 'withdrawal' }),
    object_id: z.string(),
    object_name: z
      .string()
      .openapi({ description: "a merchant's or trader's name, an operator account's or merchant member's email; empty for other objects" }),
    before: z.unknown().openapi({ description: 'the object before the action (null when it did not exist or is not kept)' }),
    after: z.unknown().openapi({ description: 'the object after the action' }),
    request_id: z.string().openapi({ description: 'the X-Trace-Id of the request' }),
  })
  .openapi('AuditEntry');
export const auditListResponse = z
  .object({ data: z.array(auditEntrySchema), next_page_token: z.string() })
  .openapi('AuditList', { description: 'Newest first. An empty next_page_token means the last page.' });

const queue = z.object({
  count: z.number().int(),
  oldest_at: z.string().openapi({ description: "RFC 3339, '' when empty" }),
  oldest_age_seconds: z.number().int(),
});
/** count, oldest_at and oldest_age_seconds are the live world's; a sandbox merchant's waiting items only in sandbox_count. */
const worldQueue = queue.extend({
  sandbox_count: z.number().int().openapi({ description: "addition: how many of a sandbox merchant's wait here (play money: never in count)" }),
});
export const queuesResponse = z
  .object({
    appeals_waiting: worldQueue.openapi({
      description: "appeals OPEN or REOPENED: waiting for an arbiter (age since their last change); live merchants' (sandbox ones in sandbox_count)",
    }),
    appeals_overdue: queue.extend({ sla_seconds: z.number().int() }).openapi({
      description:
        'live appeals still waiting for an answer (OPEN, IN_REVIEW, REOPENED) past their respond_by (opening or reopening + APPEAL_RESPONSE_SLA_SECONDS); oldest_at is the earliest missed deadline and oldest_age_seconds how long ago it passed',
    }),
    appeals_assigned_to_me: z
      .number()
      .int()
      .openapi({ description: 'appeals still waiting for an answer assigned to the asking console account (0 for the operator JWT)' }),
    withdrawals_waiting: worldQueue.extend({ awaiting_second_approval: z.number().int() }).openapi({
      description:
        "withdrawals PENDING_MANUAL of live merchants; of them, those above the four-eyes amount with one approval (sandbox merchants' in sandbox_count)",
    }),
    open_alerts: worldQueue.openapi({ description: "open alerts, but those on a sandbox merchant's deals (in sandbox_count)" }),
    stuck_deals: queue
      .extend({ sla_seconds: z.number().int() })
      .openapi({ description: 'live deals (not APPEALED, not sandbox) unchanged for more than DEAL_STUCK_SLA_SECONDS' }),
    generated_at: z.string(),
  })
  .openapi('ConsoleQueues');
