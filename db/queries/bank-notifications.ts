/**
 * Bank notifications as devices forward them (docs/bank-notifications.md): stored once by their
 * hash, their text and the payer's name sealed under the card-data key ring, with what the parser
 * read beside them; matched exactly to one live PayIn of the device's requisites, or left for an
 * operator with the deals that could be meant.
 */
import { randomUUID } from 'node:crypto';
import type { KeyRing } from '../../domain/crypto/key-ring';
import { notificationHash } from '../../domain/crypto/device-signature';
import type { ParseResult } from '../../domain/bank-notifications/parse';
import { amountToPay, PAYIN_TERMINAL } from '../../domain/state/payin';
import type { Db, Sql, Tx } from '../sql';
import { noteMessage, takeNextSequence } from './bank-devices';
import { cursorColumn, type KeysetCursor, newestFirst, olderThan } from './keyset';

export type NotificationStatus = 'RECEIVED' | 'MATCHED' | 'UNMATCHED' | 'UNPARSED' | 'IGNORED' | 'ATTACHED' | 'DISMISSED';

export interface NotificationRow {
  id: string;
  device_id: string;
  trader_id: string;
  sequence: bigint;
  sender: string;
  received_at: Date;
  text_sealed: string;
  parser: string;
  parser_version: number;
  amount: bigint | null;
  currency: string | null;
  payer_name_sealed: string | null;
  card_tail: string;
  status: NotificationStatus;
  reason: string;
  deal_id: string | null;
  requisite_id: string | null;
  resolved_by: string;
  resolved_at: Date | null;
  resolution_note: string;
  created_at: Date;
  matched_at: Date | null;
}

const textAad = (id: string) => `bank_notification:${id}:text`;
const payerAad = (id: string) => `bank_notification:${id}:payer_name`;

/** The notification's text and payer's name, opened (operators' queue, the trader's list). */
export const openNotification = (ring: KeyRing, row: NotificationRow) => ({
  text: ring.open(row.text_sealed, textAad(row.id)),
  payer_name: row.payer_name_sealed === null ? '' : ring.open(row.payer_name_sealed, payerAad(row.id)),
});

interface NewNotification {
  id: string;
  deviceId: string;
  traderId: string;
  hash: Uint8Array;
  sequence: bigint;
  sender: string;
  receivedAt: Date;
  text: string;
  parser: string;
  parserVersion: number;
  credit?: { amount: bigint; currency: string; payerName?: string | undefined; cardTail?: string | undefined } | undefined;
}

/**
 * Stores a new notification: RECEIVED when it holds a credit (its workflow matches it), UNPARSED or
 * IGNORED otherwise. Undefined when its hash or its (device, sequence) is taken (the caller tells which).
 */
async function insertNotification(db: Db, ring: KeyRing, n: NewNotification): Promise<NotificationRow | undefined> {
  const status: NotificationStatus = n.credit ? 'RECEIVED' : n.parser === '' ? 'UNPARSED' : 'IGNORED';
  const [row] = await db<NotificationRow[]>`
    insert into bank_notifications (id, device_id, trader_id, hash, sequence, sender, received_at, text_sealed, parser, parser_version,
      amount, currency, payer_name_sealed, card_tail, status)
    values (${n.id}, ${n.deviceId}, ${n.traderId}, ${Buffer.from(n.hash)}, ${n.sequence}, ${n.sender}, ${n.receivedAt},
      ${ring.seal(n.text, textAad(n.id))}, ${n.parser}, ${n.parserVersion}, ${n.credit?.amount ?? null}, ${n.credit?.currency ?? null},
      ${n.credit?.payerName ? ring.seal(n.credit.payerName, payerAad(n.id)) : null}, ${n.credit?.cardTail ?? ''}, ${status})
    on conflict do nothing
    returning *`;
  return row;
}

/**
 * A device's notification, stored once: answered again when its hash is known (a resend, or a twin
 * sent at once), else inserted in the transaction that notes the device's message (its row lock
 * orders its messages) under a sequence number the device never used — 'used_sequence' otherwise,
 * 'not_paired' for a device no longer ACTIVE. 'next' takes the device's next number in one
 * statement (the sandbox's virtual device, whose concurrent deals send at once: none collides, none
 * is lost). Both doors use it: the API's device route (api/services/bank-notifications.ts) and the
 * virtual device's activity (activities/virtual-device.ts).
 */
export async function storeNotification(
  sql: Sql,
  ring: KeyRing,
  device: { deviceId: string; traderId: string },
  n: { sequence: bigint | 'next'; sender: string; text: string; receivedAt: Date },
  parsed: ParseResult,
): Promise<{ row: NotificationRow; replayed: boolean } | 'not_paired' | 'used_sequence'> {
  const hash = notificationHash({ deviceId: device.deviceId, sender: n.sender, receivedAt: n.receivedAt.toISOString(), text: n.text });
  return sql.begin(async (tx) => {
    const known = await findNotificationByHash(tx, hash);
    if (known) return { row: known, replayed: true };
    const sequence =
      n.sequence === 'next' ? await takeNextSequence(tx, device.deviceId) : (await noteMessage(tx, device.deviceId, n.sequence)) ? n.sequence : undefined;
    if (sequence === undefined) return 'not_paired' as const;
    const row = await insertNotification(tx, ring, {
      id: randomUUID(),
      deviceId: device.deviceId,
      traderId: device.traderId,
      hash,
      sequence,
      sender: n.sender,
      receivedAt: n.receivedAt,
      text: n.text,
      parser: parsed.parser,
      parserVersion: parsed.version,
      credit: parsed.credit,
    });
    if (row) return { row, replayed: false };
    // Under the device's row lock only this device writes: a taken hash is a twin sent at once, else the sequence was used.
    const twin = await findNotificationByHash(tx, hash);
    if (twin) return { row: twin, replayed: true };
    return 'used_sequence' as const;
  });
}

async function findNotificationByHash(db: Db, hash: Uint8Array): Promise<NotificationRow | undefined> {
  const [row] = await db<NotificationRow[]>`select * from bank_notifications where hash = ${Buffer.from(hash)}`;
  return row;
}

export async function findNotification(db: Db, id: string, options: { lock?: boolean } = {}): Promise<NotificationRow | undefined> {
  const [row] = await db<NotificationRow[]>`select * from bank_notifications where id = ${id} ${options.lock ? db`for update` : db``}`;
  return row;
}

export interface CandidateDeal {
  id: string;
  status: string;
  amount: bigint;
  fee_bps: number;
  is_client_commission: boolean;
  currency: string;
  requisite_id: string;
  merchant_id: string;
  merchant_name: string;
  payment_timeout_at: Date;
  created_at: Date;
  /** The requisite's tails, to tell two of the device's requisites apart by the card tail a message names. */
  card_tail: string;
  phone_tail: string;
  amount_to_pay: bigint;
}

/**
 * The deals a credit of the device may be for: the PayIns of its requisites in the credit's
 * currency, live ones and those that ended in the last day (money that arrived late), those whose
 * amount to pay is the credit's first, then the newest.
 */
export async function candidateDeals(db: Db, n: Pick<NotificationRow, 'device_id' | 'currency' | 'amount' | 'received_at'>): Promise<CandidateDeal[]> {
  const rows = await db<Omit<CandidateDeal, 'amount_to_pay'>[]>`
    select d.id, d.status, d.amount, d.fee_bps, d.is_client_commission, d.currency, d.requisite_id, d.merchant_id,
      m.name as merchant_name, d.payment_timeout_at, d.created_at, coalesce(r.card_tail, '') as card_tail, coalesce(r.phone_tail, '') as phone_tail
    from requisites r
    join deals d on d.requisite_id = r.id and d.deal_type = 'PAYIN' and d.parent_deal_id is null
    join merchants m on m.id = d.merchant_id
    where r.device_id = ${n.device_id} and d.currency = ${n.currency ?? ''}
      and (d.status <> all(${PAYIN_TERMINAL}) or d.updated_at > ${n.received_at}::timestamptz - interval '1 day')
    order by d.created_at desc
    limit 50`;
  const withAmount = rows.map((r) => ({ ...r, amount_to_pay: amountToPay(r) }));
  return withAmount.sort((a, b) => Number(b.amount_to_pay === n.amount) - Number(a.amount_to_pay === n.amount));
}

/**
 * Claims the deal for the notification (RECEIVED → MATCHED). The unique index
 * bank_notifications_one_per_deal lets one notification at most hold a deal: a second credit for
 * it fails here ('already_matched').
 */
export async function claimDeal(db: Tx, id: string, deal: { id: string; requisite_id: string }): Promise<'matched' | 'already_matched' | 'moved'> {
  try {
    return await db.savepoint(async (sp) => {
      const rows = await sp`
        update bank_notifications set status = 'MATCHED', deal_id = ${deal.id}, requisite_id = ${deal.requisite_id}, matched_at = now(), reason = ''
        where id = ${id} and status = 'RECEIVED' returning id`;
      return rows.length > 0 ? ('matched' as const) : ('moved' as const);
    });
  } catch (error) {
    if ((error as { code?: string; constraint_name?: string }).constraint_name === 'bank_notifications_one_per_deal') return 'already_matched';
    throw error;
  }
}

/** RECEIVED or MATCHED → UNMATCHED with its reason (the operators' queue). */
export async function markUnmatched(db: Db, id: string, reason: string, dealId?: string): Promise<NotificationRow | undefined> {
  const [row] = await db<NotificationRow[]>`
    update bank_notifications set status = 'UNMATCHED', reason = ${reason}, deal_id = ${dealId ?? null}, matched_at = null
    where id = ${id} and status in ('RECEIVED', 'MATCHED') returning *`;
  return row;
}

export interface QueueFilter {
  statuses: readonly NotificationStatus[];
  traderId?: string | undefined;
  deviceId?: string | undefined;
  after?: KeysetCursor | undefined;
  limit: number;
}

export interface QueueRow extends NotificationRow {
  trader_name: string;
  device_name: string;
  cursor_ts: string;
}

/** Notifications in these statuses, newest first (the operators' queue, a trader's list). */
export function listNotifications(db: Db, f: QueueFilter) {
  return db<QueueRow[]>`
    select *, ${cursorColumn(db)} from (
      select n.*, t.name as trader_name, dv.name as device_name
      from bank_notifications n
      join traders t on t.id = n.trader_id
      join bank_devices dv on dv.id = n.device_id
      where n.status = any(${f.statuses as string[]})
        ${f.traderId ? db`and n.trader_id = ${f.traderId}` : db``}
        ${f.deviceId ? db`and n.device_id = ${f.deviceId}` : db``}
    ) q
    where true ${olderThan(db, f.after)}
    order by ${newestFirst(db)}
    limit ${f.limit}`;
}

/** Notifications whose workflow has not finished after `seconds` (the sweep starts their workflow again). */
export function staleReceived(db: Db, seconds: number) {
  return db<{ id: string }[]>`
    select id from bank_notifications where status = 'RECEIVED' and created_at < now() - make_interval(secs => ${seconds}) limit 100`;
}

/** The notification that confirmed a deal, for the deal's timeline. */
export async function notificationOfDeal(db: Db, dealId: string): Promise<NotificationRow | undefined> {
  const [row] = await db<NotificationRow[]>`
    select * from bank_notifications where deal_id = ${dealId} and status in ('MATCHED', 'ATTACHED')`;
  return row;
}

/** The trader's and the device's names of a notification. */
export async function notificationNames(db: Db, row: Pick<NotificationRow, 'trader_id' | 'device_id'>) {
  const [names] = await db<{ trader_name: string; device_name: string }[]>`
    select (select name from traders where id = ${row.trader_id}) as trader_name, (select name from bank_devices where id = ${row.device_id}) as device_name`;
  return names!;
}

/**
 * An operator gives a queued notification to a deal (UNMATCHED/UNPARSED → ATTACHED), one statement:
 * of two operators, or two deals, one wins; 'deal_taken' when another notification holds the deal.
 */
export async function attachToDeal(
  tx: Tx,
  id: string,
  a: { dealId: string; requisiteId: string; by: string; note: string },
): Promise<NotificationRow | 'deal_taken' | undefined> {
  try {
    const [row] = await tx.savepoint(
      (sp) => sp<NotificationRow[]>`
        update bank_notifications set status = 'ATTACHED', deal_id = ${a.dealId}, requisite_id = ${a.requisiteId}, resolved_by = ${a.by},
          resolved_at = now(), resolution_note = ${a.note}
        where id = ${id} and status in ('UNMATCHED', 'UNPARSED') returning *`,
    );
    return row;
  } catch (error) {
    if ((error as { constraint_name?: string }).constraint_name === 'bank_notifications_one_per_deal') return 'deal_taken';
    throw error;
  }
}

/** Undoes an attachment the deal refused: the notification waits in the queue as it did. */
export async function detachFromDeal(db: Db, id: string, before: Pick<NotificationRow, 'status' | 'deal_id' | 'requisite_id'>): Promise<void> {
  await db`
    update bank_notifications set status = ${before.status}, deal_id = ${before.deal_id}, requisite_id = ${before.requisite_id},
      resolved_by = '', resolved_at = null, resolution_note = ''
    where id = ${id} and status = 'ATTACHED'`;
}

/** An operator closes a queued notification with a reason (UNMATCHED/UNPARSED → DISMISSED). */
export async function dismiss(db: Db, id: string, by: string, note: string): Promise<boolean> {
  const rows = await db`
    update bank_notifications set status = 'DISMISSED', resolved_by = ${by}, resolved_at = now(), resolution_note = ${note}
    where id = ${id} and status in ('UNMATCHED', 'UNPARSED') returning id`;
  return rows.length > 0;
}
