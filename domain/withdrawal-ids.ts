/**
 * Server-side withdrawal idempotency (V2's create names no key): the key is derived from (merchant, address,
 * amount, current fee); the withdrawal id from the key and its generation, so concurrent identical
 * requests address the same workflow id and the same primary key.
 */
import { createHash } from 'node:crypto';
import { uuidV5 } from './ids';

const WITHDRAWAL_NAMESPACE = 'c5a0e7d2-4b8f-4f3a-9e61-7d2b9c0a1e55';

export function withdrawalDedupKey(input: { merchantId: string; address: string; amount: bigint; fee: bigint }): string {
  return createHash('sha256').update(`${input.merchantId}\u0000${input.address}\u0000${input.amount}\u0000${input.fee}`).digest('hex');
}

/**
 * Generation n of a key: a new generation starts only once the previous withdrawal of that key
 * no longer holds it (see the Wallet section of the README), so a later identical request may
 * send the same amount to the same address again.
 */
export const withdrawalIdFor = (merchantId: string, dedupKey: string, generation: number) =>
  uuidV5(`${merchantId}\u0000withdrawal\u0000${dedupKey}\u0000${generation}`, WITHDRAWAL_NAMESPACE);

/**
 * A withdrawal keyed by its caller (the V1 adapter's requestId) instead: one withdrawal per
 * (merchant, key), whatever its address and amount. Its id comes from the key alone, so
 * concurrent first requests with one key address the same workflow id and primary key, and its
 * dedup key lives outside the sha256 space of withdrawalDedupKey (V2's server-side key never
 * finds it, and it never takes a V2 generation).
 */
export const callerKeyedDedupKey = (callerKey: string) => `caller:${createHash('sha256').update(callerKey).digest('hex')}`;

export const callerKeyedWithdrawalId = (merchantId: string, callerKey: string) =>
  uuidV5(`${merchantId}\u0000withdrawal-caller-key\u0000${callerKey}`, WITHDRAWAL_NAMESPACE);
