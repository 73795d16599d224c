/**
 * A trader's paired bank devices (docs/bank-notifications.md): the trader asks for a pairing code
 * (the trader app shows it as a QR code), the device pairs with it and its own Ed25519 public key,
 * then signs every message; the trader picks the requisites whose notifications the device
 * forwards, and may revoke it. A device silent for DEVICE_HEARTBEAT_TIMEOUT_SECONDS takes its
 * requisites out of the matcher (db/queries/matching.ts reads the heartbeat itself) and is marked
 * silent by the sweep (audited, shown in the trader app); its next message resumes it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { AppDeps } from '../deps';
import type { Sql } from '../../db/sql';
import type { AuditActor } from '../../domain/audit';
import { Conflict, InvalidArgument, NotFound, Unauthenticated } from '../../domain/errors';
import { decodeDevicePublicKey, pairingCodeHash } from '../../domain/crypto/device-signature';
import { insertAudit } from '../../db/queries/audit';
import {
  advanceSequence,
  bindRequisites,
  completePairing,
  devicesOf,
  findDevice,
  findOwnDevice,
  forgetExpiredPairings,
  insertPairing,
  revokeDevice,
  silenceDevices,
  type DeviceListRow,
  type DeviceRow,
} from '../../db/queries/bank-devices';
import { findTrader } from '../../db/queries/traders';

const SWEEP_ACTOR: AuditActor = { kind: 'system', id: 'device-sweep', role: '', requestId: '', requestKey: '' };

type Presence = 'waiting_for_pairing' | 'pairing_expired' | 'heard' | 'silent' | 'revoked';

function presenceOf(d: DeviceRow, timeoutSeconds: number, now: number): Presence {
  if (d.status === 'REVOKED') return 'revoked';
  if (d.status === 'PAIRING') return d.pairing_expires_at.getTime() > now ? 'waiting_for_pairing' : 'pairing_expired';
  if (d.virtual) return 'heard';
  return d.heartbeat_at && d.heartbeat_at.getTime() > now - timeoutSeconds * 1000 ? 'heard' : 'silent';
}

const iso = (d: Date | null) => d?.toISOString() ?? '';

function presentDevice(deps: AppDeps, d: DeviceListRow) {
  return {
    device_id: d.id,
    name: d.name,
    status: d.status,
    presence: presenceOf(d, deps.config.DEVICE_HEARTBEAT_TIMEOUT_SECONDS, deps.now()),
    app_version: d.app_version,
    heartbeat_at: iso(d.heartbeat_at),
    pairing_expires_at: d.pairing_expires_at.toISOString(),
    paired_at: iso(d.paired_at),
    revoked_at: iso(d.revoked_at),
    requisites: d.requisites.map((r) => ({ requisite_id: r.id, summary: r.summary, bank_name: r.bank_name, status: r.status })),
    created_at: d.created_at.toISOString(),
  };
}

async function ownListed(deps: AppDeps, traderId: string, deviceId: string) {
  const row = (await devicesOf(deps.sql, traderId)).find((d) => d.id === deviceId);
  if (!row) throw new NotFound('device not found');
  return presentDevice(deps, row);
}

export async function listDevices(deps: AppDeps, traderId: string) {
  return {
    data: (await devicesOf(deps.sql, traderId)).map((d) => presentDevice(deps, d)),
    silent_after_seconds: deps.config.DEVICE_HEARTBEAT_TIMEOUT_SECONDS,
    heartbeat_interval_seconds: deps.config.DEVICE_HEARTBEAT_INTERVAL_SECONDS,
  };
}

/** What the QR code carries: where the device finds the gateway and the one-time code. */
const pairingUri = (deps: AppDeps, code: string) =>
  `gateway-device://pair?server=${encodeURIComponent(deps.config.CHECKOUT_BASE_URL)}&code=${encodeURIComponent(code)}`;

/** A new device waiting for its pairing: its one-time code is answered once, only its hash is kept. */
export async function startPairing(deps: AppDeps, traderId: string, name: string, actor: AuditActor) {
  const code = `gwp_${randomBytes(24).toString('base64url')}`;
  const expiresAt = new Date(deps.now() + deps.config.DEVICE_PAIRING_TTL_SECONDS * 1000);
  const device = await deps.sql.begin(async (tx) => {
    const row = await insertPairing(tx, { id: randomUUID(), traderId, name, codeHash: pairingCodeHash(code), expiresAt });
    await insertAudit(tx, actor, { action: 'device.pairing_start', objectType: 'bank_device', objectId: row.id, after: { name, expires_at: expiresAt } });
    return row;
  });
  return { device: await ownListed(deps, traderId, device.id), pairing_code: code, pairing_uri: pairingUri(deps, code), expires_at: expiresAt.toISOString() };
}

/** The device's state as it reads it (pairing, heartbeat answers). */
async function deviceState(deps: AppDeps, deviceId: string) {
  const device = await findDevice(deps.sql, deviceId);
  if (!device) throw new Unauthenticated('unknown device');
  const [listed, trader] = await Promise.all([devicesOf(deps.sql, device.trader_id), findTrader(deps.sql, device.trader_id)]);
  const requisites = listed.find((d) => d.id === deviceId)?.requisites ?? [];
  return {
    device_id: device.id,
    name: device.name,
    trader_name: trader?.name ?? '',
    status: device.status as 'ACTIVE' | 'REVOKED',
    last_sequence: device.last_sequence.toString(),
    heartbeat_interval_seconds: deps.config.DEVICE_HEARTBEAT_INTERVAL_SECONDS,
    silent_after_seconds: deps.config.DEVICE_HEARTBEAT_TIMEOUT_SECONDS,
    requisites: requisites.map((r) => ({ requisite_id: r.id, summary: r.summary, bank_name: r.bank_name, status: r.status })),
    server_time: new Date(deps.now()).toISOString(),
  };
}

/**
 * The device's pairing: the code names one PAIRING device, unexpired; the one statement that
 * spends it (completePairing) lets one device win a code, however many race for it. A spent,
 * expired or unknown code is the same 401, so a guessed code learns nothing.
 */
export async function pairDevice(deps: AppDeps, body: { pairing_code: string; public_key: string; app_version?: string | undefined }) {
  const publicKey = decodeDevicePublicKey(body.public_key);
  if (!publicKey) throw new InvalidArgument('public_key must be a base64url Ed25519 public key (32 bytes)');
  await forgetExpiredPairings(deps.sql);
  const device = await deps.sql.begin(async (tx) => {
    const row = await completePairing(tx, { codeHash: pairingCodeHash(body.pairing_code), publicKey, appVersion: body.app_version ?? '' });
    if (!row) return undefined;
    await insertAudit(tx, deviceActorOf(row.id, 'pairing'), {
      action: 'device.paired',
      objectType: 'bank_device',
      objectId: row.id,
      after: { name: row.name, app_version: row.app_version },
    });
    return row;
  });
  if (!device) throw new Unauthenticated('pairing code unknown, used or expired: ask the trader app for a new one');
  return deviceState(deps, device.id);
}

/** The device as the actor of its own messages (its pairing, its return from silence). */
const deviceActorOf = (deviceId: string, key: string): AuditActor => ({
  kind: 'bank_device',
  id: deviceId,
  role: 'trader',
  requestId: `device:${deviceId}:${key}`,
  requestKey: `device:${deviceId}:${key}`,
});

/** The sequence rules in the device's words. */
const staleSequence = (sequence: bigint) =>
  new Conflict(
    `sequence ${sequence} is not higher than this device's last message: a replayed heartbeat, or a counter that went back (pair again to reset it)`,
  );
export const usedSequence = (sequence: bigint) =>
  new Conflict(`sequence ${sequence} was used by another message of this device: each message takes a new number (a replay, or a counter that went back)`);

/** A heartbeat: a higher sequence than any before, a sign of life that resumes a silent device. */
export async function deviceHeartbeat(deps: AppDeps, deviceId: string, body: { sequence: number; app_version?: string | undefined }) {
  const sequence = BigInt(body.sequence);
  await deps.sql.begin(async (tx) => {
    const moved = await advanceSequence(tx, deviceId, sequence, true);
    if (!moved) throw staleSequence(sequence);
    if (body.app_version !== undefined) await tx`update bank_devices set app_version = ${body.app_version} where id = ${deviceId}`;
    if (moved.was_silent) {
      await insertAudit(tx, deviceActorOf(deviceId, `resumed:${sequence}`), { action: 'device.resumed', objectType: 'bank_device', objectId: deviceId });
    }
  });
  return deviceState(deps, deviceId);
}

export async function revokeOwnDevice(deps: AppDeps, traderId: string, deviceId: string, actor: AuditActor) {
  await deps.sql.begin(async (tx) => {
    const before = await findOwnDevice(tx, traderId, deviceId);
    if (!before) throw new NotFound('device not found');
    const revoked = await revokeDevice(tx, traderId, deviceId, actor.id);
    if (!revoked) throw new Conflict('device is revoked already');
    await insertAudit(tx, actor, { action: 'device.revoke', objectType: 'bank_device', objectId: deviceId, before: { status: before.status } });
  });
  return { device: await ownListed(deps, traderId, deviceId) };
}

/** The requisites the device serves: exactly these, each the trader's own (another's or an archived one: 400, nothing changed). */
export async function setDeviceRequisites(deps: AppDeps, traderId: string, deviceId: string, requisiteIds: string[], actor: AuditActor) {
  const ids = [...new Set(requisiteIds)];
  await deps.sql.begin(async (tx) => {
    const device = await findOwnDevice(tx, traderId, deviceId);
    if (!device) throw new NotFound('device not found');
    if (device.status === 'REVOKED') throw new Conflict('device is revoked: pair a new one');
    const refused = await bindRequisites(tx, traderId, deviceId, ids);
    if (refused.length > 0) throw new InvalidArgument(`requisite_ids: not your requisites, or archived: ${refused.join(', ')}`);
    await insertAudit(tx, actor, { action: 'device.requisites', objectType: 'bank_device', objectId: deviceId, after: { requisite_ids: ids } });
  });
  return { device: await ownListed(deps, traderId, deviceId) };
}

/**
 * The silence sweep (api/server.ts, every few seconds): a device unheard for the timeout is
 * marked silent, audited as the gateway's act; the trader app shows it on its Today and Devices
 * pages. The matcher does not wait for it (it reads the heartbeat itself).
 */
export async function sweepSilentDevices(sql: Sql, timeoutSeconds: number): Promise<number> {
  return sql.begin(async (tx) => {
    const silenced = await silenceDevices(tx, timeoutSeconds);
    for (const d of silenced) {
      await insertAudit(
        tx,
        { ...SWEEP_ACTOR, requestKey: `device-silent:${d.id}:${d.heartbeat_at.toISOString()}` },
        { action: 'device.silent', objectType: 'bank_device', objectId: d.id, after: { trader_id: d.trader_id, name: d.name, heartbeat_at: d.heartbeat_at } },
      );
    }
    return silenced.length;
  });
}
