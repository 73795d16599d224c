/**
 * Play money against the real Postgres: the ledger check proves no live wallet holds a credit whose
 * source is play money, a play deposit refuses a live merchant inside its own transaction, and the
 * play-deposit caps hold under 30 parallel deposits. States the code can no longer reach are made
 * by hand inside a transaction that is rolled back (the shared database stays clean).
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../../config';
import { recordDeposit } from '../../db/queries/deposits';
import { insertMerchant } from '../../db/queries/merchants';
import { ensureWallet } from '../../db/queries/wallets';
import type { Db } from '../../db/sql';
import { createTemporalClient } from '../../temporal/client';
import { checkLedger } from '../../workers/ledger-check';
import { testSql } from '../helpers/app';
import { txHashOf } from '../helpers/tx-hash';

const sql = testSql();
let temporal: Client | undefined;
test.before(async () => {
  temporal = await createTemporalClient(loadConfig(process.env));
});
test.after.always(async () => {
  await sql.end();
  await temporal?.connection.close();
});

const PLAY_CREDIT = 'no live wallet holds a credit whose source is play money';

async function merchant(tx: Db, sandbox: boolean) {
  const id = await insertMerchant(tx, {
    name: 'Worlds',
    email: `${randomUUID()}@example.test`,
    webhook_url: '',
    api_version: 'v2',
    rate_limit_per_minute: null,
    payin_fee_bps: 0,
    payout_fee_bps: 0,
    sandbox,
  });
  return { id, walletId: (await ensureWallet(tx, 'merchant', id, 'USDT')).id };
}

type Tx = Extract<Db, { savepoint: unknown }>;

/** Runs `body` in a transaction that is always rolled back, answering what it returned. */
async function rolledBack<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
  const rollback = new Error('rollback: keep the shared database clean');
  const seen = await sql
    .begin(async (tx) => {
      throw Object.assign(rollback, { value: await body(tx) });
    })
    .catch((error: unknown) => error as Error & { value: T });
  if (seen !== rollback) throw seen;
  return seen.value;
}

const PLAY = { daily: 10n ** 12n, total: 10n ** 12n };

test('the ledger check reports a play deposit credited from the live chain account to a live wallet', async (t) => {
  // What the race left: a deposit recorded while the merchant was sandbox (the row says so), its
  // credit taken from `chain` because the wallet was already live when the posting chose its account.
  const violations = await rolledBack(async (tx) => {
    const m = await merchant(tx, false);
    const { deposit } = await recordDeposit(tx, { merchantId: m.id, walletId: m.walletId, amount: 90_000n, txHash: txHashOf(`worlds-a-${m.id}`) });
    await tx`update deposits set sandbox = true where id = ${deposit.id}`;
    const mine = (await checkLedger(tx, temporal!)).violations.filter((v) => v.wallet_id === m.walletId);
    return mine.map((v) => [v.invariant, v.figure]);
  });
  t.deepEqual(violations, [
    [PLAY_CREDIT, 90_000n],
    ["every deal, withdrawal, deposit and wallet is in its owner's world (deposit)", 1n],
  ]);
});

test('the ledger check reports a sandbox merchant switched to live with play money in its wallet', async (t) => {
  // The other outcome: the switch passed its history test while the play deposit was not committed.
  const violations = await rolledBack(async (tx) => {
    const m = await merchant(tx, true);
    await recordDeposit(tx, { merchantId: m.id, walletId: m.walletId, amount: 70_000n, txHash: txHashOf(`worlds-b-${m.id}`), play: PLAY });
    // Past the trigger that now refuses it, as a switch that did not see the deposit would have.
    await tx`set local session_replication_role = replica`;
    await tx`update merchants set sandbox = false where id = ${m.id}`;
    await tx`update wallets set sandbox = false where owner_type = 'merchant' and owner_id = ${m.id}`;
    await tx`set local session_replication_role = origin`;
    return (await checkLedger(tx, temporal!)).violations.filter((v) => v.wallet_id === m.walletId).map((v) => v.invariant);
  });
  t.true(violations.includes(PLAY_CREDIT), violations.join('; '));
  t.true(violations.includes("every deal, withdrawal, deposit and wallet is in its owner's world (deposit)"), violations.join('; '));
});

test('a play deposit comes from the merchant’s own play account and is refused for a live merchant inside its transaction', async (t) => {
  const seen = await rolledBack(async (tx) => {
    const a = await merchant(tx, true);
    const b = await merchant(tx, true);
    await recordDeposit(tx, { merchantId: a.id, walletId: a.walletId, amount: 1_000n, txHash: txHashOf(`worlds-c-${a.id}`), play: PLAY });
    await recordDeposit(tx, { merchantId: b.id, walletId: b.walletId, amount: 2_000n, txHash: txHashOf(`worlds-c-${b.id}`), play: PLAY });
    const sources = await tx<{ merchant: string; owner_id: string | null; system_code: string; sandbox: boolean; available: bigint; kind: string }[]>`
      select d.merchant_id as merchant, w.owner_id, w.system_code, w.sandbox, w.available, x.kind
      from deposits d join ledger_transactions x on x.ref_type = 'deposit' and x.ref_id = d.id::text
      join ledger_entries e on e.transaction_id = x.id join wallets w on w.id = e.wallet_id
      where d.merchant_id in (${a.id}, ${b.id}) and w.owner_type = 'system'
      order by d.amount`;
    const live = await merchant(tx, false);
    const refused = await tx
      .savepoint((sp) =>
        recordDeposit(sp, { merchantId: live.id, walletId: live.walletId, amount: 1_000n, txHash: txHashOf(`worlds-c-${live.id}`), play: PLAY }),
      )
      .then(
        () => undefined,
        (error: Error) => error,
      );
    const [credited] = await tx<{ n: number }[]>`select count(*)::int as n from deposits where merchant_id = ${live.id}`;
    return { sources, a: a.id, b: b.id, refused, credited: credited!.n };
  });
  t.deepEqual(
    seen.sources.map((s) => [s.merchant, s.owner_id, s.system_code, s.sandbox, s.available, s.kind]),
    [
      [seen.a, seen.a, 'sandbox_merchant_chain', true, -1_000n, 'sandbox_deposit'],
      [seen.b, seen.b, 'sandbox_merchant_chain', true, -2_000n, 'sandbox_deposit'],
    ],
    'each merchant its own play account, nothing from the shared sandbox_chain',
  );
  t.is(seen.refused?.name, 'PermissionDenied', String(seen.refused));
  t.is(seen.credited, 0);
});

test('the play-deposit caps hold under 30 parallel deposits: per UTC day, then in all', async (t) => {
  const { id, walletId } = await sql.begin((tx) => merchant(tx, true));
  const limits = { daily: 1_000n, total: 2_500n };
  const round = async (tag: string) => {
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        sql.begin((tx) => recordDeposit(tx, { merchantId: id, walletId, amount: 100n, txHash: txHashOf(`caps-${tag}-${i}-${id}`), play: limits })),
      ),
    );
    const refusals = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error);
    t.true(
      refusals.every((e) => e.name === 'FailedPrecondition' && /sandbox deposit limit exceeded/.test(e.message)),
      refusals.map(String).join('; '),
    );
    return results.length - refusals.length;
  };
  t.is(await round('day1'), 10, 'the daily cap: 1,000 in deposits of 100');
  // The same merchant on later days: yesterday's deposits no longer count against the daily cap, they do against the total.
  await sql`update deposits set created_at = created_at - interval '1 day' where merchant_id = ${id}`;
  t.is(await round('day2'), 10);
  await sql`update deposits set created_at = created_at - interval '1 day' where merchant_id = ${id}`;
  t.is(await round('day3'), 5, 'the total cap: 2,500 in all');
  const [w] = await sql<{ available: bigint }[]>`select available from wallets where id = ${walletId}`;
  t.is(w!.available, 2_500n);
  const [account] = await sql<{ available: bigint }[]>`select available from wallets where owner_type = 'system' and owner_id = ${id}`;
  t.is(account!.available, -2_500n, "the merchant's play account holds the other side of exactly what was credited");
});
