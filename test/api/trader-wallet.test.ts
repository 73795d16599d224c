/**
 * The trader's money on the real stack: the security deposit an operator asks is held (frozen)
 * from the trader's available, topped up from its next deposit, released and held again by an
 * operator; a trader whose security deposit is not held in full or whose available is below its
 * minimum working balance gets no deal, and gets them again once it is back; every move is in
 * the ledger, backed (ledger:check's rules) and the trader's frozen equals escrow + security
 * deposit + live withdrawals.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { auditInvariants, auditLedger } from '../../db/queries/ledger';
import { unbackedLiveMoney } from '../../db/queries/ledger-backing';
import { asOperator, newMerchant, signed, type Json } from '../helpers/api';
import { testSql } from '../helpers/app';
import { isolatedTrader, PAYIN, payinBody, walletOf } from '../helpers/deals';
import { ADMIN } from '../helpers/wallet';
import { txHashOf } from '../helpers/tx-hash';

const sql = testSql();
test.after.always(() => sql.end());

const walletPath = (traderId: string) => `${ADMIN}/traders/${traderId}/wallet`;
const operatorWallet = async (traderId: string) => {
  const res = await asOperator('GET', walletPath(traderId));
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.body.wallet as Json;
};
const topUp = (traderId: string, amount: number) =>
  asOperator('POST', `${ADMIN}/traders/${traderId}/deposits`, { amount, tx_hash: txHashOf(`top-up-${randomUUID()}`) });

/** The trader's wallet passes the ledger check's rules: figures = entries, frozen = its holds, every move backed. */
async function ledgerClean(traderId: string) {
  const wallet = (await sql<{ id: string }[]>`select id from wallets where owner_type = 'trader' and owner_id = ${traderId}`)[0]!.id;
  const audit = await auditLedger(sql);
  const violations = (await auditInvariants(sql)).filter((v) => v.wallet_id === wallet);
  const unbacked = (await unbackedLiveMoney(sql)).filter((u) => u.wallet_id === wallet);
  return { mismatches: audit.walletMismatches.filter((m) => m.wallet_id === wallet), violations, unbacked };
}

/** A PayIn on the trader's own payment method: 200 when the trader takes it, else the refusal. */
const payinOn = async (keys: Awaited<ReturnType<typeof newMerchant>>['keys'], method: string) =>
  signed(keys, 'POST', PAYIN, payinBody({ amount: 92_500, payment_method_id: method }));

test('the security deposit is held from available, topped up from the next deposit, released and held again; the pool follows it', async (t) => {
  const { traderId, method } = await isolatedTrader({ liquidity: 1_000_000 });
  const { keys } = await newMerchant();
  const fresh = await operatorWallet(traderId);
  t.like(fresh, { available: '1000000', frozen: '0', in_pool: true, out_of_pool_reasons: [], min_working_balance: '0' });
  t.deepEqual(fresh.security_deposit, { required: '0', held: '0', released_at: '' });

  // Asked more than it has: all of available is held, and the trader is out of the pool.
  const set = await asOperator('PATCH', walletPath(traderId), { security_deposit: 1_500_000 });
  t.is(set.status, 200, set.text);
  t.like(set.body.wallet, { available: '0', frozen: '1000000', in_pool: false, out_of_pool_reasons: ['SECURITY_DEPOSIT_NOT_HELD'] });
  t.like(set.body.wallet.security_deposit, { required: '1500000', held: '1000000' });
  const refused = await payinOn(keys, method);
  t.is(refused.status, 400, refused.text);
  t.is(refused.body.title, 'FAILED_PRECONDITION');

  // The next deposit covers the rest: held in full, the remainder available, back in the pool.
  t.is((await topUp(traderId, 700_000)).status, 201);
  const covered = await operatorWallet(traderId);
  t.like(covered, { available: '200000', frozen: '1500000', in_pool: true, out_of_pool_reasons: [] });
  t.is(covered.security_deposit.held, '1500000');
  const taken = await payinOn(keys, method);
  t.is(taken.status, 200, taken.text);
  const withEscrow = await operatorWallet(traderId);
  t.like(withEscrow, { available: '199000', frozen: '1501000', escrow: '1000' });

  // Lowering it releases the difference; the operator's release returns the rest and takes it out of the pool.
  const lowered = await asOperator('PATCH', walletPath(traderId), { security_deposit: 1_000_000 });
  t.like(lowered.body.wallet, { available: '699000', frozen: '1001000' });
  const released = await asOperator('POST', `${ADMIN}/traders/${traderId}/security-deposit/release`, {});
  t.is(released.status, 200, released.text);
  t.like(released.body.wallet, { available: '1699000', frozen: '1000', in_pool: false, out_of_pool_reasons: ['SECURITY_DEPOSIT_NOT_HELD'] });
  t.truthy(Date.parse(released.body.wallet.security_deposit.released_at));
  t.is((await payinOn(keys, method)).status, 400, 'a released trader gets no deal');
  // A deposit does not hold a released security deposit again: only the operator does.
  t.is((await topUp(traderId, 1_000)).status, 201);
  t.is((await operatorWallet(traderId)).security_deposit.held, '0');
  const held = await asOperator('POST', `${ADMIN}/traders/${traderId}/security-deposit/hold`, {});
  t.is(held.status, 200, held.text);
  t.like(held.body.wallet, { available: '700000', frozen: '1001000', in_pool: true });
  t.is(held.body.wallet.security_deposit.released_at, '');
  t.is((await payinOn(keys, method)).status, 200);

  // Each move is one keyed posting inside the trader's wallet, audited.
  const moves = await sql<{ kind: string }[]>`
    select kind from ledger_transactions where ref_type = 'trader' and ref_id = ${traderId} order by created_at`;
  t.deepEqual(
    moves.map((m) => m.kind),
    ['security_hold', 'security_hold', 'security_release', 'security_release', 'security_hold'],
  );
  const actions = await sql<{ action: string }[]>`
    select action from audit_log where object_id = ${traderId} and action in ('trader.money_settings', 'trader.security_release', 'trader.security_hold')
    order by chain_seq`;
  t.deepEqual(
    actions.map((a) => a.action),
    ['trader.money_settings', 'trader.money_settings', 'trader.security_release', 'trader.security_hold'],
  );
  t.deepEqual(await ledgerClean(traderId), { mismatches: [], violations: [], unbacked: [] });
});

test('below its minimum working balance a trader leaves the pool, and comes back when it is lowered or covered', async (t) => {
  const { traderId, method } = await isolatedTrader({ liquidity: 50_000 });
  const { keys } = await newMerchant();
  const set = await asOperator('PATCH', walletPath(traderId), { min_working_balance: 60_000 });
  t.is(set.status, 200, set.text);
  t.like(set.body.wallet, { min_working_balance: '60000', in_pool: false, out_of_pool_reasons: ['BELOW_MIN_WORKING_BALANCE'] });
  t.is((await payinOn(keys, method)).status, 400);
  t.is((await topUp(traderId, 10_000)).status, 201);
  t.like(await operatorWallet(traderId), { available: '60000', in_pool: true });
  t.is((await payinOn(keys, method)).status, 200);
  // The escrow took it below the minimum again: out.
  t.like(await operatorWallet(traderId), { available: '59000', in_pool: false, out_of_pool_reasons: ['BELOW_MIN_WORKING_BALANCE'] });
  t.is((await payinOn(keys, method)).status, 400);
  t.like((await asOperator('PATCH', walletPath(traderId), { min_working_balance: 0 })).body.wallet, { in_pool: true });
  t.is((await payinOn(keys, method)).status, 200);
  t.deepEqual(await ledgerClean(traderId), { mismatches: [], violations: [], unbacked: [] });
});

test('the settings are checked at the edge and an unknown trader is 404', async (t) => {
  const { traderId } = await isolatedTrader({ liquidity: 0 });
  for (const body of [{}, { security_deposit: -1 }, { min_working_balance: 1.5 }, { security_deposit: 10, extra: 1 }, { security_deposit: '10' }]) {
    const res = await asOperator('PATCH', walletPath(traderId), body);
    t.is(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
  }
  t.is((await asOperator('GET', walletPath(randomUUID()))).status, 404);
  t.is((await asOperator('PATCH', walletPath(randomUUID()), { security_deposit: 1 })).status, 404);
  t.is((await asOperator('POST', `${ADMIN}/traders/${randomUUID()}/security-deposit/release`, {})).status, 404);
  t.like(await walletOf(sql, 'trader', traderId), { available: 0n, frozen: 0n });
});
