/**
 * `npm run device` (scripts/device.ts) against the running test API, as the README's live deal
 * uses it: it pairs with the trader app's QR content, keeps its key in .data/devices/, and forwards
 * a bank notification that confirms the trader's live PayIn.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { asOperator, API_URL } from '../helpers/api';
import { testSql } from '../helpers/app';
import { startPairing } from '../helpers/bank-device';
import { createPayin, fundedMerchant, isolatedMethod } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { asTrader, newTrader, TRADER } from '../helpers/trader-session';

const run = promisify(execFile);
const sql = testSql();
test.after.always(() => sql.end());

test('npm run device pairs with the QR content and its notification confirms the live PayIn', async (t) => {
  const method = await isolatedMethod();
  const trader = await newTrader();
  const requisite = await asOperator('POST', `/api/v1/p2p/admin/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200700099994242',
    holder_name: 'Cli Holder',
    bank_name: 'tbank',
    min_amount: 100,
    max_amount: 100_000_000,
  });
  t.is(requisite.status, 201, requisite.text);
  const { uri, deviceId } = await startPairing(trader, 'CLI phone');
  const env = { ...process.env, API_URL };
  const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'scripts/device.ts', ...args], { env });

  const paired = await cli('pair', uri);
  t.regex(paired.stdout, /paired "CLI phone"/);
  const bound = await asTrader(trader.session, 'PUT', `${TRADER}/devices/${deviceId}/requisites`, { requisite_ids: [requisite.body.requisite.requisite_id] });
  t.is(bound.status, 200, bound.text);

  const m = await fundedMerchant(0);
  const deal = await createPayin(m.keys, { payment_method_id: method, amount: 150_000 });
  const envOf = { ...env, DEVICE_ID: deviceId };
  const sent = await run(
    process.execPath,
    ['--import', 'tsx', 'scripts/device.ts', 'send', 'T-Bank', 'Пополнение, счет RUB. 1 500 ₽. Иван И. Доступно 12 345,67 ₽'],
    {
      env: envOf,
    },
  );
  t.regex(sent.stdout, /202 Accepted/);
  await eventually(async () => {
    const [row] = await sql<{ status: string }[]>`select status from deals where id = ${deal.deal_id}`;
    return row?.status === 'COMPLETED';
  }, 'the deal completed by the CLI device');
  const beat = await run(process.execPath, ['--import', 'tsx', 'scripts/device.ts', 'heartbeat'], { env: envOf });
  t.regex(beat.stdout, /200 OK/);
});
