/**
 * PayIn steps, the moves of PAYIN_TRANSITIONS (domain/state/payin.ts) that the deal's workflow decided.
 * Each is one Postgres transaction that checks the deal's status again under a row lock (a safety
 * net), moves money through keyed ledger postings (db/queries/postings.ts) and writes its outbox
 * event, so an activity retry after a commit is a no-op that returns the same snapshot.
 */
import { virtualDeviceKeys } from '../domain/crypto/device-signature';
import type { ActivityDeps } from './deps';
import type { Db } from '../db/sql';
import { domainErrorFromKind, FailedPrecondition, InvalidArgument, NotFound } from '../domain/errors';
import { newCheckoutHash, newId } from '../domain/ids';
import { fiatToUsdtCents } from '../domain/money';
import { amountChangeRefusal, amountMatch, amountToPay, blocksAutocompletion, PAYIN_TRANSITIONS, payinMoney, payinRefusal } from '../domain/state/payin';
import { allowsFrom } from '../domain/state/state-machine';
import { currencyExponent } from '../db/queries/catalog';
import { applyAmountChange, findAmountChange, findDeal, insertDeal, lockDeal, recordReceivedAmount, type DealRow } from '../db/queries/deals';
import { abandonCreate, claimCreate } from '../db/queries/create-fence';
import { checkDailyCap } from '../db/queries/limits';
import { lockMerchantForCreate } from '../db/queries/merchant-world';
import { claimRequisite, LIVE_AMOUNT_INDEX, liveAmountTaken, type MatchedRequisite, type MatchRequest } from '../db/queries/matching';
import { claimThroughPass } from '../db/queries/passes';
import { insertRoutingDecision } from '../db/queries/routing';
import type { RoutingReason } from '../domain/routing';
import { postEscrowLock, postEscrowRelease, postFeeDistribution, postPayinCompletion } from '../db/queries/postings';
import { currentWorkflowRun } from './deadline';
import { dealMoves } from './deal-moves';
import { quoteNewDeal } from '../db/queries/catalog';
import { payinSnapshot } from './snapshots';
import type { CreatePayinInput, PayinSnapshot } from '../workflows/contracts/payin';
import type { AuditActor } from '../domain/audit';
import { insertAudit } from '../db/queries/audit';
import { auditedDeal } from './audit-views';
import { raiseNotReceivedAlert, recordNotReceived } from '../db/queries/trader-deals';

export function createPayinActivities(deps: ActivityDeps) {
  const { sql, config } = deps;
  const moves = dealMoves(deps);
  const traderWallet = (tx: Db, row: DealRow) => moves.walletOf(tx, 'trader', row.trader_id!);

  /** Returns the escrow to the trader: frozen → available. */
  const releaseEscrow = async (tx: Db, row: DealRow, step: string) => {
    await postEscrowRelease(tx, row, await traderWallet(tx, row), step);
  };

  return {
    /** Matching, escrow and the deal row in one transaction; nothing is left behind when no requisite fits. */
    async createPayinDeal(input: CreatePayinInput): Promise<PayinSnapshot> {
      // The decision's reason, counted once the create commits (a retried or replayed create counts none).
      let routed: RoutingReason | undefined;
      const snapshot = await sql.begin(async (tx) => {
        routed = undefined;
        const existing = await claimCreate<DealRow>(tx, 'deals', input.dealId, currentWorkflowRun());
        if (existing) return payinSnapshot(existing);
        // The merchant's world, settled against the operator's switch before anything reads it (docs/reliability.md, "Worlds").
        const { sandbox } = await lockMerchantForCreate(tx, input.merchantId);
        const { amount, merchant, currency, rateMicro, amountUsdt, dailyLimit } = await quoteNewDeal(tx, input, 'buy');
        const money = payinMoney(amountUsdt, merchant.payin_fee_bps, input.isClientCommission);

        await checkDailyCap(tx, input.merchantId, amount, dailyLimit);
        const request: MatchRequest = {
          paymentMethodId: input.paymentMethodId,
          amount,
          escrowUsdt: money.escrow,
          payerBank: input.payerBank,
          dealType: 'PAYIN',
          heartbeatTimeoutSeconds: config.TRADER_HEARTBEAT_TIMEOUT_SECONDS,
          explorationPermille: config.ROUTING_EXPLORATION_PERMILLE,
          deviceHeartbeatTimeoutSeconds: config.DEVICE_HEARTBEAT_TIMEOUT_SECONDS,
          // A sandbox merchant's deal goes to the sandbox trader only (db/queries/matching.ts).
          sandbox: sandbox
            ? {
                tenantId: input.tenantId,
                dealType: 'PAYIN' as const,
                virtualDeviceKey: virtualDeviceKeys(config.SECRETS_ENCRYPTION_KEY, input.tenantId).publicKey,
              }
            : undefined,
        };
        // A matching pass of the merchant routes the deal past the cascade (db/queries/passes.ts).
        const passDeal = {
          merchantId: input.merchantId,
          dealId: input.dealId,
          amount,
          currencyId: currency.id,
          paymentMethodId: input.paymentMethodId,
          arrivedAt: input.arrivedAt,
        };
        const noTrader = () =>
          new FailedPrecondition('no trader is available for this payment method and amount right now; retry later with the same idempotency_key');
        let match = (await claimThroughPass(tx, passDeal, request)) ?? (await claimRequisite(tx, request));
        if (!match) throw noTrader();

        // One live PayIn per requisite and amount: the matcher's check under the requisite's lock
        // decides; should a concurrent create win anyway, the unique index refuses this insert
        // inside a savepoint and the deal is matched again without that requisite.
        const lost: string[] = [];
        let row: DealRow | undefined;
        while (!row) {
          const claimed: MatchedRequisite = match;
          row = await tx
            .savepoint((sp) =>
              insertDeal(sp, {
                id: input.dealId,
                tenantId: input.tenantId,
                merchantId: input.merchantId,
                dealType: 'PAYIN',
                status: PAYIN_TRANSITIONS.create.to!,
                idempotencyKey: input.idempotencyKey,
                amount,
                currency: input.currency,
                clientId: input.clientId,
                paymentMethodId: input.paymentMethodId,
                requisiteId: claimed.requisite_id,
                traderId: claimed.trader_id,
                checkoutHash: newCheckoutHash(),
                description: input.description,
                callbackUrl: input.callbackUrl,
                payerBank: input.payerBank,
                isClientCommission: input.isClientCommission,
                amountUsdt,
                exchangeRateMicro: rateMicro,
                feeUsdt: money.fee,
                feeBps: merchant.payin_fee_bps,
                escrowUsdt: money.escrow,
                paymentTimeoutSeconds: config.PAYIN_TIMEOUT_SECONDS,
              }),
            )
            .catch((error: { code?: string; constraint_name?: string }) => {
              if (error.code !== '23505' || error.constraint_name !== LIVE_AMOUNT_INDEX) throw error;
              return undefined;
            });
          if (row) break;
          lost.push(claimed.requisite_id);
          const next = await claimRequisite(tx, { ...request, excludeRequisiteIds: lost });
          if (!next) throw noTrader();
          match = next;
        }
        // Why this requisite, with the deal: a rolled-back create leaves no decision (docs/routing.md).
        await insertRoutingDecision(tx, row.id, match.decision);
        routed = match.decision.reason;
        await postEscrowLock(tx, { dealId: row.id, version: 1n, traderWalletId: match.trader_wallet_id, amount: money.escrow });
        await moves.events(tx, [
          [{ ...row, status: 'INITIALIZED' }, 'deal.created', 'created'],
          [row, 'deal.escrow_locked', 'ESCROW_LOCKED'],
        ]);
        return payinSnapshot(row);
      });
      if (routed) deps.metrics?.routingDecisions.inc({ reason: routed });
      return snapshot;
    },

    /**
     * The run gives its create up (db/queries/create-fence.ts): writes the run's tombstone, so no
     * attempt of the create can commit after it, and answers the deal's snapshot if one did, else null.
     */
    async abandonPayinCreate(dealId: string): Promise<PayinSnapshot | null> {
      const row = await abandonCreate<DealRow>(sql, 'deals', dealId, currentWorkflowRun());
      return row ? payinSnapshot(row) : null;
    },

    async markPaymentNotified(dealId: string): Promise<PayinSnapshot> {
      return payinSnapshot(await moves.transition(dealId, PAYIN_TRANSITIONS.notify_payment, async () => {}));
    },

    /**
     * The trader confirmed receipt: PAYMENT_VERIFIED and, unless the reconciliation blocks
     * autocompletion (partial, overpaid), COMPLETED with the escrow settled — both moves and their
     * events in one transaction, one step. A retry after the commit finds the deal moved and
     * answers it. A trader's confirmation (`receivedAmount`) records what arrived first, as a
     * reconciliation does (received_amount, amount_match_status), so only a full payment completes.
     */
    async confirmPayin(dealId: string, actor: AuditActor, receivedAmount?: string): Promise<PayinSnapshot> {
      return sql.begin(async (tx) => {
        let row = await lockDeal(tx, dealId);
        if (!row) throw new NotFound('deal not found');
        const { confirm_payment: confirm, complete } = PAYIN_TRANSITIONS;
        if (row.status === complete.to) return payinSnapshot(row);
        const before = auditedDeal(row);
        if (row.status !== confirm.to) {
          if (!allowsFrom(confirm, row.status)) throw new FailedPrecondition(`deal is ${row.status}; cannot move to ${confirm.to}`);
          // A trader's confirmation says what arrived: recorded as a reconciliation is, before the move it decides.
          if (receivedAmount !== undefined) {
            const received = BigInt(receivedAmount);
            row = await recordReceivedAmount(tx, dealId, received, amountMatch(amountToPay(row), received));
          }
          row = await moves.applyMove(tx, row, confirm);
        }
        if (!blocksAutocompletion(row.amount_match_status)) {
          await postPayinCompletion(tx, row, await traderWallet(tx, row));
          row = await moves.applyMove(tx, row, complete);
        }
        // The confirmation and its audit row in one transaction (a retry writes it once).
        await insertAudit(tx, actor, { action: 'deal.confirm', objectType: 'deal', objectId: dealId, before, after: auditedDeal(row) });
        return payinSnapshot(row);
      });
    },

    /**
     * Escrow settles: the trader's frozen USDT becomes the merchant's pending credit and the
     * platform's pending fee. Without an actor it is the workflow's own move (a full
     * reconciliation releasing a blocked completion): no audit row of its own.
     */
    async completePayin(dealId: string, actor?: AuditActor): Promise<PayinSnapshot> {
      return payinSnapshot(
        await moves.transition(
          dealId,
          PAYIN_TRANSITIONS.complete,
          async (tx, row) => {
            await postPayinCompletion(tx, row, await traderWallet(tx, row));
          },
          { actor, action: 'deal.complete' },
        ),
      );
    },

    async expirePayin(dealId: string): Promise<PayinSnapshot> {
      try {
        return payinSnapshot(await moves.transition(dealId, PAYIN_TRANSITIONS.expire, (tx, row) => releaseEscrow(tx, row, 'release')));
      } catch (error) {
        // The timer's move found the deal taken out of the expirable states by another move whose
        // answer the run never recorded (an appeal opened just before a worker died): nothing
        // expires, and the run follows the deal as it is rather than failing with its hold live.
        if (!(error instanceof FailedPrecondition)) throw error;
        const row = await findDeal(sql, dealId);
        if (!row) throw error;
        return payinSnapshot(row);
      }
    },

    async cancelPayin(dealId: string, reason: string): Promise<PayinSnapshot> {
      return payinSnapshot(
        await moves.transition(dealId, PAYIN_TRANSITIONS.cancel, async (tx, row) => {
          await releaseEscrow(tx, row, 'release');
          return { cancel_reason: reason };
        }),
      );
    },

    /**
     * Records what the payer actually paid; full / partial / overpaid against what the payer was
     * asked to pay — with the operator's audit row in the same transaction (a retry of the same
     * request writes it once).
     */
    async recordReconciliation(dealId: string, receivedAmount: string, actor: AuditActor): Promise<PayinSnapshot> {
      return sql.begin(async (tx) => {
        const row = await lockDeal(tx, dealId);
        if (!row) throw new NotFound('deal not found');
        const refusal = payinRefusal('reconcile', row.status);
        if (refusal) throw new FailedPrecondition(refusal.message);
        const received = BigInt(receivedAmount);
        const updated = await recordReceivedAmount(tx, dealId, received, amountMatch(amountToPay(row), received));
        await moves.auditDeal(tx, { actor, action: 'deal.reconcile' }, row, updated);
        return payinSnapshot(updated);
      });
    },

    /**
     * The trader reports the payment as not received: the report on the deal, an operator alert
     * and the trader's audit row, in one transaction; the deal's status stays (it waits for its
     * expiry, an appeal or an operator).
     */
    async reportPayinNotReceived(dealId: string, reason: string, actor: AuditActor): Promise<PayinSnapshot> {
      return sql.begin(async (tx) => {
        const row = await lockDeal(tx, dealId);
        if (!row) throw new NotFound('deal not found');
        const refusal = payinRefusal('report_not_received', row.status);
        if (refusal) throw new FailedPrecondition(refusal.message);
        const updated = await recordNotReceived(tx, dealId, reason);
        const raised = await raiseNotReceivedAlert(tx, dealId, reason);
        if (raised) deps.log.warn({ dealId }, 'payin reported not received by its trader: operator attention needed');
        await moves.auditDeal(tx, { actor, action: 'deal.not_received' }, row, updated);
        return payinSnapshot(updated);
      });
    },

    /** After the fee delay: pending credits become available, and the platform's fee is earned. */
    async distributePayinFee(dealId: string): Promise<void> {
      await sql.begin(async (tx) => {
        const row = await lockDeal(tx, dealId);
        if (row?.status !== 'COMPLETED') throw new FailedPrecondition('only a completed deal distributes its fee');
        await postFeeDistribution(tx, row);
      });
    },

    /**
     * Operator amount change, in one transaction: amount_usdt at the deal's own rate, the escrow
     * hold of the old version released and one for the new version locked, amount_version + 1, an
     * audit row and deal.amount_changed. Same key + same amount replays.
     */
    async changePayinAmount(input: {
      dealId: string;
      newAmount: string;
      reason: string;
      idempotencyKey: string;
      expectedAmountVersion: string;
      operatorId: string;
      /** Who asked: its audit row is written with the change. */
      actor: AuditActor;
    }): Promise<{ snapshot: PayinSnapshot; replayed: boolean }> {
      return sql.begin(async (tx) => {
        const row = await lockDeal(tx, input.dealId);
        if (!row) throw new NotFound('deal not found');
        const newAmount = BigInt(input.newAmount);
        const previous = await findAmountChange(tx, row.id, input.idempotencyKey);
        const refusal = amountChangeRefusal(
          { status: row.status, amountVersion: row.amount_version },
          { newAmount, expectedVersion: BigInt(input.expectedAmountVersion), previousAmount: previous?.new_amount },
        );
        if (refusal) throw domainErrorFromKind(refusal.kind, refusal.message)!;
        if (previous) return { snapshot: payinSnapshot(row), replayed: true };
        const exponent = await currencyExponent(tx, row.tenant_id, row.currency);
        const newUsdt = fiatToUsdtCents(newAmount, exponent!, row.exchange_rate_micro);
        if (newUsdt <= 0n) throw new InvalidArgument('amount_fiat is too small: it converts to 0 USDT cents');
        // One live PayIn per requisite and amount (db/queries/matching.ts): a refusal, not a retried unique violation.
        if (await liveAmountTaken(tx, row, newAmount)) {
          throw new FailedPrecondition("another live PayIn of this amount is on the deal's requisite; the payer could not be told apart");
        }
        const money = payinMoney(newUsdt, row.fee_bps, row.is_client_commission);
        const version = row.amount_version + 1n;
        // The old escrow back to the trader's wallet, the new one taken from it (one wallet lookup).
        const wallet = await traderWallet(tx, row);
        await postEscrowRelease(tx, row, wallet, `escrow-release:v${row.amount_version}`);
        await postEscrowLock(tx, { dealId: row.id, version, traderWalletId: wallet, amount: money.escrow });
        const updated = await applyAmountChange(tx, row, {
          id: newId(),
          idempotencyKey: input.idempotencyKey,
          operatorId: input.operatorId,
          reason: input.reason,
          newAmount,
          newAmountUsdt: newUsdt,
          feeUsdt: money.fee,
          escrowUsdt: money.escrow,
          version,
          amountMatchStatus: row.amount_match_status === '' ? '' : amountMatch(amountToPay({ ...row, amount: newAmount }), row.received_amount),
        });
        await moves.event(tx, updated, 'deal.amount_changed', version.toString(), {
          old_amount: row.amount.toString(),
          amount: newAmount.toString(),
          amount_version: version.toString(),
        });
        await insertAudit(tx, input.actor, {
          action: 'deal.amount_change',
          objectType: 'deal',
          objectId: row.id,
          before: auditedDeal(row),
          after: { ...auditedDeal(updated), reason: input.reason, idempotency_key: input.idempotencyKey },
        });
        return { snapshot: payinSnapshot(updated), replayed: false };
      });
    },
  };
}
