import test from 'ava';
import {
  payinRowsForCode,
  payoutStatusesForCode,
  V1_PAYIN_CODES,
  V1_PAYOUT_CODES,
  V1_WITHDRAWAL_CODES,
  v1PayinCode,
  v1PayoutCode,
  v1WithdrawalCode,
  withdrawalStatusesForCode,
} from '../../api/v1/codes';
import { PAYIN_STATUSES } from '../../domain/state/payin';
import { PAYOUT_STATUSES } from '../../domain/state/payout';
import { WITHDRAWAL_STATUSES } from '../../domain/state/withdrawals';
import { decimalToMinor, minorToDecimal } from '../../domain/money';
import { startOfUtcDay, v1WebhookBody, type V1DealSource } from '../../api/v1/records';

/** The legacy API's code table written out by hand, row by row: [V2 status, amount_match_status, has_channel, GET code, webhook code]. */
const PAYIN_EXPECTED: Array<[string, string, boolean, number, number]> = [
  ['INITIALIZED', '', true, 1, 1],
  ['INITIALIZED', '', false, 31, 31],
  ['ESCROW_LOCKED', '', true, 1, 1],
  ['PAYMENT_NOTIFIED', '', true, 2, 2],
  ['PAYMENT_VERIFIED', '', true, 11, 11],
  ['PAYMENT_VERIFIED', 'partial', true, 11, 11],
  ['COMPLETED', '', true, 11, 11],
  ['COMPLETED', 'full', true, 11, 11],
  ['COMPLETED', 'overpaid', true, 14, 14],
  ['COMPLETED', 'partial', true, 15, 15],
  ['CANCELLED', '', true, 12, 12],
  ['SPAM_REJECTED', '', true, 12, 12],
  ['EXPIRED', '', true, 13, 13],
  ['EXPIRED', 'partial', true, 13, 13],
  ['APPEALED', '', true, 21, 21],
  ['SOFT_DISPUTED', '', true, 21, 21],
  ['REFUND_PENDING', '', true, 32, 16],
];

test('every PayIn row of the code table: GET and webhook views', (t) => {
  for (const [status, match, channel, get, webhook] of PAYIN_EXPECTED) {
    const facts = { status, amount_match_status: match, has_channel: channel };
    t.is(v1PayinCode(facts, 'get'), get, `${status}/${match}/${channel} GET`);
    t.is(v1PayinCode(facts, 'webhook'), webhook, `${status}/${match}/${channel} webhook`);
  }
  // Every V2 PayIn status has a code; every row of the table is exercised above.
  for (const status of PAYIN_STATUSES) t.notThrows(() => v1PayinCode({ status, amount_match_status: '', has_channel: true }, 'get'));
  for (const row of V1_PAYIN_CODES) {
    t.true(
      PAYIN_EXPECTED.some(
        ([s, m, c, g, w]) =>
          s === row.status && g === row.get && w === row.webhook && (row.channel === undefined || row.channel === c) && (!row.match || row.match.includes(m)),
      ),
    );
  }
  t.throws(() => v1PayinCode({ status: 'MATCHED', amount_match_status: '', has_channel: true }, 'get'));
});

test('every PayOut row of the code table (40 PROCESSING, 30 FAILED and EXPIRED), answers and webhooks alike', (t) => {
  const expected: Record<string, number> = { INITIALIZED: 1, MATCHED: 1, UNASSIGNED: 1, PROCESSING: 40, COMPLETED: 10, FAILED: 30, EXPIRED: 30 };
  for (const status of PAYOUT_STATUSES) t.is(v1PayoutCode(status), expected[status]!, status);
  t.is(V1_PAYOUT_CODES.length, Object.keys(expected).length);
});

test('withdrawal codes 1-4, 3 is sent', (t) => {
  const expected: Record<string, number> = { PENDING: 1, PENDING_MANUAL: 1, APPROVED: 2, COMPLETED: 3, CANCELLED: 4 };
  for (const status of WITHDRAWAL_STATUSES) t.is(v1WithdrawalCode(status), expected[status]!, status);
  t.is(Object.keys(V1_WITHDRAWAL_CODES).length, WITHDRAWAL_STATUSES.length);
  // Moved from test/unit/withdrawals.test.ts (the state table test): every status has a V1 code.
  for (const status of WITHDRAWAL_STATUSES) t.true([1, 2, 3, 4].includes(V1_WITHDRAWAL_CODES[status]));
  t.is(V1_WITHDRAWAL_CODES.COMPLETED, 3);
  t.deepEqual(withdrawalStatusesForCode(1), ['PENDING', 'PENDING_MANUAL']);
  t.deepEqual(withdrawalStatusesForCode(3), ['COMPLETED']);
  t.is(withdrawalStatusesForCode(9), undefined);
});

test('filters select the table rows of a code; unknown codes are undefined; 20 and 50 select nothing', (t) => {
  t.deepEqual(
    payinRowsForCode(11)!.map((r) => r.status),
    ['PAYMENT_VERIFIED', 'COMPLETED'],
  );
  t.deepEqual(
    payinRowsForCode(14)!.map((r) => [r.status, r.match]),
    [['COMPLETED', ['overpaid']]],
  );
  t.deepEqual(
    payinRowsForCode(31)!.map((r) => [r.status, r.channel]),
    [['INITIALIZED', false]],
  );
  t.deepEqual(
    payinRowsForCode(1)!.map((r) => r.status),
    ['INITIALIZED', 'ESCROW_LOCKED'],
  );
  t.deepEqual(
    payinRowsForCode(16)!.map((r) => r.status),
    ['REFUND_PENDING'],
  );
  t.deepEqual(
    payinRowsForCode(32)!.map((r) => r.status),
    ['REFUND_PENDING'],
  );
  for (const unknown of [0, 3, 10, 17, 40, 99]) t.is(payinRowsForCode(unknown), undefined, String(unknown));
  t.deepEqual(payoutStatusesForCode(30), ['FAILED', 'EXPIRED']);
  t.deepEqual(payoutStatusesForCode(1), ['INITIALIZED', 'MATCHED', 'UNASSIGNED']);
  t.deepEqual(payoutStatusesForCode(20), []);
  t.deepEqual(payoutStatusesForCode(50), []);
  t.is(payoutStatusesForCode(11), undefined);
});

test('decimal amounts are exact or refused, never rounded', (t) => {
  t.is(decimalToMinor('1500.50', 2), 150050n);
  t.is(decimalToMinor('1500.5', 2), 150050n);
  t.is(decimalToMinor('1500', 2), 150000n);
  t.is(decimalToMinor('1500.500', 2), 150050n);
  t.is(decimalToMinor('1500.505', 2), undefined);
  t.is(decimalToMinor('7', 0), 7n);
  t.is(decimalToMinor('7.5', 0), undefined);
  for (const bad of ['', '.5', '5.', '-1', '1e3', ' 1', '1,5', '0x10', '١٢']) t.is(decimalToMinor(bad, 2), undefined, bad);
  t.is(decimalToMinor('92233720368547758.07', 2), 9_223_372_036_854_775_807n);
  t.is(decimalToMinor('92233720368547758.08', 2), undefined, 'beyond int64');
  t.is(minorToDecimal(150050n, 2), '1500.50');
  t.is(minorToDecimal(5n, 2), '0.05');
  t.is(minorToDecimal(7n, 0), '7');
  t.is(minorToDecimal(9_223_372_036_854_775_807n, 2), '92233720368547758.07');
});

const source = (over: Partial<V1DealSource> = {}): V1DealSource => ({
  id: '00000000-0000-4000-8000-000000000001',
  idempotency_key: 'order-1',
  status: 'PROCESSING',
  amount: 95_000n,
  received_amount: 0n,
  amount_match_status: '',
  has_channel: true,
  client_id: '',
  payment_url: '',
  target_requisite: '4111111111111111',
  target_name: 'Anna',
  method_slug: 'card-rub',
  currency_numeric: 643,
  currency_exponent: 2,
  created_at: new Date('2026-01-01T00:00:00Z'),
  updated_at: new Date('2026-01-01T00:00:01Z'),
  ...over,
});

test('V1 webhook bodies: PayOut PROCESSING is 40, FAILED and EXPIRED 30; PayIn REFUND_PENDING is 16', (t) => {
  const event = { event_id: 'e1', event_type: 'deal.failed' };
  t.like(v1WebhookBody(event, source(), 'PAYOUT'), {
    status: 40,
    payOutId: 'order-1',
    amount: '950.00',
    currency: 643,
    cardNumber: '4111111111111111',
    paymentType: 'outgoing',
  });
  t.is(v1WebhookBody(event, source({ status: 'FAILED' }), 'PAYOUT').status, 30);
  t.is(v1WebhookBody(event, source({ status: 'EXPIRED' }), 'PAYOUT').status, 30);
  t.like(v1WebhookBody(event, source({ status: 'REFUND_PENDING' }), 'PAYIN'), {
    status: 16,
    payInId: 'order-1',
    paymentType: 'incoming',
    eventType: 'deal.failed',
  });
  t.is(startOfUtcDay(Date.parse('2026-03-04T17:05:09.123Z')), Date.parse('2026-03-04T00:00:00Z') / 1000);
});
