/**
 * The create fence (db/migrations/00001_baseline.sql, db/queries/create-fence.ts): once a workflow run has given
 * its create up, no attempt of that run commits — not one that comes later, not one that was
 * waiting for the fence — and a row an attempt committed before is adopted. A retry (a new run
 * with the same id) is not affected.
 */
import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { abandonCreate, claimCreate, CreateAbandoned } from '../../db/queries/create-fence';
import { insertMerchant } from '../../db/queries/merchants';
import { ensureWallet } from '../../db/queries/wallets';
import { insertWithdrawal, type WithdrawalRow } from '../../db/queries/withdrawals';
import type { Db } from '../../db/sql';
import { eventually } from '../helpers/poll';
import { testSql } from '../helpers/app';

const sql = testSql();
test.after.always(() => sql.end());

/** The rows these tests make hold nothing (no ledger posting): removed afterwards, so the post-suite ledger check sees no live withdrawal without its hold. */
const removedAfter = (t: ExecutionContext, id: string) => t.teardown(async () => void (await sql`delete from withdrawals where id = ${id}`));

async function newMerchantWallet() {
  const merchantId = await insertMerchant(sql, {
    name: 'Create fence',
    email: `${randomUUID()}@example.test`,
    webhook_url: '',
    api_version: 'v2',
    rate_limit_per_minute: null,
    payin_fee_bps: 0,
    payout_fee_bps: 0,
  });
  const wallet = await ensureWallet(sql, 'merchant', merchantId, 'USDT');
  return { merchantId, walletId: wallet.id };
}

/** A create attempt: the fence, then the row (a withdrawal; no hold needed to test the fence). */
async function attempt(tx: Db, owner: { merchantId: string; walletId: string }, id: string, run: string): Promise<'adopted' | 'created'> {
  const existing = await claimCreate<WithdrawalRow>(tx, 'withdrawals', id, run);
  if (existing) return 'adopted';
  await insertWithdrawal(tx, {
    id,
    merchantId: owner.merchantId,
    walletId: owner.walletId,
    auto: true,
    address: 'T-fence',
    amount: 500n,
    fee: 100n,
    dedupKey: id,
    dedupGeneration: 0,
    idempotencyKey: id,
    callerKey: null,
  });
  return 'created';
}

const rowOf = async (id: string) => (await sql`select id from withdrawals where id = ${id}`)[0];

/** Backends waiting for the fence of `id` (its advisory lock: the key's high and low 32 bits). */
const waitingOnFence = async (id: string) =>
  (
    await sql<{ n: number }[]>`
      with k as (select hashtextextended('create:' || ${id}, 0) as key)
      select count(*)::int as n from pg_locks, k
      where locktype = 'advisory' and not granted and objsubid = 1
        and classid::bigint = ((k.key >> 32) & 4294967295) and objid::bigint = (k.key & 4294967295)`
  )[0]!.n;

test('a run that gave its create up: a later attempt of that run is refused and writes nothing; a new run (a retry) creates', async (t) => {
  const owner = await newMerchantWallet();
  const id = randomUUID();
  removedAfter(t, id);
  const [run, retry] = [randomUUID(), randomUUID()];
  t.is(await abandonCreate<WithdrawalRow>(sql, 'withdrawals', id, run), undefined, 'nothing committed: nothing to adopt');
  await t.throwsAsync(
    sql.begin((tx) => attempt(tx, owner, id, run)),
    { instanceOf: CreateAbandoned },
  );
  t.is(await rowOf(id), undefined, 'the late attempt wrote nothing');
  t.is(await sql.begin((tx) => attempt(tx, owner, id, retry)), 'created', 'the retry is a new run');
  t.truthy(await rowOf(id));
});

test('an attempt that was waiting for the fence when its run gave up is refused once the give-up commits', async (t) => {
  const owner = await newMerchantWallet();
  const id = randomUUID();
  removedAfter(t, id);
  const run = randomUUID();
  const giveUp = await sql.reserve();
  t.teardown(() => giveUp.release());
  await giveUp`begin`;
  await giveUp`select abandon_create(${run}, ${id})`;
  // The attempt queues on the fence behind the give-up (its snapshot of the tombstones is older).
  const late = sql.begin((tx) => attempt(tx, owner, id, run));
  late.catch(() => undefined);
  await eventually(async () => (await waitingOnFence(id)) === 1, 'the attempt waiting on the fence', 60_000);
  await giveUp`commit`;
  await t.throwsAsync(late, { instanceOf: CreateAbandoned });
  t.is(await rowOf(id), undefined);
});

test('a give-up waits for an attempt holding the fence and adopts the row it committed', async (t) => {
  const owner = await newMerchantWallet();
  const id = randomUUID();
  removedAfter(t, id);
  const run = randomUUID();
  let finish!: () => void;
  const held = new Promise<void>((resolve) => (finish = resolve));
  let claimed!: () => void;
  const inside = new Promise<void>((resolve) => (claimed = resolve));
  const slow = sql.begin(async (tx) => {
    const outcome = await attempt(tx, owner, id, run);
    claimed();
    await held; // the attempt is slow to commit (a starved worker)
    return outcome;
  });
  await inside;
  const giveUp = abandonCreate<WithdrawalRow>(sql, 'withdrawals', id, run);
  await eventually(async () => (await waitingOnFence(id)) === 1, 'the give-up waiting on the fence', 60_000);
  finish();
  t.is(await slow, 'created');
  const adopted = await giveUp;
  t.is(adopted?.id, id, 'the give-up sees the committed row and adopts it');
  // And the run's later attempts see the row, not the tombstone.
  t.is(await sql.begin((tx) => attempt(tx, owner, id, run)), 'adopted');
});
