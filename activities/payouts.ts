/**
 * PayOut steps, the moves of PAYOUT_TRANSITIONS (domain/state/payout.ts). The merchant's USDT hold
 * (amount_usdt at the SELL rate plus the payout fee) moves available → frozen at creation;
 * COMPLETED debits it (the trader is paid amount_usdt, the platform the fee); FAILED and EXPIRED
 * return it. One transaction per step, keyed postings (db/queries/postings.ts).
 */
import { virtualDeviceKeys } from '../domain/crypto/device-signature';
import type { ActivityDeps } from './deps';
import type { AuditActor } from '../domain/audit';
import { FailedPrecondition, InvalidArgument, NotFound } from '../domain/errors';
import { payoutHold } from '../domain/money';
import type { EventType } from '../domain/events/event-types';
import { PAYOUT_TRANSITIONS, payoutKeyTaken, payoutRefusal, payoutSources } from '../domain/state/payout';
import { raiseOverduePayoutAlert, resolveDealAlerts } from '../db/queries/alerts';
import { insertDeal, lockDeal, matchPayoutDeal, type DealRow } from '../db/queries/deals';
import { cardDataRing, sealPayoutTarget } from '../db/queries/requisite-secrets';
import { abandonCreate, claimCreate } from '../db/queries/create-fence';
import { currentWorkflowRun } from './deadline';
import { checkDailyCap } from '../db/queries/limits';
import { lockMerchantForCreate } from '../db/queries/merchant-world';
import { claimRequisite } from '../db/queries/matching';
import { insertRoutingDecision } from '../db/queries/routing';
import type { RoutingReason } from '../domain/routing';
import { postPayoutCompletion, postPayoutHold, postPayoutRelease } from '../db/queries/postings';
import { findRequisite } from '../db/queries/traders';
import { lockAvailable } from '../db/queries/wallets';
import type { CreatePayoutInput, PayoutProof, PayoutSnapshot } from '../workflows/contracts/payout';
import { servingRequisite, setPayoutProof } from '../db/queries/trader-deals';
import { dealMoves } from './deal-moves';
import { quoteNewDeal } from '../db/queries/catalog';
import { payoutSnapshot } from './snapshots';

export function createPayoutActivities(deps: ActivityDeps) {
  const { sql, config } = deps;
  const moves = dealMoves(deps);

  return {
    /** Hold, synchronous auto-matching and the deal row in one transaction. */
    async createPayoutDeal(input: CreatePayoutInput): Promise<PayoutSnapshot> {
      // The decision's reason, counted once the create commits (an unassigned payout has none yet).
      let routed: RoutingReason | undefined;
      const snapshot = await sql
        .begin(async (tx) => {
          routed = undefined;
          const existing = await claimCreate<DealRow>(tx, 'deals', input.dealId, currentWorkflowRun());
          if (existing) return payoutSnapshot(existing);
          // The merchant's world, settled against the operator's switch before anything reads it (docs/reliability.md, "Worlds").
          const { sandbox } = await lockMerchantForCreate(tx, input.merchantId);
          const { amount, merchant, rateMicro, amountUsdt, dailyLimit } = await quoteNewDeal(tx, input, 'sell');
          const { fee, hold } = payoutHold(amountUsdt, merchant.payout_fee_bps);

          await checkDailyCap(tx, input.merchantId, amount, dailyLimit);
          const available = await lockAvailable(tx, input.walletId);
          if (available === undefined || available < hold) {
            throw new FailedPrecondition(`insufficient balance: the hold needs ${hold} USDT cents, available ${available ?? 0n}`);
          }
          const match = await claimRequisite(tx, {
            paymentMethodId: input.paymentMethodId,
            amount,
            escrowUsdt: 0n,
            payerBank: input.targetBank,
            dealType: 'PAYOUT',
            heartbeatTimeoutSeconds: config.TRADER_HEARTBEAT_TIMEOUT_SECONDS,
            explorationPermille: config.ROUTING_EXPLORATION_PERMILLE,
            deviceHeartbeatTimeoutSeconds: config.DEVICE_HEARTBEAT_TIMEOUT_SECONDS,
            sandbox: sandbox
              ? { tenantId: input.tenantId, dealType: 'PAYOUT', virtualDeviceKey: virtualDeviceKeys(config.SECRETS_ENCRYPTION_KEY, input.tenantId).publicKey }
              : undefined,
          });
          const created = match ? PAYOUT_TRANSITIONS.create_matched : PAYOUT_TRANSITIONS.create_unassigned;
          const row = await insertDeal(tx, {
            id: input.dealId,
            tenantId: input.tenantId,
            merchantId: input.merchantId,
            dealType: 'PAYOUT',
            status: created.to!,
            idempotencyKey: input.idempotencyKey,
            amount,
            currency: input.currency,
            paymentMethodId: input.paymentMethodId,
            requisiteId: match?.requisite_id ?? null,
            traderId: match?.trader_id ?? null,
            target: sealPayoutTarget(cardDataRing(config), input.dealId, input.targetRequisite, input.requisiteDetails),
            targetName: input.targetName,
            targetBank: input.targetBank,
            walletId: input.walletId,
            amountUsdt,
            exchangeRateMicro: rateMicro,
            feeUsdt: fee,
            feeBps: merchant.payout_fee_bps,
            escrowUsdt: hold,
            assignSlaSeconds: config.PAYOUT_ASSIGN_SLA_SECONDS,
            ...(match ? { transferSlaSeconds: config.PAYOUT_TRANSFER_SLA_SECONDS } : {}),
          });
          if (match) {
            await insertRoutingDecision(tx, row.id, match.decision);
            routed = match.decision.reason;
          }
          await postPayoutHold(tx, { dealId: row.id, walletId: input.walletId, amount: hold });
          await moves.events(
            tx,
            created.events.map((type) => [row, type, 'created'] as [typeof row, EventType, string]),
          );
          return payoutSnapshot(row);
        })
        .catch((error: { code?: string; constraint_name?: string }) => {
          if (error.code === '23505' && error.constraint_name === 'deals_payout_key_tenant') {
            throw payoutKeyTaken();
          }
          throw error;
        });
      if (routed) deps.metrics?.routingDecisions.inc({ reason: routed });
      return snapshot;
    },

    /**
     * The run gives its create up (db/queries/create-fence.ts): writes the run's tombstone, so no
     * attempt of the create can commit after it, and answers the deal's snapshot if one did, else null.
     */
    async abandonPayoutCreate(dealId: string): Promise<PayoutSnapshot | null> {
      const row = await abandonCreate<DealRow>(sql, 'deals', dealId, currentWorkflowRun());
      return row ? payoutSnapshot(row) : null;
    },

    /** The retry worker: an UNASSIGNED payout looks for a free trader again. */
    async matchPayout(dealId: string): Promise<PayoutSnapshot> {
      let routed: RoutingReason | undefined;
      const snapshot = await sql.begin(async (tx) => {
        routed = undefined;
        const row = await lockDeal(tx, dealId);
        if (!row) throw new NotFound('deal not found');
        if (payoutRefusal('match', row.status)) return payoutSnapshot(row);
        const match = await claimRequisite(tx, {
          paymentMethodId: row.payment_method_id,
          amount: row.amount,
          escrowUsdt: 0n,
          payerBank: row.target_bank,
          dealType: 'PAYOUT',
          heartbeatTimeoutSeconds: config.TRADER_HEARTBEAT_TIMEOUT_SECONDS,
          explorationPermille: config.ROUTING_EXPLORATION_PERMILLE,
          deviceHeartbeatTimeoutSeconds: config.DEVICE_HEARTBEAT_TIMEOUT_SECONDS,
          sandbox: row.sandbox
            ? { tenantId: row.tenant_id, dealType: 'PAYOUT', virtualDeviceKey: virtualDeviceKeys(config.SECRETS_ENCRYPTION_KEY, row.tenant_id).publicKey }
            : undefined,
        });
        if (!match) return payoutSnapshot(row);
        const matched = await matchPayoutDeal(tx, dealId, { requisiteId: match.requisite_id, traderId: match.trader_id }, config.PAYOUT_TRANSFER_SLA_SECONDS);
        await insertRoutingDecision(tx, dealId, match.decision);
        routed = match.decision.reason;
        return payoutSnapshot(matched);
      });
      if (routed) deps.metrics?.routingDecisions.inc({ reason: routed });
      return snapshot;
    },

    /**
     * Operator override: assign an UNASSIGNED payout, or reassign a MATCHED one before the
     * transfer starts, to the given requisite and its trader. The deal then belongs to that
     * trader, with a new transfer window. A retry after commit finds it already done. The
     * operator's audit row is written in the same transaction.
     */
    async assignPayout(dealId: string, requisiteId: string, actor: AuditActor): Promise<PayoutSnapshot> {
      return sql.begin(async (tx) => {
        const row = await lockDeal(tx, dealId);
        if (!row) throw new NotFound('deal not found');
        const requisite = await findRequisite(tx, requisiteId);
        if (requisite?.status !== 'ACTIVE') throw new InvalidArgument('requisite_id must be an ACTIVE requisite');
        if (row.payment_method_id !== requisite.payment_method_id) {
          throw new InvalidArgument('the requisite is for another payment method than the payout');
        }
        // A sandbox payout only ever goes to the sandbox trader, a live one never does.
        if (requisite.sandbox !== row.sandbox)
          throw new InvalidArgument(row.sandbox ? 'a sandbox payout can only go to the sandbox trader' : 'the sandbox trader takes only sandbox payouts');
        if (row.status === 'MATCHED' && row.requisite_id === requisite.id) return payoutSnapshot(row);
        const refusal = payoutRefusal('assign', row.status);
        if (refusal) throw new FailedPrecondition(refusal.message);
        const updated = await matchPayoutDeal(tx, dealId, { requisiteId: requisite.id, traderId: requisite.trader_id }, config.PAYOUT_TRANSFER_SLA_SECONDS);
        await moves.auditDeal(tx, { actor, action: 'payout.assign' }, row, updated);
        return payoutSnapshot(updated);
      });
    },

    // The operator's moves: the audit row is written in the move's transaction.
    async startPayout(dealId: string, actor: AuditActor): Promise<PayoutSnapshot> {
      return payoutSnapshot(await moves.transition(dealId, PAYOUT_TRANSITIONS.start, async () => {}, { actor, action: 'payout.start' }));
    },

    /**
     * A trader takes an UNASSIGNED payout: MATCHED to the trader's ACTIVE requisite that serves it,
     * with a new transfer window, and the trader's audit row, in one transaction. A retry after
     * commit finds the payout the trader's already.
     */
    async takePayout(dealId: string, traderId: string, actor: AuditActor): Promise<PayoutSnapshot> {
      return sql.begin(async (tx) => {
        const row = await lockDeal(tx, dealId);
        if (!row) throw new NotFound('deal not found');
        if (row.status === 'MATCHED' && row.trader_id === traderId) return payoutSnapshot(row);
        const refusal = payoutRefusal('take', row.status);
        if (refusal) throw new FailedPrecondition(refusal.message);
        const requisite = await servingRequisite(tx, traderId, row);
        if (!requisite) throw new FailedPrecondition('none of your ACTIVE requisites can serve this payout (its payment method and amount)');
        const updated = await matchPayoutDeal(tx, dealId, { requisiteId: requisite.id, traderId }, config.PAYOUT_TRANSFER_SLA_SECONDS);
        await moves.auditDeal(tx, { actor, action: 'payout.take' }, row, updated);
        return payoutSnapshot(updated);
      });
    },

    /** The completion; a trader's carries its proof (the bank's reference, its file), kept on the deal in the same transaction. */
    async completePayout(dealId: string, actor: AuditActor, proof?: PayoutProof): Promise<PayoutSnapshot> {
      return payoutSnapshot(
        await moves.transition(
          dealId,
          PAYOUT_TRANSITIONS.complete,
          async (tx, row) => {
            if (proof) await setPayoutProof(tx, row.id, { bankReference: proof.bankReference, fileId: proof.fileId || null });
            await resolveDealAlerts(tx, row.id);
            await postPayoutCompletion(tx, row, await moves.walletOf(tx, 'trader', row.trader_id!));
          },
          { actor, action: 'payout.complete' },
        ),
      );
    },

    async failPayout(dealId: string, reason: string, actor: AuditActor): Promise<PayoutSnapshot> {
      return payoutSnapshot(
        await moves.transition(
          dealId,
          PAYOUT_TRANSITIONS.fail,
          async (tx, row) => {
            await resolveDealAlerts(tx, row.id);
            await postPayoutRelease(tx, row);
            return { failure_reason: reason };
          },
          { actor, action: 'payout.reject' },
        ),
      );
    },

    async expirePayout(dealId: string): Promise<PayoutSnapshot> {
      return payoutSnapshot(
        await moves.transition(dealId, PAYOUT_TRANSITIONS.expire_unassigned, async (tx, row) => {
          await postPayoutRelease(tx, row);
        }),
      );
    },

    /** The transfer SLA ran out before the trader started: EXPIRED, hold returned (the workflow checked the deadline). */
    async expireMatchedPayout(dealId: string): Promise<PayoutSnapshot> {
      return payoutSnapshot(
        await moves.transition(dealId, PAYOUT_TRANSITIONS.expire_matched, async (tx, row) => {
          await postPayoutRelease(tx, row);
        }),
      );
    },

    /**
     * A PROCESSING payout past its alert time: the trader may have sent the fiat, so the hold is
     * kept, and an operator is told (one alert row per deal, `GET /admin/alerts`, and a log line).
     */
    async flagOverduePayout(dealId: string): Promise<void> {
      // Raised only while the payout still waits for the operator's complete or reject.
      const alert = await raiseOverduePayoutAlert(sql, dealId, payoutSources('complete'));
      if (alert) deps.log.warn({ dealId, alertId: alert.id }, 'payout overdue in PROCESSING: operator action needed');
    },
  };
}
