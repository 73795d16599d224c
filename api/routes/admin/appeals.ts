/** The arbiter (operator JWT): the appeal queue, the conversation, the moves, the resolution and settlement. */
import { defineRoute, sendCsv } from '../../route';
import { operatorOf } from '../../auth/authenticate';
import { dealResponse } from '../../schemas/deals';
import {
  adminAppealFilters,
  adminAppealListResponse,
  adminAppealResponse,
  adminListAppealsQuery,
  appealAssigneesResponse,
  appealCaseResponse,
  appealParams,
  appealResponse,
  assignAppealBody,
  attachFilesBody,
  attachmentsResponse,
  messageBody,
  messageResponse,
  resolveBody,
  resolveResponse,
  settlementBody,
} from '../../schemas/appeals';
import {
  adminAppealView,
  appealMerchantNames,
  appealView,
  exportOperatorAppeals,
  listAppealPage,
  moveAppealByOperator,
  operatorAppeal,
  postMessage,
  presentMessage,
  resolveAppealByOperator,
  settleAppeal,
} from '../../services/appeals';
import { present } from '../../services/payins';
import { appealAssignees, appealAttachments, attachFiles, presentCase, setAssignee, takeAppeal } from '../../services/appeal-cases';
import { operatorActor } from '../../services/deal-workflows';

const tags = ['Operator: appeals'];

/**
 * The queue's case filters as a selection: "me" is a console account (the operator JWT names none, so no appeal is
 * its: undefined, an empty answer), overdue is judged at `nowMs`.
 */
function appealChoice(
  operator: ReturnType<typeof operatorOf>,
  q: { assignee?: string; overdue?: 'true' | 'false'; sort?: 'newest' | 'oldest' },
  nowMs: number,
): { assignee?: string; overdueAt?: Date; oldest: boolean } | undefined {
  const assignee = q.assignee === 'me' ? (operator.via === 'session' ? operator.operatorId : undefined) : q.assignee;
  if (q.assignee === 'me' && assignee === undefined) return undefined;
  return {
    ...(assignee ? { assignee } : {}),
    ...(q.overdue === 'true' ? { overdueAt: new Date(nowMs) } : {}),
    oldest: q.sort === 'oldest',
  };
}

const MOVE_OPERATION = { review: 'adminReviewAppeal', close: 'adminCloseAppeal', reopen: 'adminReopenAppeal' } as const;
/** Appeal moves are audited in their step's transaction: the actor rides the command. */
const inStep = (action: string) => ({ action, objectType: 'appeal', by: 'service' as const });

const move = (kind: 'review' | 'close' | 'reopen', summary: string, description: string) =>
  defineRoute(
    {
      method: 'post',
      path: `/appeals/{appeal_id}/${kind}`,
      operationId: MOVE_OPERATION[kind],
      auth: 'operator',
      summary,
      description,
      tags,
      params: appealParams,
      response: appealResponse,
      errors: [404],
      audit: inStep(`appeal.${kind}`),
    },
    async ({ params, identity, actor }, deps) => ({
      data: appealView(await moveAppealByOperator(deps, params.appeal_id, kind, operatorOf(identity).operatorId, actor)),
    }),
  );

const caseAnswer = (nowMs: number, row: Awaited<ReturnType<typeof setAssignee>>) => ({
  data: { ...appealView(row), merchant_id: row.merchant_id, ...presentCase(row, nowMs) },
});

const assignment = (kind: 'assign' | 'unassign' | 'take', summary: string, description: string) =>
  defineRoute(
    {
      method: 'post',
      path: `/appeals/{appeal_id}/${kind}`,
      operationId: ASSIGN_OPERATION[kind],
      auth: 'operator',
      summary,
      description,
      tags,
      params: appealParams,
      ...(kind === 'assign' ? { body: assignAppealBody } : {}),
      response: appealCaseResponse,
      errors: kind === 'assign' ? [404, 400] : [404],
      audit: { action: kind === 'unassign' ? 'appeal.unassign' : 'appeal.assign', objectType: 'appeal', by: 'service' as const },
    },
    async ({ params, body, identity, actor }, deps) => {
      const who = operatorActor(actor);
      const row =
        kind === 'take'
          ? await takeAppeal(deps, params.appeal_id, operatorOf(identity), who)
          : await setAssignee(deps, params.appeal_id, kind === 'assign' ? (body as { operator_id: string }).operator_id : null, who);
      return caseAnswer(deps.now(), row);
    },
  );

const ASSIGN_OPERATION = { assign: 'adminAssignAppeal', unassign: 'adminUnassignAppeal', take: 'adminTakeAppeal' } as const;

export const appealRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/appeals',
      operationId: 'adminListAppeals',
      auth: 'operator',
      summary: 'The appeal queue, newest (or oldest) first; filters status, merchant_id, assignee (me, none, an account) and overdue',
      description:
        'page_size default 20, clamped to 100; keyset page_token (valid with the same filters and sort). Each appeal carries its ' +
        'case: respond_by, overdue, assignee_id.',
      tags,
      query: adminListAppealsQuery,
      response: adminAppealListResponse,
    },
    async ({ query, identity }, deps) => {
      const chosen = appealChoice(operatorOf(identity), query, deps.now());
      if (!chosen) return { data: [], next_page_token: '' };
      const tokenScope = [
        'admin-appeals',
        query.merchant_id?.prefix ?? '*',
        query.appeal_id?.prefix ?? '*',
        chosen.assignee ?? '*',
        String(chosen.overdueAt !== undefined),
        chosen.oldest ? 'oldest' : 'newest',
      ].join(':');
      const page = await listAppealPage(deps, { merchantIn: query.merchant_id, idIn: query.appeal_id, ...chosen, tokenScope }, query);
      const names = await appealMerchantNames(deps, page.rows);
      const now = deps.now();
      return {
        data: page.rows.map((r) => ({
          ...appealView(r),
          merchant_id: r.merchant_id,
          merchant_name: names.get(r.merchant_id) ?? '',
          ...presentCase(r, now),
        })),
        next_page_token: page.next_page_token,
      };
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/appeals/export',
      operationId: 'adminExportAppeals',
      auth: 'operator',
      summary: "CSV of every appeal the queue's filters select, in the queue's order; the file is named for the filters",
      description:
        'The filters and sort of GET /appeals (status, merchant_id and appeal_id or their starts, assignee, overdue, sort), no ' +
        'paging, streamed in constant memory. Columns: appeal_id, status, outcome, deal_id, merchant_id, merchant_name, reason, ' +
        'deal_status_at_open, resolution_note, created_at, updated_at, resolved_at. RFC 4180; a cell starting with =, +, -, @, ' +
        'tab or CR is prefixed with a single quote.',
      tags,
      query: adminAppealFilters,
      responseContentType: 'text/csv',
    },
    async ({ query, identity }, deps, ctx) => sendCsv(ctx, await exportOperatorAppeals(deps, query, appealChoice(operatorOf(identity), query, deps.now()))),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/appeals/{appeal_id}',
      operationId: 'adminGetAppeal',
      auth: 'operator',
      summary: "One appeal with its deal, both parties (the merchant's statement, the trader's answer and deadline), every message (oldest first) and file",
      tags,
      params: appealParams,
      response: adminAppealResponse,
      errors: [404],
    },
    async ({ params }, deps) => {
      const v = await adminAppealView(deps, await operatorAppeal(deps, params.appeal_id));
      const names = await appealMerchantNames(deps, [v.appeal]);
      return {
        data: {
          ...appealView(v.appeal),
          merchant_id: v.appeal.merchant_id,
          merchant_name: names.get(v.appeal.merchant_id) ?? '',
          ...presentCase(v.appeal, deps.now()),
          attachments: await appealAttachments(deps, v.appeal.id),
          outcome: v.appeal.outcome ?? '',
          deal_status_at_open: v.appeal.deal_status_at_open,
          settlement_deal_id: v.settlementDealId,
          deal: present(deps, v.deal),
          trader: v.trader,
          messages: v.messages,
          files: v.files,
          moves: v.moves,
        },
      };
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/appeals/{appeal_id}/messages',
      operationId: 'adminCreateAppealMessage',
      auth: 'operator',
      summary: 'Write to the merchant (sender_role ADMIN); the merchant gets the event appeal.message',
      description: 'file_ids must be operator uploads (POST /api/v1/p2p/admin/files); the merchant can then download them.',
      tags,
      params: appealParams,
      body: messageBody,
      response: messageResponse,
      errors: [404],
      audit: inStep('appeal.message'),
    },
    async ({ params, body, identity, actor }, deps) => {
      const appeal = await operatorAppeal(deps, params.appeal_id);
      const operatorId = operatorOf(identity).operatorId;
      return { data: presentMessage(await postMessage(deps, appeal, { role: 'ADMIN', id: operatorId, owner: { kind: 'operator', operatorId } }, body, actor)) };
    },
  ),
  move('review', 'Take the appeal into review: OPEN or REOPENED → IN_REVIEW (also called IN_PROGRESS)', 'Other states: 400 FAILED_PRECONDITION.'),
  move(
    'close',
    'Close the appeal: OPEN, IN_REVIEW, REOPENED, RESOLVED_* → CLOSED',
    'Refused (400) while the deal is APPEALED: an appeal that holds a live deal must be resolved, so the escrow never stays locked without an owner.',
  ),
  move(
    'reopen',
    'Reopen: RESOLVED_MERCHANT, RESOLVED_TRADER or CLOSED → REOPENED',
    'The deal keeps its (terminal) status; resolved_at is emptied until the next resolution.',
  ),
  defineRoute(
    {
      method: 'post',
      path: '/appeals/{appeal_id}/resolve',
      operationId: 'adminResolveAppeal',
      auth: 'operator',
      summary: 'Resolve: SATISFIED → RESOLVED_MERCHANT, REJECTED → RESOLVED_TRADER',
      description:
        'On an APPEALED deal this is an Update of the deal workflow and moves the money: REJECTED → deal CANCELLED, the ' +
        "escrow (current amount version's hold) back to the trader, final event deal.cancelled; SATISFIED → deal COMPLETED " +
        "through the normal completion (merchant's pending_credits, fee distribution after FEE_DISTRIBUTION_DELAY_SECONDS), " +
        'deal.completed. On a terminal deal the money is final and the resolution must agree with it: EXPIRED → SATISFIED ' +
        'only after a settlement (its deal id is added to resolution_note), REJECTED only without one; CANCELLED → REJECTED ' +
        'only; COMPLETED → SATISFIED, or REJECTED unless this appeal completed it. An already resolved appeal is 400 (reopen ' +
        'first). Answers { deal, data: appeal }.',
      tags,
      params: appealParams,
      body: resolveBody,
      response: resolveResponse,
      errors: [404],
      audit: inStep('appeal.resolve'),
    },
    async ({ params, body, identity, actor }, deps) => {
      const r = await resolveAppealByOperator(deps, params.appeal_id, body.outcome, body.note ?? '', operatorOf(identity).operatorId, actor);
      return { deal: present(deps, r.deal), data: appealView(r.appeal) };
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/appeal-assignees',
      operationId: 'adminListAppealAssignees',
      auth: 'operator',
      summary: 'Who an appeal may be assigned to: enabled console accounts whose role may resolve appeals, by email',
      tags,
      response: appealAssigneesResponse,
    },
    async (_input, deps) => ({ data: await appealAssignees(deps) }),
  ),
  assignment(
    'assign',
    'Assign the appeal to an operator account (it appears in that account’s "mine" queue)',
    'The account must be enabled and of a role that may resolve appeals (arbiter, admin), else 400. Assigning the present ' +
      'assignee again changes nothing. Audited (appeal.assign, before/after). The appeal’s status does not move.',
  ),
  assignment('unassign', 'Leave the appeal to nobody (back to the unassigned queue)', 'Audited (appeal.unassign); nobody assigned already changes nothing.'),
  assignment(
    'take',
    'Take the appeal: the signed-in console account becomes its assignee',
    'A console session only: the operator JWT names no account (403; assign the appeal to an account instead). Audited (appeal.assign).',
  ),
  defineRoute(
    {
      method: 'post',
      path: '/appeals/{appeal_id}/attachments',
      operationId: 'adminAttachAppealFiles',
      auth: 'operator',
      summary: 'Attach operator uploads to the appeal as the case’s papers (operators only)',
      description:
        'file_ids are files uploaded with POST /api/v1/p2p/admin/files (another id is 400 naming it). The merchant does not ' +
        'see them (an operator’s file reaches the merchant only attached to a message). A file attached already stays as it ' +
        'was. Audited (appeal.attach). Answers every attachment of the appeal.',
      tags,
      params: appealParams,
      body: attachFilesBody,
      status: 201,
      response: attachmentsResponse,
      errors: [404],
      audit: { action: 'appeal.attach', objectType: 'appeal', by: 'service' },
    },
    async ({ params, body, actor }, deps) => ({ data: await attachFiles(deps, params.appeal_id, body, operatorActor(actor)) }),
  ),
];

/** The settlement at its spec path directly under /api/v1/p2p. */
export const appealP2pRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/appeals/{appeal_id}/settlement',
      operationId: 'settleAppeal',
      auth: 'operator',
      summary: 'Settle an EXPIRED deal under appeal: a new PayIn deal, created and COMPLETED in one action',
      description:
        "Amount: the expired deal's received_amount, or received_amount_override (then reason is required, else 400). " +
        'Rate: today’s BUY rate, not the parent’s; fee: the merchant’s current payin_fee_bps, deducted from the credit. ' +
        "Escrow: locked on the expired deal's trader (who received the payer's money) and settled at once; too little " +
        'available is 400 FAILED_PRECONDITION. Events deal.created, deal.escrow_locked, deal.payment_verified, ' +
        'deal.completed. The parent stays EXPIRED. Violations are 409: parent not EXPIRED, appeal not OPEN/IN_REVIEW/' +
        'REOPENED, received amount 0 without an override, another settlement of the appeal under another idempotency_key. ' +
        'The same idempotency_key answers the same settlement deal (200). Workflow id `settlement:<appeal_id>`, searchable by ' +
        'DealId, ParentDealId and OriginAppealId.',
      tags,
      params: appealParams,
      body: settlementBody,
      response: dealResponse,
      errors: [404, 409],
      audit: inStep('appeal.settlement'),
    },
    async ({ params, body, identity, actor }, deps) => ({
      deal: present(deps, await settleAppeal(deps, params.appeal_id, body, operatorOf(identity).operatorId, actor)),
    }),
  ),
];
