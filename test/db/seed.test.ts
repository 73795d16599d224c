/**
 * What the seed makes (db/seed.ts) and where live money comes from (db/queries/ledger-backing.ts):
 * production (the compose `setup` job, NODE_ENV=production) seeds the catalogue only — no trader,
 * no liquidity, no merchant, no requisite — and npm start's and the test stack's demo traders are
 * funded by recorded top-ups. A balance with no recorded deposit behind it fails the ledger check.
 * Each test prepares a database of its own (test/helpers/scratch-database.ts).
 */
import test from 'ava';
import { loadConfig } from '../../config';
import { unbackedLiveMoney } from '../../db/queries/ledger-backing';
import { recordDeposit } from '../../db/queries/deposits';
import { auditLedger, postLedger } from '../../db/queries/ledger';
import { insertMerchant } from '../../db/queries/merchants';
import { ensureSystemWallet, ensureWallet } from '../../db/queries/wallets';
import { seed } from '../../db/seed';
import type { Db } from '../../db/sql';
import { KeyRing } from '../../domain/crypto/key-ring';
import { SecretBox } from '../../domain/crypto/secret-box';
import { ledgerCheck } from '../../scripts/ledger-check';
import { scratchDatabase } from '../helpers/scratch-database';
import { txHashOf } from '../helpers/tx-hash';
import { randomBytes } from 'node:crypto';

const config = loadConfig(process.env);
/** npm run ledger:check against the given database (its exit status: true = 0). */
const ledgerCheckPasses = (databaseUrl: string) => ledgerCheck({ ...config, DATABASE_URL: databaseUrl });

const count = async (db: Db, table: string, where = 'true') => Number((await db.unsafe(`select count(*)::int as n from ${table} where ${where}`))[0]!.n);

test('the production seed makes the catalogue only: no trader, liquidity, merchant or requisite; run twice; the ledger check passes', async (t) => {
  t.timeout(300_000);
  const db = await scratchDatabase('seed_prod', 'catalogue');
  t.teardown(db.drop);
  // The compose setup job runs on every start: a second run adds nothing either.
  await seed(db.owner, new SecretBox(randomBytes(32).toString('base64')), {
    demoWebhookUrl: 'http://127.0.0.1:9/unused',
    mode: 'catalogue',
    cardData: new KeyRing([{ id: 'test', key: randomBytes(32) }]),
    virtualDeviceKey: randomBytes(32),
  });
  for (const table of ['traders', 'requisites', 'merchants', 'api_keys', 'deposits', 'chain_credits', 'ledger_transactions', 'ledger_entries']) {
    t.is(await count(db.owner, table), 0, `${table} is empty`);
  }
  t.is(await count(db.owner, 'wallets', 'available <> 0 or frozen <> 0 or pending_credits <> 0'), 0, 'no wallet holds anything');
  // The catalogue is there: currencies, payment methods, banks, rates.
  t.is(await count(db.owner, 'currencies'), 5);
  t.is(await count(db.owner, 'payment_methods'), 5);
  t.is(await count(db.owner, 'banks'), 5);
  t.is(await count(db.owner, 'rates'), 4);
  t.deepEqual(await unbackedLiveMoney(db.owner), []);
  t.true(await ledgerCheckPasses(db.appUrl), 'npm run ledger:check passes on it');
});

test("the demo seed's traders (npm start, the test stack) are funded by recorded top-ups, and the ledger check traces them", async (t) => {
  t.timeout(300_000);
  const db = await scratchDatabase('seed_demo', 'demo');
  t.teardown(db.drop);
  const traders = await db.owner<{ id: string; available: bigint; credits: bigint; topups: number; others: number }[]>`
    select tr.id, w.available,
      (select coalesce(sum(c.amount), 0)::bigint from chain_credits c where c.owner_type = 'trader' and c.owner_id = tr.id and c.wallet_id = w.id) as credits,
      (select count(*)::int from ledger_entries e join ledger_transactions x on x.id = e.transaction_id where e.wallet_id = w.id and x.kind = 'trader_deposit') as topups,
      (select count(*)::int from ledger_entries e join ledger_transactions x on x.id = e.transaction_id where e.wallet_id = w.id and x.kind <> 'trader_deposit') as others
    from traders tr join wallets w on w.owner_type = 'trader' and w.owner_id = tr.id
    where not tr.sandbox order by tr.id`;
  t.is(traders.length, 4, "the three demo traders an operator manages and the trader app's demo trader");
  for (const trader of traders) {
    t.true(trader.available > 0n, `${trader.id} has liquidity`);
    t.is(trader.available, trader.credits, `${trader.id}: its balance is its recorded top-ups`);
    t.is(trader.topups, 1);
    t.is(trader.others, 0);
  }
  const [account] = await db.owner<{ email: string; trader_id: string; totp_required: boolean }[]>`
    select email, trader_id, totp_required from accounts where party = 'trader'`;
  t.like(account, { email: 'trader@gateway.local', trader_id: '30000000-0000-4000-8000-000000000004', totp_required: true });
  t.deepEqual(await unbackedLiveMoney(db.owner), []);
  t.true(await ledgerCheckPasses(db.appUrl));
});

test('liquidity with no recorded deposit behind it fails the ledger check, however it was posted', async (t) => {
  t.timeout(300_000);
  const db = await scratchDatabase('seed_unbacked', 'demo');
  t.teardown(db.drop);
  const [trader] = await db.owner<{ id: string }[]>`select id from traders where not sandbox order by id limit 1`;
  const traderWallet = (await ensureWallet(db.owner, 'trader', trader!.id, 'USDT')).id;
  // A live merchant with a recorded deposit (the demo merchant is a sandbox one).
  const merchantId = await db.owner.begin((tx) =>
    insertMerchant(tx, {
      name: 'Live shop',
      email: 'live@example.test',
      webhook_url: '',
      api_version: 'v2',
      rate_limit_per_minute: null,
      payin_fee_bps: 0,
      payout_fee_bps: 0,
    }),
  );
  const merchantWallet = (await ensureWallet(db.owner, 'merchant', merchantId, 'USDT')).id;
  await db.owner.begin((tx) => recordDeposit(tx, { merchantId, walletId: merchantWallet, amount: 1_000n, txHash: txHashOf() }));
  const chain = await ensureSystemWallet(db.owner, 'chain', 'USDT');
  const platform = await ensureSystemWallet(db.owner, 'platform_fees', 'USDT');

  const amount = 100_000_000n;
  const cases: [string, (tx: Db) => Promise<unknown>][] = [
    [
      'a top-up posting without its recorded chain credit',
      (tx) =>
        postLedger(tx, {
          key: `trader-deposit:${txHashOf()}`,
          kind: 'trader_deposit',
          refType: 'wallet',
          refId: traderWallet,
          entries: [
            { walletId: chain, bucket: 'available', amount: -amount },
            { walletId: traderWallet, bucket: 'available', amount },
          ],
        }),
    ],
    [
      'a deposit posting that names no deposit',
      (tx) =>
        postLedger(tx, {
          key: `deposit:${txHashOf()}`,
          kind: 'deposit',
          refType: 'deposit',
          refId: '00000000-0000-4000-8000-000000000000',
          entries: [
            { walletId: chain, bucket: 'available', amount: -amount },
            { walletId: traderWallet, bucket: 'available', amount },
          ],
        }),
    ],
    [
      'a payment from the platform account',
      (tx) =>
        postLedger(tx, {
          key: `adjustment:${txHashOf()}`,
          kind: 'adjustment',
          refType: 'wallet',
          refId: traderWallet,
          entries: [
            { walletId: platform, bucket: 'available', amount: -amount },
            { walletId: traderWallet, bucket: 'available', amount },
          ],
        }),
    ],
    [
      'a transfer into a trader wallet that no deal of the trader explains',
      (tx) =>
        postLedger(tx, {
          key: `transfer:${txHashOf()}`,
          kind: 'transfer',
          refType: 'wallet',
          refId: traderWallet,
          entries: [
            { walletId: merchantWallet, bucket: 'available', amount: -1n },
            { walletId: traderWallet, bucket: 'available', amount: 1n },
          ],
        }),
    ],
  ];
  for (const [what, post] of cases) {
    const rollback = new Error('rollback');
    const seen = await db.owner
      .begin(async (tx) => {
        await post(tx);
        throw Object.assign(rollback, { arithmetic: await auditLedger(tx), unbacked: await unbackedLiveMoney(tx) });
      })
      .catch(
        (error: unknown) =>
          error as typeof rollback & { arithmetic: Awaited<ReturnType<typeof auditLedger>>; unbacked: Awaited<ReturnType<typeof unbackedLiveMoney>> },
      );
    t.is(seen as Error, rollback, what);
    t.deepEqual(seen.arithmetic, { walletMismatches: [], unbalancedTransactions: [] }, `${what}: balanced, so the arithmetic passes`);
    t.true(seen.unbacked.length > 0, `${what}: found as unbacked`);
  }

  // Committed, as a hand-made top-up would be: npm run ledger:check fails on it.
  t.true(await ledgerCheckPasses(db.appUrl), 'clean before');
  await db.owner.begin((tx) => cases[0]![1](tx));
  t.false(await ledgerCheckPasses(db.appUrl), 'invented liquidity fails the check');
  const unbacked = await unbackedLiveMoney(db.owner);
  t.is(unbacked.length, 2, 'the chain paid and the trader wallet moved without a record');
  t.true(unbacked.every((u) => u.kind === 'trader_deposit' && u.amount === amount));
  // A bare balance (no posting at all) was caught before and still is.
  await db.owner`update wallets set available = available + 1 where id = ${merchantWallet}`;
  const report = await auditLedger(db.owner);
  t.is(report.walletMismatches.length, 1);
});
