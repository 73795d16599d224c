/**
 * A trader's paired bank devices (docs/bank-notifications.md): pairing by a one-time code, the
 * device's public key and message sequence, its heartbeat and silence, the requisites it serves,
 * revocation. One device per requisite (requisites.device_id).
 */
import type { Db } from '../sql';

export interface DeviceRow {
  id: string;
  trader_id: string;
  name: string;
  status: 'PAIRING' | 'ACTIVE' | 'REVOKED';
  pairing_expires_at: Date;
  public_key: Uint8Array | null;
  last_sequence: bigint;
  app_version: string;
  heartbeat_at: Date | null;
  silent_since: Date | null;
  virtual: boolean;
  paired_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const columns = (db: Db) => db`
  id, trader_id, name, status, pairing_expires_at, public_key, last_sequence, app_version, heartbeat_at, silent_since,
  virtual, paired_at, revoked_at, created_at`;

export async function insertPairing(
  db: Db,
  p: { id: string; traderId: string; name: string; codeHash: Uint8Array; expiresAt: Date; virtual?: boolean },
): Promise<DeviceRow> {
  const [row] = await db<DeviceRow[]>`
    insert into bank_devices (id, trader_id, name, pairing_code_hash, pairing_expires_at, virtual)
    values (${p.id}, ${p.traderId}, ${p.name}, ${Buffer.from(p.codeHash)}, ${p.expiresAt}, ${p.virtual ?? false})
    returning ${columns(db)}`;
  return row!;
}

/**
 * Uses a pairing code: the one PAIRING device it names, unexpired, becomes ACTIVE with the key and
 * forgets the code — one statement, so of two devices racing with one code exactly one wins.
 */
export async function completePairing(db: Db, p: { codeHash: Uint8Array; publicKey: Uint8Array; appVersion: string }): Promise<DeviceRow | undefined> {
  const [row] = await db<DeviceRow[]>`
    update bank_devices set status = 'ACTIVE', public_key = ${Buffer.from(p.publicKey)}, pairing_code_hash = null,
      app_version = ${p.appVersion}, paired_at = now(), heartbeat_at = now()
    where pairing_code_hash = ${Buffer.from(p.codeHash)} and status = 'PAIRING' and pairing_expires_at > now()
    returning ${columns(db)}`;
  return row;
}

export async function findDevice(db: Db, deviceId: string, options: { lock?: boolean } = {}): Promise<DeviceRow | undefined> {
  const [row] = await db<DeviceRow[]>`
    select ${columns(db)} from bank_devices where id = ${deviceId} ${options.lock ? db`for no key update` : db``}`;
  return row;
}

/** The device's own, another trader's device is none. */
export async function findOwnDevice(db: Db, traderId: string, deviceId: string): Promise<DeviceRow | undefined> {
  const [row] = await db<DeviceRow[]>`select ${columns(db)} from bank_devices where id = ${deviceId} and trader_id = ${traderId}`;
  return row;
}

export interface DeviceListRow extends DeviceRow {
  requisites: Array<{ id: string; summary: string; bank_name: string; status: string }>;
}

/** A trader's devices, newest first, each with the requisites it serves. */
export function devicesOf(db: Db, traderId: string) {
  return db<DeviceListRow[]>`
    select ${columns(db)},
      coalesce((select json_agg(json_build_object('id', r.id, 'summary', concat_ws(' ', r.requisite_type, nullif(r.number_masked, ''), r.bank_name), 'bank_name', r.bank_name, 'status', r.status) order by r.created_at)
        from requisites r where r.device_id = d.id), '[]') as requisites
    from bank_devices d
    where d.trader_id = ${traderId} and (d.status <> 'REVOKED' or d.revoked_at > now() - interval '30 days')
    order by d.created_at desc`;
}

/**
 * A heartbeat's sequence: accepted when higher than every earlier message's of the device (then it
 * is the device's last), refused otherwise (a replayed heartbeat). It is the heartbeat too.
 */
export async function advanceSequence(db: Db, deviceId: string, sequence: bigint, heartbeat: boolean) {
  const [row] = await db<{ id: string; was_silent: boolean }[]>`
    update bank_devices d set last_sequence = ${sequence}
      ${heartbeat ? db`, heartbeat_at = now(), silent_since = null` : db``}
    from (select id, silent_since is not null as was_silent from bank_devices where id = ${deviceId} for no key update) before
    where d.id = before.id and d.status = 'ACTIVE' and d.last_sequence < ${sequence}
    returning d.id, before.was_silent`;
  return row;
}

/**
 * The device's next sequence number, taken in one statement (the row's lock orders concurrent
 * takers: each gets its own, none is skipped) — with the heartbeat a message is. The virtual
 * device's (activities/virtual-device.ts), which numbers its messages on the gateway's side.
 * Undefined for a device not ACTIVE.
 */
export async function takeNextSequence(db: Db, deviceId: string): Promise<bigint | undefined> {
  const [row] = await db<{ last_sequence: bigint }[]>`
    update bank_devices set last_sequence = last_sequence + 1, heartbeat_at = now(), silent_since = null
    where id = ${deviceId} and status = 'ACTIVE'
    returning last_sequence`;
  return row?.last_sequence;
}

/** Revokes the trader's device for good and unbinds its requisites (they go back to confirmation by hand). */
export async function revokeDevice(db: Db, traderId: string, deviceId: string, by: string): Promise<DeviceRow | undefined> {
  const [row] = await db<DeviceRow[]>`
    update bank_devices set status = 'REVOKED', revoked_at = now(), revoked_by = ${by}, pairing_code_hash = null
    where id = ${deviceId} and trader_id = ${traderId} and status <> 'REVOKED'
    returning ${columns(db)}`;
  if (row) await db`update requisites set device_id = null where device_id = ${deviceId}`;
  return row;
}

/**
 * The requisites the device serves, exactly these (the trader's own, not archived): a requisite
 * served by another of its devices moves to this one. Answers the ids it could not bind.
 */
export async function bindRequisites(db: Db, traderId: string, deviceId: string, requisiteIds: readonly string[]): Promise<string[]> {
  await db`update requisites set device_id = null where device_id = ${deviceId} and id <> all(${requisiteIds}::uuid[])`;
  const bound = await db<{ id: string }[]>`
    update requisites set device_id = ${deviceId}
    where id = any(${requisiteIds}::uuid[]) and trader_id = ${traderId} and status <> 'ARCHIVED'
    returning id`;
  const ok = new Set(bound.map((r) => r.id));
  return requisiteIds.filter((id) => !ok.has(id));
}

/**
 * Devices whose heartbeat is older than the timeout fall silent (their requisites leave the
 * matcher until their next message), as of now. Answers them, with their trader, for the alert.
 */
export function silenceDevices(db: Db, timeoutSeconds: number) {
  return db<{ id: string; trader_id: string; name: string; heartbeat_at: Date }[]>`
    update bank_devices set silent_since = now()
    where status = 'ACTIVE' and silent_since is null and not virtual
      and heartbeat_at < now() - make_interval(secs => ${timeoutSeconds})
    returning id, trader_id, name, heartbeat_at`;
}

/** Pairings never used expire: their rows stay (the trader sees it), their codes are forgotten. */
export async function forgetExpiredPairings(db: Db): Promise<void> {
  await db`update bank_devices set pairing_code_hash = null where status = 'PAIRING' and pairing_code_hash is not null and pairing_expires_at < now()`;
}

/** What the device's requests are admitted by: its trader's status and the notifications it sent in the last minute. */
export async function deviceGate(db: Db, deviceId: string) {
  const [row] = await db<{ trader_status: string; last_minute: number }[]>`
    select t.status as trader_status,
      (select count(*) from bank_notifications n where n.device_id = d.id and n.created_at > now() - interval '1 minute')::int as last_minute
    from bank_devices d join traders t on t.id = d.trader_id where d.id = ${deviceId}`;
  return row ?? { trader_status: 'UNKNOWN', last_minute: 0 };
}

/**
 * A notification's sequence and sign of life: the device's last sequence becomes the higher of the
 * two (a notification's own number is unique per device: the insert that follows refuses a used
 * one), its heartbeat now. Takes the device's row lock, so its messages are stored one at a time.
 * Undefined when the device is not ACTIVE.
 */
export async function noteMessage(db: Db, deviceId: string, sequence: bigint) {
  const [row] = await db<{ id: string }[]>`
    update bank_devices set last_sequence = greatest(last_sequence, ${sequence}), heartbeat_at = now(), silent_since = null
    where id = ${deviceId} and status = 'ACTIVE' returning id`;
  return row;
}

/** Devices by id as people read them: "<device name> of <trader name>" (the audit trail's actor and object names). */
export async function deviceNames(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)].filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id));
  if (wanted.length === 0) return new Map();
  const rows = await db<{ id: string; name: string }[]>`
    select d.id, d.name || ' of ' || t.name as name from bank_devices d join traders t on t.id = d.trader_id where d.id = any(${wanted}::uuid[])`;
  return new Map(rows.map((r) => [r.id, r.name]));
}
