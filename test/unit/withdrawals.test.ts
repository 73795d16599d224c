import test from 'ava';
import fc from 'fast-check';
import {
  canMove,
  effectiveAutoLimit,
  isAutoProcessed,
  WITHDRAWAL_STATUSES,
  WITHDRAWAL_TERMINAL,
  WITHDRAWAL_TRANSITIONS,
  withdrawalFee,
  type WithdrawalMove,
} from '../../domain/withdrawals';
import { withdrawalDedupKey, withdrawalIdFor } from '../../domain/withdrawal-ids';

test('fee rule: flat plus bps half-even; fee + net = amount', (t) => {
  t.deepEqual(withdrawalFee(10_000n, 100n, 0), { fee: 100n, net: 9_900n });
  t.deepEqual(withdrawalFee(10_000n, 100n, 25), { fee: 125n, net: 9_875n });
  t.deepEqual(withdrawalFee(200n, 0n, 25), { fee: 0n, net: 200n }); // 0.5 → 0 (even)
  t.deepEqual(withdrawalFee(600n, 0n, 25), { fee: 2n, net: 598n }); // 1.5 → 2 (even)
  fc.assert(
    fc.property(fc.bigInt({ min: 1n, max: 2n ** 62n }), fc.bigInt({ min: 0n, max: 10_000n }), fc.integer({ min: 0, max: 10_000 }), (amount, flat, bps) => {
      const { fee, net } = withdrawalFee(amount, flat, bps);
      return fee + net === amount && fee >= flat;
    }),
  );
});

test('auto rule (contract 7): amount ≤ effective limit; MANUAL_ONLY and limit 0 mean all manual', (t) => {
  t.is(effectiveAutoLimit('AUTO_UP_TO_LIMIT', 500n), 500n);
  t.is(effectiveAutoLimit('MANUAL_ONLY', 500n), 0n);
  t.true(isAutoProcessed(500n, 'AUTO_UP_TO_LIMIT', 500n));
  t.false(isAutoProcessed(501n, 'AUTO_UP_TO_LIMIT', 500n));
  t.false(isAutoProcessed(1n, 'AUTO_UP_TO_LIMIT', 0n));
  t.false(isAutoProcessed(1n, 'MANUAL_ONLY', 10n ** 12n));
});

test('the state table: terminal states have no way out, every status is reachable', (t) => {
  const moves = Object.keys(WITHDRAWAL_TRANSITIONS) as WithdrawalMove[];
  for (const status of WITHDRAWAL_TERMINAL) t.false(moves.some((m) => canMove(status, m)), status);
  t.deepEqual([...new Set(moves.map((m) => WITHDRAWAL_TRANSITIONS[m].to))].sort(), [...WITHDRAWAL_STATUSES].sort());
  t.false(canMove('APPROVED', 'cancel'), 'an approved withdrawal may already be on its way');
  t.false(canMove('PENDING', 'approve'));
  // Every status has a V1 code: test/v1/codes.test.ts.
});

test('idempotency key and id are deterministic per (merchant, address, amount, fee) and generation', (t) => {
  const base = { merchantId: '7d1a2f52-0000-4000-8000-000000000001', address: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC', amount: 5_000n, fee: 100n };
  const key = withdrawalDedupKey(base);
  t.is(withdrawalDedupKey({ ...base }), key);
  t.not(withdrawalDedupKey({ ...base, amount: 5_001n }), key);
  t.not(withdrawalDedupKey({ ...base, fee: 101n }), key);
  t.not(withdrawalDedupKey({ ...base, address: 'THRF3GuPnvvPzKoaT8pJex5XHmo8NNbCb3' }), key);
  t.is(withdrawalIdFor(base.merchantId, key, 0), withdrawalIdFor(base.merchantId, key, 0));
  t.not(withdrawalIdFor(base.merchantId, key, 0), withdrawalIdFor(base.merchantId, key, 1));
});
