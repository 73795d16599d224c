/** The trader app's appeals: the appeals on the trader's deals, its answers and their evidence files. */
import { z } from 'zod';
import { APPEAL_STATUSES } from '../../domain/state/appeals';
import { int64String, openEnum, textRule, timestamp, uuid } from './common';
import { fileSchema } from './files';

const answerState = z
  .enum(['ANSWERED', 'WAITING', 'MISSED'])
  .openapi({ description: 'ANSWERED: you answered; WAITING: your time to answer runs (respond_by); MISSED: it ended without your answer' });

const traderAppealFields = {
  appeal_id: z.string().uuid(),
  deal_id: z.string().uuid(),
  status: openEnum(APPEAL_STATUSES, `One of ${APPEAL_STATUSES.join(', ')}.`, 'as an appeal still open'),
  deal_status: z.string().openapi({ description: "the appealed deal's status now (APPEALED while the appeal holds it)" }),
  amount: int64String.openapi({ description: "the deal's amount in minor units of its currency, int64 as a string" }),
  currency: z.string(),
  reason: z.string().openapi({ description: "the merchant's statement: why it opened the appeal" }),
  created_at: timestamp,
  respond_by: timestamp.openapi({ description: 'when your answer must be in: the opening + APPEAL_TRADER_RESPONSE_SECONDS' }),
  responded_at: z.string().openapi({ description: "RFC 3339 of your first answer; '' while you have not answered" }),
  answer: answerState,
  can_answer: z.boolean().openapi({ description: 'the appeal waits for the arbiter (OPEN, IN_REVIEW, REOPENED) and respond_by is ahead' }),
};

const traderAppealSummary = z.object(traderAppealFields).openapi('TraderAppealSummary');

export const traderAppealListResponse = z.object({ data: z.array(traderAppealSummary) }).openapi('TraderAppealList', {
  description: 'The appeals still waiting for the arbiter first (earliest respond_by first), then the rest, newest first; at most 200.',
});

const traderAppealMessage = z
  .object({
    message_id: z.string().uuid(),
    appeal_id: z.string().uuid(),
    sender_role: z.enum(['MERCHANT', 'TRADER']).openapi({ description: "MERCHANT: the merchant's statement; TRADER: your answer" }),
    body: z.string(),
    file_ids: z.array(z.string().uuid()),
    created_at: timestamp,
  })
  .openapi('TraderAppealMessage');

const traderAppealDetail = z
  .object({
    ...traderAppealFields,
    file_ids: z.array(z.string().uuid()).openapi({ description: "the files of the merchant's statement" }),
    messages: z.array(traderAppealMessage).openapi({ description: "the merchant's messages and your answers, oldest first" }),
    files: z
      .array(fileSchema.extend({ party: z.enum(['MERCHANT', 'TRADER']).openapi({ description: 'whose evidence it is' }) }))
      .openapi({ description: 'every file you may read in this appeal (GET …/files/{file_id})' }),
  })
  .openapi('TraderAppeal');

export const traderAppealResponse = z.object({ data: traderAppealDetail }).openapi('TraderAppealResponse');

export const traderAppealParams = z.object({ appeal_id: uuid('appeal_id') });
export const traderAppealFileParams = z.object({ appeal_id: uuid('appeal_id'), file_id: uuid('file_id') });

export const traderStatementBody = z
  .object({
    body: z
      .string({ error: 'body is required' })
      .max(4000, 'body is at most 4000 characters')
      .superRefine(textRule('body', false))
      .refine((v) => v.trim().length > 0, { message: 'body is required', params: { code: 'required' } }),
    file_ids: z
      .array(uuid('file_ids[]'), { error: 'file_ids must be an array of file ids' })
      .max(20, 'at most 20 file_ids')
      .optional()
      .openapi({ description: 'files you sent earlier as evidence in your appeals; another owner’s or an unknown id is 400 naming it' }),
  })
  .openapi('TraderAppealStatementRequest');

export const traderAppealMessageResponse = z.object({ data: traderAppealMessage }).openapi('TraderAppealMessageResponse');

export const traderEvidenceForm = z
  .object({
    file: z
      .string()
      .openapi({ type: 'string', format: 'binary', description: 'the evidence file (part name `file`): a receipt, a bank statement, a screenshot' }),
    note: z.string().optional().openapi({ description: 'what the file shows, at most 4000 characters (the message that carries it)' }),
  })
  .openapi('TraderEvidenceUpload');

export const traderEvidenceResponse = z
  .object({ file: fileSchema, data: traderAppealMessage })
  .openapi('TraderEvidenceResponse', { description: 'the stored file and the answer (a TRADER message) that carries it' });
