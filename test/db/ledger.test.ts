import test from 'ava';
import { randomUUID } from 'node:crypto';
import { recordDeposit } from '../../db/queries/deposits';
import { auditLedger, postLedger, UnbalancedPosting } from '../../db/queries/ledger';
import { insertMerchant } from '../../db/queries/merchants';
import { ensureSystemWallet, ensureWallet } from '../../db/queries/wallets';
import { testSql } from '../helpers/app';
import { txHashOf } from '../helpers/tx-hash';

const sql = testSql();
test.after.always(() => sql.end());

/**
 * A merchant's wallet, funded by a recorded deposit when `funds` is given: the ledger check
 * refuses live money without one (db/queries/ledger-backing.ts), so these tests move only that.
 */
async function merchantWallet(funds = 0n) {
  const id = await sql.begin((tx) =>
    insertMerchant(tx, {
      name: 'Ledger',
      email: `${randomUUID()}@example.test`,
      webhook_url: '',
      api_version: 'v2',
      rate_limit_per_minute: null,
      payin_fee_bps: 0,
      payout_fee_bps: 0,
    }),
  );
  const wallet = (await ensureWallet(sql, 'merchant', id, 'USDT')).id;
  if (funds > 0n) await sql.begin((tx) => recordDeposit(tx, { merchantId: id, walletId: wallet, amount: funds, txHash: txHashOf() }));
  return wallet;
}

/**
 * These tests post to merchant wallets without deals behind them; afterwards the frozen and
 * pending figures go back to available, so the post-suite business invariants (frozen = live
 * holds, pending = undistributed credits) hold for the shared database.
 */
async function settleTestFigures(wallet: string) {
  const [w] = await sql<{ frozen: bigint; pending_credits: bigint }[]>`select frozen, pending_credits from wallets where id = ${wallet}`;
  if (w!.frozen === 0n && w!.pending_credits === 0n) return;
  await sql.begin((tx) =>
    postLedger(tx, {
      key: `test:${wallet}:settle:${randomUUID()}`,
      kind: 'test',
      refType: 'wallet',
      refId: wallet,
      entries: [
        { walletId: wallet, bucket: 'frozen', amount: -w!.frozen },
        { walletId: wallet, bucket: 'pending_credits', amount: -w!.pending_credits },
        { walletId: wallet, bucket: 'available', amount: w!.frozen + w!.pending_credits },
      ].filter((e) => e.amount !== 0n) as never,
    }),
  );
}

test('a posting moves figures and a retry with the same key posts nothing', async (t) => {
  const wallet = await merchantWallet(500n);
  const [funded] = await sql`select available from wallets where id = ${wallet}`;
  t.is(funded!.available, 500n);
  // available → frozen hold inside one wallet
  const posting = {
    key: `test:${wallet}:hold`,
    kind: 'hold',
    refType: 'wallet',
    refId: wallet,
    entries: [
      { walletId: wallet, bucket: 'available' as const, amount: -200n },
      { walletId: wallet, bucket: 'frozen' as const, amount: 200n },
    ],
  };
  t.true(await sql.begin((tx) => postLedger(tx, posting)));
  t.false(await sql.begin((tx) => postLedger(tx, posting)));
  const [after] = await sql`select available, frozen from wallets where id = ${wallet}`;
  t.deepEqual({ ...after }, { available: 300n, frozen: 200n });
  await settleTestFigures(wallet);
});

test('unbalanced postings are refused by the code and by the database', async (t) => {
  const wallet = await merchantWallet();
  await t.throwsAsync(
    sql.begin((tx) =>
      postLedger(tx, { key: `bad:${wallet}`, kind: 'x', refType: 'x', refId: 'x', entries: [{ walletId: wallet, bucket: 'available', amount: 5n }] }),
    ),
    { instanceOf: UnbalancedPosting },
  );
  // Bypassing the code: the deferred trigger rejects the commit.
  await t.throwsAsync(
    sql.begin(async (tx) => {
      const id = randomUUID();
      await tx`insert into ledger_transactions (id, idempotency_key, kind, ref_type, ref_id) values (${id}, ${`raw:${id}`}, 'x', 'x', 'x')`;
      await tx`insert into ledger_entries (transaction_id, wallet_id, bucket, amount) values (${id}, ${wallet}, 'available', 5)`;
    }),
    { message: /does not balance/ },
  );
});

test('a posting that would overdraw a merchant wallet fails with insufficient balance and leaves nothing', async (t) => {
  const wallet = await merchantWallet();
  const error = await t.throwsAsync(
    sql.begin((tx) =>
      postLedger(tx, {
        key: `overdraw:${wallet}`,
        kind: 'hold',
        refType: 'wallet',
        refId: wallet,
        entries: [
          { walletId: wallet, bucket: 'available', amount: -1n },
          { walletId: wallet, bucket: 'frozen', amount: 1n },
        ],
      }),
    ),
  );
  t.is(error!.message, 'insufficient balance');
  const [tx] = await sql`select count(*)::int as n from ledger_transactions where idempotency_key = ${`overdraw:${wallet}`}`;
  t.is(tx!.n, 0);
});

test('many concurrent postings across shared wallets keep figures equal to entries (no deadlock)', async (t) => {
  const wallets = await Promise.all([merchantWallet(1_000n), merchantWallet(1_000n), merchantWallet(1_000n)]);
  await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      sql.begin((tx) =>
        postLedger(tx, {
          key: `concurrent:${wallets[0]}:${i}`,
          kind: 'test',
          refType: 'wallet',
          refId: 'x',
          entries: [
            { walletId: wallets[(i + 2) % 3]!, bucket: 'available', amount: -10n },
            { walletId: wallets[i % 3]!, bucket: 'available', amount: 7n },
            { walletId: wallets[(i + 1) % 3]!, bucket: 'pending_credits', amount: 3n },
          ],
        }),
      ),
    ),
  );
  const rows = await sql`select sum(available)::bigint as a, sum(pending_credits)::bigint as p from wallets where id = any(${wallets})`;
  t.is(rows[0]!.a, 3_000n - 600n + 420n);
  t.is(rows[0]!.p, 180n);
  const report = await auditLedger(sql);
  t.deepEqual(report, { walletMismatches: [], unbalancedTransactions: [] });
  for (const wallet of wallets) await settleTestFigures(wallet);
});

test('a balanced but wrong posting passes the arithmetic audit and fails the business invariants', async (t) => {
  const { auditInvariants } = await import('../../db/queries/ledger');
  const wallet = await merchantWallet();
  const chain = await ensureSystemWallet(sql, 'chain', 'USDT');
  const rollback = new Error('rollback: keep the shared database clean');
  const seen = await sql
    .begin(async (tx) => {
      // A hold with no payout behind it, and a pending credit with no completed deal.
      await postLedger(tx, {
        key: `test:${wallet}:stray`,
        kind: 'test',
        refType: 'wallet',
        refId: wallet,
        entries: [
          { walletId: chain, bucket: 'available', amount: -900n },
          { walletId: wallet, bucket: 'frozen', amount: 600n },
          { walletId: wallet, bucket: 'pending_credits', amount: 300n },
        ],
      });
      const arithmetic = await auditLedger(tx);
      const business = await auditInvariants(tx);
      throw Object.assign(rollback, { arithmetic, business });
    })
    .catch(
      (error) => error as typeof rollback & { arithmetic: Awaited<ReturnType<typeof auditLedger>>; business: Awaited<ReturnType<typeof auditInvariants>> },
    );
  t.is(seen as Error, rollback);
  t.false(
    seen.arithmetic.walletMismatches.some((m) => m.wallet_id === wallet),
    'figures equal entries',
  );
  const mine = seen.business.filter((v) => v.wallet_id === wallet).map((v) => [v.invariant, v.figure, v.expected]);
  t.deepEqual(mine, [
    ['merchant frozen = live holds', 600n, 0n],
    ['merchant pending_credits = undistributed net credits', 300n, 0n],
  ]);
});
