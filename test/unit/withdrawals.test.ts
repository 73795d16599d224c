import test from 'ava';
import fc from 'fast-check';
import {
  approvalCounts,
  autoLimitRefusal,
  canMove,
  effectiveAutoLimit,
  fourEyesRefusal,
  isAutoProcessed,
  WITHDRAWAL_STATUSES,
  WITHDRAWAL_TERMINAL,
  WITHDRAWAL_TRANSITIONS,
  withdrawalFee,
  type WithdrawalMove,
} from '../../domain/state/withdrawals';
import { withdrawalDedupKey, withdrawalIdFor } from '../../domain/withdrawal-ids';

const FOUR_EYES = 1_000_000n;

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

test('auto rule: amount ≤ effective limit; MANUAL_ONLY and limit 0 mean all manual', (t) => {
  t.is(effectiveAutoLimit('AUTO_UP_TO_LIMIT', 500n), 500n);
  t.is(effectiveAutoLimit('MANUAL_ONLY', 500n), 0n);
  t.true(isAutoProcessed(500n, 'AUTO_UP_TO_LIMIT', 500n, FOUR_EYES));
  t.false(isAutoProcessed(501n, 'AUTO_UP_TO_LIMIT', 500n, FOUR_EYES));
  t.false(isAutoProcessed(1n, 'AUTO_UP_TO_LIMIT', 0n, FOUR_EYES));
  t.false(isAutoProcessed(1n, 'MANUAL_ONLY', 10n ** 12n, FOUR_EYES));
});

test('four-eyes outranks the auto limit: above the four-eyes amount nothing is auto-processed, and such a limit is refused', (t) => {
  // A row may still hold a limit above the amount (set before the rule, or the amount lowered since).
  t.true(isAutoProcessed(FOUR_EYES, 'AUTO_UP_TO_LIMIT', 10n ** 12n, FOUR_EYES));
  t.false(isAutoProcessed(FOUR_EYES + 1n, 'AUTO_UP_TO_LIMIT', 10n ** 12n, FOUR_EYES));
  t.false(isAutoProcessed(1_500_000n, 'AUTO_UP_TO_LIMIT', 2_000_000n, FOUR_EYES));
  t.is(autoLimitRefusal(FOUR_EYES, FOUR_EYES), undefined);
  t.regex(autoLimitRefusal(FOUR_EYES + 1n, FOUR_EYES) ?? '', /four-eyes/);
});

test('an approval counts toward four-eyes only from an enabled console account of an approving role; the JWT is refused', (t) => {
  const id = '00000000-0000-4000-8000-000000000001';
  t.true(approvalCounts(`operator_account:${id}`, { role: 'finance', disabled: false }));
  t.true(approvalCounts(`operator_account:${id}`, { role: 'admin', disabled: false }));
  t.false(approvalCounts(`operator_account:${id}`, { role: 'finance', disabled: true }), 'disabled since');
  t.false(approvalCounts(`operator_account:${id}`, { role: 'support', disabled: false }), 'demoted since');
  t.false(approvalCounts(`operator_account:${id}`, undefined), 'no such account');
  t.false(approvalCounts('operator_jwt:alice', { role: 'admin', disabled: false }), 'a JWT subject is no person');
  t.false(approvalCounts('operator:alice', { role: 'admin', disabled: false }));
  t.is(fourEyesRefusal(FOUR_EYES, FOUR_EYES, 'operator_jwt'), undefined, 'one approval: the JWT as before');
  t.truthy(fourEyesRefusal(FOUR_EYES + 1n, FOUR_EYES, 'operator_jwt'));
  t.truthy(fourEyesRefusal(FOUR_EYES + 1n, FOUR_EYES, undefined));
  t.is(fourEyesRefusal(FOUR_EYES + 1n, FOUR_EYES, 'operator_account'), undefined);
});

test('the state table: terminal states have no way out, every status is reachable', (t) => {
  const moves = Object.keys(WITHDRAWAL_TRANSITIONS) as WithdrawalMove[];
  for (const status of WITHDRAWAL_TERMINAL)
    t.false(
      moves.some((m) => canMove(status, m)),
      status,
    );
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
