/**
 * USDT withdrawals: quote, create through the withdrawal's
 * workflow (Update-With-Start) — keyed server-side (V2) or by an explicit caller key (V1
 * requestId) — operator approve/cancel as updates, listings from Postgres.
 */
import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { AppDeps } from '../deps';
import { Conflict, FailedPrecondition, InvalidArgument, NotFound, PermissionDenied } from '../../domain/errors';
import { describeTronAddressProblem, tronAddressProblem } from '../../domain/tron/address';
import { callerKeyedDedupKey, callerKeyedWithdrawalId, withdrawalDedupKey, withdrawalIdFor } from '../../domain/withdrawal-ids';
import { presentWithdrawal } from '../../domain/records/withdrawal-info';
import {
  approvalCounts,
  approvalsRequired,
  approverAccountId,
  fourEyesRefusal,
  WITHDRAWAL_LIVE,
  WITHDRAWAL_STATUSES,
  withdrawalFee,
} from '../../domain/state/withdrawals';
import type { AuditActor } from '../../domain/audit';
import { exportFileName } from '../../domain/csv';
import type { IdPrefix } from '../../domain/ids';
import { findWithdrawalAddress, merchantNames } from '../../db/queries/merchants';
import { accountNames } from '../../db/queries/accounts';
import { traderNames } from '../../db/queries/traders';
import { csvExport } from './csv-export';
import {
  approverAccounts,
  findWithdrawal,
  findWithdrawalByCallerKey,
  latestTraderWithdrawalByKey,
  latestWithdrawalByKey,
  listApprovals,
  listWithdrawals,
  pageWithdrawals,
  streamWithdrawals,
  type ApprovalRow,
  type WithdrawalRow,
} from '../../db/queries/withdrawals';
import {
  approveWithdrawalUpdate,
  cancelWithdrawalUpdate,
  withdrawalSearchAttributes,
  withdrawalTaskQueue,
  withdrawalWorkflowId,
  withdrawalWorkflowType,
  type WithdrawalWorkflow,
  type WithdrawalWorkflowInput,
} from '../../workflows/contracts/withdrawal';
import { randomUUID } from 'node:crypto';
import { isUnprocessedUpdate, operatorActor, startThroughWorkflow, stepTimeouts, unwrapUpdateFailure, type Created } from './deal-workflows';
import { clampPageSize, cursorOf, keysetPage } from './page-token';

/** The fee rule of the README's Wallet section, with the current configuration. */
export function quoteWithdrawal(deps: AppDeps, amount: bigint) {
  const { fee, net } = withdrawalFee(amount, deps.config.WITHDRAWAL_FEE_USDT_CENTS, deps.config.WITHDRAWAL_FEE_BPS);
  if (net <= 0n) throw new FailedPrecondition(`amount ${amount} does not cover the withdrawal fee of ${fee} USDT cents`);
  return { amount: amount.toString(), fee_usdt_cents: fee.toString(), net_usdt_cents: net.toString(), fee, net };
}

/**
 * Whether an earlier withdrawal still owns its (merchant, address, amount, fee) key: while it is
 * live (its hold is frozen), and once COMPLETED for WITHDRAWAL_IDEMPOTENCY_WINDOW_SECONDS after
 * its creation. A CANCELLED one sent nothing and returned its hold, so it releases the key.
 */
function holdsKey(row: Pick<WithdrawalRow, 'status' | 'created_at'>, nowMs: number, windowSeconds: number): boolean {
  if (WITHDRAWAL_LIVE.includes(row.status)) return true;
  return row.status === 'COMPLETED' && nowMs - row.created_at.getTime() < windowSeconds * 1000;
}

/** No address in the request: the merchant's withdrawal_address from the profile, if it is a valid TRON address. */
async function profileWithdrawalAddress(deps: AppDeps, merchantId: string): Promise<string> {
  const address = await findWithdrawalAddress(deps.sql, merchantId);
  if (!address) {
    throw new InvalidArgument('address is required (or set withdrawal_address in the profile)', [
      { field: 'address', message: 'address is required', code: 'required' },
    ]);
  }
  const problem = tronAddressProblem(address);
  if (problem) {
    throw new InvalidArgument(`the profile's withdrawal_address is not usable: ${describeTronAddressProblem(problem)}`, [
      { field: 'address', message: describeTronAddressProblem(problem), code: 'invalid_address' },
    ]);
  }
  return address;
}

async function readWithdrawal(deps: AppDeps, id: string): Promise<WithdrawalRow> {
  const row = await findWithdrawal(deps.sql, id);
  if (!row) throw new NotFound('withdrawal not found');
  return row;
}

/** An explicit caller key (the V1 adapter's requestId) and the request field that carries it (named in a 409). */
export interface WithdrawalCallerKey {
  value: string;
  field: string;
}

/**
 * A caller-keyed withdrawal answers a repeat of its own request (same address and amount), in
 * its current state; a key reused for another address or amount is 409, never a second one.
 */
function answerKeyed(row: WithdrawalRow, body: { address: string; amount: bigint }, key: WithdrawalCallerKey): WithdrawalRow {
  if (row.address === body.address && row.amount === body.amount) return row;
  const message = `${key.field} was already used for another withdrawal (another amount or address); a new withdrawal needs a new ${key.field}`;
  throw new Conflict(message, [{ field: key.field, message, code: 'key_reused' }]);
}

/**
 * Creates a withdrawal through its workflow. Without a caller key (V2) idempotency is
 * server-side: the key is derived from (merchant, address, amount, fee) and an identical repeat
 * answers the withdrawal that still holds it. With one (the V1 adapter's requestId) the
 * withdrawal is the one of (merchant, key) — unique in the table, and its id (so its workflow
 * id) derived from the key — whatever other withdrawals share its address and amount.
 */
export async function createMerchantWithdrawal(
  deps: AppDeps,
  merchantId: string,
  request: { address?: string | undefined; amount: bigint; idempotency_key?: string | undefined },
  callerKey?: WithdrawalCallerKey,
): Promise<Created<WithdrawalRow>> {
  const body = { ...request, address: request.address ?? (await profileWithdrawalAddress(deps, merchantId)) };
  if (callerKey) {
    const known = await findWithdrawalByCallerKey(deps.sql, merchantId, callerKey.value);
    if (known) return { row: answerKeyed(known, body, callerKey), replayed: true };
  }
  const { fee } = quoteWithdrawal(deps, body.amount);
  let dedupKey: string;
  let generation: number;
  let withdrawalId: string;
  if (callerKey) {
    dedupKey = callerKeyedDedupKey(callerKey.value);
    generation = 0;
    withdrawalId = callerKeyedWithdrawalId(merchantId, callerKey.value);
  } else {
    dedupKey = withdrawalDedupKey({ merchantId, address: body.address, amount: body.amount, fee });
    const latest = await latestWithdrawalByKey(deps.sql, merchantId, dedupKey);
    if (latest && holdsKey(latest, deps.now(), deps.config.WITHDRAWAL_IDEMPOTENCY_WINDOW_SECONDS)) return { row: latest, replayed: true };
    generation = latest ? latest.dedup_generation + 1 : 0;
    withdrawalId = withdrawalIdFor(merchantId, dedupKey, generation);
  }
  const workflowId = withdrawalWorkflowId(withdrawalId);
  const requestId = randomUUID();
  const input: WithdrawalWorkflowInput = {
    requestId,
    create: {
      withdrawalId,
      merchantId,
      address: body.address,
      amount: body.amount.toString(),
      fee: fee.toString(),
      dedupKey,
      dedupGeneration: generation,
      idempotencyKey: body.idempotency_key ?? '',
      ...(callerKey ? { callerKey: callerKey.value } : {}),
    },
    syncWaitMs: deps.config.WITHDRAWAL_SYNC_WAIT_SECONDS * 1000,
    timeouts: stepTimeouts(deps.config),
    broadcast: {
      timeoutSeconds: deps.config.WITHDRAWAL_BROADCAST_TIMEOUT_SECONDS,
      heartbeatSeconds: deps.config.WITHDRAWAL_BROADCAST_HEARTBEAT_SECONDS,
      maxBackoffSeconds: deps.config.WITHDRAWAL_BROADCAST_MAX_BACKOFF_SECONDS,
    },
  };
  // Concurrent identical requests (or, with a caller key, requests with one key) derive the same
  // id: they join one workflow, one withdrawal; the first request's input makes it.
  const { replayed } = await startThroughWorkflow<WithdrawalWorkflow>(deps, {
    workflowType: withdrawalWorkflowType,
    requestId,
    start: {
      workflowId,
      taskQueue: withdrawalTaskQueue(deps.config),
      args: [input],
      typedSearchAttributes: withdrawalSearchAttributes({ merchantId, withdrawalId }),
    },
  });
  const row = await readWithdrawal(deps, withdrawalId);
  return { row: callerKey ? answerKeyed(row, body, callerKey) : row, replayed };
}

/**
 * A trader's withdrawal of its available USDT, through the same workflow: server-side
 * idempotency as a merchant's (the key from trader, address, amount and fee), always to the
 * operator queue (PENDING_MANUAL), approved by one operator — two above the four-eyes amount.
 */
export async function createTraderWithdrawal(
  deps: AppDeps,
  traderId: string,
  body: { address: string; amount: bigint; idempotency_key?: string | undefined },
): Promise<Created<WithdrawalRow>> {
  const { fee } = quoteWithdrawal(deps, body.amount);
  // Its own space of keys and ids: a trader id never derives a merchant's withdrawal id.
  const owner = `trader:${traderId}`;
  const dedupKey = withdrawalDedupKey({ merchantId: owner, address: body.address, amount: body.amount, fee });
  const latest = await latestTraderWithdrawalByKey(deps.sql, traderId, dedupKey);
  if (latest && holdsKey(latest, deps.now(), deps.config.WITHDRAWAL_IDEMPOTENCY_WINDOW_SECONDS)) return { row: latest, replayed: true };
  const generation = latest ? latest.dedup_generation + 1 : 0;
  const withdrawalId = withdrawalIdFor(owner, dedupKey, generation);
  const requestId = randomUUID();
  const input: WithdrawalWorkflowInput = {
    requestId,
    create: {
      withdrawalId,
      merchantId: '',
      traderId,
      address: body.address,
      amount: body.amount.toString(),
      fee: fee.toString(),
      dedupKey,
      dedupGeneration: generation,
      idempotencyKey: body.idempotency_key ?? '',
    },
    syncWaitMs: deps.config.WITHDRAWAL_SYNC_WAIT_SECONDS * 1000,
    timeouts: stepTimeouts(deps.config),
    broadcast: {
      timeoutSeconds: deps.config.WITHDRAWAL_BROADCAST_TIMEOUT_SECONDS,
      heartbeatSeconds: deps.config.WITHDRAWAL_BROADCAST_HEARTBEAT_SECONDS,
      maxBackoffSeconds: deps.config.WITHDRAWAL_BROADCAST_MAX_BACKOFF_SECONDS,
    },
  };
  const { replayed } = await startThroughWorkflow<WithdrawalWorkflow>(deps, {
    workflowType: withdrawalWorkflowType,
    requestId,
    start: {
      workflowId: withdrawalWorkflowId(withdrawalId),
      taskQueue: withdrawalTaskQueue(deps.config),
      args: [input],
      typedSearchAttributes: withdrawalSearchAttributes({ merchantId: '', withdrawalId }),
    },
  });
  return { row: await readWithdrawal(deps, withdrawalId), replayed };
}

/** One of the trader's withdrawals; another's (or a merchant's) is 404. */
export async function getTraderWithdrawal(deps: AppDeps, traderId: string, id: string) {
  const row = await findWithdrawal(deps.sql, id);
  if (!row || row.trader_id !== traderId) throw new NotFound('withdrawal not found');
  return row;
}

export async function listTraderWithdrawals(deps: AppDeps, traderId: string, q: { page_size?: number; page_token?: string }) {
  const scope = `trader-withdrawals:${traderId}`;
  const size = clampPageSize(q.page_size);
  const page = keysetPage(deps, scope, await listWithdrawals(deps.sql, { traderId, after: cursorOf(deps, scope, q.page_token), limit: size + 1 }), size);
  return { data: page.rows.map(presentWithdrawal), next_page_token: page.next_page_token };
}

export async function getMerchantWithdrawal(deps: AppDeps, merchantId: string, id: string) {
  const row = await findWithdrawal(deps.sql, id);
  if (!row || row.merchant_id !== merchantId) throw new NotFound('withdrawal not found');
  return row;
}

const knownStatuses = (statuses: string[] | undefined) =>
  statuses === undefined ? undefined : statuses.filter((s) => (WITHDRAWAL_STATUSES as readonly string[]).includes(s));

export async function listMerchantWithdrawals(deps: AppDeps, merchantId: string, q: { page_size?: number; page_token?: string; status?: string[] }) {
  const scope = `withdrawals:${merchantId}`;
  const after = cursorOf(deps, scope, q.page_token);
  const size = clampPageSize(q.page_size);
  const statuses = knownStatuses(q.status);
  if (statuses && statuses.length === 0) return { data: [], next_page_token: '' };
  const page = keysetPage(deps, scope, await listWithdrawals(deps.sql, { merchantId, statuses, after, limit: size + 1 }), size);
  return { data: page.rows.map(presentWithdrawal), next_page_token: page.next_page_token };
}

/** The merchant's withdrawals in offset pages, newest first (the V1 list): by status and creation window; `count` is every match. */
export async function pageMerchantWithdrawals(
  deps: AppDeps,
  merchantId: string,
  f: { statuses?: string[]; createdAfter?: Date; createdBefore?: Date },
  skip: number,
  take: number,
) {
  return pageWithdrawals(deps.sql, { merchantId, ...f }, skip, take);
}

/** Who the people and merchant around withdrawals are: names for the operator's view. */
interface WithdrawalNames {
  merchants: Map<string, string>;
  traders: Map<string, string>;
  accounts: Map<string, { email: string }>;
}

/** The console account's email behind `operator_account:<id>` (or an operator's id), or the JWT's sub. */
const whoOf = (names: WithdrawalNames, who: string) => {
  const accountId = approverAccountId(who) ?? who;
  return names.accounts.get(accountId)?.email ?? (who.startsWith('operator_jwt:') ? `operator JWT (${who.slice('operator_jwt:'.length)})` : who);
};

/** The operator's view: the merchant's plus the queue's facts and the four-eyes approvals collected so far (and whether each counts now). */
function presentOperatorWithdrawal(deps: AppDeps, row: WithdrawalRow, approvals: ApprovalRow[], accounts: ApproverAccounts, names: WithdrawalNames) {
  return {
    approvals: approvals
      .filter((a) => a.withdrawal_id === row.id)
      .map((a) => ({
        approver: a.approver,
        approver_name: whoOf(names, a.approver),
        role: a.role,
        at: a.at.toISOString(),
        counts: approvalCounts(a.approver, accounts.get(approverAccountId(a.approver) ?? '')),
      })),
    approvals_required: approvalsRequired(row.amount, deps.config.WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS),
    ...presentWithdrawal(row),
    owner_type: row.trader_id ? ('trader' as const) : ('merchant' as const),
    owner_id: (row.trader_id ?? row.merchant_id)!,
    owner_name: row.trader_id ? (names.traders.get(row.trader_id) ?? '') : (names.merchants.get(row.merchant_id ?? '') ?? ''),
    merchant_id: row.merchant_id ?? '',
    merchant_name: names.merchants.get(row.merchant_id ?? '') ?? '',
    trader_id: row.trader_id ?? '',
    broadcast_attempts: row.broadcast_attempts,
    broadcast_started_at: row.broadcast_started_at?.toISOString() ?? '',
    last_broadcast_error: row.last_broadcast_error,
    approved_by: row.approved_by,
    approved_by_name: row.approved_by ? whoOf(names, row.approved_by) : '',
    cancelled_by: row.cancelled_by,
    cancelled_by_name: row.cancelled_by ? whoOf(names, row.cancelled_by) : '',
  };
}

async function namesOf(deps: AppDeps, rows: WithdrawalRow[], approvals: ApprovalRow[]): Promise<WithdrawalNames> {
  const people = [...approvals.map((a) => approverAccountId(a.approver) ?? ''), ...rows.flatMap((r) => [r.approved_by, r.cancelled_by])];
  const [merchants, traders, accounts] = await Promise.all([
    merchantNames(
      deps.sql,
      rows.flatMap((r) => (r.merchant_id ? [r.merchant_id] : [])),
    ),
    traderNames(
      deps.sql,
      rows.flatMap((r) => (r.trader_id ? [r.trader_id] : [])),
    ),
    accountNames(deps.sql, people),
  ]);
  return { merchants, traders, accounts };
}

export interface OperatorWithdrawalQuery {
  status?: string[];
  merchant_id?: IdPrefix;
  withdrawal_id?: IdPrefix;
}

const selectionOf = (q: OperatorWithdrawalQuery, statuses: string[] | undefined) => ({ merchantIn: q.merchant_id, idIn: q.withdrawal_id, statuses });
const withdrawalFilterText = (q: OperatorWithdrawalQuery) => ({
  withdrawal: q.withdrawal_id?.prefix,
  merchant: q.merchant_id?.prefix,
  status: (q.status ?? []).join('+') || undefined,
});

export async function listOperatorWithdrawals(deps: AppDeps, q: OperatorWithdrawalQuery & { page_size?: number; page_token?: string }) {
  const scope = `operator-withdrawals:${JSON.stringify(withdrawalFilterText(q))}`;
  const after = cursorOf(deps, scope, q.page_token);
  const size = clampPageSize(q.page_size);
  const statuses = knownStatuses(q.status);
  if (statuses && statuses.length === 0) return { data: [], next_page_token: '' };
  const page = keysetPage(deps, scope, await listWithdrawals(deps.sql, { ...selectionOf(q, statuses), after, limit: size + 1 }), size);
  const approvals = await listApprovals(
    deps.sql,
    page.rows.map((r) => r.id),
  );
  const [accounts, names] = await Promise.all([accountsOf(deps, approvals), namesOf(deps, page.rows, approvals)]);
  return { data: page.rows.map((r) => presentOperatorWithdrawal(deps, r, approvals, accounts, names)), next_page_token: page.next_page_token };
}

const WITHDRAWAL_CSV = [
  'withdrawal_id',
  'status',
  'amount',
  'fee_usdt_cents',
  'net_usdt_cents',
  'currency',
  'address',
  'tx_hash',
  'merchant_id',
  'merchant_name',
  'processing',
  'approvals',
  'approved_by',
  'cancelled_by',
  'cancel_reason',
  'created_at',
  'approved_at',
  'completed_at',
  'cancelled_at',
] as const;

/** Every withdrawal the queue's filters select, as CSV (USDT cents; approvals as "email (role)" joined by "; "). */
export async function exportOperatorWithdrawals(deps: AppDeps, q: OperatorWithdrawalQuery) {
  const statuses = knownStatuses(q.status);
  const selection = selectionOf(q, statuses);
  const NOTHING = (async function* (): AsyncGenerator<WithdrawalRow[]> {})();
  return csvExport(
    exportFileName('withdrawals', withdrawalFilterText(q)),
    WITHDRAWAL_CSV,
    // Only unknown statuses select nothing, as in the list.
    statuses && statuses.length === 0 ? NOTHING : streamWithdrawals(deps.sql, selection),
    async (batch) => {
      const approvals = await listApprovals(
        deps.sql,
        batch.map((r) => r.id),
      );
      const [accounts, names] = await Promise.all([accountsOf(deps, approvals), namesOf(deps, batch, approvals)]);
      return batch.map((row) => {
        const w = presentOperatorWithdrawal(deps, row, approvals, accounts, names);
        const cells: Record<(typeof WITHDRAWAL_CSV)[number], string> = {
          ...w,
          approvals: w.approvals.map((a) => `${a.approver_name} (${a.role})`).join('; '),
          approved_by: w.approved_by_name,
          cancelled_by: w.cancelled_by_name,
        };
        return WITHDRAWAL_CSV.map((column) => String(cells[column] ?? ''));
      });
    },
  );
}

const UNPROCESSED_ATTEMPTS = 5;

/** An operator command as an update of the withdrawal's workflow; a closed workflow means a final state. */
async function withdrawalCommand(
  deps: AppDeps,
  id: string,
  send: (h: WorkflowHandle<WithdrawalWorkflow>) => Promise<unknown>,
  answer?: (snapshot: unknown) => void,
) {
  const row = await readWithdrawal(deps, id);
  const handle = deps.temporal.workflow.getHandle<WithdrawalWorkflow>(withdrawalWorkflowId(row.id));
  for (let attempt = 1; ; attempt += 1) {
    try {
      // Sent first, then handed to `answer` (an optional call would skip evaluating its argument).
      const result = await send(handle);
      if (answer) answer(result);
      break;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw new FailedPrecondition(`withdrawal is ${(await readWithdrawal(deps, id)).status}`);
      // Many operators at once on one withdrawal: an update the task did not process did nothing,
      // and the step knows its own request (the actor's key), so it is sent again.
      if (isUnprocessedUpdate(error) && attempt < UNPROCESSED_ATTEMPTS) {
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
        continue;
      }
      throw unwrapUpdateFailure(error);
    }
  }
  return readWithdrawal(deps, id);
}

/** The withdrawal with its approvals, as an operator sees it. */
export async function operatorWithdrawalView(deps: AppDeps, row: WithdrawalRow) {
  const approvals = await listApprovals(deps.sql, [row.id]);
  const [accounts, names] = await Promise.all([accountsOf(deps, approvals), namesOf(deps, [row], approvals)]);
  return presentOperatorWithdrawal(deps, row, approvals, accounts, names);
}

type ApproverAccounts = Awaited<ReturnType<typeof approverAccounts>>;
const accountsOf = (deps: AppDeps, approvals: ApprovalRow[]) =>
  approverAccounts(
    deps.sql,
    approvals.map((a) => approverAccountId(a.approver) ?? ''),
  );

/**
 * Approve: the step writes the audit row (and, above the four-eyes amount, may only record the
 * first approval: `released` false — told by the step's own answer, not by a later read, which a
 * concurrent second approval may already have moved on).
 */
export async function approveWithdrawal(deps: AppDeps, id: string, operatorId: string, actor?: AuditActor): Promise<{ row: WithdrawalRow; released: boolean }> {
  // The step's own refusal, read-only here: the operator JWT never approves what needs four-eyes —
  // whatever the withdrawal's state, so the JWT's answer does not depend on a race with the release.
  const current = await readWithdrawal(deps, id);
  const refusal = fourEyesRefusal(current.amount, deps.config.WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS, actor?.kind);
  if (refusal) throw new PermissionDenied(refusal);
  let released = true;
  const row = await withdrawalCommand(
    deps,
    id,
    (h) => h.executeUpdate(approveWithdrawalUpdate, { args: [operatorId, operatorActor(actor)] }),
    (snapshot) => (released = (snapshot as { status?: string } | undefined)?.status !== 'PENDING_MANUAL'),
  );
  return { row, released };
}

export const cancelWithdrawal = (deps: AppDeps, id: string, reason: string, operatorId: string, actor?: AuditActor) =>
  withdrawalCommand(deps, id, (h) => h.executeUpdate(cancelWithdrawalUpdate, { args: [reason, operatorId, operatorActor(actor)] }));
