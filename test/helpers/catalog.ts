/**
 * Catalogue rows a test owns. Currencies, rates and payment methods are global: every test file
 * of a run shares them, in parallel. A test that changes a rate (or anything else of the
 * catalogue) changes one of its own, never a seeded one that other files read at the same time.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { createSql } from '../../db/sql';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';

/**
 * Codes tests make their own currencies with: ISO 4217 keeps QMA–QZZ for user assignment, so no
 * real currency (and no seeded one) is ever among them. Listings that compare the seeded
 * catalogue leave these out.
 */
export const TEST_CURRENCY_RE = /^Q[M-Z][A-Z]$/;

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const randomCode = () => `Q${LETTERS[12 + randomInt(14)]}${LETTERS[randomInt(26)]}`;

/**
 * A fiat currency of the caller's own (ACTIVE, 2 decimals) with its BUY and SELL rate, in the
 * default tenant, so merchants' deals can use it and the operator's PUT /rates/{currency} can
 * change it. Answers its code.
 */
export async function ownCurrency(rate: { buyMicro: bigint; sellMicro: bigint }, exponent = 2): Promise<string> {
  const sql = createSql(process.env.DATABASE_URL!, { max: 1 });
  try {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const code = randomCode();
      const made = await sql.begin(async (tx) => {
        const [row] = await tx`
          insert into currencies (id, tenant_id, code, name, exponent)
          values (${randomUUID()}, ${DEFAULT_TENANT_ID}, ${code}, ${`Test currency ${code}`}, ${exponent})
          on conflict do nothing
          returning code`;
        if (!row) return false;
        await tx`
          insert into rates (tenant_id, currency_code, buy_rate_micro, sell_rate_micro)
          values (${DEFAULT_TENANT_ID}, ${code}, ${rate.buyMicro}, ${rate.sellMicro})`;
        return true;
      });
      if (made) return code;
    }
    throw new Error('no free test currency code left in QMA–QZZ');
  } finally {
    await sql.end();
  }
}
