/**
 * The pass race rule at microsecond precision: a PayIn is 409 `pass was concurrently
 * reserved` only when a matching pass was reserved at or after the request arrived — a pass
 * reserved 500 µs before (the same millisecond) is simply gone, and the deal takes the cascade.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { claimThroughPass } from '../../db/queries/passes';
import { DEFAULT_TENANT_ID, insertMerchant } from '../../db/queries/merchants';
import { Conflict } from '../../domain/errors';
import { testSql } from '../helpers/app';

const sql = testSql();
test.after.always(() => sql.end());

class Rollback extends Error {}

test('arrival and reservation compare in microseconds, not milliseconds', async (t) => {
  const outcomes: string[] = [];
  await sql
    .begin(async (tx) => {
      const merchantId = await insertMerchant(tx, {
        name: 'Pass race',
        email: `${randomUUID()}@example.test`,
        webhook_url: '',
        api_version: 'v2',
        rate_limit_per_minute: null,
        payin_fee_bps: 0,
        payout_fee_bps: 0,
      });
      await tx`
        insert into passes (id, tenant_id, merchant_id, amount, status, expires_at, used_deal_id, used_at)
        values (${randomUUID()}, ${DEFAULT_TENANT_ID}, ${merchantId}, 777, 'USED', now() + interval '1 hour', ${randomUUID()}, '2026-01-01T00:00:00.123400Z')`;
      const deal = (arrivedAt: string) => ({
        merchantId,
        dealId: randomUUID(),
        amount: 777n,
        currencyId: randomUUID(),
        paymentMethodId: randomUUID(),
        arrivedAt,
      });
      const request = { paymentMethodId: randomUUID(), amount: 777n, escrowUsdt: 1n, payerBank: '' };
      for (const arrivedAt of ['2026-01-01T00:00:00.123900Z', '2026-01-01T00:00:00.123300Z']) {
        try {
          outcomes.push(String(await claimThroughPass(tx, deal(arrivedAt), request)));
        } catch (error) {
          outcomes.push(error instanceof Conflict ? error.message : String(error));
        }
      }
      throw new Rollback();
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error;
    });
  t.deepEqual(outcomes, ['undefined', 'pass was concurrently reserved'], 'reserved 500 µs before arrival: cascade; 100 µs after: 409');
});
