/**
 * How the deal steps write a deal's move: the locked status check against the state table (a
 * safety net: the deal's workflow decided the move), the new status, its outbox events and the
 * operator's audit row, in one transaction. (The workflows call their activities "steps",
 * workflows/activity-proxies.ts; this module is what those steps share.)
 */
import type { ActivityDeps } from './deps';
import type { Db } from '../db/sql';
import { FailedPrecondition, NotFound } from '../domain/errors';
import { dealEventPayload } from '../domain/records/deal-info';
import { withSealedTarget } from '../db/queries/requisite-secrets';
import type { EventType } from '../domain/events/event-types';
import { allowsFrom, type Transition } from '../domain/state/state-machine';
import { lockDeal, setDealStatus, type DealRow, type StepChanges } from '../db/queries/deals';
import { writeOutboxEvents } from '../db/queries/outbox';
import { ensureWallet } from '../db/queries/wallets';
import { insertAudit } from '../db/queries/audit';
import type { AuditActor } from '../domain/audit';
import { auditedDeal } from './audit-views';

/** An operator's move: its audit row is written in the move's transaction. */
export interface StepAudit {
  actor: AuditActor | undefined;
  action: string;
}

export function dealMoves({ sql, config }: Pick<ActivityDeps, 'sql' | 'config'>) {
  /** A deal event as the outbox holds it; `discriminator` makes its id unique per occurrence (the status, 'created', a version). */
  const outboxEvent = (row: DealRow, type: EventType, discriminator: string | number, extra: Record<string, unknown> = {}) => ({
    merchantId: row.merchant_id,
    dealId: row.id,
    type,
    discriminator,
    payload: { ...dealEventPayload(withSealedTarget(row), config.CHECKOUT_BASE_URL), ...extra },
  });
  /** A deal event in the outbox. */
  const event = (tx: Db, row: DealRow, type: EventType, discriminator: string | number, extra: Record<string, unknown> = {}) =>
    writeOutboxEvents(tx, [outboxEvent(row, type, discriminator, extra)]);
  /** Several events of a deal, in this order, in one statement: each `[row, type, discriminator]`. */
  const events = (tx: Db, list: [DealRow, EventType, string | number][]) =>
    writeOutboxEvents(
      tx,
      list.map(([row, type, d]) => outboxEvent(row, type, d)),
    );

  /** Sets the locked deal's status to the move's target and writes the move's events. */
  async function applyMove(tx: Db, row: DealRow, move: Transition<string>, changes: StepChanges = {}): Promise<DealRow> {
    const updated = await setDealStatus(tx, row, move.to!, changes);
    await events(
      tx,
      move.events.map((type) => [updated, type, move.to!] as [DealRow, EventType, string]),
    );
    return updated;
  }

  /**
   * A move of the deal's table (domain/state/payin.ts, domain/state/payout.ts) with its side effects and
   * event. When the deal is already in the move's target (a retry after commit) nothing changes
   * and the row is returned; from any state but the move's sources it is refused. An operator's
   * move (`audit` with an actor) writes its audit row, before and after, in the same transaction.
   */
  async function transition(
    dealId: string,
    move: Transition<string>,
    effects: (tx: Db, row: DealRow) => Promise<StepChanges> | Promise<void>,
    audit?: StepAudit,
  ): Promise<DealRow> {
    return sql.begin(async (tx) => {
      const row = await lockDeal(tx, dealId);
      if (!row) throw new NotFound('deal not found');
      if (row.status === move.to) return row;
      if (!allowsFrom(move, row.status)) throw new FailedPrecondition(`deal is ${row.status}; cannot move to ${move.to}`);
      const updated = await applyMove(tx, row, move, (await effects(tx, row)) ?? {});
      await auditDeal(tx, audit, row, updated);
      return updated;
    });
  }

  /** The audit row of an operator's move of a deal (none without an actor: the workflow's own moves — a timer, a full reconciliation's completion — and the payer's). */
  async function auditDeal(tx: Db, audit: StepAudit | undefined, before: DealRow, after: DealRow) {
    if (audit?.actor)
      await insertAudit(tx, audit.actor, {
        action: audit.action,
        objectType: 'deal',
        objectId: after.id,
        before: auditedDeal(before),
        after: auditedDeal(after),
      });
  }

  const walletOf = async (tx: Db, ownerType: 'merchant' | 'trader', ownerId: string) => (await ensureWallet(tx, ownerType, ownerId, 'USDT')).id;

  return { event, events, applyMove, transition, auditDeal, walletOf };
}
