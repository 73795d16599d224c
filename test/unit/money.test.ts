import test from 'ava';
import { divRoundHalfEven, feeFromBps, fiatToUsdtCents } from '../../domain/money';

test('half-even rounding', (t) => {
  t.is(divRoundHalfEven(5n, 2n), 2n); // 2.5 → 2
  t.is(divRoundHalfEven(7n, 2n), 4n); // 3.5 → 4
  t.is(divRoundHalfEven(11n, 4n), 3n); // 2.75 → 3
  t.is(divRoundHalfEven(9n, 4n), 2n); // 2.25 → 2
  t.is(divRoundHalfEven(-5n, 2n), -2n);
  t.is(divRoundHalfEven(-7n, 2n), -4n);
  t.throws(() => divRoundHalfEven(1n, 0n));
});

test('fiat to USDT cents at a rate in micro-units of fiat per USDT', (t) => {
  // 1,500.00 RUB at 92.5 RUB/USDT = 16.216216… USDT → 1622 cents
  t.is(fiatToUsdtCents(150_000n, 2, 92_500_000n), 1622n);
  // 925.00 RUB at 92.5 = exactly 10 USDT
  t.is(fiatToUsdtCents(92_500n, 2, 92_500_000n), 1000n);
  // exponent 0 currency: 1000 units at 10 per USDT = 100 USDT
  t.is(fiatToUsdtCents(1000n, 0, 10_000_000n), 10_000n);
  // exponent 3 currency: 1.000 at 1 per USDT = 1 USDT
  t.is(fiatToUsdtCents(1000n, 3, 1_000_000n), 100n);
  // exact tie rounds to even: 0.5 cent → 0, 1.5 cents → 2
  t.is(fiatToUsdtCents(1n, 2, 2_000_000n), 0n);
  t.is(fiatToUsdtCents(3n, 2, 2_000_000n), 2n);
  // no precision loss on huge amounts
  t.is(fiatToUsdtCents(9_000_000_000_000_000n, 2, 1_000_000n), 9_000_000_000_000_000n);
});

test('fees in basis points', (t) => {
  t.is(feeFromBps(10_000n, 250), 250n);
  t.is(feeFromBps(1622n, 250), 41n); // 40.55 → 41
  t.is(feeFromBps(20n, 250), 0n); // 0.5 → 0 (even)
  t.is(feeFromBps(60n, 250), 2n); // 1.5 → 2
});
