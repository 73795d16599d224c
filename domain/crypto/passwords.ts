/**
 * Operator passwords: scrypt (node:crypto, RFC 7914) with a random 16-byte salt per password.
 * Stored form, versioned so the parameters can grow: "scrypt$1$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>".
 * Verification reads the parameters from the stored string and compares in constant time.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCallback(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));

/** N = 2^15, r = 8, p = 1 (32 MiB, ~50–100 ms): OWASP's scrypt minimum is N = 2^17 at r = 8 with p = 1, or 2^15 with more cost elsewhere; kept at 2^15 for the 2-core boxes this runs on. */
const SCRYPT_PARAMS = { logN: 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const maxmemFor = (logN: number, r: number) => 256 * r * 2 ** logN + 1024 * 1024;

/** Passwords shorter than this are refused when set (an operator account guards money). */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export async function hashPassword(password: string, params: { logN: number; r: number; p: number } = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize('NFC'), salt, KEY_LENGTH, {
    N: 2 ** params.logN,
    r: params.r,
    p: params.p,
    maxmem: maxmemFor(params.logN, params.r),
  });
  return ['scrypt', '1', params.logN, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const ENCODED = /^scrypt\$1\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{32,})$/;

/** Whether `password` matches the stored hash; a malformed stored value never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = ENCODED.exec(stored);
  if (!match) return false;
  const [logN, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const expected = Buffer.from(match[5]!, 'base64url');
  const key = await scrypt(password.normalize('NFC'), Buffer.from(match[4]!, 'base64url'), expected.length, { N: 2 ** logN, r, p, maxmem: maxmemFor(logN, r) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash of a random password: what an unknown email is checked against, so it costs the same time as a known one. */
let decoy: Promise<string> | undefined;
export const decoyHash = () => (decoy ??= hashPassword(randomBytes(18).toString('base64url')));

/** A generated password: 24 characters of base64url (144 bits). */
export const generatePassword = () => randomBytes(18).toString('base64url');
