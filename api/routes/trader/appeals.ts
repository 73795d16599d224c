/**
 * The trader as a party of the appeals on its deals: the list, one case, its statement and its
 * evidence, and the case's files. Scope comes from the session's trader: an appeal on another
 * trader's deal is 404.
 */
import { defineRoute } from '../../route';
import { traderOf } from '../../auth/authenticate';
import {
  traderAppealFileParams,
  traderAppealListResponse,
  traderAppealMessageResponse,
  traderAppealParams,
  traderAppealResponse,
  traderEvidenceForm,
  traderEvidenceResponse,
  traderStatementBody,
} from '../../schemas/trader-appeals';
import { answerWithEvidence, answerWithStatement, traderAppeal, traderAppealFile, traderAppeals } from '../../services/trader-appeals';
import { traderActor } from '../../services/deal-workflows';

const tags = ['Trader: appeals'];

/** The trader's answers are audited in their step's transaction: the actor rides the command. */
const answerAudit = { action: 'appeal.trader_answer', objectType: 'appeal', by: 'service' as const };

const DEADLINE =
  'You answer while the appeal waits for the arbiter (OPEN, IN_REVIEW, REOPENED) and before its respond_by (the opening + ' +
  'APPEAL_TRADER_RESPONSE_SECONDS); later is 409 and the arbiter decides without your answer. The merchant does not see your answers.';

export const traderAppealRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/appeals',
      operationId: 'traderListAppeals',
      auth: 'trader',
      summary: 'The appeals on your deals: those waiting for the arbiter first, the earliest deadline (respond_by) first',
      tags,
      response: traderAppealListResponse,
    },
    async ({ identity }, deps) => ({ data: await traderAppeals(deps, { traderId: traderOf(identity).traderId }) }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/appeals/{appeal_id}',
      operationId: 'traderGetAppeal',
      auth: 'trader',
      summary: "One appeal on your deal: the merchant's statement and files, your answers, your deadline",
      description: 'An appeal on another trader’s deal, or an unknown id, is 404.',
      tags,
      params: traderAppealParams,
      response: traderAppealResponse,
      errors: [404],
    },
    async ({ identity, params }, deps) => ({ data: await traderAppeal(deps, { traderId: traderOf(identity).traderId }, params.appeal_id) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/appeals/{appeal_id}/messages',
      operationId: 'traderCreateAppealMessage',
      auth: 'trader',
      summary: 'Answer the appeal with your statement (sender_role TRADER), optionally naming evidence files you sent earlier',
      description: `${DEADLINE} Audited (appeal.trader_answer).`,
      tags,
      params: traderAppealParams,
      body: traderStatementBody,
      status: 201,
      response: traderAppealMessageResponse,
      errors: [404, 409],
      audit: answerAudit,
    },
    async ({ identity, params, body, actor }, deps) => ({
      data: await answerWithStatement(deps, { traderId: traderOf(identity).traderId }, params.appeal_id, body, traderActor(actor)),
    }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/appeals/{appeal_id}/evidence',
      operationId: 'traderUploadAppealEvidence',
      auth: 'trader',
      summary: 'Answer the appeal with an evidence file (multipart: `file`, and an optional `note`)',
      description:
        `The file goes through the evidence pipeline: its type is sniffed from the bytes (PDF, PNG, JPEG, WEBP or plain text), at ` +
        `most EVIDENCE_MAX_BYTES (larger is 413). It is sent as one TRADER message carrying the file and the note. ${DEADLINE} ` +
        'Audited (file.upload, appeal.trader_answer).',
      tags,
      params: traderAppealParams,
      multipartBody: traderEvidenceForm,
      status: 201,
      response: traderEvidenceResponse,
      errors: [404, 409, 413],
      audit: answerAudit,
    },
    async ({ identity, params, actor }, deps, ctx) => {
      const answered = await answerWithEvidence(
        deps,
        { traderId: traderOf(identity).traderId },
        params.appeal_id,
        ctx.state.rawBody,
        ctx.get('Content-Type'),
        traderActor(actor),
      );
      return { file: answered.file, data: answered.message };
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/appeals/{appeal_id}/files/{file_id}',
      operationId: 'traderDownloadAppealFile',
      auth: 'trader',
      summary: "Download a file of the appeal: the merchant's evidence or your own",
      description: 'The bytes with their sniffed Content-Type, as an attachment. Any other file, or another trader’s appeal, is 404.',
      tags,
      params: traderAppealFileParams,
      responseContentType: 'application/octet-stream',
      responseHeaders: {
        'Content-Disposition': { description: '`attachment; filename="<file_id>"`: never shown inline', schema: { type: 'string' } },
        'X-Checksum-Sha256': { description: "the file's SHA-256, lowercase hex", schema: { type: 'string' } },
      },
      errors: [404],
    },
    async ({ identity, params }, deps, ctx) => {
      const { row, bytes } = await traderAppealFile(deps, { traderId: traderOf(identity).traderId }, params.appeal_id, params.file_id);
      ctx.status = 200;
      ctx.type = row.content_type === 'text/plain' ? 'text/plain; charset=utf-8' : row.content_type;
      // User-supplied content: never rendered inline by a browser, never re-sniffed.
      ctx.set('Content-Disposition', `attachment; filename="${row.id}"`);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
      ctx.set('X-Checksum-Sha256', row.sha256);
      ctx.body = bytes;
    },
  ),
];
