/**
 * The bank device protocol's signatures (docs/bank-notifications.md, "Device protocol"). A paired
 * device holds an Ed25519 key pair; the gateway keeps only the public key. Every request the device
 * sends carries
 *
 *   X-Device-Id: <device id>            (absent on the pairing request: the key is not known yet)
 *   X-Device-Timestamp: <unix seconds>
 *   X-Device-Signature: <base64url Ed25519 signature of "<t>.<METHOD>.<path and query>.<hex sha-256 of the raw body>">
 *
 * and its body a `sequence` higher than any the device signed before, so a captured request is
 * refused when sent again (replay) and a timestamp outside the window is refused first.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base64, base64urlnopad } from '@scure/base';

/** How far a device's clock may be from ours, either way, in seconds. */
const DEVICE_TIMESTAMP_WINDOW_SECONDS = 300;

export interface DeviceRequest {
  timestamp: number;
  method: string;
  /** Path and query exactly as sent. */
  target: string;
  body: string | Uint8Array;
}

const bodyBytes = (body: string | Uint8Array) => (typeof body === 'string' ? utf8ToBytes(body) : body);

/** The signed string of a request. */
function deviceSigningInput(request: DeviceRequest): Uint8Array {
  const bodyHash = bytesToHex(sha256(bodyBytes(request.body)));
  return utf8ToBytes(`${request.timestamp}.${request.method.toUpperCase()}.${request.target}.${bodyHash}`);
}

/** A new key pair (a device's, or a test's): the secret key stays on the device. */
export function newDeviceKeyPair(seed?: Uint8Array): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const { secretKey, publicKey } = ed25519.keygen(seed);
  return { secretKey, publicKey };
}

/** The X-Device-Signature of a request, signed with the device's secret key. */
export function signDeviceRequest(secretKey: Uint8Array, request: DeviceRequest): string {
  return base64urlnopad.encode(ed25519.sign(deviceSigningInput(request), secretKey));
}

/** Whether the signature (base64url) is the key's over the request; malformed input is false, never a throw. */
export function deviceSignatureValid(publicKey: Uint8Array, signature: string, request: DeviceRequest): boolean {
  try {
    const bytes = base64urlnopad.decode(signature.replace(/=+$/, ''));
    if (bytes.length !== 64) return false;
    return ed25519.verify(bytes, deviceSigningInput(request), publicKey);
  } catch {
    return false;
  }
}

/** A public key as sent (base64url, 32 bytes), or undefined. */
export function decodeDevicePublicKey(text: string): Uint8Array | undefined {
  try {
    const bytes = base64urlnopad.decode(text.replace(/=+$/, ''));
    return bytes.length === 32 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

export const encodeDeviceKey = (bytes: Uint8Array) => base64urlnopad.encode(bytes);

/** Whether the timestamp is within the window of `nowSeconds`. */
export function deviceTimestampFresh(timestamp: number, nowSeconds: number): boolean {
  return Number.isSafeInteger(timestamp) && Math.abs(nowSeconds - timestamp) <= DEVICE_TIMESTAMP_WINDOW_SECONDS;
}

/**
 * A notification's identity: sha-256 over the device, the sender, the time the device received
 * it and its text, each length-prefixed, so the same notification sent again (a retry, a second
 * forward) is the same row, and no two different ones collide by concatenation.
 */
export function notificationHash(n: { deviceId: string; sender: string; receivedAt: string; text: string }): Uint8Array {
  const parts = [n.deviceId, n.sender, n.receivedAt, n.text].map((p) => utf8ToBytes(p));
  const framed = parts.flatMap((p) => [utf8ToBytes(`${p.length}:`), p]);
  const joined = new Uint8Array(framed.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of framed) {
    joined.set(p, at);
    at += p.length;
  }
  return sha256(joined);
}

/** A one-time pairing code's stored form. */
export const pairingCodeHash = (code: string) => sha256(utf8ToBytes(code));

/**
 * The sandbox's virtual bank device's key pair (docs/bank-notifications.md, "Virtual bank device"):
 * its Ed25519 seed is HMAC-SHA256(secret, "virtual-bank-device:<tenant id>") over the worker's own
 * secret (SECRETS_ENCRYPTION_KEY, 32 bytes), so no private key is stored anywhere and only a process
 * holding that secret signs as it; the public key is what its pairing registered.
 */
export function virtualDeviceKeyPair(secret: Uint8Array, tenantId: string): { secretKey: Uint8Array; publicKey: Uint8Array } {
  return newDeviceKeyPair(hmac(sha256, secret, utf8ToBytes(`virtual-bank-device:${tenantId}`)));
}

const virtualKeys = new Map<string, { secretKey: Uint8Array; publicKey: Uint8Array }>();

/** virtualDeviceKeyPair over the configured SECRETS_ENCRYPTION_KEY (base64), derived once per process and tenant. */
export function virtualDeviceKeys(secretsEncryptionKey: string, tenantId: string): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const cacheKey = `${secretsEncryptionKey}\u0000${tenantId}`;
  let keys = virtualKeys.get(cacheKey);
  if (!keys) {
    keys = virtualDeviceKeyPair(base64.decode(secretsEncryptionKey), tenantId);
    virtualKeys.set(cacheKey, keys);
  }
  return keys;
}
