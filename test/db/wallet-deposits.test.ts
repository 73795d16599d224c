import test from 'ava';
import { randomUUID } from 'node:crypto';
import type { ObservedDeposit } from '../../db/queries/wallet-deposits';
import { runDepositWatcherPass, type DepositWatcher } from '../helpers/deposit-watcher';
import { addDepositAddress } from '../../db/queries/deposit-addresses';
import { insertMerchant } from '../../db/queries/merchants';
import { DEV_WALLET_HD_SEED } from '../../config';
import { TronAddressDeriver } from '../../domain/tron/address';
import { testSql } from '../helpers/app';
import { randomTronAddress, txHashOf } from '../helpers/wallet';

const sql = testSql();
test.after.always(() => sql.end());
const deriver = TronAddressDeriver.fromSeedHex(DEV_WALLET_HD_SEED);

const scripted = (passes: ObservedDeposit[][]): DepositWatcher => {
  let i = 0;
  return { poll: async () => ({ deposits: passes[i++] ?? [], cursor: String(i) }) };
};

test('a watcher pass: attributed by address (rotated ones too), PENDING until confirmed, credited once, foreign addresses ignored, mismatches refused', async (t) => {
  const merchantId = await sql.begin((tx) =>
    insertMerchant(tx, {
      name: 'Watcher',
      email: `${randomUUID()}@example.test`,
      webhook_url: '',
      api_version: 'v2',
      rate_limit_per_minute: null,
      payin_fee_bps: 0,
      payout_fee_bps: 0,
    }),
  );
  const old = (await sql.begin((tx) => addDepositAddress(tx, merchantId, (i) => deriver.address(i))))!;
  const current = (await sql.begin((tx) => addDepositAddress(tx, merchantId, (i) => deriver.address(i))))!;
  const late = txHashOf();
  const fresh = txHashOf();
  const watcher = scripted([
    [
      { txHash: late, toAddress: old.address, amount: 700n, confirmations: 25 },
      { txHash: fresh, toAddress: current.address, amount: 300n, confirmations: 1 },
      { txHash: `x-${randomUUID()}`, toAddress: randomTronAddress(), amount: 5n, confirmations: 30 },
    ],
    [
      { txHash: fresh, toAddress: current.address, amount: 300n, confirmations: 20 },
      { txHash: late, toAddress: old.address, amount: 700n, confirmations: 26 },
      { txHash: fresh, toAddress: current.address, amount: 301n, confirmations: 21 },
    ],
  ]);
  const balance = async () => (await sql`select available from wallets where owner_id = ${merchantId}`)[0]!.available;

  const first = await runDepositWatcherPass(sql, watcher, undefined, 19);
  t.deepEqual(
    first.results.map((r) => r.kind),
    ['recorded', 'recorded', 'not_ours'],
  );
  t.is(await balance(), 700n, 'the late deposit to the rotated address is credited; the unconfirmed one is not');
  const [pending] = await sql`select status, address from deposits where tx_hash = ${fresh}`;
  t.deepEqual({ ...pending }, { status: 'PENDING', address: current.address });

  const second = await runDepositWatcherPass(sql, watcher, first.cursor, 19);
  t.deepEqual(
    second.results.map((r) => r.kind),
    ['recorded', 'recorded', 'error'],
  );
  t.is(await balance(), 1_000n, 'confirmed once; repeats credit nothing');
  const [confirmed] = await sql`select status, confirmations, confirmed_at from deposits where tx_hash = ${fresh}`;
  t.is(confirmed!.status, 'CONFIRMED');
  t.truthy(confirmed!.confirmed_at);
  t.is(
    (
      await sql`select count(*)::int as n from ledger_transactions where idempotency_key like 'deposit:%' and ref_id in (select id::text from deposits where merchant_id = ${merchantId})`
    )[0]!.n,
    2,
  );
});

test('a deposit seen PENDING already owns its tx_hash: a trader top-up with the same hash is refused', async (t) => {
  const { creditTraderLiquidity } = await import('../../db/queries/deposits');
  const { ensureWallet } = await import('../../db/queries/wallets');
  const merchantId = await sql.begin((tx) =>
    insertMerchant(tx, {
      name: 'Pending',
      email: `${randomUUID()}@example.test`,
      webhook_url: '',
      api_version: 'v2',
      rate_limit_per_minute: null,
      payin_fee_bps: 0,
      payout_fee_bps: 0,
    }),
  );
  const address = (await sql.begin((tx) => addDepositAddress(tx, merchantId, (i) => deriver.address(i))))!;
  const hash = txHashOf();
  const pass = await runDepositWatcherPass(sql, scripted([[{ txHash: hash, toAddress: address.address, amount: 900n, confirmations: 1 }]]), undefined, 19);
  t.is(pass.results[0]?.kind, 'recorded');
  const [trader] = await sql<{ id: string }[]>`select id from traders limit 1`;
  const wallet = await ensureWallet(sql, 'trader', trader!.id, 'USDT');
  await t.throwsAsync(
    sql.begin((tx) => creditTraderLiquidity(tx, { traderId: trader!.id, walletId: wallet.id, amount: 900n, txHash: hash })),
    { message: /already recorded/ },
  );
});

test('a DROPPED deposit keeps its claim: never credited while dropped; seen on chain again it is PENDING, then CONFIRMED and credited once with one event', async (t) => {
  const { markDepositDropped } = await import('../../db/queries/chain-watch');
  const merchantId = await sql.begin((tx) =>
    insertMerchant(tx, {
      name: 'Dropped',
      email: `${randomUUID()}@example.test`,
      webhook_url: '',
      api_version: 'v2',
      rate_limit_per_minute: null,
      payin_fee_bps: 0,
      payout_fee_bps: 0,
    }),
  );
  const address = (await sql.begin((tx) => addDepositAddress(tx, merchantId, (i) => deriver.address(i))))!;
  const hash = txHashOf();
  const seen = (confirmations: number) => ({
    txHash: hash,
    toAddress: address.address,
    amount: 500n,
    confirmations,
    chainUnits: 5_004_321n,
    blockAt: Date.now(),
  });
  await runDepositWatcherPass(sql, scripted([[seen(0)]]), undefined, 19);
  const [pending] = await sql`select id, status, chain_units from deposits where tx_hash = ${hash}`;
  t.like(pending, { status: 'PENDING', chain_units: 5_004_321n });
  t.true(await markDepositDropped(sql, pending!.id));
  t.false(await markDepositDropped(sql, pending!.id), 'only a PENDING deposit drops');
  const balance = async () => (await sql`select available from wallets where owner_id = ${merchantId}`)[0]!.available;
  t.is(await balance(), 0n);
  t.is((await sql`select count(*)::int as n from chain_credits where tx_hash = ${hash}`)[0]!.n, 1, 'the claim is kept');

  await runDepositWatcherPass(sql, scripted([[seen(1)]]), undefined, 19);
  t.is((await sql`select status from deposits where tx_hash = ${hash}`)[0]!.status, 'PENDING', 'back on chain: PENDING again');
  await markDepositDropped(sql, pending!.id);
  const twice = scripted([[seen(20)], [seen(25)]]);
  await runDepositWatcherPass(sql, twice, undefined, 19);
  await runDepositWatcherPass(sql, twice, '1', 19);
  const [confirmed] = await sql`select status, dropped_at, confirmed_at from deposits where tx_hash = ${hash}`;
  t.like(confirmed, { status: 'CONFIRMED', dropped_at: null });
  t.is(await balance(), 500n);
  const events = await sql`select payload from outbox_events where merchant_id = ${merchantId} and event_type = 'p2p.finance.deposit_confirmed'`;
  t.is(events.length, 1);
  t.like(events[0]!.payload.deposit, { status: 'CONFIRMED', amount: '500', tx_hash: hash, address: address.address });
});
