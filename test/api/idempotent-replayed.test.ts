/**
 * Every answer to a create that is idempotent by key says whether it is a replay
 * (Idempotent-Replayed, Stripe's header): `false` for the request that made the object, `true`
 * for every later (or concurrent, joining) request with the same key — whose body is ignored,
 * as idempotency by key says.
 */
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { newMerchant, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { fundedMerchant, PAYIN, PAYOUT, payinBody } from '../helpers/deals';
import { randomTronAddress, walletMerchant, withdraw } from '../helpers/wallet';

const sql = testSql();
test.after.always(() => sql.end());

const replayed = (res: { headers: Headers }) => res.headers.get('idempotent-replayed');

test('PayIn: first create false, a repeat true, the same key with another amount true and answered with the original deal', async (t) => {
  const { keys } = await newMerchant();
  const body = payinBody({ amount: 120_000 });
  const first = await signed(keys, 'POST', PAYIN, body);
  t.is(first.status, 200, first.text);
  t.is(replayed(first), 'false');
  const again = await signed(keys, 'POST', PAYIN, body);
  t.is(again.status, 200, again.text);
  t.is(replayed(again), 'true');
  t.is(again.body.deal.deal_id, first.body.deal.deal_id);
  const other = await signed(keys, 'POST', PAYIN, { ...body, amount: 130_000, client_id: 'someone-else' });
  t.is(other.status, 200, other.text);
  t.is(replayed(other), 'true');
  t.is(other.body.deal.deal_id, first.body.deal.deal_id);
  t.is(other.body.deal.amount, '120000', 'the original deal, the new body ignored');
  t.is(other.body.deal.client_id, 'payer-1');
  // A refusal is no create: no header.
  const refused = await signed(keys, 'POST', PAYIN, payinBody({ amount: 0 }));
  t.is(refused.status, 400);
  t.is(replayed(refused), null);
});

test('PayIn: of two concurrent identical creates exactly one is not a replay, and both answer one deal', async (t) => {
  const { keys, merchantId } = await newMerchant();
  for (let round = 0; round < 3; round++) {
    const body = payinBody();
    const answers = await Promise.all([signed(keys, 'POST', PAYIN, body), signed(keys, 'POST', PAYIN, body)]);
    for (const res of answers) t.is(res.status, 200, res.text);
    t.deepEqual(answers.map(replayed).sort(), ['false', 'true'], `round ${round}`);
    t.is(answers[0]!.body.deal.deal_id, answers[1]!.body.deal.deal_id);
  }
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from deals where merchant_id = ${merchantId}`;
  t.is(row!.n, 3);
});

test('PayOut and withdrawal creates say whether they are replays', async (t) => {
  const m = await fundedMerchant(10_000);
  const body = m.payoutBody();
  const first = await signed(m.keys, 'POST', PAYOUT, body);
  t.is(first.status, 200, first.text);
  t.is(replayed(first), 'false');
  const other = await signed(m.keys, 'POST', PAYOUT, { ...body, amount: 190_000 });
  t.is(other.status, 200, other.text);
  t.is(replayed(other), 'true');
  t.is(other.body.deal.deal_id, first.body.deal.deal_id);
  t.is(other.body.deal.amount, '95000');

  const w = await walletMerchant(10_000);
  const request = { address: randomTronAddress(), amount: 2_000, idempotency_key: randomUUID() };
  const made = await withdraw(w.keys, request);
  t.is(made.status, 200, made.text);
  t.is(replayed(made), 'false');
  const repeat = await withdraw(w.keys, request);
  t.is(repeat.status, 200, repeat.text);
  t.is(replayed(repeat), 'true');
  t.is(repeat.body.withdrawal_id, made.body.withdrawal_id);
});
