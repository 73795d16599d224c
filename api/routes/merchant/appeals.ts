/** Merchant appeals: single objects under `data`, unlike the deal endpoints. */
import { defineRoute } from '../../route';
import { EXAMPLES } from '../../schemas/examples';
import { merchantOf, type Identity } from '../../auth/authenticate';
import {
  appealDetailResponse,
  appealListResponse,
  appealParams,
  appealResponse,
  createAppealBody,
  listAppealsQuery,
  messageBody,
  messageResponse,
  messagesResponse,
} from '../../schemas/appeals';
import {
  appealView,
  createAppeal,
  getMerchantAppeal,
  listAppealPage,
  moveAppealByOperator,
  postMessage,
  presentMessage,
  threadOf,
} from '../../services/appeals';
import { sandboxReopenOnRequest } from '../../services/sandbox';
import { payerProofOfDeal } from '../../services/payer-proof';

const tags = ['Appeals'];

const senderOf = (identity: Identity) => {
  const scope = merchantOf(identity);
  return {
    role: 'MERCHANT' as const,
    id: identity.kind === 'merchant' ? `${identity.via}:${identity.subject}` : scope.merchantId,
    owner: { kind: 'merchant' as const, merchantId: scope.merchantId },
  };
};

export const appealRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/appeals',
      operationId: 'createAppeal',
      example: EXAMPLES.createAppeal,
      auth: 'cabinet_or_hmac',
      summary: 'Open an appeal (dispute) on a PayIn deal, with optional evidence files',
      description:
        'Answers { data: appeal } with status OPEN. A live deal (INITIALIZED … PAYMENT_VERIFIED) goes to APPEALED in its ' +
        'workflow (event deal.appealed): no longer expirable, escrow stays locked, until the arbiter resolves. On an EXPIRED ' +
        'deal (the settlement path) or a COMPLETED one the deal keeps its status. reason: at least 10 characters (else 400 ' +
        'INVALID_ARGUMENT). Unknown or foreign deal: 404. CANCELLED and SPAM_REJECTED deals, and any deal that already has an ' +
        'appeal (open or resolved; an operator may reopen it): 400 FAILED_PRECONDITION. PayOut deals: 400 INVALID_ARGUMENT ' +
        '(appeals are PayIn-only). file_ids must be your own uploads (POST /files), else 400 naming the id.',
      tags,
      body: createAppealBody,
      response: appealResponse,
      errors: [404],
    },
    async ({ identity, body }, deps) => ({ data: appealView(await createAppeal(deps, merchantOf(identity), body)) }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/appeals',
      operationId: 'listAppeals',
      example: EXAMPLES.listAppeals,
      auth: 'cabinet_or_hmac',
      summary: "The caller's appeals, newest first, keyset-paginated",
      description: 'page_size default 20, values above 100 are clamped to 100. A malformed or foreign page_token is 400 `invalid page_token`.',
      tags,
      query: listAppealsQuery,
      response: appealListResponse,
    },
    async ({ identity, query }, deps) => {
      const merchantId = merchantOf(identity).merchantId;
      const page = await listAppealPage(deps, { merchantId, tokenScope: `appeals:${merchantId}` }, query);
      return { data: page.rows.map(appealView), next_page_token: page.next_page_token };
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/appeals/{appeal_id}',
      operationId: 'getAppeal',
      example: EXAMPLES.getAppeal,
      auth: 'cabinet_or_hmac',
      summary: 'One appeal of the caller, with resolution_note; foreign or unknown ids are 404',
      description:
        "The appeal's payer_proof is what the deal's payer sent from the payment page: receipts (readable with GET /files/{file_id}) " +
        'and the last 4 digits of the card paid with (only this single read carries it).',
      tags,
      params: appealParams,
      response: appealDetailResponse,
      errors: [404],
    },
    async ({ identity, params }, deps) => {
      const appeal = await getMerchantAppeal(deps, merchantOf(identity), params.appeal_id);
      return { data: { ...appealView(appeal), payer_proof: await payerProofOfDeal(deps, appeal.deal_id) } };
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/appeals/{appeal_id}/messages',
      operationId: 'createAppealMessage',
      example: EXAMPLES.createAppealMessage,
      auth: 'cabinet_or_hmac',
      summary: 'Write to the arbiter (sender_role MERCHANT); answers { data: message }',
      description:
        'Accepted until the appeal is CLOSED (400 FAILED_PRECONDITION after). file_ids must be your own uploads. ' +
        'Sandbox merchants: a message containing `reopen_please` on a CLOSED appeal has the sandbox arbiter reopen it first (appeal.reopened), then it is accepted. ' +
        'Single-use signatures: a repeat would post the message again, so an HMAC signature is accepted once on this route.',
      tags,
      singleUse: 'route',
      params: appealParams,
      body: messageBody,
      response: messageResponse,
      errors: [404],
    },
    async ({ identity, params, body }, deps) => {
      const found = await getMerchantAppeal(deps, merchantOf(identity), params.appeal_id);
      // Sandbox: `reopen_please` on a CLOSED sandbox appeal — the sandbox arbiter reopens it first.
      const appeal = await sandboxReopenOnRequest(deps, found, body.body, (id, operatorId, actor) =>
        moveAppealByOperator(deps, id, 'reopen', operatorId, actor),
      );
      return { data: presentMessage(await postMessage(deps, appeal, senderOf(identity), body)) };
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/appeals/{appeal_id}/messages',
      operationId: 'listAppealMessages',
      example: EXAMPLES.listAppealMessages,
      auth: 'cabinet_or_hmac',
      summary: 'The conversation, oldest first (sender_role MERCHANT or ADMIN)',
      tags,
      params: appealParams,
      response: messagesResponse,
      errors: [404],
    },
    async ({ identity, params }, deps) => {
      const appeal = await getMerchantAppeal(deps, merchantOf(identity), params.appeal_id);
      return { data: { messages: (await threadOf(deps, appeal.id)).map(presentMessage) } };
    },
  ),
];
