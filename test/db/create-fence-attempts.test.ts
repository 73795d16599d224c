/**
 * The create fence, attempt behind attempt (docs/decisions/0004-create-fence-reads-after-claim.md): on a starved worker a second attempt of
 * the same workflow run can queue on the fence behind the first. Once the first commits its deal
 * (or withdrawal) and hold, the second must adopt that row — not create again, fail on the
 * first's hold ("insufficient balance", "no trader available") and let the run answer "not
 * created" while the row and its hold stay behind with no workflow.
 *
 * The real create activities (PayIn, PayOut, withdrawal) run twice under one run id in the
 * activity test environment; the first is held inside its transaction (after the fence) by a row
 * lock a blocker connection takes on the wallet it needs, the second is seen waiting on the fence,
 * then the blocker lets go. Afterwards each object is settled through its own activity (cancel,
 * fail), so the post-suite ledger check finds no hold without a workflow.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';
import { fundedMerchant, isolatedMethod, isolatedTrader, walletOf } from '../helpers/deals';
import { newMerchant } from '../helpers/api';
import { testSql } from '../helpers/app';
import { directActivities } from '../helpers/activities';
import { eventually } from '../helpers/poll';
import { strandedHolds } from '../../scripts/ledger-check';
import { createTemporalClient } from '../../temporal/client';

const sql = testSql();
test.after.always(() => sql.end());

const { config, payins, payouts, withdrawals } = directActivities(sql);

/** An attempt of the run `runId` (a fresh activity context each, as the engine gives every attempt). */
const attemptOf = (runId: string) =>
  new MockActivityEnvironment({ workflowExecution: { workflowId: `fence-test:${runId}`, runId }, startToCloseTimeoutMs: 60_000 });

const fenceLocks = async (id: string, granted: boolean) =>
  (
    await sql<{ n: number }[]>`
      with k as (select hashtextextended('create:' || ${id}, 0) as key)
      select count(*)::int as n from pg_locks, k
      where locktype = 'advisory' and granted = ${granted} and objsubid = 1
        and classid::bigint = ((k.key >> 32) & 4294967295) and objid::bigint = (k.key & 4294967295)`
  )[0]!.n;

/**
 * Runs `create` twice under one run: the first attempt is held (after the fence) by a lock on
 * `walletId`, the second queues on the fence behind it, then the first commits. Answers both.
 */
async function attemptBehindAttempt<T>(id: string, walletId: string, create: () => Promise<T>): Promise<[T, PromiseSettledResult<T>]> {
  const runId = randomUUID();
  const blocker = await sql.reserve();
  try {
    await blocker`begin`;
    await blocker`select id from wallets where id = ${walletId} for update`;
    const first = attemptOf(runId).run(create) as Promise<T>;
    first.catch(() => undefined);
    await eventually(async () => (await fenceLocks(id, true)) === 1, 'the first attempt holding the fence', 60_000);
    const second = attemptOf(runId).run(create) as Promise<T>;
    second.catch(() => undefined);
    await eventually(async () => (await fenceLocks(id, false)) === 1, 'the second attempt waiting on the fence', 60_000);
    await blocker`rollback`;
    return [await first, (await Promise.allSettled([second]))[0]!];
  } finally {
    blocker.release();
  }
}

test('PayIn: an attempt queued behind an earlier attempt of its run adopts the deal that attempt committed', async (t) => {
  const { merchantId } = await newMerchant();
  const trader = await isolatedTrader({ liquidity: 2_000 }); // one deal's escrow: a second create finds no trader
  const [method] = await sql<{ id: string }[]>`select id from payment_methods where slug = ${trader.method}`;
  const traderWallet = (await sql<{ id: string }[]>`select id from wallets where owner_type = 'trader' and owner_id = ${trader.traderId}`)[0]!.id;
  const dealId = randomUUID();
  const input = {
    dealId,
    tenantId: DEFAULT_TENANT_ID,
    merchantId,
    idempotencyKey: randomUUID(),
    amount: '150000',
    currency: 'RUB',
    paymentMethodId: method!.id,
    clientId: 'payer-1',
    payerBank: '',
    description: '',
    callbackUrl: '',
    isClientCommission: false,
    arrivedAt: new Date().toISOString(),
  };
  const [first, second] = await attemptBehindAttempt(dealId, traderWallet, () => payins.createPayinDeal(input));
  t.teardown(() => payins.cancelPayin(dealId, 'fence test').then(() => undefined));
  t.is(first.status, 'ESCROW_LOCKED');
  t.is(second.status, 'fulfilled', second.status === 'rejected' ? String(second.reason) : '');
  t.deepEqual(second.status === 'fulfilled' ? second.value : undefined, first, 'the same deal, adopted');
  const wallet = await walletOf(sql, 'trader', trader.traderId);
  const [deal] = await sql<{ escrow_usdt: bigint }[]>`select escrow_usdt from deals where id = ${dealId}`;
  t.is(wallet.frozen, deal!.escrow_usdt, 'one escrow');
});

test('PayOut: an attempt queued behind an earlier attempt of its run adopts the deal that attempt committed', async (t) => {
  const merchant = await fundedMerchant(20_000);
  const [method] = await sql<{ id: string }[]>`select id from payment_methods where slug = ${await isolatedMethod()}`; // no trader: UNASSIGNED
  const dealId = randomUUID();
  const input = {
    dealId,
    tenantId: DEFAULT_TENANT_ID,
    merchantId: merchant.merchantId,
    idempotencyKey: randomUUID(),
    amount: '950000',
    currency: 'RUB',
    paymentMethodId: method!.id,
    walletId: merchant.walletId,
    targetRequisite: '4111111111111111',
    targetName: 'Anna Recipient',
    targetBank: '',
    requisiteDetails: {},
  };
  const [first, second] = await attemptBehindAttempt(dealId, merchant.walletId, () => payouts.createPayoutDeal(input));
  t.teardown(() => payouts.expirePayout(dealId).then(() => undefined));
  t.is(second.status, 'fulfilled', second.status === 'rejected' ? String(second.reason) : '');
  t.deepEqual(second.status === 'fulfilled' ? second.value : undefined, first, 'the same deal, adopted');
  const [deal] = await sql<{ escrow_usdt: bigint }[]>`select escrow_usdt from deals where id = ${dealId}`;
  t.is((await walletOf(sql, 'merchant', merchant.merchantId)).frozen, deal!.escrow_usdt, 'one hold');
});

test('withdrawal: an attempt queued behind an earlier attempt of its run adopts the withdrawal that attempt committed', async (t) => {
  const merchant = await fundedMerchant(5_000);
  const id = randomUUID();
  const input = {
    withdrawalId: id,
    merchantId: merchant.merchantId,
    address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    amount: '5000',
    fee: '100',
    dedupKey: id,
    dedupGeneration: 0,
    idempotencyKey: id,
  };
  const [first, second] = await attemptBehindAttempt(id, merchant.walletId, () => withdrawals.createWithdrawal(input));
  t.teardown(() => withdrawals.failWithdrawal(id, 'fence test').then(() => undefined));
  t.is(second.status, 'fulfilled', second.status === 'rejected' ? String(second.reason) : '');
  t.deepEqual(second.status === 'fulfilled' ? second.value : undefined, first, 'the same withdrawal, adopted');
  t.is((await walletOf(sql, 'merchant', merchant.merchantId)).frozen, 5_000n, 'one hold: the whole balance');
});

test('the ledger check finds a hold whose object has no running workflow (what a stranded create leaves), and not once it is settled', async (t) => {
  const temporal = await createTemporalClient(config);
  t.teardown(() => temporal.connection.close());
  const merchant = await fundedMerchant(3_000);
  const id = randomUUID();
  // The create step alone, outside any workflow run: a withdrawal and its hold that no workflow owns.
  await withdrawals.createWithdrawal({
    withdrawalId: id,
    merchantId: merchant.merchantId,
    address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    amount: '3000',
    fee: '100',
    dedupKey: id,
    dedupGeneration: 0,
    idempotencyKey: id,
  });
  const found = (await strandedHolds(sql, temporal)).find((s) => s.id === id);
  t.like(found, { kind: 'withdrawal', status: 'PENDING', workflow: 'NOT_FOUND' });
  await withdrawals.failWithdrawal(id, 'ledger check test');
  t.falsy(
    (await strandedHolds(sql, temporal)).find((s) => s.id === id),
    'settled: no hold left',
  );
});
