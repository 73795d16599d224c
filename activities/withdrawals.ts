/**
 * Withdrawal steps (domain/withdrawals.ts). Each is one transaction with keyed ledger postings
 * (withdrawal:<id>:hold | :complete | :release), idempotent under retries: a step that finds the
 * withdrawal already where it leads answers the current state.
 */
import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './index';
import type { Db } from '../db/sql';
import { Conflict, FailedPrecondition, NotFound } from '../domain/errors';
import { canMove, isAutoProcessed, WITHDRAWAL_TRANSITIONS, type WithdrawalMove } from '../domain/withdrawals';
import {
  findWithdrawal,
  findWithdrawalByCallerKey,
  insertWithdrawalWithHold,
  lockWithdrawal,
  releaseWithdrawalHold,
  settleWithdrawal,
  writeWithdrawalEvent,
  type WithdrawalRow,
} from '../db/queries/withdrawals';
import { ensureWallet } from '../db/queries/wallets';
import { presentWithdrawal } from '../domain/withdrawal-info';
import type { CreateWithdrawalInput, WithdrawalSnapshot } from '../workflows/contracts/withdrawal';
import { ChainRejected, createChainAdapter, type ChainAdapter } from './chain';

export const withdrawalSnapshotOf = (row: WithdrawalRow): WithdrawalSnapshot => ({ status: row.status, txHash: row.tx_hash });

export function createWithdrawalActivities(deps: ActivityDeps, chain: ChainAdapter = createChainAdapter(deps.config, deps.sql)) {
  const { sql } = deps;

  /** A move of the table in domain/withdrawals.ts: locked status check, effects, event, in one transaction. */
  const move = (
    id: string,
    name: WithdrawalMove,
    effects: (tx: Db, row: WithdrawalRow) => Promise<Record<string, unknown>>,
  ): Promise<WithdrawalSnapshot> =>
    sql.begin(async (tx) => {
      const { to, event } = WITHDRAWAL_TRANSITIONS[name];
      const row = await lockWithdrawal(tx, id);
      if (!row) throw new NotFound('withdrawal not found');
      if (row.status === to) return withdrawalSnapshotOf(row);
      if (!canMove(row.status, name)) throw new FailedPrecondition(`withdrawal is ${row.status}; cannot move to ${to}`);
      const changes = await effects(tx, row);
      const [updated] = await tx<WithdrawalRow[]>`
        update withdrawals set ${tx({ ...changes, status: to } as Record<string, string>, ...(['status', ...Object.keys(changes)] as [string]))}, updated_at = now()
        where id = ${id} returning *`;
      if (event) await writeWithdrawalEvent(tx, updated!, event, { withdrawal: presentWithdrawal(updated!) });
      return withdrawalSnapshotOf(updated!);
    });

  return {
    /** The hold and the row in one transaction; auto or manual by the merchant's mode and limit now. */
    async createWithdrawal(input: CreateWithdrawalInput): Promise<WithdrawalSnapshot> {
      return sql.begin(async (tx) => {
        const existing = await findWithdrawal(tx, input.withdrawalId);
        if (existing) return withdrawalSnapshotOf(existing);
        if (input.callerKey) {
          // A key already taken by another id (a row from before caller-keyed ids): never a second withdrawal.
          const taken = await findWithdrawalByCallerKey(tx, input.merchantId, input.callerKey);
          if (taken) throw new Conflict(`the key of this withdrawal already names withdrawal ${taken.id}`);
        }
        const amount = BigInt(input.amount);
        const fee = BigInt(input.fee);
        const [merchant] = await tx<{ auto_withdrawal_mode: string; auto_withdrawal_limit_usdt_cents: bigint }[]>`
          select auto_withdrawal_mode, auto_withdrawal_limit_usdt_cents from merchants where id = ${input.merchantId}`;
        if (!merchant) throw new NotFound('merchant not found');
        const wallet = await ensureWallet(tx, 'merchant', input.merchantId, 'USDT');
        const [locked] = await tx<{ available: bigint }[]>`select available from wallets where id = ${wallet.id} for update`;
        if (locked!.available < amount) {
          throw new FailedPrecondition(`insufficient balance: the withdrawal needs ${amount} USDT cents, available ${locked!.available}`);
        }
        const row = await insertWithdrawalWithHold(tx, {
          id: input.withdrawalId,
          merchantId: input.merchantId,
          walletId: wallet.id,
          auto: isAutoProcessed(amount, merchant.auto_withdrawal_mode, merchant.auto_withdrawal_limit_usdt_cents),
          address: input.address,
          amount,
          fee,
          dedupKey: input.dedupKey,
          dedupGeneration: input.dedupGeneration,
          idempotencyKey: input.idempotencyKey,
          callerKey: input.callerKey ?? null,
        });
        return withdrawalSnapshotOf(row);
      });
    },

    async approveWithdrawal(id: string, operatorId: string): Promise<WithdrawalSnapshot> {
      return move(id, 'approve', async () => ({ approved_by: operatorId, approved_at: new Date() }));
    },

    async cancelWithdrawal(id: string, reason: string, operatorId: string): Promise<WithdrawalSnapshot> {
      return move(id, 'cancel', async (tx, row) => {
        await releaseWithdrawalHold(tx, row);
        return { cancel_reason: reason || 'cancelled by an operator', cancelled_by: operatorId, cancelled_at: new Date() };
      });
    },

    /**
     * Records the intent (committed) before every send, then asks the chain adapter, which is
     * idempotent by withdrawal id. Heartbeats while waiting, so a dead worker is noticed quickly
     * and the retry (same id) cannot send a second transfer. A permanent refusal is a business
     * failure (the workflow cancels and refunds); anything else is retried with backoff.
     */
    async broadcastWithdrawal(id: string): Promise<{ txHash: string }> {
      const row = await sql.begin(async (tx) => {
        const current = await lockWithdrawal(tx, id);
        if (!current) throw new NotFound('withdrawal not found');
        if (current.status !== 'PENDING' && current.status !== 'APPROVED') {
          if (current.status === 'COMPLETED') return current;
          throw new FailedPrecondition(`withdrawal is ${current.status}; nothing to broadcast`);
        }
        const [updated] = await tx<WithdrawalRow[]>`
          update withdrawals set broadcast_attempts = broadcast_attempts + 1, broadcast_started_at = coalesce(broadcast_started_at, now()), updated_at = now()
          where id = ${id} returning *`;
        return updated!;
      });
      if (row.status === 'COMPLETED') return { txHash: row.tx_hash };

      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 1000);
      try {
        return await chain.send({ withdrawalId: row.id, toAddress: row.address, amount: row.net }, context.cancellationSignal);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await sql`update withdrawals set last_broadcast_error = ${message.slice(0, 500)} where id = ${id}`.catch(() => undefined);
        if (error instanceof ChainRejected) throw new FailedPrecondition(`the network refused the transfer: ${message}`);
        throw error;
      } finally {
        clearInterval(beat);
      }
    },

    /** The transfer went out: COMPLETED with its tx hash; the hold is debited (net to the chain, fee to the platform). */
    async completeWithdrawal(id: string, txHash: string): Promise<WithdrawalSnapshot> {
      return move(id, 'broadcast_sent', async (tx, row) => {
        await settleWithdrawal(tx, row);
        return { tx_hash: txHash, completed_at: new Date(), last_broadcast_error: '' };
      });
    },

    /** The network refused it for good: CANCELLED, hold returned, p2p.finance.withdrawal_failed. */
    async failWithdrawal(id: string, reason: string): Promise<WithdrawalSnapshot> {
      return move(id, 'broadcast_rejected', async (tx, row) => {
        await releaseWithdrawalHold(tx, row);
        return { cancel_reason: reason, cancelled_by: 'chain', cancelled_at: new Date() };
      });
    },
  };
}
