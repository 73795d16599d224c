/**
 * Sandbox merchants on the real stack — the amount table end to end (webhooks received
 * by a real local receiver and verified), isolation both ways, and the ledger clean.
 */
import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { auditInvariants, auditLedger } from '../../db/queries/ledger';
import { auditWorlds } from '../../db/queries/ledger-worlds';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';
import { sandboxTraderId, virtualDeviceId } from '../../db/queries/sandbox';
import { EVENT_TYPES } from '../../domain/events/event-types';
import { parseSignatureHeader, signatureMatches } from '../../domain/crypto/signature';
import { GatewayClient, verifyWebhook, type WebhookEventOf, type WebhookEventType } from '../../sdk/src/index';
import { API_URL, asOperator, newMerchant, problemDetail, signed, type KeyPair, type Json } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, dealRow, fundedMerchant, isolatedTrader, operatorDeal, PAYIN, payinBody, PAYOUT } from '../helpers/deals';
import { eventually } from '../helpers/poll';
import { startReceiver, type Received } from '../helpers/receiver';
import { txHashOf } from '../helpers/tx-hash';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  const violations = [...(await auditInvariants(sql)), ...(await auditWorlds(sql))];
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
  const mixed = violations.filter((v) => /sandbox|play money|world/.test(v.invariant));
  if (mixed.length) throw new Error(`sandbox invariant failed: ${JSON.stringify(mixed, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
});

const SANDBOX_TRADER = sandboxTraderId(DEFAULT_TENANT_ID);

function verified(t: ExecutionContext, r: Received, secret: string) {
  const header = String(r.headers['x-signature']);
  t.true(signatureMatches(secret, parseSignatureHeader(header)!, r.body), 'X-Signature verifies');
  t.notThrows(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>), 'Standard Webhooks verifies');
  return JSON.parse(r.body) as Record<string, Json>;
}

async function sandboxMerchant(t: ExecutionContext, extra: Record<string, unknown> = {}) {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const merchant = await newMerchant({ webhook_url: receiver.url, sandbox: true, ...extra });
  /** The verified envelopes of a deal so far. */
  const events = (dealId: string) => receiver.received.map((r) => verified(t, r, merchant.keys.secret)).filter((e) => e.deal?.deal_id === dealId);
  // The sandbox trader acts seconds after a step, then the delivery follows: minutes on a loaded machine.
  const waitFor = (dealId: string, type: string) => eventually(async () => events(dealId).find((e) => e.type === type), `${type} of ${dealId}`, 300_000);
  return { ...merchant, receiver, events, waitFor };
}

const getDeal = async (keys: KeyPair, dealId: string) => (await signed(keys, 'GET', `/api/v1/p2p/merchant/deals/${dealId}`)).body.deal;

test('admin create and PATCH set sandbox; the profile shows it; it cannot change once the merchant has history', async (t) => {
  const { merchantId, keys } = await newMerchant({ sandbox: true });
  const profile = await signed(keys, 'GET', '/api/v1/p2p/my-merchant');
  t.is(profile.status, 200, profile.text);
  t.is(profile.body.merchant.sandbox, true);
  const live = await newMerchant();
  t.is((await signed(live.keys, 'GET', '/api/v1/p2p/my-merchant')).body.merchant.sandbox, false);

  // No history yet: the flag may move both ways, and the wallet follows.
  const flipped = await asOperator('PATCH', `/api/v1/p2p/admin/merchants/${live.merchantId}`, { sandbox: true });
  t.is(flipped.status, 200, flipped.text);
  t.is(flipped.body.merchant.sandbox, true);
  const [wallet] = await sql`select sandbox from wallets where owner_type = 'merchant' and owner_id = ${live.merchantId}`;
  t.is(wallet!.sandbox, true);
  const back = await asOperator('PATCH', `/api/v1/p2p/admin/merchants/${live.merchantId}`, { sandbox: false });
  t.is(back.body.merchant.sandbox, false);

  await createPayin(keys, { amount: 150_033 });
  const refused = await asOperator('PATCH', `/api/v1/p2p/admin/merchants/${merchantId}`, { sandbox: false });
  t.is(refused.status, 400, refused.text);
  t.is(refused.body.title, 'FAILED_PRECONDITION');
  t.regex(problemDetail(refused.body).message, /sandbox can only change/);
});

test('PayIn …00: the sandbox trader confirms (COMPLETED), every webhook verified and marked sandbox', async (t) => {
  const m = await sandboxMerchant(t, { payin_fee_bps: 250 });
  const deal = await createPayin(m.keys, { amount: 150_000 });
  t.is(deal.status, 'ESCROW_LOCKED');
  t.is((deal as { sandbox?: boolean }).sandbox, true);
  const row = await dealRow(sql, deal.deal_id);
  t.is(row.trader_id, SANDBOX_TRADER);
  t.true(row.sandbox);
  const completed = await m.waitFor(deal.deal_id, 'deal.completed');
  t.is(completed.sandbox, true);
  t.is(completed.deal.sandbox, true);
  t.is(completed.deal.status, 'COMPLETED');
  const types = m.events(deal.deal_id).map((e) => e.type);
  // The payer's "I paid" before the trader's confirm, in the deal's order.
  t.deepEqual(types, ['deal.created', 'deal.escrow_locked', 'deal.payment_notified', 'deal.payment_verified', 'deal.completed']);
  t.true(m.events(deal.deal_id).every((e) => e.sandbox === true));
  t.is((await getDeal(m.keys, deal.deal_id)).status, 'COMPLETED');
  // Play money: the merchant's credit and the fee land on sandbox wallets only.
  await eventually(async () => {
    const [w] = await sql<
      { available: bigint; sandbox: boolean }[]
    >`select available, sandbox from wallets where owner_type = 'merchant' and owner_id = ${m.merchantId}`;
    return w!.available > 0n && w!.sandbox;
  }, 'fee distribution on the sandbox wallet');
  const entries = await sql<{ sandbox: boolean; system_code: string | null }[]>`
    select w.sandbox, w.system_code from ledger_entries e join ledger_transactions x on x.id = e.transaction_id join wallets w on w.id = e.wallet_id
    where x.ref_id = ${deal.deal_id}`;
  t.true(entries.length > 0);
  t.true(entries.every((e) => e.sandbox));
  t.true(entries.some((e) => e.system_code === 'sandbox_platform_fees'));
});

test('PayIn …05: the sandbox trader rejects (CANCELLED, deal.cancelled)', async (t) => {
  const m = await sandboxMerchant(t);
  const deal = await createPayin(m.keys, { amount: 150_005 });
  const cancelled = await m.waitFor(deal.deal_id, 'deal.cancelled');
  t.is(cancelled.deal.status, 'CANCELLED');
  t.is(cancelled.sandbox, true);
});

test('PayIn …14: the sandbox trader reports another amount (deal.amount_changed), then confirms', async (t) => {
  const m = await sandboxMerchant(t);
  const deal = await createPayin(m.keys, { amount: 150_014 });
  const changed = await m.waitFor(deal.deal_id, 'deal.amount_changed');
  t.is(changed.deal.status, 'PAYMENT_NOTIFIED', 'the payer reported the payment first');
  t.is(changed.old_amount, '150014');
  t.is(changed.amount, '135012');
  t.is(changed.amount_version, '2');
  const completed = await m.waitFor(deal.deal_id, 'deal.completed');
  t.is(completed.deal.amount, '135012');
  t.is(completed.deal.status, 'COMPLETED');
});

test('PayIn …51: no requisite is available — the spec error, no deal', async (t) => {
  const m = await sandboxMerchant(t);
  const key = randomUUID();
  const res = await signed(m.keys, 'POST', PAYIN, payinBody({ amount: 150_051, idempotency_key: key }));
  t.is(res.status, 400, res.text);
  t.is(res.body.title, 'FAILED_PRECONDITION');
  t.regex(problemDetail(res.body).message, /no trader is available/);
  const [count] = await sql`select count(*)::int as n from deals where merchant_id = ${m.merchantId}`;
  t.is(count!.n, 0);
});

test('PayIn …33: nobody pays — EXPIRED at the payment timeout (deal.expired)', async (t) => {
  const m = await sandboxMerchant(t);
  const deal = await createPayin(m.keys, { amount: 150_033 });
  const expired = await m.waitFor(deal.deal_id, 'deal.expired');
  t.is(expired.deal.status, 'EXPIRED');
});

test('PayOut …00 completes, …05 fails (hold returned), …33 stays UNASSIGNED and expires', async (t) => {
  const m = await sandboxMerchant(t);
  const funded = await asOperator('POST', '/api/v1/p2p/admin/deposits', {
    merchant_id: m.merchantId,
    amount: 1_000_000,
    tx_hash: txHashOf(`sandbox-${m.merchantId}`),
  });
  t.is(funded.status, 201, funded.text);
  const balance = await signed(m.keys, 'GET', '/api/v1/p2p/merchant/balance');
  const walletId = balance.body.wallets[0].wallet_id as string;
  const payout = async (amount: number) => {
    const res = await signed(m.keys, 'POST', PAYOUT, {
      idempotency_key: randomUUID(),
      amount,
      currency: 'RUB',
      wallet_id: walletId,
      target_requisite: '4111111111111111',
      target_name: 'Anna Recipient',
      payment_method: 'card-rub',
    });
    t.is(res.status, 200, res.text);
    return res.body.deal as { deal_id: string; status: string };
  };
  const [ok, rejected, unassigned] = await Promise.all([payout(95_000), payout(95_005), payout(95_033)]);
  t.is(ok.status, 'MATCHED');
  t.is(rejected.status, 'MATCHED');
  t.is(unassigned.status, 'UNASSIGNED');
  t.is((await m.waitFor(ok.deal_id, 'deal.completed')).deal.status, 'COMPLETED');
  t.is((await m.waitFor(rejected.deal_id, 'deal.failed')).deal.status, 'FAILED');
  t.is((await dealRow(sql, ok.deal_id)).trader_id, SANDBOX_TRADER);
  t.is((await m.waitFor(unassigned.deal_id, 'deal.expired')).deal.status, 'EXPIRED');
  t.is((await dealRow(sql, unassigned.deal_id)).trader_id, null);
});

test('isolation: a live merchant’s magic amounts do nothing, and its deals never reach the sandbox trader', async (t) => {
  const { keys } = await newMerchant();
  const [reject, noRequisite] = await Promise.all([createPayin(keys, { amount: 150_005 }), createPayin(keys, { amount: 150_051 })]);
  t.is(noRequisite.status, 'ESCROW_LOCKED');
  t.is((noRequisite as { sandbox?: boolean }).sandbox, undefined);
  await new Promise((r) => setTimeout(r, 3_000)); // well past the sandbox trader's delay
  t.is((await getDeal(keys, reject.deal_id)).status, 'ESCROW_LOCKED');
  const row = await dealRow(sql, reject.deal_id);
  t.false(row.sandbox);
  t.not(row.trader_id, SANDBOX_TRADER);
  const confirmed = await operatorDeal(reject.deal_id, 'confirm');
  t.is(confirmed.body.deal.status, 'COMPLETED');
});

test('isolation: the database refuses a cross match either way, and an operator cannot assign across worlds', async (t) => {
  const live = await newMerchant();
  const liveDeal = await createPayin(live.keys, { amount: 150_000 });
  const m = await sandboxMerchant(t);
  const sandboxDeal = await createPayin(m.keys, { amount: 150_033 });
  const liveRow = await dealRow(sql, liveDeal.deal_id);
  await t.throwsAsync(sql`update deals set trader_id = ${SANDBOX_TRADER} where id = ${liveDeal.deal_id}`, { message: /other world/ });
  await t.throwsAsync(sql`update deals set trader_id = ${liveRow.trader_id} where id = ${sandboxDeal.deal_id}`, { message: /other world/ });
  // A posting between a sandbox wallet and a live one is refused.
  const [sw] = await sql`select id from wallets where owner_type = 'merchant' and owner_id = ${m.merchantId}`;
  const [lw] = await sql`select id from wallets where owner_type = 'merchant' and owner_id = ${live.merchantId}`;
  await t.throwsAsync(
    sql.begin(async (tx) => {
      const [x] =
        await tx`insert into ledger_transactions (id, idempotency_key, kind, ref_type, ref_id) values (${randomUUID()}, ${`mix:${randomUUID()}`}, 'test', 'test', ${randomUUID()}) returning id`;
      await tx`insert into ledger_entries (transaction_id, wallet_id, bucket, amount) values (${x!.id}, ${sw!.id}, 'available', 1), (${x!.id}, ${lw!.id}, 'available', -1)`;
    }),
    { message: /mixes sandbox and live/ },
  );

  // A live payout cannot be assigned to the sandbox trader's requisite, nor a sandbox one to a live trader's.
  const liveFunded = await fundedMerchant(1_000_000);
  // A live trader on a payment method of this test's own (a requisite on a seeded method would join
  // the pool other files' live payouts are matched from); the sandbox payout below takes that method.
  const trader = await isolatedTrader({ liquidity: 0 });
  const livePayout = await signed(liveFunded.keys, 'POST', PAYOUT, liveFunded.payoutBody({ amount: 95_033 }));
  t.is(livePayout.status, 200, livePayout.text);
  const [sandboxRequisite] =
    await sql`select id from requisites where trader_id = ${SANDBOX_TRADER} and payment_method_id = (select id from payment_methods where slug = 'card-rub')`;
  const crossed = await asOperator('POST', `/api/v1/p2p/admin/deals/${livePayout.body.deal.deal_id}/payout/assign`, { requisite_id: sandboxRequisite!.id });
  t.is(crossed.status, 400, crossed.text);
  t.regex(problemDetail(crossed.body).message, /sandbox trader takes only sandbox payouts/);
  await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: m.merchantId, amount: 1_000_000, tx_hash: txHashOf(`sandbox-x-${m.merchantId}`) });
  const balance = await signed(m.keys, 'GET', '/api/v1/p2p/merchant/balance');
  const sandboxPayout = await signed(m.keys, 'POST', PAYOUT, {
    idempotency_key: randomUUID(),
    amount: 95_033,
    currency: 'RUB',
    wallet_id: balance.body.wallets[0].wallet_id,
    target_requisite: '4111111111111111',
    target_name: 'Anna Recipient',
    payment_method: trader.method,
  });
  t.is(sandboxPayout.status, 200, sandboxPayout.text);
  const crossed2 = await asOperator('POST', `/api/v1/p2p/admin/deals/${sandboxPayout.body.deal.deal_id}/payout/assign`, { requisite_id: trader.requisiteId });
  t.is(crossed2.status, 400, crossed2.text);
  t.regex(problemDetail(crossed2.body).message, /only go to the sandbox trader/);
});

test('withdrawals: complete on the sandbox chain; …05 fails on chain and is refunded (p2p.finance.withdrawal_failed)', async (t) => {
  const { randomTronAddress, withdraw } = await import('../helpers/wallet');
  const m = await sandboxMerchant(t);
  await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: m.merchantId, amount: 100_000, tx_hash: txHashOf(`sandbox-w-${m.merchantId}`) });
  await asOperator('PATCH', `/api/v1/p2p/admin/merchants/${m.merchantId}`, {
    auto_withdrawal_mode: 'AUTO_UP_TO_LIMIT',
    auto_withdrawal_limit_usdt_cents: 100_000,
  });
  const ok = await withdraw(m.keys, { address: randomTronAddress(), amount: 5_000 });
  t.is(ok.status, 200, ok.text);
  t.is(ok.body.status, 'COMPLETED');
  const failing = await withdraw(m.keys, { address: randomTronAddress(), amount: 5_005 });
  t.is(failing.status, 200, failing.text);
  const failed = await eventually(async () => {
    const w = await signed(m.keys, 'GET', `/api/v1/p2p/merchant/wallet/withdrawals/${failing.body.withdrawal_id}`);
    return w.body.status === 'CANCELLED' && w.body;
  }, 'the …05 withdrawal cancelled');
  t.is(failed.status, 'CANCELLED');
  const event = await eventually(
    async () => m.receiver.received.map((r) => verified(t, r, m.keys.secret)).find((e) => e.type === 'p2p.finance.withdrawal_failed'),
    'withdrawal_failed',
  );
  t.is(event.sandbox, true);
  const [w] = await sql<
    { available: bigint; frozen: bigint }[]
  >`select available, frozen from wallets where owner_type = 'merchant' and owner_id = ${m.merchantId}`;
  t.is(w!.frozen, 0n);
  t.is(w!.available, 100_000n - 5_000n);
  // The transfer went to the sandbox chain, its money to the sandbox system accounts.
  const entries = await sql<{ system_code: string | null }[]>`
    select w.system_code from ledger_entries e join ledger_transactions x on x.id = e.transaction_id join wallets w on w.id = e.wallet_id
    where x.ref_id = ${ok.body.withdrawal_id} and w.owner_type = 'system'`;
  t.true(entries.length > 0 && entries.every((e) => e.system_code?.startsWith('sandbox_')));
});

test('listing rows: a sandbox merchant’s withdrawals and deposits carry sandbox: true, a live merchant’s have no such key', async (t) => {
  const { randomTronAddress, withdraw } = await import('../helpers/wallet');
  const rowsOf = async (keys: KeyPair, merchantId: string, tag: string) => {
    const deposit = await asOperator('POST', '/api/v1/p2p/admin/deposits', {
      merchant_id: merchantId,
      amount: 100_000,
      tx_hash: txHashOf(`rows-${tag}-${merchantId}`),
    });
    t.is(deposit.status, 201, deposit.text);
    await asOperator('PATCH', `/api/v1/p2p/admin/merchants/${merchantId}`, { auto_withdrawal_mode: 'MANUAL_ONLY' });
    const created = await withdraw(keys, { address: randomTronAddress(), amount: 5_000 });
    t.is(created.status, 200, created.text);
    const id = created.body.withdrawal_id;
    const list = await signed(keys, 'GET', '/api/v1/p2p/merchant/wallet/withdrawals');
    const one = await signed(keys, 'GET', `/api/v1/p2p/merchant/wallet/withdrawals/${id}`);
    const queue = await asOperator('GET', `/api/v1/p2p/admin/withdrawals?merchant_id=${merchantId}`);
    const deposits = await signed(keys, 'GET', '/api/v1/p2p/merchant/wallet/deposits');
    t.is(list.body.data.length, 1);
    t.is(queue.body.data.length, 1);
    t.is(deposits.body.data.length, 1);
    return [deposit.body.deposit, created.body, list.body.data[0], one.body, queue.body.data[0], deposits.body.data[0]] as Record<string, unknown>[];
  };
  const sandbox = await sandboxMerchant(t);
  for (const row of await rowsOf(sandbox.keys, sandbox.merchantId, 's')) t.is(row.sandbox, true, JSON.stringify(row));
  const played = await signed(sandbox.keys, 'POST', '/api/v1/p2p/merchant/sandbox/deposits', { amount: 1_000 });
  t.is(played.body.deposit.sandbox, true);
  const live = await newMerchant();
  for (const row of await rowsOf(live.keys, live.merchantId, 'l')) t.false('sandbox' in row, JSON.stringify(row));
});

test('operator queues: a sandbox merchant’s waiting withdrawals, appeals and alerts are counted apart (sandbox_count), never in the live counts', async (t) => {
  const { randomTronAddress, withdraw } = await import('../helpers/wallet');
  const { queueCounts } = await import('../../db/queries/queues');
  const m = await sandboxMerchant(t);
  await asOperator('POST', '/api/v1/p2p/admin/deposits', { merchant_id: m.merchantId, amount: 100_000, tx_hash: txHashOf(`queues-${m.merchantId}`) });
  await asOperator('PATCH', `/api/v1/p2p/admin/merchants/${m.merchantId}`, { auto_withdrawal_mode: 'MANUAL_ONLY' });
  t.is((await withdraw(m.keys, { address: randomTronAddress(), amount: 5_000 })).body.status, 'PENDING_MANUAL');
  const waiting = await createPayin(m.keys, { amount: 150_033 });
  const appealed = await signed(m.keys, 'POST', '/api/v1/p2p/merchant/appeals', { deal_id: waiting.deal_id, reason: 'a human will look' });
  t.true(appealed.status === 200 || appealed.status === 201, appealed.text);
  const queues = await asOperator('GET', '/api/v1/p2p/admin/queues');
  t.is(queues.status, 200, queues.text);
  t.true(queues.body.withdrawals_waiting.sandbox_count >= 1);
  t.true(queues.body.appeals_waiting.sandbox_count >= 1);
  t.is(typeof queues.body.open_alerts.sandbox_count, 'number');
  t.false('sandbox_count' in queues.body.stuck_deals);
  // In one snapshot, the live figures are exactly the live merchants' items, the sandbox ones the others' (other tests run beside this one).
  await sql.begin('isolation level repeatable read', async (tx) => {
    const counts = await queueCounts(tx, {
      terminalDealStatuses: ['COMPLETED'],
      stuckBefore: new Date(),
      fourEyesAbove: 0n,
      waitingAppealStatuses: ['OPEN', 'IN_REVIEW', 'REOPENED'],
      now: new Date(),
    });
    const [w] = await tx<{ live: number; play: number }[]>`
      select count(*) filter (where not m.sandbox)::int as live, count(*) filter (where m.sandbox)::int as play
      from withdrawals w join merchants m on m.id = w.merchant_id where w.status = 'PENDING_MANUAL'`;
    const [a] = await tx<{ live: number; play: number }[]>`
      select count(*) filter (where not m.sandbox)::int as live, count(*) filter (where m.sandbox)::int as play
      from appeals a join deals d on d.id = a.deal_id join merchants m on m.id = d.merchant_id where a.status in ('OPEN', 'REOPENED')`;
    t.deepEqual([counts.withdrawals.count, counts.withdrawals.sandbox], [w!.live, w!.play]);
    t.deepEqual([counts.appeals.count, counts.appeals.sandbox], [a!.live, a!.play]);
  });
});

test('appeals: winning_evidence → SATISFIED, losing_evidence → REJECTED by the sandbox arbiter; other text waits for a human', async (t) => {
  const m = await sandboxMerchant(t);
  const [win, lose, wait] = await Promise.all([150_033, 150_033, 150_033].map((amount) => createPayin(m.keys, { amount })));
  const appeal = (dealId: string, reason: string) => signed(m.keys, 'POST', '/api/v1/p2p/merchant/appeals', { deal_id: dealId, reason });
  const [a1, a2, a3] = await Promise.all([
    appeal(win!.deal_id, 'The payer paid: winning_evidence'),
    appeal(lose!.deal_id, 'The payer paid: losing_evidence'),
    appeal(wait!.deal_id, 'The payer paid, a human will look'),
  ]);
  for (const a of [a1, a2, a3]) t.true(a!.status === 200 || a!.status === 201, a!.text);
  t.is((await m.waitFor(win!.deal_id, 'deal.completed')).deal.status, 'COMPLETED');
  t.is((await m.waitFor(lose!.deal_id, 'deal.cancelled')).deal.status, 'CANCELLED');
  const resolved = await eventually(
    async () => m.receiver.received.map((r) => verified(t, r, m.keys.secret)).filter((e) => e.type === 'appeal.resolved').length >= 2,
    'two appeal.resolved',
  );
  t.truthy(resolved);
  // The arbiter took each into review and wrote before deciding.
  const appealTypes = (appealId: string) =>
    m.receiver.received
      .map((r) => verified(t, r, m.keys.secret))
      .filter((e) => e.appeal?.appeal_id === appealId)
      .map((e) => e.type);
  t.deepEqual(appealTypes(a1!.body.data.appeal_id), ['appeal.opened', 'appeal.in_review', 'appeal.message', 'appeal.resolved']);
  t.deepEqual(appealTypes(a2!.body.data.appeal_id), ['appeal.opened', 'appeal.in_review', 'appeal.message', 'appeal.resolved']);
  await new Promise((r) => setTimeout(r, 2_000));
  t.is((await getDeal(m.keys, wait!.deal_id)).status, 'APPEALED');
});

test('advance: a …33 PayIn expires in a second, then its next timer is refused; a PayOut’s SLA and a fee distribution fire now', async (t) => {
  const m = await sandboxMerchant(t, { payin_fee_bps: 250 });
  const advance = (dealId: string) => signed(m.keys, 'POST', `/api/v1/p2p/merchant/sandbox/deals/${dealId}/advance`);
  const deal = await createPayin(m.keys, { amount: 150_033 });
  const started = Date.now();
  const fired = await advance(deal.deal_id);
  t.is(fired.status, 200, fired.text);
  t.is(fired.body.timer, 'payment_timeout');
  t.is(fired.body.deal.status, 'EXPIRED');
  t.is(fired.body.deal.sandbox, true);
  t.true(Date.now() - started < 10_000);
  t.is((await m.waitFor(deal.deal_id, 'deal.expired')).deal.status, 'EXPIRED');
  const again = await advance(deal.deal_id);
  t.is(again.status, 400, again.text);
  t.is(again.body.title, 'FAILED_PRECONDITION');

  // Play USDT through the deposit path, then a …33 PayOut (no trader takes it) expires at once.
  const deposited = await signed(m.keys, 'POST', '/api/v1/p2p/merchant/sandbox/deposits', { amount: 1_000_000, idempotency_key: 'top-up-1' });
  t.is(deposited.status, 201, deposited.text);
  const repeat = await signed(m.keys, 'POST', '/api/v1/p2p/merchant/sandbox/deposits', { amount: 1_000_000, idempotency_key: 'top-up-1' });
  t.is(repeat.status, 200, repeat.text);
  t.is(repeat.body.deposit.deposit_id, deposited.body.deposit.deposit_id);
  const balance = await signed(m.keys, 'GET', '/api/v1/p2p/merchant/balance');
  t.is(balance.body.wallets[0].available, '1000000');
  const payout = await signed(m.keys, 'POST', PAYOUT, {
    idempotency_key: randomUUID(),
    amount: 95_033,
    currency: 'RUB',
    wallet_id: balance.body.wallets[0].wallet_id,
    target_requisite: '4111111111111111',
    target_name: 'Anna Recipient',
    payment_method: 'card-rub',
  });
  t.is(payout.body.deal.status, 'UNASSIGNED', payout.text);
  const sla = await advance(payout.body.deal.deal_id);
  t.is(sla.status, 200, sla.text);
  t.is(sla.body.timer, 'assign_sla');
  t.is(sla.body.deal.status, 'EXPIRED');
});

test('advance: the fee distribution of a completed sandbox PayIn fires now (FEE_DISTRIBUTION_DELAY_SECONDS long)', async (t) => {
  const { startIsolatedStack } = await import('../helpers/worker');
  const stack = await startIsolatedStack({ FEE_DISTRIBUTION_DELAY_SECONDS: 3600, SANDBOX_TRADER_DELAY_SECONDS: 0 });
  t.teardown(() => stack.close());
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { merchantId, keys } = await newMerchant({ webhook_url: receiver.url, sandbox: true, payin_fee_bps: 250 });
  const res = await signed(keys, 'POST', `${stack.url}${PAYIN}`, payinBody({ amount: 150_000 }));
  t.is(res.status, 200, res.text);
  const dealId = res.body.deal.deal_id as string;
  await eventually(async () => (await dealRow(sql, dealId)).status === 'COMPLETED', 'completed by the sandbox trader');
  const [before] = await sql<
    { available: bigint; pending_credits: bigint }[]
  >`select available, pending_credits from wallets where owner_type = 'merchant' and owner_id = ${merchantId}`;
  t.is(before!.available, 0n);
  t.true(before!.pending_credits > 0n);
  const fired = await eventually(async () => {
    const r = await signed(keys, 'POST', `${stack.url}/api/v1/p2p/merchant/sandbox/deals/${dealId}/advance`);
    return r.status === 200 && r;
  }, 'advance of the fee distribution');
  t.is(fired.body.timer, 'fee_distribution');
  const [after] = await sql<
    { available: bigint; pending_credits: bigint }[]
  >`select available, pending_credits from wallets where owner_type = 'merchant' and owner_id = ${merchantId}`;
  t.is(after!.pending_credits, 0n);
  t.is(after!.available, before!.pending_credits);
});

test('the deal workflow starts its sandbox trader itself (the API starts none): a …00 PayIn completes, confirmed by the virtual bank device’s notification', async (t) => {
  const { keys } = await newMerchant({ sandbox: true });
  // An amount no other test's live deal shares on the sandbox requisite: the device's credit then matches it exactly.
  const res = await signed(keys, 'POST', PAYIN, payinBody({ amount: 177_700 }));
  t.is(res.status, 200, res.text);
  const dealId = res.body.deal.deal_id as string;
  await eventually(async () => (await dealRow(sql, dealId)).status === 'COMPLETED', 'completed by the sandbox trader');
  const { createTemporalClient } = await import('../../temporal/client');
  const { loadConfig } = await import('../../config');
  const temporal = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => temporal.connection.close());
  const run = await temporal.workflow.getHandle(`sandbox-trader:${dealId}`).describe();
  t.is(run.type, 'sandboxTraderWorkflow');
  // The confirm is the virtual bank device's notification (docs/bank-notifications.md), audited with the device as the actor.
  const audit = await sql<{ actor_kind: string; actor_id: string; role: string; action: string }[]>`
    select actor_kind, actor_id, role, action from audit_log where object_type = 'deal' and object_id = ${dealId} order by id`;
  t.deepEqual(
    audit.map((r) => [r.actor_kind, r.actor_id, r.role, r.action]),
    [['bank_device', virtualDeviceId(DEFAULT_TENANT_ID), 'trader', 'deal.confirm']],
  );
});

test('advance and sandbox deposits are refused for a live merchant (403), and a live deal’s workflow refuses the update itself', async (t) => {
  const { keys } = await newMerchant();
  const deal = await createPayin(keys, { amount: 150_033 });
  const refused = await signed(keys, 'POST', `/api/v1/p2p/merchant/sandbox/deals/${deal.deal_id}/advance`);
  t.is(refused.status, 403, refused.text);
  const deposit = await signed(keys, 'POST', '/api/v1/p2p/merchant/sandbox/deposits', { amount: 1_000 });
  t.is(deposit.status, 403, deposit.text);
  // Past the API: the workflow's validator refuses a live deal too.
  const { createTemporalClient } = await import('../../temporal/client');
  const { loadConfig } = await import('../../config');
  const { advanceTimerUpdate } = await import('../../workflows/contracts/sandbox-trader');
  const temporal = await createTemporalClient(loadConfig(process.env));
  t.teardown(() => temporal.connection.close());
  const error = await t.throwsAsync(temporal.workflow.getHandle(`payin:${deal.deal_id}`).executeUpdate(advanceTimerUpdate));
  t.regex(String((error?.cause as Error | undefined)?.message ?? error?.message), /sandbox deals only/);
  t.is((await getDeal(keys, deal.deal_id)).status, 'ESCROW_LOCKED');
});

test('every webhook type is reachable from the SDK alone', async (t) => {
  // The operator's setup only: a sandbox merchant (auto withdrawals, as a merchant asks its operator) and its first key pair.
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { keys } = await newMerchant({
    webhook_url: receiver.url,
    sandbox: true,
    auto_withdrawal_mode: 'AUTO_UP_TO_LIMIT',
    auto_withdrawal_limit_usdt_cents: 1_000_000,
  });
  const { randomTronAddress } = await import('../helpers/wallet');
  // From here on the SDK alone.
  const gateway = new GatewayClient({ baseUrl: API_URL, token: keys.token, secret: keys.secret });
  /** Every delivery so far, verified by the SDK. */
  const delivered = () => receiver.received.map((r) => verifyWebhook(r.body, r.headers as Record<string, string>, keys.secret));
  const payin = (amount: number) => gateway.createPayin({ amount, currency: 'RUB', payment_method_id: 'card-rub' });
  const seen = <T extends WebhookEventType>(type: T, pick: (e: WebhookEventOf<T>) => boolean = () => true) =>
    eventually(async () => delivered().find((e): e is WebhookEventOf<T> => e.type === type && pick(e as WebhookEventOf<T>)), type, 90_000);

  // Play money first (p2p.finance.deposit_confirmed), for the PayOut and the withdrawals.
  await gateway.sandbox.deposit(500_000, { idempotencyKey: `every-type-${randomUUID()}` });
  const wallet = (await gateway.getBalance()).wallets[0]!;

  const [paid, rejected, changed, expiring, appealed, payout] = await Promise.all([
    payin(150_000), // created, escrow_locked, payment_notified, payment_verified, completed
    payin(150_005), // cancelled
    payin(150_014), // amount_changed
    payin(150_033), // expired through advance
    payin(160_033), // appealed: winning_evidence (in_review, message, resolved)
    gateway.createPayout({
      amount: 95_005,
      currency: 'RUB',
      wallet_id: wallet.wallet_id,
      target_requisite: '4111111111111111',
      target_name: 'Anna Recipient',
      payment_method: 'card-rub',
    }), // failed
  ]);
  t.is((await gateway.sandbox.advance(expiring.deal_id)).deal.status, 'EXPIRED');
  await gateway.createAppeal({ deal_id: appealed.deal_id, reason: 'The payer paid: winning_evidence' });
  await gateway.createWithdrawal({ address: randomTronAddress(), amount: 5_005 }); // withdrawal_failed

  // closed and reopened: an appeal on the completed deal, closing_evidence, then the merchant's reopen_please.
  await seen('deal.completed', (e) => e.deal.deal_id === paid.deal_id);
  const closing = await gateway.createAppeal({ deal_id: paid.deal_id, reason: 'A second look please: closing_evidence' });
  await seen('appeal.closed', (e) => e.appeal.appeal_id === closing.appeal_id);
  await gateway.createAppealMessage(closing.appeal_id, { body: 'New facts: reopen_please' });
  t.is((await gateway.getAppeal(closing.appeal_id)).status, 'REOPENED');

  await seen('deal.cancelled', (e) => e.deal.deal_id === rejected.deal_id);
  await seen('deal.amount_changed', (e) => e.deal.deal_id === changed.deal_id);
  await seen('deal.failed', (e) => e.deal.deal_id === payout.deal_id);
  await seen('appeal.resolved', (e) => e.deal?.deal_id === appealed.deal_id);
  await seen('appeal.reopened', (e) => e.appeal.appeal_id === closing.appeal_id);
  await seen('p2p.finance.withdrawal_failed');

  // Nothing emits deal.refund_pending (listed in the event types for the spec; no transition writes it);
  // webhook.test is sent from the cabinet (a person), not through the SDK.
  const unreachable = ['deal.refund_pending', 'webhook.test'];
  const expected = EVENT_TYPES.filter((type) => !unreachable.includes(type)).sort();
  const types = await eventually(
    async () => {
      const got = [...new Set(delivered().map((e) => e.type))].sort();
      return expected.every((type) => got.includes(type)) ? got : undefined;
    },
    'every type',
    90_000,
  ).catch(() => [...new Set(delivered().map((e) => e.type))].sort());
  t.deepEqual(types, expected, `every event type but ${unreachable.join(', ')} (never emitted) reaches a sandbox merchant through the SDK alone`);
  t.true(
    delivered().every((e) => e.sandbox === true),
    'every envelope says sandbox',
  );
  // The sandbox arbiter's moves are audited as a system actor.
  const audit = await sql<{ actor_kind: string; actor_id: string; action: string }[]>`
    select actor_kind, actor_id, action from audit_log where object_id in (${closing.appeal_id}) order by id`;
  t.deepEqual(
    audit.map((r) => [r.actor_kind, r.actor_id, r.action]),
    [
      ['system', 'sandbox-arbiter', 'appeal.review'],
      ['system', 'sandbox-arbiter', 'appeal.message'],
      ['system', 'sandbox-arbiter', 'appeal.close'],
      ['system', 'sandbox-arbiter', 'appeal.reopen'],
    ],
  );
});
