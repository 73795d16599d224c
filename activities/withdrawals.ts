/**
 * Withdrawal steps (domain/state/withdrawals.ts). Each is one transaction with keyed ledger postings
 * (withdrawal:<id>:hold | :complete | :release), idempotent under retries: a step that finds the
 * withdrawal already where it leads answers the current state.
 */
import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import type { Db } from '../db/sql';
import { Conflict, FailedPrecondition, NotFound, PermissionDenied } from '../domain/errors';
import {
  approvalCounts,
  approvalsRequired,
  approverAccountId,
  canMove,
  fourEyesRefusal,
  isAutoProcessed,
  WITHDRAWAL_BROADCASTING,
  WITHDRAWAL_TRANSITIONS,
  type WithdrawalMove,
} from '../domain/state/withdrawals';
import { approverOf, type AuditActor } from '../domain/audit';
import { insertAudit } from '../db/queries/audit';
import { findWithdrawalSettings } from '../db/queries/merchants';
import { writeOutboxEvent } from '../db/queries/outbox';
import { postWithdrawalCompletion, postWithdrawalHold, postWithdrawalRelease } from '../db/queries/postings';
import { ensureWallet, lockAvailable } from '../db/queries/wallets';
import { lockMerchantWorld } from '../db/queries/merchant-world';
import { sandboxChain } from './chain/simulated';
import { sandboxWithdrawalScenario } from '../domain/sandbox';
import {
  approverAccounts,
  findWithdrawal,
  findWithdrawalByCallerKey,
  insertApproval,
  insertWithdrawal,
  listApprovals,
  lockWithdrawal,
  recordBroadcastAttempt,
  recordBroadcastError,
  updateWithdrawal,
  type WithdrawalRow,
} from '../db/queries/withdrawals';
import { presentWithdrawal } from '../domain/records/withdrawal-info';
import type { CreateWithdrawalInput, WithdrawalSnapshot } from '../workflows/contracts/withdrawal';
import { resolveAlerts } from '../db/queries/alerts';
import { abandonCreate, claimCreate } from '../db/queries/create-fence';
import { currentWorkflowRun } from './deadline';
import { ChainRejected, type ChainAdapter, type SentTransfer, type TransferStatus } from './chain';

const withdrawalSnapshotOf = (row: WithdrawalRow): WithdrawalSnapshot => ({ status: row.status, txHash: row.tx_hash });

/** Runs `body` while heartbeating every second: a worker that dies mid-call is noticed at the heartbeat timeout. */
async function heartbeating<T>(body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), 1000);
  try {
    return await body(context.cancellationSignal);
  } finally {
    clearInterval(beat);
  }
}

export function createWithdrawalActivities(deps: ActivityDeps, chain: ChainAdapter) {
  const { sql } = deps;
  const transferOf = (row: WithdrawalRow) => ({ withdrawalId: row.id, toAddress: row.address, amount: row.net });
  /**
   * A sandbox merchant's withdrawal goes to the sandbox chain, never to the configured
   * one — by the withdrawal's own world, fixed at its insert (its existence freezes the merchant's).
   */
  const chainFor = async (row: WithdrawalRow): Promise<ChainAdapter> =>
    row.sandbox ? sandboxChain(deps.sql, () => sandboxWithdrawalScenario(row.amount) === 'fail') : chain;

  /** What the audit trail keeps of a withdrawal (with the approvals it collected). */
  const auditView = async (tx: Db, row: WithdrawalRow) => ({
    ...presentWithdrawal(row),
    approved_by: row.approved_by,
    cancelled_by: row.cancelled_by,
    approvals: (await listApprovals(tx, [row.id])).map((a) => a.approver),
  });

  /**
   * A move of the table in domain/state/withdrawals.ts: locked status check, effects, event — and, for
   * an operator's move, its audit row — in one transaction. `gate` may answer first (a four-eyes
   * approval that only records itself).
   */
  const move = (
    id: string,
    name: WithdrawalMove,
    effects: (tx: Db, row: WithdrawalRow) => Promise<Record<string, unknown>>,
    audit?: { actor: AuditActor | undefined; action: string; gate?: (tx: Db, row: WithdrawalRow) => Promise<WithdrawalSnapshot | undefined> },
  ): Promise<WithdrawalSnapshot> =>
    sql.begin(async (tx) => {
      const { events } = WITHDRAWAL_TRANSITIONS[name];
      const to = WITHDRAWAL_TRANSITIONS[name].to!;
      const row = await lockWithdrawal(tx, id);
      if (!row) throw new NotFound('withdrawal not found');
      if (row.status === to) return withdrawalSnapshotOf(row);
      if (!canMove(row.status, name)) throw new FailedPrecondition(`withdrawal is ${row.status}; cannot move to ${to}`);
      const early = audit?.gate ? await audit.gate(tx, row) : undefined;
      if (early) return early;
      const before = audit?.actor ? await auditView(tx, row) : undefined;
      const changes = await effects(tx, row);
      const updated = await updateWithdrawal(tx, id, to, changes);
      if (audit?.actor) {
        await insertAudit(tx, audit.actor, { action: audit.action, objectType: 'withdrawal', objectId: id, before, after: await auditView(tx, updated) });
      }
      // The event's id is fixed per (withdrawal, type, status). A trader's withdrawal has no webhook.
      for (const type of updated.merchant_id ? events : []) {
        await writeOutboxEvent(tx, {
          merchantId: updated.merchant_id!,
          dealId: null,
          subjectId: updated.id,
          type,
          discriminator: updated.status,
          payload: { withdrawal: presentWithdrawal(updated) },
        });
      }
      return withdrawalSnapshotOf(updated);
    });

  /**
   * A trader's withdrawal: from its available USDT (the security deposit and the escrow are
   * frozen, so out of reach), always PENDING_MANUAL — an operator approves it, two above the
   * four-eyes amount.
   */
  const createTraderWithdrawal = async (tx: Db, input: CreateWithdrawalInput, traderId: string, amount: bigint, fee: bigint) => {
    const [trader] = await tx<{ sandbox: boolean }[]>`select sandbox from traders where id = ${traderId}`;
    if (!trader) throw new NotFound('trader not found');
    if (trader.sandbox) throw new PermissionDenied('the sandbox trader has no withdrawals');
    const wallet = await ensureWallet(tx, 'trader', traderId, 'USDT');
    const available = (await lockAvailable(tx, wallet.id))!;
    if (available < amount) throw new FailedPrecondition(`insufficient balance: the withdrawal needs ${amount} USDT cents, available ${available}`);
    const row = await insertWithdrawal(tx, {
      id: input.withdrawalId,
      merchantId: null,
      traderId,
      walletId: wallet.id,
      auto: false,
      address: input.address,
      amount,
      fee,
      dedupKey: input.dedupKey,
      dedupGeneration: input.dedupGeneration,
      idempotencyKey: input.idempotencyKey,
      callerKey: null,
    });
    await postWithdrawalHold(tx, { id: row.id, walletId: wallet.id, amount });
    return row;
  };

  return {
    /** The hold and the row in one transaction; auto or manual by the merchant's mode and limit now (a trader's: manual). */
    async createWithdrawal(input: CreateWithdrawalInput): Promise<WithdrawalSnapshot> {
      return sql.begin(async (tx) => {
        const existing = await claimCreate<WithdrawalRow>(tx, 'withdrawals', input.withdrawalId, currentWorkflowRun());
        if (existing) return withdrawalSnapshotOf(existing);
        if (input.callerKey) {
          // A key already taken by another id (a row from before caller-keyed ids): never a second withdrawal.
          const taken = await findWithdrawalByCallerKey(tx, input.merchantId, input.callerKey);
          if (taken) throw new Conflict(`the key of this withdrawal already names withdrawal ${taken.id}`);
        }
        const amount = BigInt(input.amount);
        const fee = BigInt(input.fee);
        if (input.traderId) return withdrawalSnapshotOf(await createTraderWithdrawal(tx, input, input.traderId, amount, fee));
        // The merchant's world, settled against the operator's switch before the row copies it (docs/reliability.md, "Worlds").
        await lockMerchantWorld(tx, input.merchantId);
        const merchant = await findWithdrawalSettings(tx, input.merchantId);
        if (!merchant) throw new NotFound('merchant not found');
        const wallet = await ensureWallet(tx, 'merchant', input.merchantId, 'USDT');
        const available = (await lockAvailable(tx, wallet.id))!;
        if (available < amount) {
          throw new FailedPrecondition(`insufficient balance: the withdrawal needs ${amount} USDT cents, available ${available}`);
        }
        const row = await insertWithdrawal(tx, {
          id: input.withdrawalId,
          merchantId: input.merchantId,
          walletId: wallet.id,
          auto: isAutoProcessed(
            amount,
            merchant.auto_withdrawal_mode,
            merchant.auto_withdrawal_limit_usdt_cents,
            deps.config.WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS,
          ),
          address: input.address,
          amount,
          fee,
          dedupKey: input.dedupKey,
          dedupGeneration: input.dedupGeneration,
          idempotencyKey: input.idempotencyKey,
          callerKey: input.callerKey ?? null,
        });
        await postWithdrawalHold(tx, { id: row.id, walletId: wallet.id, amount });
        return withdrawalSnapshotOf(row);
      });
    },

    /**
     * The run gives its create up (db/queries/create-fence.ts): writes the run's tombstone, so no
     * attempt of the create can commit after it, and answers the withdrawal's snapshot if one did, else null.
     */
    async abandonWithdrawalCreate(id: string): Promise<WithdrawalSnapshot | null> {
      const row = await abandonCreate<WithdrawalRow>(sql, 'withdrawals', id, currentWorkflowRun());
      return row ? withdrawalSnapshotOf(row) : null;
    },

    /**
     * An operator's approval. Four-eyes (approvalsRequired): each approval is recorded under the
     * withdrawal's lock (one per approver, withdrawal_approvals); the release is decided here, in
     * the same transaction: it needs as many approvals that count now (approvalCounts: enabled
     * console accounts of an approving role, their rows held FOR SHARE) as the rule asks, so an
     * approver disabled or demoted before this moment no longer counts. Otherwise the withdrawal
     * stays PENDING_MANUAL. The operator JWT cannot approve what needs four-eyes (403); the same
     * approver twice is 409 — unless it is this step's own retry (same request), which answers as
     * before.
     */
    async approveWithdrawal(id: string, operatorId: string, actor: AuditActor): Promise<WithdrawalSnapshot> {
      const gate = async (tx: Db, row: WithdrawalRow): Promise<WithdrawalSnapshot | undefined> => {
        const threshold = deps.config.WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS;
        const required = approvalsRequired(row.amount, threshold);
        const refusal = fourEyesRefusal(row.amount, threshold, actor.kind);
        if (refusal) throw new PermissionDenied(refusal);
        const approver = approverOf(actor);
        const approvals = await listApprovals(tx, [id]);
        const mine = approvals.find((a) => a.approver === approver);
        if (mine && mine.request_key === actor.requestKey) return withdrawalSnapshotOf(row);
        if (mine) throw new Conflict('this operator already approved the withdrawal: the second approval must come from another operator (four-eyes)');
        await insertApproval(tx, { withdrawalId: id, approver, role: actor.role, requestKey: actor.requestKey });
        if (required === 1) return undefined;
        const all = [...approvals.map((a) => a.approver), approver];
        const accounts = await approverAccounts(
          tx,
          all.map((a) => approverAccountId(a) ?? ''),
          { lock: true },
        );
        const counting = all.filter((a) => approvalCounts(a, accounts.get(approverAccountId(a) ?? '')));
        if (counting.length >= required) return undefined;
        const view = await auditView(tx, row);
        await insertAudit(tx, actor, {
          action: 'withdrawal.approve',
          objectType: 'withdrawal',
          objectId: id,
          before: { ...view, approvals: approvals.map((a) => a.approver) },
          after: { ...view, approvals_required: required, approvals_counting: counting },
        });
        return withdrawalSnapshotOf(row);
      };
      return move(id, 'approve', async () => ({ approved_by: operatorId, approved_at: new Date() }), { actor, action: 'withdrawal.approve', gate });
    },

    async cancelWithdrawal(id: string, reason: string, operatorId: string, actor: AuditActor): Promise<WithdrawalSnapshot> {
      return move(
        id,
        'cancel',
        async (tx, row) => {
          await postWithdrawalRelease(tx, row);
          return { cancel_reason: reason || 'cancelled by an operator', cancelled_by: operatorId, cancelled_at: new Date() };
        },
        { actor, action: 'withdrawal.cancel' },
      );
    },

    /**
     * Records the intent (committed) before every send, then asks the chain adapter, which is
     * idempotent by withdrawal id. Heartbeats while waiting, so a dead worker is noticed quickly
     * and the retry (same id) cannot send a second transfer. A permanent refusal is a business
     * failure (the workflow cancels and refunds); anything else is retried with backoff. With
     * `checkInMs` in the answer the transfer is only submitted: the workflow asks
     * checkWithdrawalTransfer after that long, until it is final.
     */
    async broadcastWithdrawal(id: string): Promise<SentTransfer> {
      const row = await sql.begin(async (tx) => {
        const current = await lockWithdrawal(tx, id);
        if (!current) throw new NotFound('withdrawal not found');
        if (!WITHDRAWAL_BROADCASTING.includes(current.status)) {
          if (current.status === 'COMPLETED') return current;
          throw new FailedPrecondition(`withdrawal is ${current.status}; nothing to broadcast`);
        }
        return recordBroadcastAttempt(tx, id);
      });
      if (row.status === 'COMPLETED') return { txHash: row.tx_hash };

      const adapter = await chainFor(row);
      try {
        return await heartbeating((signal) => adapter.send(transferOf(row), signal));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await recordBroadcastError(sql, id, message.slice(0, 500)).catch(() => undefined);
        if (error instanceof ChainRejected) throw new FailedPrecondition(`the network refused the transfer: ${message}`);
        throw error;
      }
    },

    /**
     * Where a submitted transfer stands (adapters whose send() answers checkInMs): confirmed,
     * pending (ask again after checkInMs), resubmit (its transaction died without moving anything:
     * broadcastWithdrawal builds the next after afterMs) or refused (give up: cancel and refund).
     */
    async checkWithdrawalTransfer(id: string): Promise<TransferStatus> {
      const row = await findWithdrawal(sql, id);
      if (!row) throw new NotFound('withdrawal not found');
      if (row.status === 'COMPLETED') return { state: 'confirmed', txHash: row.tx_hash };
      if (!WITHDRAWAL_BROADCASTING.includes(row.status)) throw new FailedPrecondition(`withdrawal is ${row.status}; nothing to confirm`);
      if (!chain.transferStatus) throw new FailedPrecondition('the chain adapter answers at once; there is nothing to confirm');
      const status = chain.transferStatus;
      try {
        return await heartbeating((signal) => status.call(chain, transferOf(row), signal));
      } catch (error) {
        await recordBroadcastError(sql, id, (error instanceof Error ? error.message : String(error)).slice(0, 500)).catch(() => undefined);
        throw error;
      }
    },

    /** The transfer went out: COMPLETED with its tx hash; the hold is debited (net to the chain, fee to the platform). */
    async completeWithdrawal(id: string, txHash: string): Promise<WithdrawalSnapshot> {
      return move(id, 'broadcast_sent', async (tx, row) => {
        await postWithdrawalCompletion(tx, row);
        await resolveAlerts(tx, id);
        return { tx_hash: txHash, completed_at: new Date(), last_broadcast_error: '' };
      });
    },

    /** The network refused it for good: CANCELLED, hold returned, p2p.finance.withdrawal_failed. */
    async failWithdrawal(id: string, reason: string): Promise<WithdrawalSnapshot> {
      return move(id, 'broadcast_rejected', async (tx, row) => {
        await postWithdrawalRelease(tx, row);
        await resolveAlerts(tx, id);
        return { cancel_reason: reason, cancelled_by: 'chain', cancelled_at: new Date() };
      });
    },
  };
}
