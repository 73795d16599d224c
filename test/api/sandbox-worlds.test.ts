/**
 * Play money never becomes live USDT: the operator's world switch (PATCH /admin/merchants/{id}
 * `sandbox`) is serialised against the merchant's money writes, so a merchant switched to live
 * never keeps play money and no play credit is taken from the live chain account. On the real
 * stack, against the real API, repeated because a race is a matter of timing.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../config';
import { auditInvariants, auditLedger } from '../../db/queries/ledger';
import { auditWorlds } from '../../db/queries/ledger-worlds';
import { asOperator, newMerchant, problemDetail, signed } from '../helpers/api';
import { testSql } from '../helpers/app';
import { payinBody, PAYIN } from '../helpers/deals';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  const violations = [...(await auditInvariants(sql)), ...(await auditWorlds(sql))];
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
  const worlds = violations.filter((v) => /sandbox|play|world/.test(v.invariant));
  if (worlds.length) throw new Error(`world invariant failed: ${JSON.stringify(worlds, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
});

const DEPOSITS = '/api/v1/p2p/merchant/sandbox/deposits';
const TRIALS = 20;

/** What the merchant ended with: its world, its wallet, and the ledger transactions that touched its wallet from a live system account. */
async function outcome(merchantId: string) {
  const [merchant] = await sql<{ sandbox: boolean }[]>`select sandbox from merchants where id = ${merchantId}`;
  const [wallet] = await sql<{ available: bigint; frozen: bigint; sandbox: boolean }[]>`
    select available, frozen, sandbox from wallets where owner_type = 'merchant' and owner_id = ${merchantId} and currency = 'USDT'`;
  const [fromLive] = await sql<{ n: number }[]>`
    select count(distinct e.transaction_id)::int as n
    from ledger_entries e join wallets w on w.id = e.wallet_id
    where w.owner_type = 'merchant' and w.owner_id = ${merchantId}
      and exists (select 1 from ledger_entries s join wallets sw on sw.id = s.wallet_id
                  where s.transaction_id = e.transaction_id and sw.owner_type = 'system' and not sw.sandbox)`;
  const [rows] = await sql<{ deposits: number; deals: number; sandbox_rows: number }[]>`
    select (select count(*)::int from deposits where merchant_id = ${merchantId}) as deposits,
      (select count(*)::int from deals where merchant_id = ${merchantId}) as deals,
      (select count(*)::int from deposits where merchant_id = ${merchantId} and sandbox)
        + (select count(*)::int from deals where merchant_id = ${merchantId} and sandbox) as sandbox_rows`;
  return { sandbox: merchant!.sandbox, wallet, fromLive: fromLive!.n, ...rows! };
}

test.serial(`8 sandbox deposits beside the operator's switch to live: the merchant never ends live with play money (${TRIALS} trials)`, async (t) => {
  const failures: string[] = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    const { merchantId, keys } = await newMerchant({ sandbox: true });
    const deposits = Array.from({ length: 8 }, (_, i) => signed(keys, 'POST', DEPOSITS, { amount: 50_000_000, idempotency_key: `race-${trial}-${i}` }));
    const patch = asOperator('PATCH', `/api/v1/p2p/admin/merchants/${merchantId}`, { sandbox: false });
    const [answers, switched] = await Promise.all([Promise.all(deposits), patch]);
    const statuses = answers.map((a) => a.status);
    const end = await outcome(merchantId);
    const where = `trial ${trial}: switch ${switched.status}, deposits ${statuses.join(',')}, merchant ${end.sandbox ? 'sandbox' : 'live'}, available ${end.wallet?.available}, ${end.fromLive} from live chain`;
    t.log(where);
    // Each request has one clear answer: a deposit 201 (credited) or 403 (the merchant is live by then); the switch 200 or 400.
    if (!statuses.every((s) => s === 201 || s === 403)) failures.push(`${where}: a deposit answered other than 201/403`);
    if (switched.status !== 200 && switched.status !== 400) failures.push(`${where}: the switch answered ${switched.status} ${switched.text}`);
    if (end.fromLive > 0) failures.push(`${where}: a transaction took play money from the live chain account`);
    if (!end.sandbox) {
      // Switched: it happened before any deposit, so none was credited and nothing of the play world is left.
      if (switched.status !== 200) failures.push(`${where}: live without a switch`);
      if ((end.wallet?.available ?? 0n) !== 0n) failures.push(`${where}: live with play money`);
      if (end.deposits !== 0 || statuses.some((s) => s === 201)) failures.push(`${where}: a deposit was credited to a merchant that ended live`);
      if (end.wallet?.sandbox) failures.push(`${where}: a live merchant's wallet is sandbox`);
    } else {
      // Refused: some deposit came first; every credited one is play money in a sandbox wallet.
      if (switched.status !== 400) failures.push(`${where}: the switch answered ${switched.status} but the merchant is still sandbox`);
      if (!end.wallet?.sandbox) failures.push(`${where}: a sandbox merchant's wallet is live`);
      if (end.wallet && end.wallet.available !== BigInt(statuses.filter((s) => s === 201).length) * 50_000_000n)
        failures.push(`${where}: the balance is not the credited deposits`);
    }
  }
  t.deepEqual(failures, []);
});

test.serial(`4 sandbox PayIn creates beside the operator's switch to live: every deal is of its merchant's world (${TRIALS} trials)`, async (t) => {
  const failures: string[] = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    const { merchantId, keys } = await newMerchant({ sandbox: true });
    // …33: the sandbox trader does nothing, so the deal just waits (its escrow is the sandbox trader's).
    const creates = Array.from({ length: 4 }, () => signed(keys, 'POST', PAYIN, payinBody({ amount: 150_033, idempotency_key: randomUUID() })));
    // A create takes a while to reach its step (a workflow start): the switch lands at another point of it in each trial.
    const patch = sleep((trial % 10) * 20).then(() => asOperator('PATCH', `/api/v1/p2p/admin/merchants/${merchantId}`, { sandbox: false }));
    const [answers, switched] = await Promise.all([Promise.all(creates), patch]);
    const statuses = answers.map((a) => a.status);
    const end = await outcome(merchantId);
    const where = `trial ${trial}: switch ${switched.status}, creates ${statuses.join(',')}, merchant ${end.sandbox ? 'sandbox' : 'live'}, ${end.deals} deals (${end.sandbox_rows} sandbox rows)`;
    t.log(where);
    if (!statuses.every((s) => s === 200)) failures.push(`${where}: a create answered ${answers.find((a) => a.status !== 200)?.text}`);
    if (end.sandbox) {
      if (switched.status !== 400) failures.push(`${where}: the switch answered ${switched.status} but the merchant is still sandbox`);
      if (end.sandbox_rows !== end.deals) failures.push(`${where}: a live deal of a sandbox merchant`);
    } else {
      if (switched.status !== 200) failures.push(`${where}: live without a switch`);
      if (end.sandbox_rows !== 0) failures.push(`${where}: a sandbox deal of a merchant that ended live`);
    }
  }
  t.deepEqual(failures, []);
});

test.serial('30 parallel sandbox deposits against the daily cap: exactly the cap is credited, the rest get a 400 problem+json', async (t) => {
  const { merchantId, keys } = await newMerchant({ sandbox: true });
  const daily = loadConfig(process.env).SANDBOX_DEPOSIT_DAILY_LIMIT_USDT_CENTS;
  const amount = daily / 20n;
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) => signed(keys, 'POST', DEPOSITS, { amount: Number(amount), idempotency_key: `cap-${i}` })),
  );
  const credited = answers.filter((a) => a.status === 201);
  const refused = answers.filter((a) => a.status !== 201);
  t.is(credited.length, 20, answers.map((a) => a.status).join(','));
  for (const r of refused) {
    t.is(r.status, 400, r.text);
    t.regex(r.headers.get('content-type') ?? '', /application\/problem\+json/);
    t.is(r.body.title, 'FAILED_PRECONDITION');
    t.regex(
      problemDetail(r.body).message,
      new RegExp(`sandbox deposit limit exceeded: deposited today \\d+, requested ${amount}, daily limit ${daily} USDT cents`),
    );
  }
  const [wallet] = await sql<{ available: bigint }[]>`select available from wallets where owner_type = 'merchant' and owner_id = ${merchantId}`;
  t.is(wallet!.available, daily);
  // A repeat of a credited key still answers its deposit (200), at the cap.
  const key = `cap-${answers.findIndex((a) => a.status === 201)}`;
  const repeat = await signed(keys, 'POST', DEPOSITS, { amount: Number(amount), idempotency_key: key });
  t.is(repeat.status, 200, repeat.text);
  // Its play money came from its own play account, which holds exactly the other side.
  const [account] = await sql<{ available: bigint; system_code: string; sandbox: boolean }[]>`
    select available, system_code, sandbox from wallets where owner_type = 'system' and owner_id = ${merchantId}`;
  t.deepEqual(account, { available: -daily, system_code: 'sandbox_merchant_chain', sandbox: true });
});
