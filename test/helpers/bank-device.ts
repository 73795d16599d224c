/**
 * A paired bank device for tests, as a real device app does it (docs/bank-notifications.md,
 * "Device protocol"): the trader asks for a pairing code, the device makes its own Ed25519 key
 * pair and pairs with the code, signing the request with the new key; then every request is signed
 * and carries the next sequence number. Bank messages are written the way the bank writes them.
 */
import { newDeviceKeyPair, encodeDeviceKey, signDeviceRequest } from '../../domain/crypto/device-signature';
import { API_URL, readResponse, type ApiResponse } from './api';
import { asTrader, TRADER, type TraderAccount } from './trader-session';

export const DEVICE = '/api/v1/p2p/device';

export interface PairedDevice {
  deviceId: string;
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  /** The last sequence number used (the next request sends one more). */
  sequence: number;
}

/** A signed device request: headers exactly as the protocol says, over the raw body sent. */
export async function deviceRequest(
  device: Pick<PairedDevice, 'secretKey'> & { deviceId?: string },
  method: string,
  path: string,
  body?: unknown,
  options: { timestamp?: number; tamper?: (raw: string) => string } = {},
): Promise<ApiResponse> {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = signDeviceRequest(device.secretKey, { timestamp, method, target: path, body: raw });
  const headers: Record<string, string> = { 'X-Device-Timestamp': String(timestamp), 'X-Device-Signature': signature };
  if (device.deviceId) headers['X-Device-Id'] = device.deviceId;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const sent = options.tamper ? options.tamper(raw) : raw;
  return readResponse(await fetch(`${API_URL}${path}`, { method, headers, ...(body === undefined ? {} : { body: sent }) }));
}

/** The trader's pairing code for a new device (the QR code's content). */
export async function startPairing(trader: Pick<TraderAccount, 'session'>, name = 'Test phone') {
  const res = await asTrader(trader.session, 'POST', `${TRADER}/devices`, { name });
  if (res.status !== 201) throw new Error(`pairing start failed: ${res.status} ${res.text}`);
  return { deviceId: res.body.device.device_id as string, code: res.body.pairing_code as string, uri: res.body.pairing_uri as string };
}

/** The device's side of a pairing: its own key pair, the code, the request signed with the new key. */
export async function pairWithCode(code: string, keys = newDeviceKeyPair()) {
  const res = await deviceRequest({ secretKey: keys.secretKey }, 'POST', `${DEVICE}/pairing`, {
    pairing_code: code,
    public_key: encodeDeviceKey(keys.publicKey),
    app_version: 'test-1.0',
  });
  return { res, keys };
}

/** A device paired to the trader and serving these requisites. */
export async function pairedDevice(trader: Pick<TraderAccount, 'session'>, requisiteIds: string[], name?: string): Promise<PairedDevice> {
  const { code } = await startPairing(trader, name);
  const { res, keys } = await pairWithCode(code);
  if (res.status !== 201) throw new Error(`pairing failed: ${res.status} ${res.text}`);
  const deviceId = res.body.device_id as string;
  if (requisiteIds.length > 0) {
    const bound = await asTrader(trader.session, 'PUT', `${TRADER}/devices/${deviceId}/requisites`, { requisite_ids: requisiteIds });
    if (bound.status !== 200) throw new Error(`binding failed: ${bound.status} ${bound.text}`);
  }
  return { deviceId, secretKey: keys.secretKey, publicKey: keys.publicKey, sequence: 0 };
}

/** The device forwards a bank notification (the next sequence number unless one is given). */
export function sendNotification(device: PairedDevice, n: { sender: string; text: string; receivedAt?: string; sequence?: number }) {
  const sequence = n.sequence ?? ++device.sequence;
  return deviceRequest(device, 'POST', `${DEVICE}/notifications`, {
    sequence,
    sender: n.sender,
    text: n.text,
    received_at: n.receivedAt ?? new Date().toISOString(),
  });
}

export function sendHeartbeat(device: PairedDevice, sequence = ++device.sequence) {
  return deviceRequest(device, 'POST', `${DEVICE}/heartbeat`, { sequence });
}

/** Minor units as the bank writes roubles: "1 500" or "1 500,50" (a no-break space between thousands). */
function roubles(minor: number | bigint): string {
  const m = BigInt(minor);
  const whole = (m / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0');
  const kopecks = m % 100n;
  return kopecks === 0n ? whole : `${whole},${kopecks.toString().padStart(2, '0')}`;
}

/** A T-Bank credit push as the bank's app shows it: a card top-up from a named payer. */
export const tbankCredit = (minor: number | bigint, payer = 'Иван И.') => ({
  sender: 'T-Bank',
  text: `Пополнение, счет RUB. ${roubles(minor)} ₽. ${payer} Доступно 25\u00a0431,17 ₽`,
});
