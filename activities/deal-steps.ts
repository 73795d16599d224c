/** What every deal step shares: a locked status check, the move, and its outbox event, in one transaction. */
import type { ActivityDeps } from './index';
import type { Db } from '../db/sql';
import { FailedPrecondition, NotFound } from '../domain/errors';
import { dealEventPayload } from '../domain/deal-info';
import { lockDeal, type DealRow } from '../db/queries/deals';
import { writeOutboxEvent } from '../db/queries/outbox';
import { ensureWallet } from '../db/queries/wallets';

export type StepChanges = Partial<Record<'cancel_reason' | 'failure_reason', string>> & { requisite_id?: string; trader_id?: string };

export function dealSteps({ sql, config }: Pick<ActivityDeps, 'sql' | 'config'>) {
  const event = (tx: Db, row: DealRow, type: string, discriminator: string | number, extra: Record<string, unknown> = {}) =>
    writeOutboxEvent(tx, {
      merchantId: row.merchant_id,
      dealId: row.id,
      type,
      discriminator,
      payload: { ...dealEventPayload(row, config.CHECKOUT_BASE_URL), ...extra },
    });

  /**
   * Moves a deal from one of `from` to `to` with its side effects and event. When the deal is
   * already in `to` (a retry after commit) nothing changes and the row is returned.
   */
  async function transition(
    dealId: string,
    from: readonly string[],
    to: string,
    effects: (tx: Db, row: DealRow) => Promise<StepChanges | void>,
    eventType: string | undefined,
  ): Promise<DealRow> {
    return sql.begin(async (tx) => {
      const row = await lockDeal(tx, dealId);
      if (!row) throw new NotFound('deal not found');
      if (row.status === to) return row;
      if (!from.includes(row.status)) throw new FailedPrecondition(`deal is ${row.status}; cannot move to ${to}`);
      const changes = (await effects(tx, row)) ?? {};
      const [updated] = await tx<DealRow[]>`
        update deals set status = ${to}, updated_at = now(),
          cancel_reason = ${changes.cancel_reason ?? row.cancel_reason},
          failure_reason = ${changes.failure_reason ?? row.failure_reason},
          requisite_id = ${changes.requisite_id ?? row.requisite_id},
          trader_id = ${changes.trader_id ?? row.trader_id}
        where id = ${dealId} returning *`;
      if (eventType) await event(tx, updated!, eventType, to);
      return updated!;
    });
  }

  const walletOf = async (tx: Db, ownerType: 'merchant' | 'trader', ownerId: string) => (await ensureWallet(tx, ownerType, ownerId, 'USDT')).id;

  return { event, transition, walletOf };
}
