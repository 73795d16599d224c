/** A trader's own requisites (the trader app) and the operators' approval queue. */
import type { Db } from '../sql';
import type { KeyRing } from '../../domain/crypto/key-ring';
import { sealRequisiteNumbers } from './requisite-secrets';
import { opened, type RequisiteRow, type StoredRequisiteRow } from './traders';

export type RequisiteWithMethod = RequisiteRow & { payment_method: string; currency: string };
type StoredWithMethod = StoredRequisiteRow & { payment_method: string; currency: string };

/** A trader's requisites, oldest first, each with its method's slug (the numbers opened: the trader's own). */
export async function requisitesOfTrader(db: Db, ring: KeyRing, traderId: string): Promise<RequisiteWithMethod[]> {
  const rows = await db<StoredWithMethod[]>`
    select r.*, p.slug as payment_method, p.currency_code as currency from requisites r join payment_methods p on p.id = r.payment_method_id
    where r.trader_id = ${traderId} order by r.created_at, r.id`;
  return rows.map((r) => opened(ring, r));
}

/** One requisite of this trader (a foreign one is absent: 404), locked for a move when `lock`. */
export async function requisiteOfTrader(db: Db, ring: KeyRing, traderId: string | undefined, requisiteId: string, lock = false) {
  const [row] = await db<StoredWithMethod[]>`
    select r.*, p.slug as payment_method, p.currency_code as currency from requisites r join payment_methods p on p.id = r.payment_method_id
    where r.id = ${requisiteId} ${traderId === undefined ? db`` : db`and r.trader_id = ${traderId}`}
    ${lock ? db`for no key update of r` : db``}`;
  return row ? (opened(ring, row) as RequisiteWithMethod) : undefined;
}

export interface RequisiteChanges {
  card_number?: string;
  phone_number?: string;
  iban?: string;
  holder_name?: string;
  bank_name?: string;
  min_amount?: bigint;
  max_amount?: bigint;
  daily_limit?: bigint | null;
  daily_count_limit?: number | null;
  monthly_limit?: bigint | null;
  max_live_deals?: number | null;
  cooldown_seconds?: number;
  status?: string;
  rejection_reason?: string;
  reviewed_at?: Date | null;
}

/** The columns a move sets as given; the numbers are sealed (requisite-secrets.ts). */
const CHANGEABLE = [
  'holder_name',
  'bank_name',
  'min_amount',
  'max_amount',
  'daily_limit',
  'daily_count_limit',
  'monthly_limit',
  'max_live_deals',
  'cooldown_seconds',
  'status',
  'rejection_reason',
  'reviewed_at',
] as const;

/** Applies a move's changes to `before` (the locked requisite); a new number seals the requisite's numbers anew. */
export async function updateRequisite(db: Db, ring: KeyRing, before: RequisiteRow, changes: RequisiteChanges): Promise<RequisiteRow> {
  const numbersChange = changes.card_number !== undefined || changes.phone_number !== undefined || changes.iban !== undefined;
  const values: Record<string, unknown> = {
    ...Object.fromEntries(CHANGEABLE.filter((c) => changes[c] !== undefined).map((c) => [c, changes[c] ?? null])),
    ...(numbersChange
      ? sealRequisiteNumbers(ring, before.id, {
          card_number: changes.card_number ?? before.card_number,
          phone_number: changes.phone_number ?? before.phone_number,
          iban: changes.iban ?? before.iban,
        })
      : {}),
    updated_at: new Date(),
  };
  const [row] = await db<StoredRequisiteRow[]>`update requisites set ${db(values)} where id = ${before.id} returning *`;
  return opened(ring, row!);
}

/** Requisites waiting for an operator's approval, oldest first, with their trader's name. */
export async function pendingRequisites(db: Db, ring: KeyRing, limit: number) {
  const rows = await db<(StoredWithMethod & { trader_name: string })[]>`
    select r.*, p.slug as payment_method, p.currency_code as currency, t.name as trader_name
    from requisites r join payment_methods p on p.id = r.payment_method_id join traders t on t.id = r.trader_id
    where r.status = 'PENDING_APPROVAL' order by r.created_at, r.id limit ${limit}`;
  return rows.map((r) => opened(ring, r));
}

/** The tenant's active payment methods a trader may add a requisite for, with their currency and requisite types. */
export function methodsForTrader(db: Db, traderId: string) {
  return db<{ slug: string; name: string; currency: string; exponent: number; requisite_types: string[] }[]>`
    select p.slug, p.name, p.currency_code as currency, coalesce(c.exponent, 2)::int as exponent, p.requisite_types
    from payment_methods p join traders t on t.tenant_id = p.tenant_id
    left join currencies c on c.tenant_id = p.tenant_id and c.code = p.currency_code
    where t.id = ${traderId} and p.status = 'ACTIVE' order by p.slug`;
}
