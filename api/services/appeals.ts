/**
 * Appeals: validate against Postgres, then hand every move to the workflow that owns
 * it — the deal's own workflow while the appeal holds a live deal (open → APPEALED, resolution),
 * the appeal's workflow otherwise (review, close, reopen; open and resolve on a terminal deal),
 * the settlement workflow for a settlement — and read the result back from Postgres.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { presentMessage, writeAppealMessage } from '../../db/queries/appeal-messages';
import { DomainError, FailedPrecondition, InvalidArgument, NotFound } from '../../domain/errors';
import {
  APPEAL_HOLDS_DEAL,
  APPEAL_STATUSES,
  acceptsMessages,
  appealOpenRefusal,
  appealView,
  settledAppealDeal,
  traderAnswerState,
  type AppealOutcome,
} from '../../domain/state/appeals';
import { newId, uuidV5, type IdPrefix } from '../../domain/ids';
import { exportFileName } from '../../domain/csv';
import { merchantNames } from '../../db/queries/merchants';
import { csvExport } from './csv-export';
import type { PayinStatus } from '../../domain/state/payin';
import {
  findAppeal,
  findAppealOfDeal,
  findMerchantAppeal,
  findSettlement,
  latestMessagesOf,
  databaseNow,
  listAppeals,
  MERCHANT_THREAD_ROLES,
  messagesOf,
  traderOfAppeal,
  pageAppeals,
  streamAppeals,
  type AppealRow,
  type MessageRow,
  type SenderRole,
} from '../../db/queries/appeals';
import { accountNames } from '../../db/queries/accounts';
import { findMerchantDeal } from '../../db/queries/deals';
import { filesByIds } from '../../db/queries/files';
import {
  appealCommandUpdate,
  appealSearchAttributes,
  appealTaskQueue,
  appealWorkflowId,
  appealWorkflowType,
  type AppealCommand,
  type AppealWorkflow,
  type TraderAnswerInput,
} from '../../workflows/contracts/appeal';
import {
  openAppealUpdate,
  payinWorkflowId,
  resolveAppealUpdate,
  type AppealMoveResult,
  type OpenAppealInput,
  type PayinWorkflow,
  type ResolveAppealInput,
} from '../../workflows/contracts/payin';
import {
  createSettlementUpdate,
  settlementSearchAttributes,
  settlementTaskQueue,
  settlementWorkflowId,
  settlementWorkflowType,
  type SettlementRequest,
  type SettlementResult,
  type SettlementWorkflow,
} from '../../workflows/contracts/settlement';
import { operatorActor, readDeal, unwrapUpdateFailure, updateWithStart } from './deal-workflows';
import { startSandboxTraderOnAppeal } from './sandbox';
import { presentFile, requireOwnFiles, type FileOwner } from './files';
import { clampPageSize, cursorOf, keysetPage } from './page-token';
import type { MerchantScope } from './payins';
import { operatorAppealMoves } from '../../domain/state/operator-appeal-moves';

const APPEALS_PAGE_DEFAULT = 20;
const APPEALS_PAGE_MAX = 100;
/** A run of an appeal workflow ends after this long without commands. */
const APPEAL_RUN_IDLE_SECONDS = 60;
const SETTLEMENT_NAMESPACE = '9d2f64c1-6a0e-4c8b-b7f3-41e5a2d08c6b';

/** The settlement deal of an appeal: one id per appeal, so concurrent requests address one deal. */
const settlementDealIdFor = (appealId: string) => uuidV5(`settlement\u0000${appealId}`, SETTLEMENT_NAMESPACE);

export { presentMessage };

// ---- Workflow dispatch ----

/** Non-business failures (e.g. a run that ended as the command arrived) are retried: every command is idempotent. */
async function withRetries<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const mapped = unwrapUpdateFailure(error);
      if (mapped instanceof DomainError || attempt >= 3) throw mapped;
    }
  }
}

function runAppealCommand(deps: AppDeps, appeal: { id: string; merchantId: string; dealId: string }, command: AppealCommand) {
  return withRetries(() =>
    updateWithStart<AppealWorkflow, AppealMoveResult, [AppealCommand]>(
      deps,
      appealWorkflowType,
      {
        workflowId: appealWorkflowId(appeal.id),
        taskQueue: appealTaskQueue(deps.config),
        args: [{ appealId: appeal.id, idleSeconds: APPEAL_RUN_IDLE_SECONDS }],
        typedSearchAttributes: appealSearchAttributes({ merchantId: appeal.merchantId, dealId: appeal.dealId, appealId: appeal.id }),
      },
      appealCommandUpdate,
      command,
    ),
  );
}

/** Sends a move to the deal's own workflow; undefined when that workflow has closed (the deal is terminal). */
async function runDealMove(deps: AppDeps, dealId: string, send: (h: ReturnType<typeof payinHandle>) => Promise<AppealMoveResult>) {
  try {
    return await send(payinHandle(deps, dealId));
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw unwrapUpdateFailure(error);
  }
}
const payinHandle = (deps: AppDeps, dealId: string) => deps.temporal.workflow.getHandle<PayinWorkflow>(payinWorkflowId(dealId));

// ---- Merchant side ----

/**
 * The refusals of an appeal on a deal that Postgres can tell before anything is stored or sent:
 * the merchant's PayIn, no appeal yet, a state that may be appealed (the V1 adapter checks them
 * before it stores a dispute's proof image). The deal's workflow checks again when it moves.
 */
export async function appealableDeal(deps: AppDeps, scope: Pick<MerchantScope, 'merchantId'>, dealId: string) {
  const deal = await findMerchantDeal(deps.sql, scope.merchantId, dealId);
  if (!deal) throw new NotFound('deal not found');
  if (deal.deal_type !== 'PAYIN') {
    throw new InvalidArgument('appeals can be opened on PayIn deals only; a PayOut that failed or expired already returned its hold');
  }
  const refused = appealOpenRefusal(deal.status, await findAppealOfDeal(deps.sql, deal.id));
  if (refused) throw new FailedPrecondition(refused);
  return deal;
}

export async function createAppeal(deps: AppDeps, scope: MerchantScope, body: { deal_id: string; reason: string; file_ids?: string[] }): Promise<AppealRow> {
  const deal = await appealableDeal(deps, scope, body.deal_id);
  const fileIds = await requireOwnFiles(deps, { kind: 'merchant', merchantId: scope.merchantId }, body.file_ids ?? []);

  const input: OpenAppealInput = {
    appealId: newId(),
    dealId: deal.id,
    merchantId: scope.merchantId,
    tenantId: scope.tenantId,
    reason: body.reason, // as sent: the minimum counted what the merchant wrote (api/schemas/appeals.ts)
    fileIds,
  };
  const viaDeal = APPEAL_HOLDS_DEAL.includes(deal.status as PayinStatus)
    ? await runDealMove(deps, deal.id, (h) => h.executeUpdate(openAppealUpdate, { args: [input] }))
    : undefined;
  if (!viaDeal) await runAppealCommand(deps, { id: input.appealId, merchantId: scope.merchantId, dealId: deal.id }, { kind: 'open', input });
  await startSandboxTraderOnAppeal(deps, deal, input.appealId, body.reason);
  return (await findAppeal(deps.sql, input.appealId))!;
}

export async function getMerchantAppeal(deps: AppDeps, scope: MerchantScope, appealId: string): Promise<AppealRow> {
  const row = await findMerchantAppeal(deps.sql, scope.merchantId, appealId);
  if (!row) throw new NotFound('appeal not found');
  return row;
}

/** Other names of a state that the filters accept. */
const APPEAL_STATUS_ALIASES: Readonly<Record<string, string>> = { IN_PROGRESS: 'IN_REVIEW' };

/** Keyset pages like the deal listing: default 20, clamped to 100, signed tokens bound to the scope. */
export async function listAppealPage(
  deps: AppDeps,
  scope: { merchantId?: string; merchantIn?: IdPrefix; idIn?: IdPrefix; assignee?: string; overdueAt?: Date; oldest?: boolean; tokenScope: string },
  q: { status?: string[]; page_size?: number; page_token?: string },
): Promise<{ rows: AppealRow[]; next_page_token: string }> {
  const after = cursorOf(deps, scope.tokenScope, q.page_token);
  // IN_PROGRESS, the settlement rule's name for it, is the same state as IN_REVIEW, so the filter selects IN_REVIEW appeals.
  const statuses = q.status?.map((s) => APPEAL_STATUS_ALIASES[s] ?? s).filter((s) => (APPEAL_STATUSES as readonly string[]).includes(s));
  if (q.status && q.status.length > 0 && statuses!.length === 0) return { rows: [], next_page_token: '' };
  const size = clampPageSize(q.page_size, APPEALS_PAGE_DEFAULT, APPEALS_PAGE_MAX);
  const selection = {
    merchantId: scope.merchantId,
    merchantIn: scope.merchantIn,
    idIn: scope.idIn,
    statuses,
    ...(scope.assignee ? { assignee: scope.assignee } : {}),
    ...(scope.overdueAt ? { overdueAt: scope.overdueAt } : {}),
  };
  return keysetPage(deps, scope.tokenScope, await listAppeals(deps.sql, selection, size + 1, after, scope.oldest ?? false), size);
}

const APPEAL_CSV = [
  'appeal_id',
  'status',
  'outcome',
  'deal_id',
  'merchant_id',
  'merchant_name',
  'reason',
  'deal_status_at_open',
  'resolution_note',
  'created_at',
  'updated_at',
  'resolved_at',
] as const;

/** Every appeal the queue's filters select, as CSV (the operator's export). */
export async function exportOperatorAppeals(
  deps: AppDeps,
  q: { status?: string[]; merchant_id?: IdPrefix; appeal_id?: IdPrefix; assignee?: string; overdue?: string; sort?: string },
  chosen: { assignee?: string; overdueAt?: Date; oldest: boolean } | undefined,
) {
  const statuses = q.status?.map((s) => APPEAL_STATUS_ALIASES[s] ?? s).filter((s) => (APPEAL_STATUSES as readonly string[]).includes(s));
  const none = (q.status !== undefined && q.status.length > 0 && statuses!.length === 0) || chosen === undefined;
  const NOTHING = (async function* (): AsyncGenerator<AppealRow[]> {})();
  const fileName = exportFileName('appeals', {
    appeal: q.appeal_id?.prefix,
    merchant: q.merchant_id?.prefix,
    status: (q.status ?? []).join('+') || undefined,
    assignee: q.assignee,
    overdue: q.overdue === 'true' ? 'yes' : undefined,
    sort: q.sort === 'oldest' ? 'oldest' : undefined,
  });
  return csvExport(
    fileName,
    APPEAL_CSV,
    none
      ? NOTHING
      : streamAppeals(
          deps.sql,
          {
            merchantIn: q.merchant_id,
            idIn: q.appeal_id,
            statuses,
            ...(chosen.assignee ? { assignee: chosen.assignee } : {}),
            ...(chosen.overdueAt ? { overdueAt: chosen.overdueAt } : {}),
          },
          chosen.oldest,
        ),
    async (batch) => {
      const names = await merchantNames(
        deps.sql,
        batch.map((a) => a.merchant_id),
      );
      return batch.map((a) => {
        const v = appealView(a);
        const cells: Record<(typeof APPEAL_CSV)[number], string> = {
          appeal_id: v.appeal_id,
          status: v.status,
          deal_id: v.deal_id,
          reason: v.reason,
          resolution_note: v.resolution_note,
          created_at: v.created_at,
          updated_at: v.updated_at,
          resolved_at: v.resolved_at,
          outcome: a.outcome ?? '',
          merchant_id: a.merchant_id,
          merchant_name: names.get(a.merchant_id) ?? '',
          deal_status_at_open: a.deal_status_at_open,
        };
        return APPEAL_CSV.map((column) => cells[column]);
      });
    },
  );
}

/** The merchants' names of these appeals, by merchant id. */
export const appealMerchantNames = (deps: AppDeps, appeals: Pick<AppealRow, 'merchant_id'>[]) =>
  merchantNames(
    deps.sql,
    appeals.map((a) => a.merchant_id),
  );

/** The merchant's appeals in offset pages, newest first (the V1 dispute list): by status and creation window; `count` is every match. */
export async function pageMerchantAppeals(
  deps: AppDeps,
  merchantId: string,
  f: { statuses?: string[]; createdAfter?: Date; createdBefore?: Date },
  skip: number,
  take: number,
) {
  return pageAppeals(deps.sql, { merchantId, ...f }, skip, take);
}

/** The arbiter's latest message in each of these appeals, by appeal id. */
export async function latestArbiterMessages(deps: AppDeps, appealIds: string[]): Promise<Map<string, MessageRow>> {
  return new Map((await latestMessagesOf(deps.sql, appealIds, 'ADMIN')).map((m) => [m.appeal_id, m]));
}

/**
 * A message in the appeal's thread; ADMIN messages also reach the merchant as `appeal.message`.
 * An operator's message (`actor`) is audited in the same transaction.
 */
export async function postMessage(
  deps: AppDeps,
  appeal: AppealRow,
  sender: { role: 'MERCHANT' | 'ADMIN'; id: string; owner: FileOwner },
  body: { body: string; file_ids?: string[] },
  actor?: AuditActor,
): Promise<MessageRow> {
  if (!acceptsMessages(appeal.status)) throw new FailedPrecondition(`appeal is ${appeal.status}; it takes no more messages (an operator may reopen it)`);
  const fileIds = await requireOwnFiles(deps, sender.owner, body.file_ids ?? []);
  return deps.sql.begin((tx) =>
    writeAppealMessage(
      tx,
      deps.config.CHECKOUT_BASE_URL,
      appeal,
      { id: newId(), senderRole: sender.role, senderId: sender.id, body: body.body, fileIds },
      actor,
    ),
  );
}

/** The merchant's thread: its messages and the arbiter's (the trader's side of the appeal is the arbiter's to read). */
export const threadOf = (deps: AppDeps, appealId: string) => messagesOf(deps.sql, appealId, MERCHANT_THREAD_ROLES);

// ---- The deal's trader ----

/** The trader's answer, a command of the appeal's workflow (its step judges the deadline and writes the message). */
export function sendTraderAnswer(deps: AppDeps, appeal: Pick<AppealRow, 'id' | 'merchant_id' | 'deal_id'>, input: TraderAnswerInput) {
  return runAppealCommand(deps, { id: appeal.id, merchantId: appeal.merchant_id, dealId: appeal.deal_id }, { kind: 'trader_answer', input });
}

// ---- The arbiter (operator) ----

export async function operatorAppeal(deps: AppDeps, appealId: string): Promise<AppealRow> {
  const row = await findAppeal(deps.sql, appealId);
  if (!row) throw new NotFound('appeal not found');
  return row;
}

export async function adminAppealView(deps: AppDeps, appeal: AppealRow) {
  const [deal, messages, settlement, trader, merchantName, now] = await Promise.all([
    readDeal(deps, appeal.deal_id),
    messagesOf(deps.sql, appeal.id),
    findSettlement(deps.sql, appeal.id),
    traderOfAppeal(deps.sql, appeal.id),
    merchantNames(deps.sql, [appeal.merchant_id]).then((names) => names.get(appeal.merchant_id) ?? ''),
    databaseNow(deps.sql),
  ]);
  // Whose evidence each file is: the statement's files are the merchant's, a message's its sender's.
  const partyOf = new Map<string, SenderRole>(appeal.file_ids.map((id) => [id, 'MERCHANT']));
  for (const m of messages) for (const id of m.file_ids) if (!partyOf.has(id)) partyOf.set(id, m.sender_role);
  const files = await filesByIds(deps.sql, [...partyOf.keys()]);
  const settlementDealId = settlement?.deal_id ?? '';
  // What each arbiter move would do now, decided as the workflows decide it.
  const moves = operatorAppealMoves({ appealStatus: appeal.status, dealStatus: deal.status, settled: settlementDealId !== '', outcome: appeal.outcome });
  const operators = await accountNames(
    deps.sql,
    messages.filter((m) => m.sender_role === 'ADMIN').map((m) => m.sender_id),
  );
  const senderName = (m: MessageRow) =>
    m.sender_role === 'MERCHANT'
      ? merchantName
      : m.sender_role === 'TRADER'
        ? (trader?.name ?? '')
        : (operators.get(m.sender_id)?.email ?? `operator JWT (${m.sender_id})`);
  return {
    appeal,
    deal,
    messages: messages.map((m) => ({ ...presentMessage(m), sender_name: senderName(m) })),
    settlementDealId,
    files: files.map((f) => ({ ...presentFile(f), party: partyOf.get(f.id)! })),
    moves,
    trader: {
      trader_id: trader?.trader_id ?? '',
      name: trader?.name ?? '',
      respond_by: appeal.trader_respond_by.toISOString(),
      responded_at: appeal.trader_responded_at?.toISOString() ?? '',
      answer: traderAnswerState(appeal, now),
      file_ids: [...new Set(messages.filter((m) => m.sender_role === 'TRADER').flatMap((m) => m.file_ids))],
    },
  };
}

/** review, close, reopen: the appeal alone moves, in the appeal's workflow (whose step audits it with `actor`). */
export async function moveAppealByOperator(
  deps: AppDeps,
  appealId: string,
  kind: 'review' | 'close' | 'reopen',
  operatorId: string,
  actor?: AuditActor,
): Promise<AppealRow> {
  const appeal = await operatorAppeal(deps, appealId);
  await runAppealCommand(
    deps,
    { id: appeal.id, merchantId: appeal.merchant_id, dealId: appeal.deal_id },
    { kind, appealId: appeal.id, operatorId, commandId: newId(), actor: operatorActor(actor) },
  );
  return (await findAppeal(deps.sql, appeal.id))!;
}

/**
 * Resolution. While the appeal holds the deal (APPEALED) it is an Update of the deal's
 * workflow, which moves the money; on a terminal deal the appeal's workflow records it.
 */
export async function resolveAppealByOperator(deps: AppDeps, appealId: string, outcome: AppealOutcome, note: string, operatorId: string, actor?: AuditActor) {
  const appeal = await operatorAppeal(deps, appealId);
  const deal = await readDeal(deps, appeal.deal_id);
  const input: ResolveAppealInput = { appealId: appeal.id, outcome, note: note.trim(), operatorId, commandId: newId(), actor: operatorActor(actor) };
  const viaDeal = deal.status === 'APPEALED' ? await runDealMove(deps, deal.id, (h) => h.executeUpdate(resolveAppealUpdate, { args: [input] })) : undefined;
  if (!viaDeal) await runAppealCommand(deps, { id: appeal.id, merchantId: appeal.merchant_id, dealId: appeal.deal_id }, { kind: 'resolve', input });
  return { appeal: (await findAppeal(deps.sql, appeal.id))!, deal: await readDeal(deps, appeal.deal_id) };
}

/**
 * Settlement of an EXPIRED deal in its own workflow. A repeat with the same
 * idempotency_key answers the same settlement deal; another key for a settled appeal is 409.
 */
export async function settleAppeal(
  deps: AppDeps,
  appealId: string,
  body: { received_amount_override?: bigint; reason?: string; idempotency_key: string },
  operatorId: string,
  actor?: AuditActor,
) {
  const appeal = await operatorAppeal(deps, appealId);
  const existing = await findSettlement(deps.sql, appeal.id);
  if (existing) return readDeal(deps, settledAppealDeal(existing, appeal.id, body.idempotency_key)); // fast path of the step's rule
  const parent = await readDeal(deps, appeal.deal_id);
  const dealId = settlementDealIdFor(appeal.id);
  const request: SettlementRequest = {
    appealId: appeal.id,
    dealId,
    idempotencyKey: body.idempotency_key,
    receivedAmountOverride: body.received_amount_override !== undefined ? body.received_amount_override.toString() : null,
    reason: (body.reason ?? '').trim(),
    operatorId,
    actor: operatorActor(actor),
  };
  await withRetries(() =>
    updateWithStart<SettlementWorkflow, SettlementResult, [SettlementRequest]>(
      deps,
      settlementWorkflowType,
      {
        workflowId: settlementWorkflowId(appeal.id),
        taskQueue: settlementTaskQueue(deps.config),
        args: [{ appealId: appeal.id, dealId, feeDistributionDelaySeconds: deps.config.FEE_DISTRIBUTION_DELAY_SECONDS }],
        typedSearchAttributes: settlementSearchAttributes({ merchantId: appeal.merchant_id, dealId, parentDealId: parent.id, appealId: appeal.id }),
      },
      createSettlementUpdate,
      request,
    ),
  );
  return readDeal(deps, dealId);
}

export { appealView };
