import { z } from 'zod';
import { dealSchema, payerProofSchema } from './deals';
import { fileSchema } from './files';
import { idOrPrefix, int64Body, openEnum, pageSize, textRule, timestamp, uuid } from './common';
import { APPEAL_REASON_MIN, APPEAL_STATUSES } from '../../domain/state/appeals';
import { OPERATOR_APPEAL_MOVES } from '../../domain/state/operator-appeal-moves';

/** Free text of appeals and messages: line breaks and tabs are fine, other control characters (NUL …) are not. */
const text = (field: string, max: number) =>
  z
    .string({ error: `${field} is required` })
    .max(max, `${field} is at most ${max} characters`)
    .superRefine(textRule(field, false));

const fileIds = z
  .array(uuid('file_ids[]'), { error: 'file_ids must be an array of file ids' })
  .max(20, 'at most 20 file_ids')
  .optional()
  .openapi({ description: 'ids of files uploaded with POST /files by the caller; another owner’s or an unknown id is 400 naming it' });

export const createAppealBody = z
  .object({
    deal_id: uuid('deal_id'),
    // Counted as sent (code points, spaces included: the spec's minimum of 10 is of what the merchant
    // wrote); a reason of spaces only states nothing and is refused whatever its length.
    reason: text('reason', 4000)
      .refine((v) => [...v].length >= APPEAL_REASON_MIN, { message: `reason must be at least ${APPEAL_REASON_MIN} characters`, params: { code: 'too_small' } })
      .refine((v) => v.trim().length > 0, { message: 'reason must not be blank', params: { code: 'required' } }),
    file_ids: fileIds,
  })
  .openapi('CreateAppealRequest');

export const messageBody = z
  .object({
    body: text('body', 4000).refine((v) => v.trim().length > 0, { message: 'body is required', params: { code: 'required' } }),
    file_ids: fileIds,
  })
  .openapi('AppealMessageRequest');

export const appealSchema = z
  .object({
    appeal_id: z.string().uuid(),
    deal_id: z.string().uuid(),
    status: openEnum(APPEAL_STATUSES, `One of ${APPEAL_STATUSES.join(', ')}.`, 'as an appeal still open'),
    reason: z.string(),
    file_ids: z.array(z.string().uuid()),
    resolution_note: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
    resolved_at: z.string().openapi({ description: 'RFC 3339; empty until resolved (and again after a reopen)' }),
  })
  .openapi('Appeal');

export const messageSchema = z
  .object({
    message_id: z.string().uuid(),
    appeal_id: z.string().uuid(),
    sender_role: z.enum(['MERCHANT', 'ADMIN']),
    body: z.string(),
    file_ids: z.array(z.string().uuid()),
    created_at: timestamp,
  })
  .openapi('AppealMessage');

export const appealResponse = z.object({ data: appealSchema }).openapi('AppealResponse');
/** GET of one appeal: the appeal with one field more, what the deal's payer sent from the payment page. */
const appealDetailSchema = appealSchema.extend({ payer_proof: payerProofSchema }).openapi('AppealDetail');
export const appealDetailResponse = z.object({ data: appealDetailSchema }).openapi('AppealDetailResponse');
export const messageResponse = z.object({ data: messageSchema }).openapi('AppealMessageResponse');
export const messagesResponse = z.object({ data: z.object({ messages: z.array(messageSchema) }) }).openapi('AppealMessagesResponse');
export const appealListResponse = z
  .object({ data: z.array(appealSchema), next_page_token: z.string() })
  .openapi('AppealList', { description: 'Newest first; an empty next_page_token means the last page.' });

export const appealParams = z.object({ appeal_id: uuid('appeal_id') });

const statusFilter = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .optional()
  .openapi({
    type: 'array',
    items: { type: 'string' },
    description: `one or more of ${APPEAL_STATUSES.join(', ')} (repeated or comma-separated); IN_PROGRESS is accepted as IN_REVIEW (the same state); unknown values match nothing`,
  });

export const listAppealsQuery = z.object({
  status: statusFilter,
  page_size: pageSize(100, 20),
  page_token: z.string().optional().openapi({ description: 'opaque cursor from next_page_token' }),
});

export const adminListAppealsQuery = listAppealsQuery.extend({
  merchant_id: idOrPrefix('merchant_id').optional().openapi({ description: 'only this merchant’s appeals (its id or the id’s start)' }),
  appeal_id: idOrPrefix('appeal_id').optional().openapi({ description: 'the appeal whose id is this or starts so' }),
  assignee: z
    .union([z.enum(['me', 'none']), uuid('assignee')])
    .optional()
    // One string in the document: a union of two strings is an anyOf Go generators refuse (ogen's "complex anyOf").
    .openapi({
      anyOf: undefined,
      type: 'string',
      description: "me: the asking console account's appeals (none for the operator JWT); none: nobody's; or an operator account's id (uuid)",
    }),
  overdue: z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: 'true: only appeals still waiting for an answer (OPEN, IN_REVIEW, REOPENED) past their respond_by' }),
  sort: z
    .enum(['newest', 'oldest'])
    .optional()
    .openapi({ description: 'newest first (default) or oldest first (the queue worked from its oldest case); page tokens keep the order' }),
});
/** The queue's filters without paging: the export's. */
export const adminAppealFilters = adminListAppealsQuery.omit({ page_size: true, page_token: true });

/** The appeal as the desk's case (operators only): its deadline and who works on it. */
const caseFields = {
  respond_by: timestamp.openapi({ description: 'when an operator must have answered: opening (or reopening) + APPEAL_RESPONSE_SLA_SECONDS' }),
  overdue: z.boolean().openapi({ description: 'still waiting for an answer (OPEN, IN_REVIEW, REOPENED) and past respond_by' }),
  assignee_id: z.string().openapi({ description: "the operator account working on it; '' when nobody is" }),
  assigned_at: z.string().openapi({ description: "RFC 3339; '' when nobody is assigned" }),
};

const attachmentSchema = z
  .object({
    file_id: z.string().uuid(),
    note: z.string(),
    attached_by: z.string().openapi({ description: '`<actor_kind>:<id>` of the operator who attached it' }),
    attached_by_name: z.string().openapi({ description: "who attached it: a console account's email, or `operator JWT (<sub>)`" }),
    created_at: timestamp,
  })
  .openapi('AppealAttachment');

/** A message as the arbiter reads it: any party's, labelled with the party and its name. */
const adminMessageSchema = messageSchema
  .extend({
    sender_role: z.enum(['MERCHANT', 'ADMIN', 'TRADER']).openapi({ description: "the party: the merchant, the arbiter, or the deal's trader" }),
    sender_name: z.string().openapi({ description: "the merchant's name, the trader's name, or the operator account's email (`operator JWT (<sub>)`)" }),
  })
  .openapi('AdminAppealMessage');

/** The deal's trader as a party of the appeal (operators only: the merchant's view has no trader side). */
const appealTraderSchema = z
  .object({
    trader_id: z.string().openapi({ description: "the deal's trader; '' when the deal has none" }),
    name: z.string(),
    respond_by: timestamp.openapi({ description: 'when the trader must have answered: opening + APPEAL_TRADER_RESPONSE_SECONDS' }),
    responded_at: z.string().openapi({ description: "RFC 3339 of the trader's first answer; '' while it has not answered" }),
    answer: z
      .enum(['ANSWERED', 'WAITING', 'MISSED'])
      .openapi({ description: 'ANSWERED: it answered; WAITING: its time runs; MISSED: its time ended without an answer' }),
    file_ids: z.array(z.string().uuid()).openapi({ description: "the trader's evidence: the files of its messages" }),
  })
  .openapi('AppealTraderParty');

const adminAppealSchema = appealSchema
  .extend({
    merchant_id: z.string().uuid(),
    merchant_name: z.string(),
    ...caseFields,
    attachments: z
      .array(attachmentSchema)
      .openapi({ description: "files operators attached to the case (for operators only: the merchant sees an operator's file only in a message)" }),
    outcome: z.string().openapi({ description: 'SATISFIED, REJECTED, or empty before the first resolution' }),
    deal_status_at_open: z.string(),
    settlement_deal_id: z.string().openapi({ description: 'the settlement deal made for this appeal, or empty' }),
    deal: dealSchema,
    trader: appealTraderSchema,
    messages: z.array(adminMessageSchema).openapi({ description: "every party's messages, oldest first (the merchant's own thread has no TRADER messages)" }),
    files: z
      .array(fileSchema.extend({ party: z.enum(['MERCHANT', 'ADMIN', 'TRADER']).openapi({ description: 'whose evidence it is' }) }))
      .openapi({ description: 'every file attached to the appeal or its messages, with the party that gave it' }),
    moves: z
      .array(
        z
          .object({
            move: z.enum(OPERATOR_APPEAL_MOVES),
            offered: z.boolean().openapi({ description: 'whether the move can run now (the console offers only these)' }),
            refusal: z.string().openapi({ description: "why it cannot run now ('' when offered): the workflow's own message" }),
            first: z.enum(['', ...OPERATOR_APPEAL_MOVES]).openapi({ description: "a move that must run first to make this one possible ('' when none)" }),
            appeal_status_after: z.string(),
            deal_status_after: z.string().openapi({ description: "the deal's status after the move (its status now when the move leaves it)" }),
            new_deal_status_after: z.string().openapi({ description: "the status of the deal the move makes (settle); '' when it makes none" }),
            money: z.string().openapi({ description: 'what happens to the money, as the state table says it' }),
          })
          .openapi('AppealMovePreview'),
      )
      .openapi({ description: "every arbiter move with what it will do, from the state tables the appeal's and the deal's workflows decide with" }),
  })
  .openapi('AdminAppeal');

export const adminAppealResponse = z.object({ data: adminAppealSchema }).openapi('AdminAppealResponse');
export const adminAppealListResponse = z
  .object({ data: z.array(appealSchema.extend({ merchant_id: z.string().uuid(), merchant_name: z.string(), ...caseFields })), next_page_token: z.string() })
  .openapi('AdminAppealList');

export const assignAppealBody = z
  .object({ operator_id: uuid('operator_id').openapi({ description: 'an enabled console account whose role may resolve appeals (arbiter, admin)' }) })
  .strict()
  .openapi('AssignAppealRequest');

/** An appeal's case fields after an assignment. */
export const appealCaseResponse = z.object({ data: appealSchema.extend({ merchant_id: z.string().uuid(), ...caseFields }) }).openapi('AppealCaseResponse');

export const attachFilesBody = z
  .object({
    file_ids: z
      .array(uuid('file_ids[]'), { error: 'file_ids must be an array of file ids' })
      .min(1, 'at least one file_id')
      .max(20, 'at most 20 file_ids')
      .openapi({ description: 'operator uploads (POST /api/v1/p2p/admin/files)' }),
    note: text('note', 1000).optional().openapi({ description: 'what the files are' }),
  })
  .strict()
  .openapi('AttachAppealFilesRequest');
export const attachmentsResponse = z.object({ data: z.array(attachmentSchema) }).openapi('AppealAttachments');

export const appealAssigneesResponse = z
  .object({ data: z.array(z.object({ operator_id: z.string().uuid(), email: z.string(), role: z.string() })) })
  .openapi('AppealAssignees', { description: 'Enabled console accounts whose role may resolve appeals, by email.' });

export const resolveBody = z
  .object({
    outcome: z.enum(['SATISFIED', 'REJECTED'], { error: 'outcome must be SATISFIED or REJECTED' }),
    note: text('note', 4000).optional().openapi({ description: 'becomes resolution_note (plus the settlement deal id when there is one)' }),
  })
  .openapi('ResolveAppealRequest');

export const resolveResponse = z
  .object({ deal: dealSchema, data: appealSchema })
  .openapi('ResolveAppealResponse', { description: 'The deal after the resolution (`deal`) and the appeal.' });

export const settlementBody = z
  .object({
    received_amount_override: int64Body('received_amount_override')
      .refine((v) => v > 0n, { message: 'received_amount_override must be greater than 0', params: { code: 'too_small' } })
      .optional()
      .openapi({ type: 'integer', format: 'int64', description: "default: the expired deal's received_amount; needs a reason" }),
    reason: text('reason', 1000).optional(),
    idempotency_key: uuid('idempotency_key'),
  })
  .refine((b) => b.received_amount_override === undefined || (b.reason ?? '').trim().length > 0, {
    message: 'reason is required when received_amount_override is set',
    path: ['reason'],
    params: { code: 'required' },
  })
  .openapi('SettlementRequest');
