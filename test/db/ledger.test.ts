import test from 'ava';
import { randomUUID } from 'node:crypto';
import { auditLedger, postLedger, UnbalancedPosting } from '../../db/queries/ledger';
import { insertMerchant } from '../../db/queries/merchants';
import { ensureSystemWallet, ensureWallet } from '../../db/queries/wallets';
import { testSql } from '../helpers/app';

const sql = testSql();
test.after.always(() => sql.end());

async function merchantWallet() {
  const id = await sql.begin((tx) =>
    insertMerchant(tx, { name: 'Ledger', email: `${randomUUID()}@example.test`, webhook_url: '', api_version: 'v2', rate_limit_per_minute: null, payin_fee_bps: 0, payout_fee_bps: 0 }),
  );
  return (await ensureWallet(sql, 'merchant', id, 'USDT')).id;
}

test('a posting moves figures and a retry with the same key posts nothing', async (t) => {
  const wallet = await merchantWallet();
  const chain = await ensureSystemWallet(sql, 'chain', 'USDT');
  const posting = {
    key: `test:${wallet}:credit`,
    kind: 'test',
    refType: 'wallet',
    refId: wallet,
    entries: [
      { walletId: chain, bucket: 'available' as const, amount: -500n },
      { walletId: wallet, bucket: 'available' as const, amount: 500n },
    ],
  };
  t.true(await sql.begin((tx) => postLedger(tx, posting)));
  t.false(await sql.begin((tx) => postLedger(tx, posting)));
  const [row] = await sql`select available from wallets where id = ${wallet}`;
  t.is(row!.available, 500n);

  // available → frozen hold inside one wallet
  await sql.begin((tx) =>
    postLedger(tx, {
      key: `test:${wallet}:hold`, kind: 'hold', refType: 'wallet', refId: wallet,
      entries: [
        { walletId: wallet, bucket: 'available', amount: -200n },
        { walletId: wallet, bucket: 'frozen', amount: 200n },
      ],
    }),
  );
  const [after] = await sql`select available, frozen from wallets where id = ${wallet}`;
  t.deepEqual({ ...after }, { available: 300n, frozen: 200n });
  // Released again: a merchant's frozen must equal its payout and withdrawal holds (the post-suite audit checks it).
  await sql.begin((tx) =>
    postLedger(tx, {
      key: `test:${wallet}:release`, kind: 'release', refType: 'wallet', refId: wallet,
      entries: [
        { walletId: wallet, bucket: 'frozen', amount: -200n },
        { walletId: wallet, bucket: 'available', amount: 200n },
      ],
    }),
  );
});

test('unbalanced postings are refused by the code and by the database', async (t) => {
  const wallet = await merchantWallet();
  await t.throwsAsync(
    sql.begin((tx) => postLedger(tx, { key: `bad:${wallet}`, kind: 'x', refType: 'x', refId: 'x', entries: [{ walletId: wallet, bucket: 'available', amount: 5n }] })),
    { instanceOf: UnbalancedPosting },
  );
  // Bypassing the code: the deferred trigger rejects the commit.
  await t.throwsAsync(
    sql.begin(async (tx) => {
      const id = randomUUID();
      await tx`insert into ledger_transactions (id, idempotency_key, kind, ref_type, ref_id) values (${id}, ${'raw:' + id}, 'x', 'x', 'x')`;
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
        key: `overdraw:${wallet}`, kind: 'hold', refType: 'wallet', refId: wallet,
        entries: [
          { walletId: wallet, bucket: 'available', amount: -1n },
          { walletId: wallet, bucket: 'frozen', amount: 1n },
        ],
      }),
    ),
  );
  t.is(error!.message, 'insufficient balance');
  const [tx] = await sql`select count(*)::int as n from ledger_transactions where idempotency_key = ${'overdraw:' + wallet}`;
  t.is(tx!.n, 0);
});

test('many concurrent postings across shared wallets keep figures equal to entries (no deadlock)', async (t) => {
  const wallets = await Promise.all([merchantWallet(), merchantWallet(), merchantWallet()]);
  const chain = await ensureSystemWallet(sql, 'chain', 'USDT');
  await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      sql.begin((tx) =>
        postLedger(tx, {
          key: `concurrent:${wallets[0]}:${i}`, kind: 'test', refType: 'wallet', refId: 'x',
          entries: [
            { walletId: chain, bucket: 'available', amount: -10n },
            { walletId: wallets[i % 3]!, bucket: 'available', amount: 7n },
            { walletId: wallets[(i + 1) % 3]!, bucket: 'pending_credits', amount: 3n },
          ],
        }),
      ),
    ),
  );
  const rows = await sql`select sum(available)::bigint as a, sum(pending_credits)::bigint as p from wallets where id = any(${wallets})`;
  t.is(rows[0]!.a, 420n);
  t.is(rows[0]!.p, 180n);
  const report = await auditLedger(sql);
  t.deepEqual(report, { walletMismatches: [], unbalancedTransactions: [] });
});
