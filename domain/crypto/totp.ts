/**
 * TOTP (RFC 6238 over RFC 4226 HOTP): HMAC-SHA1, 30-second steps, 6 digits — what every
 * authenticator app speaks. Secrets are 20 random bytes, shown once as base32 in an otpauth URI.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export const TOTP_STEP_SECONDS = 30;

/** The 6-digit code of `secret` at a step counter. */
export function hotp(secret: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = createHmac('sha1', secret).update(message).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
}

export const totpAt = (secretBase32: string, nowMs: number) => hotp(base32Decode(secretBase32), Math.floor(nowMs / 1000 / TOTP_STEP_SECONDS));

/** The time step of `nowMs`. */
const totpStepAt = (nowMs: number) => Math.floor(nowMs / 1000 / TOTP_STEP_SECONDS);

/**
 * The time steps whose code `code` is, among the current step and one either side (clock drift),
 * oldest first: empty when it is none of them. The caller accepts only a step later than the last
 * one the account used, so a code is good once.
 */
export function totpSteps(secretBase32: string, code: string, nowMs: number): number[] {
  if (!/^\d{6}$/.test(code)) return [];
  const secret = base32Decode(secretBase32);
  const step = totpStepAt(nowMs);
  const matched: number[] = [];
  for (const delta of [-1, 0, 1]) {
    const expected = Buffer.from(hotp(secret, step + delta));
    if (timingSafeEqual(expected, Buffer.from(code))) matched.push(step + delta);
  }
  return matched;
}

/** The first of `steps` later than `lastUsed` (null: none used yet), or undefined: the code was used already. */
export const unusedStep = (steps: number[], lastUsed: number | bigint | null): number | undefined =>
  steps.find((s) => lastUsed === null || BigInt(s) > BigInt(lastUsed));

export const newTotpSecret = () => base32Encode(randomBytes(20));

export const otpauthUri = (issuer: string, account: string, secretBase32: string) =>
  `otpauth://totp/${encodeURIComponent(`${issuer}:${account}`)}?secret=${secretBase32}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=6&period=${TOTP_STEP_SECONDS}`;
