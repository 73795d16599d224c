/**
 * V1 disputes: a V1 dispute is a V2 appeal on a PayIn. Create, list and get go
 * through the appeal service; the fields V1 sends beyond an appeal (receipt type and URL,
 * description, client and merchant comments) are kept in V1's one table of its own,
 * v1_disputes (db/queries/v1.ts), to be echoed back.
 */
import { DomainError, InvalidArgument, NotFound } from '../../domain/errors';
import { disputeStatusesForCode, v1DisputeCode } from './codes';
import type { AppealRow, MessageRow } from '../../db/queries/appeals';
import { insertV1Dispute, v1DisputeFields, type V1DisputeFields } from '../../db/queries/v1';
import { merchantOf } from '../auth/authenticate';
import type { AppDeps } from '../deps';
import type { RouteDef } from '../route';
import { createAppealBody } from '../schemas/appeals';
import { appealableDeal, createAppeal, getMerchantAppeal, latestArbiterMessages, pageMerchantAppeals } from '../services/appeals';
import { discardFile, readFile, storeFile } from '../services/files';
import { listPage, ok } from './envelope';
import { creationWindow, DEFAULT_TAKE, defineV1Route, type V1ListQuery } from './route';
import * as s from './schemas';
import { unknownStatus } from './translate';

/** Refusals after which the appeal surely was not made: only these take a stored proof back. */
const DEFINITE_REFUSALS: string[] = ['INVALID_ARGUMENT', 'FAILED_PRECONDITION', 'NOT_FOUND', 'CONFLICT', 'PERMISSION_DENIED'];
const FILE_PATH = '/api/v1/p2p/merchant/files';

/** An appeal as V1 shows it: with its V1 fields (none when opened through V2) and the arbiter's latest message. */
interface Dispute {
  appeal: AppealRow;
  fields: V1DisputeFields | undefined;
  arbiter: MessageRow | undefined;
}

async function disputesOf(deps: AppDeps, appeals: AppealRow[]): Promise<Dispute[]> {
  const ids = appeals.map((a) => a.id);
  const [fields, arbiter] = await Promise.all([v1DisputeFields(deps.sql, ids), latestArbiterMessages(deps, ids)]);
  return appeals.map((appeal) => ({ appeal, fields: fields.get(appeal.id), arbiter: arbiter.get(appeal.id) }));
}

function disputeListItem({ appeal, fields, arbiter }: Dispute) {
  return {
    disputId: appeal.id,
    status: v1DisputeCode(appeal.status),
    paymentId: appeal.deal_id,
    clientComment: fields?.client_comment ?? '',
    merchantComment: fields?.merchant_comment ?? '',
    traderComment: '',
    adminComment: appeal.resolution_note || arbiter?.body || '',
    description: fields?.description ?? appeal.reason,
    createdAt: appeal.created_at.toISOString(),
    lastModifiedAt: appeal.updated_at.toISOString(),
    finalizedAt: appeal.resolved_at?.toISOString() ?? null,
  };
}

/** The 17-field profile: the 11 list fields plus the receipt and the arbiter's answer file, read as their owner may. */
async function disputeProfile(deps: AppDeps, merchantId: string, dispute: Dispute) {
  const file = async (id: string | undefined) => {
    if (!id) return { body: '', type: '' };
    const { row, bytes } = await readFile(deps, { kind: 'merchant', merchantId }, id);
    return { body: bytes.toString('base64'), type: row.content_type };
  };
  const receiptId = dispute.appeal.file_ids[0];
  const answerId = dispute.arbiter?.file_ids[0];
  const [receipt, answer] = await Promise.all([file(receiptId), file(answerId)]);
  return {
    ...disputeListItem(dispute),
    receiptFileBody: receipt.body,
    receiptFileType: receipt.type,
    receiptFileUrl: dispute.fields?.receipt_url || (receiptId ? `${FILE_PATH}/${receiptId}` : ''),
    answerFileBody: answer.body,
    answerFileType: answer.type,
    answerFileUrl: answerId ? `${FILE_PATH}/${answerId}` : '',
  };
}

export const disputeRoutes: RouteDef[] = [
  defineV1Route(
    {
      method: 'post',
      path: '/disputs/create',
      operationId: 'v1CreateDispute',
      summary: 'V1: open a dispute (an appeal) on a PayIn',
      description:
        'Signed payload `{timestamp};{paymentId}`. Becomes POST /appeals: paymentId → deal_id; the reason is description, ' +
        'merchantComment (alias comment) and clientComment joined by new lines (at least 10 characters, as V2); proofImageBase64 ' +
        'becomes an evidence file of the appeal (same types and size limit as file uploads). The fields are echoed back and kept ' +
        'for GET and lists. One dispute per payment (a repeat is 400 FAILED_PRECONDITION, as in V2). A refused dispute stores ' +
        'nothing: the payment, its state and the reason are checked before the proof is stored.',
      body: s.disputeCreateBody,
      response: s.disputeResponse,
      errors: [404, 413],
      // The base64 proof image makes this the one large JSON body: read after the merchant's gates.
      maxBodyBytes: 1024 * 1024,
      signs: ({ body }) => ({ paymentId: body.paymentId }),
      family: 'dispute',
    },
    async ({ identity, body }, deps) => {
      const scope = merchantOf(identity);
      const merchantComment = body.merchantComment ?? body.comment ?? '';
      const reasonText = [body.description, merchantComment, body.clientComment].filter((v) => v?.trim()).join('\n');
      const reason = createAppealBody.shape.reason.safeParse(reasonText);
      if (!reason.success) {
        const message = 'description, merchantComment or clientComment must state the reason, at least 10 characters together';
        throw new InvalidArgument(message, [{ field: 'description', message, code: 'too_small' }]);
      }
      // Every refusal that can be told beforehand comes before the proof is stored; one that comes
      // later (a concurrent dispute on the same payment won the race) takes the stored proof back.
      await appealableDeal(deps, scope, body.paymentId);
      const fileIds: string[] = [];
      if (body.proofImageBase64) {
        const bytes = Buffer.from(body.proofImageBase64.replace(/^data:[^,]*,/, ''), 'base64');
        fileIds.push((await storeFile(deps, { kind: 'merchant', merchantId: scope.merchantId }, bytes, 'proofImageBase64')).id);
      }
      let appeal: AppealRow;
      try {
        appeal = await createAppeal(deps, scope, { deal_id: body.paymentId, reason: reason.data, file_ids: fileIds });
      } catch (error) {
        // Only a definite refusal discards the proof: after an infrastructure failure the appeal may still commit.
        if (error instanceof DomainError && DEFINITE_REFUSALS.includes(error.kind)) await Promise.all(fileIds.map((id) => discardFile(deps, scope, id)));
        throw error;
      }
      await insertV1Dispute(deps.sql, {
        appealId: appeal.id,
        receiptType: body.receiptType ?? '',
        receiptUrl: body.receiptUrl ?? '',
        description: body.description ?? '',
        clientComment: body.clientComment ?? '',
        merchantComment,
      });
      const [dispute] = await disputesOf(deps, [await getMerchantAppeal(deps, scope, appeal.id)]);
      return ok(await disputeProfile(deps, scope.merchantId, dispute!));
    },
  ),
  defineV1Route(
    {
      method: 'post',
      path: '/disputs/list',
      operationId: 'v1ListDisputes',
      summary: 'V1: disputes (appeals), newest first, skip/take (11-field profile)',
      description: 'Signed payload `{timestamp}`. Filters: status (V1 dispute code; unknown → 400), skip, take, startDate, endDate.',
      body: s.disputeListBody,
      bodyOptional: true,
      response: s.disputeListResponse,
      signs: () => ({}),
      family: 'read',
    },
    async ({ identity, body }, deps) => {
      const { merchantId } = merchantOf(identity);
      const q: V1ListQuery = body ?? {};
      const statuses = q.status === undefined ? undefined : (disputeStatusesForCode(q.status) ?? unknownStatus(q.status));
      const skip = q.skip ?? 0;
      const { rows, count } = await pageMerchantAppeals(
        deps,
        merchantId,
        { statuses, ...creationWindow(q.startDate, q.endDate) },
        skip,
        q.take ?? DEFAULT_TAKE,
      );
      return ok(listPage((await disputesOf(deps, rows)).map(disputeListItem), count, skip));
    },
  ),
  defineV1Route(
    {
      method: 'get',
      path: '/disputs/{id}',
      operationId: 'v1GetDispute',
      summary: 'V1: one dispute (17-field profile)',
      description: "Signed payload `{timestamp};{id}`. Another merchant's or unknown id: 404.",
      params: s.idParams,
      response: s.disputeResponse,
      errors: [404],
      signs: ({ params }) => ({ id: params.id }),
      family: 'read',
    },
    async ({ identity, params }, deps) => {
      const scope = merchantOf(identity);
      const appeal = await getMerchantAppeal(deps, scope, params.id).catch((error: unknown) => {
        throw error instanceof NotFound ? new NotFound('dispute not found') : error;
      });
      const [dispute] = await disputesOf(deps, [appeal]);
      return ok(await disputeProfile(deps, scope.merchantId, dispute!));
    },
  ),
];
