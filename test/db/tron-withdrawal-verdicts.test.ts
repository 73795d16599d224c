/**
 * A TRON withdrawal's transaction is judged dead only on a verdict that holds (docs/reliability.md;
 * activities/chain/tron-withdrawals.ts): the adapter itself, on the test database, against the fake
 * TronGrid made to lie, with a clock of our own the test moves (no real wait for an expiry).
 *
 * - EXPIRED: not found, the node's head past expiry + the confirmation depth, our clock past expiry
 *   + TRON_EXPIRY_MARGIN_MS, not in the solidified node — on two passes a poll apart, with no pass
 *   between that saw the transaction.
 * - FAILED: a failed receipt at depth that the solidified node confirms — on two passes a poll apart.
 * Until then the transaction stays live: nothing new is built or signed.
 */
import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { tronGridChain } from '../../activities/chain/tron-withdrawals';
import { connectTron } from '../../activities/chain/tron';
import { loadConfig, type Config } from '../../config';
import { insertMerchant } from '../../db/queries/merchants';
import { ensureWallet } from '../../db/queries/wallets';
import { insertWithdrawal } from '../../db/queries/withdrawals';
import { parsePrivateKey } from '../../domain/tron/transaction';
import { tronAddressFromPrivateKey } from '../../domain/tron/address';
import { testSql } from '../helpers/app';
import { startFakeTronGrid } from '../helpers/fake-trongrid';
import { randomTronAddress } from '../helpers/wallet';

const sql = testSql();
test.after.always(() => sql.end());

const HOT_KEY_HEX = '8b1e7c4f2a9d3e6b5c0f1a2d3e4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b';
const HOT = tronAddressFromPrivateKey(parsePrivateKey(HOT_KEY_HEX));
const POLL = 1_000;
const EXPIRY_MARGIN = 30_000;
const FAILED_RETRY = 700;
const HOUR = 3_600_000;

/** A fake node, the adapter over it with a clock the test sets, and a withdrawal to send (removed afterwards: it holds nothing). */
async function setup(t: ExecutionContext) {
  const fake = await startFakeTronGrid({ confirmations: 2 });
  t.teardown(() => fake.close());
  fake.chain.fund(HOT, { trxSun: 100_000_000n, usdtUnits: 1_000_000_000n });
  const config: Config = {
    ...loadConfig(process.env),
    CHAIN_ADAPTER: 'trongrid',
    TRON_API_URL: fake.url,
    TRON_HOT_WALLET_KEY: HOT_KEY_HEX,
    TRON_CONFIRMATIONS: 2,
    TRON_RECEIPT_POLL_MS: POLL,
    TRON_REBROADCAST_MS: 10 * HOUR,
    TRON_EXPIRY_MARGIN_MS: EXPIRY_MARGIN,
    TRON_FAILED_RETRY_MS: FAILED_RETRY,
    TRON_HOT_WALLET_MIN_TRX_SUN: 0n,
  };
  let at: number | undefined;
  const clock = {
    now: () => at ?? Date.now(),
    set: (ms: number) => {
      at = ms;
    },
    advance: (ms: number) => {
      at = (at ?? Date.now()) + ms;
    },
  };
  const chain = tronGridChain(sql, connectTron(config), clock.now);
  const merchantId = await insertMerchant(sql, {
    name: 'TRON verdicts',
    email: `${randomUUID()}@example.test`,
    webhook_url: '',
    api_version: 'v2',
    rate_limit_per_minute: null,
    payin_fee_bps: 0,
    payout_fee_bps: 0,
  });
  const wallet = await ensureWallet(sql, 'merchant', merchantId, 'USDT');
  const id = randomUUID();
  const to = randomTronAddress();
  await insertWithdrawal(sql, {
    id,
    merchantId,
    walletId: wallet.id,
    auto: true,
    address: to,
    amount: 1_100n,
    fee: 100n,
    dedupKey: id,
    dedupGeneration: 0,
    idempotencyKey: id,
    callerKey: null,
  });
  t.teardown(async () => {
    await sql`delete from withdrawal_transactions where withdrawal_id = ${id}`;
    await sql`delete from withdrawals where id = ${id}`;
  });
  const transfer = { withdrawalId: id, toAddress: to, amount: 1_000n };
  return {
    fake,
    chain,
    clock,
    transfer,
    to,
    status: () => chain.transferStatus!(transfer),
    rows: () => sql`select * from withdrawal_transactions where withdrawal_id = ${id} order by attempt`,
    withdrawal: async () => (await sql`select * from withdrawals where id = ${id}`)[0]!,
    alerts: () =>
      sql<{ kind: string; message: string }[]>`select kind, message from operator_alerts where subject = ${id} and resolved_at is null order by created_at`,
    builds: () => fake.requests.filter((r) => r.path === '/wallet/triggersmartcontract').length,
  };
}

test('expired only when the node’s head and our own clock are both past the expiry with their margins, and on a second pass a poll later', async (t) => {
  const s = await setup(t);
  s.fake.faults.swallowNextBroadcast(); // accepted, never mined: this transaction really does expire
  const { txHash } = await s.chain.send(s.transfer);
  const expiry = (await s.rows())[0]!.expires_at.getTime();

  // The node's head an hour ahead (a node whose clock runs ahead), ours before the expiry.
  s.fake.faults.headAhead(HOUR);
  t.like(await s.status(), { state: 'pending', txHash }, 'the node’s head alone proves nothing');
  t.like((await s.rows())[0], { status: 'BROADCAST', dead_verdict: '' });

  // Our clock past expiry + TRON_EXPIRY_MARGIN_MS, the node's head (honest now) not past it.
  s.fake.faults.headAhead(0);
  s.clock.set(expiry + EXPIRY_MARGIN + 1);
  t.like(await s.status(), { state: 'pending', txHash }, 'our clock alone proves nothing');
  t.like((await s.rows())[0], { status: 'BROADCAST', dead_verdict: '' });

  // Both past: the verdict is noted on this pass, and only taken on a later one.
  s.fake.faults.headAhead(HOUR);
  t.like(await s.status(), { state: 'pending', txHash, checkInMs: POLL }, 'first pass: noted, not taken');
  t.like((await s.rows())[0], { status: 'BROADCAST', dead_verdict: 'EXPIRED' });
  s.clock.advance(POLL - 1);
  t.like(await s.status(), { state: 'pending', txHash }, 'a repeat within one poll is not a second pass');
  t.is(s.builds(), 1, 'nothing new built meanwhile');

  s.clock.advance(1);
  t.deepEqual(await s.status(), { state: 'resubmit', afterMs: 0, reason: `transaction ${txHash} expired without reaching a block` });
  t.like((await s.rows())[0], { status: 'EXPIRED', last_error: `transaction ${txHash} expired without reaching a block` });
  t.regex((await s.withdrawal()).last_broadcast_error, /expired without reaching a block/);
});

test('a mined transaction the node answers {} for is not expired: the solidified node has it, and a pass that sees it clears an earlier verdict', async (t) => {
  const s = await setup(t);
  const { txHash } = await s.chain.send(s.transfer);
  const expiry = (await s.rows())[0]!.expires_at.getTime();
  s.fake.faults.stallSolidity(); // the solidified node lags: it does not have the block yet
  s.fake.chain.mine(1); // mined: in a block, below the confirmation depth
  s.fake.faults.hide(txHash);
  s.fake.faults.headAhead(HOUR);
  s.clock.set(expiry + EXPIRY_MARGIN + 1);
  t.like(await s.status(), { state: 'pending', txHash }, 'a lie on one pass is not a verdict');
  t.like((await s.rows())[0], { status: 'BROADCAST', dead_verdict: 'EXPIRED' });

  // The next pass reaches an honest backend: the transaction is in a block. The verdict is cleared.
  s.fake.faults.clear();
  s.fake.faults.stallSolidity();
  s.clock.advance(POLL);
  t.like(await s.status(), { state: 'pending', txHash });
  t.like((await s.rows())[0], { status: 'BROADCAST', dead_verdict: '' }, 'seen again: the earlier verdict is gone');

  // The lie again: a first sighting anew (the cleared one does not count), so still pending.
  s.fake.faults.hide(txHash);
  s.fake.faults.headAhead(HOUR);
  s.clock.advance(POLL);
  t.like(await s.status(), { state: 'pending', txHash }, 'not the second pass of the cleared verdict');

  // The solidified node catches up while the full node still lies: it has the transaction, so it is not expired.
  s.fake.faults.resumeSolidity();
  s.fake.chain.mine(3);
  s.clock.advance(POLL);
  t.like(await s.status(), { state: 'pending', txHash });
  t.like((await s.rows())[0], { status: 'BROADCAST', dead_verdict: '' });
  t.true(
    (await s.alerts()).some((a) => a.kind === 'withdrawal_chain_problem' && /solidified node has it/.test(a.message)),
    'the lying node is alerted',
  );
  s.clock.advance(POLL);
  t.like(await s.status(), { state: 'pending', txHash }, 'however often it is asked');
  t.is(s.builds(), 1, 'nothing new built');

  s.fake.faults.clear();
  t.deepEqual(await s.status(), { state: 'confirmed', txHash });
  t.is(s.fake.chain.balances(s.to).usdtUnits, 10_000_000n, 'paid once');
  t.is((await s.rows()).length, 1);
});

test('a failed receipt counts only once the solidified node confirms it, on two passes a poll apart; until then nothing new is built', async (t) => {
  const s = await setup(t);
  s.fake.faults.failNextReceipt('OUT_OF_ENERGY'); // it really fails
  s.fake.faults.stallSolidity();
  const { txHash } = await s.chain.send(s.transfer);
  s.fake.chain.confirm(txHash); // at depth on the full node; the solidified node has not got it
  t.like(await s.status(), { state: 'pending', txHash });
  t.like((await s.rows())[0], { status: 'BROADCAST', dead_verdict: '' });
  t.regex((await s.withdrawal()).last_broadcast_error, /OUT_OF_ENERGY.*not confirmed by the solidified node/);
  s.clock.advance(POLL);
  t.like(await s.status(), { state: 'pending', txHash }, 'asked again later, still not taken');
  t.false((await s.alerts()).some((a) => a.kind === 'withdrawal_failed_on_chain'));

  s.fake.faults.resumeSolidity();
  s.clock.advance(POLL);
  t.like(await s.status(), { state: 'pending', txHash, checkInMs: POLL }, 'confirmed by the solidified node: noted on this pass');
  t.like((await s.rows())[0], { status: 'BROADCAST', dead_verdict: 'FAILED' });
  t.is(s.builds(), 1, 'nothing new built');

  s.clock.advance(POLL);
  const dead = await s.status();
  t.like(dead, { state: 'resubmit', afterMs: FAILED_RETRY });
  t.like((await s.rows())[0], { status: 'FAILED', receipt_result: 'OUT_OF_ENERGY' });
  t.true((await s.alerts()).some((a) => a.kind === 'withdrawal_failed_on_chain'));
  t.regex((await s.withdrawal()).last_broadcast_error, /failed on chain: OUT_OF_ENERGY/);
});

test('a failed receipt from a node that lies (the solidified node says SUCCESS) is never taken: alerted, and completed on the truth', async (t) => {
  const s = await setup(t);
  const { txHash } = await s.chain.send(s.transfer);
  s.fake.chain.confirm(txHash); // it succeeded and is solidified
  s.fake.faults.reportFailed(txHash, 'REVERT');
  for (let pass = 0; pass < 3; pass++) {
    s.clock.advance(POLL);
    t.like(await s.status(), { state: 'pending', txHash }, `pass ${pass + 1}`);
  }
  t.like((await s.rows())[0], { status: 'BROADCAST', dead_verdict: '' });
  t.true((await s.alerts()).some((a) => a.kind === 'withdrawal_chain_problem' && /solidified node/.test(a.message)));
  t.is(s.builds(), 1, 'nothing new built or signed');
  s.fake.faults.clear();
  t.deepEqual(await s.status(), { state: 'confirmed', txHash });
  t.is(s.fake.chain.balances(s.to).usdtUnits, 10_000_000n, 'paid once');
});
