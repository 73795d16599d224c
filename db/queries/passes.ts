import type { Db, Tx } from '../sql';
import { Conflict } from '../../domain/errors';
import { claimRequisite, type MatchedRequisite, type MatchRequest } from './matching';
import { cursorColumn, newestFirst, olderThan, type KeysetCursor } from './keyset';

export interface PassRow {
  id: string;
  tenant_id: string;
  merchant_id: string;
  provider_id: string | null;
  amount: bigint;
  currency_id: string | null;
  payment_method_id: string | null;
  requisite_type: string | null;
  status: 'ACTIVE' | 'USED' | 'EXPIRED';
  expires_at: Date;
  used_deal_id: string | null;
  /** Clock time of the reservation (USED), null otherwise. */
  used_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertPass(
  db: Db,
  p: Pick<PassRow, 'id' | 'tenant_id' | 'merchant_id' | 'provider_id' | 'amount' | 'currency_id' | 'payment_method_id' | 'requisite_type'>,
  ttlSeconds: number,
): Promise<PassRow> {
  const [row] = await db<PassRow[]>`
    insert into passes (id, tenant_id, merchant_id, provider_id, amount, currency_id, payment_method_id, requisite_type, expires_at)
    values (${p.id}, ${p.tenant_id}, ${p.merchant_id}, ${p.provider_id}, ${p.amount}, ${p.currency_id}, ${p.payment_method_id},
      ${p.requisite_type}, now() + make_interval(secs => ${ttlSeconds}))
    returning *`;
  return row!;
}

export type ListedPass = PassRow & { cursor_ts: string };

export async function listPasses(db: Db, merchantId: string, statuses: string[] | undefined, limit: number, after?: KeysetCursor) {
  // ACTIVE past expires_at counts as EXPIRED even before its expiry step ran.
  const status = db`(case when status = 'ACTIVE' and expires_at <= now() then 'EXPIRED' else status end)`;
  return db<ListedPass[]>`
    select *, ${cursorColumn(db)}
    from passes
    where merchant_id = ${merchantId}
      ${statuses && statuses.length > 0 ? db`and ${status} = any(${statuses})` : db``}
      ${olderThan(db, after)}
    order by ${newestFirst(db)}
    limit ${limit}`;
}

class Unroutable extends Error {}

export interface PassDeal {
  merchantId: string;
  dealId: string;
  amount: bigint;
  currencyId: string;
  paymentMethodId: string;
  /** arrivalStamp() taken when the create request arrived; absent (older workflow inputs): no arrival check. */
  arrivedAt: string;
}

/**
 * The whitelist pass rule, inside the PayIn's creating transaction: an ACTIVE, unexpired pass of the
 * merchant whose non-empty fields (amount, currency_id, payment_method_id) match the deal is
 * reserved for it (USED, used_deal_id, used_at) and routes it to a requisite of the pass's
 * provider and requisite type, bypassing the cascade.
 *
 * - Single use, and a race is a 409 `pass was concurrently reserved`, never a silent cascade deal:
 *   when no pass could be reserved for this deal, and either a candidate was taken under it (it
 *   waited on the row and then saw USED) or a matching pass was reserved by another deal after
 *   this request arrived (`arrivedAt`: the create that committed first made the pass USED before
 *   this one read the candidates). A pass used before the request arrived is simply gone: the
 *   cascade routes the deal.
 * - When the pass's provider cannot take the deal (no fitting requisite, liquidity or daily
 *   limit), the reservation is rolled back with its savepoint: the pass stays ACTIVE for a later
 *   deal and this deal goes through the normal cascade (undefined).
 */
export async function claimThroughPass(tx: Tx, deal: PassDeal, request: MatchRequest): Promise<MatchedRequisite | undefined> {
  const matching = () => tx`
    merchant_id = ${deal.merchantId} and amount = ${deal.amount}
      and (currency_id is null or currency_id = ${deal.currencyId})
      and (payment_method_id is null or payment_method_id = ${deal.paymentMethodId})`;
  const candidates = await tx<{ id: string }[]>`
    select id from passes
    where ${matching()} and status = 'ACTIVE' and expires_at > now()
    order by created_at, id
    limit 10`;
  let lostRace = false;
  for (const candidate of candidates) {
    try {
      const outcome = await tx.savepoint(async (sp) => {
        const [pass] = await sp<PassRow[]>`
          update passes set status = 'USED', used_deal_id = ${deal.dealId}, used_at = clock_timestamp(), updated_at = now()
          where id = ${candidate.id} and status = 'ACTIVE' and expires_at > now()
          returning *`;
        if (!pass) return 'taken' as const;
        const match = await claimRequisite(sp, {
          ...request,
          pass: true,
          traderId: pass.provider_id ?? undefined,
          requisiteType: pass.requisite_type ?? undefined,
        });
        if (!match) throw new Unroutable();
        return match;
      });
      if (outcome === 'taken') lostRace = true;
      else return outcome as MatchedRequisite;
    } catch (error) {
      if (!(error instanceof Unroutable)) throw error;
    }
  }
  if (!lostRace) {
    const [reservedSince] = await tx`
      select 1 from passes
      where ${matching()} and status = 'USED' and used_at >= ${deal.arrivedAt}::text::timestamptz and used_deal_id <> ${deal.dealId}
      limit 1`;
    lostRace = reservedSince !== undefined;
  }
  if (lostRace) throw new Conflict('pass was concurrently reserved');
  return undefined;
}

/** A pass whose expires_at passed leaves ACTIVE (a USED pass stays USED). */
export async function expirePass(db: Db, passId: string): Promise<void> {
  await db`update passes set status = 'EXPIRED', updated_at = now() where id = ${passId} and status = 'ACTIVE' and expires_at <= now()`;
}
