/**
 * The trader's deal queue (api/services/trader-deals.ts) through the trader routes: scoping (a
 * foreign deal is 404), each refusal by state (409 in the state table's words), the amount on a
 * confirm driving amount_match_status, the not-received report, the take race (30 concurrent
 * takers, one winner), the payout's proof reaching the merchant's webhook on a real local
 * receiver and its deal, and the audit rows with the trader as actor.
 */
import test, { type ExecutionContext } from 'ava';
import { auditLedger } from '../../db/queries/ledger';
import { asOperator, hmacHeaders, signed, type Json } from '../helpers/api';
import { testSql } from '../helpers/app';
import { createPayin, dealRow, fundedMerchant, isolatedMethod, PAYOUT } from '../helpers/deals';
import { download, multipart, SAMPLES } from '../helpers/multipart';
import { eventually } from '../helpers/poll';
import { startReceiver } from '../helpers/receiver';
import { asTrader, newTrader, traderUpload } from '../helpers/trader-session';
import { startIsolatedStack } from '../helpers/worker';

const sql = testSql();
test.after.always(async () => {
  const report = await auditLedger(sql);
  await sql.end();
  if (report.walletMismatches.length || report.unbalancedTransactions.length) throw new Error(`ledger audit failed: ${JSON.stringify(report)}`);
});

const DEALS = '/api/v1/p2p/trader/deals';
type Trader = Awaited<ReturnType<typeof newTrader>>;

/** A signed-in trader with one requisite (added by an operator: ACTIVE at once) on `method`. */
async function traderOn(method: string, bounds: { min?: number; max?: number } = {}) {
  const trader = await newTrader();
  const requisite = await asOperator('POST', `/api/v1/p2p/admin/traders/${trader.traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200111122223333',
    holder_name: 'Queue Holder',
    bank_name: 'queue-bank',
    min_amount: bounds.min ?? 100,
    max_amount: bounds.max ?? 100_000_000,
  });
  if (requisite.status !== 201) throw new Error(requisite.text);
  return { ...trader, requisiteId: requisite.body.requisite.requisite_id as string };
}

const move = (trader: Trader, dealId: string, action: string, body?: unknown) => asTrader(trader.session, 'POST', `${DEALS}/${dealId}/${action}`, body);

/** The audit rows of a deal: [actor_kind, actor_id, action]. */
async function auditOf(dealId: string) {
  const rows = await sql<{ actor_kind: string; actor_id: string; action: string; before: Json; after: Json }[]>`
    select actor_kind, actor_id, action, before, after from audit_log where object_type = 'deal' and object_id = ${dealId} order by id`;
  return rows;
}

const proofUpload = (bankReference: string, file: Buffer | string = SAMPLES.png) =>
  multipart([
    { name: 'bank_reference', data: bankReference },
    { name: 'file', filename: 'receipt.png', contentType: 'image/png', data: file },
  ]);

test('PayIn: confirm with the amount received drives received_amount and amount_match_status; a second confirm is 409; audited with the trader as actor', async (t) => {
  const method = await isolatedMethod();
  const trader = await traderOn(method);
  const m = await fundedMerchant(0);

  // Full: completes in one step.
  const full = await createPayin(m.keys, { payment_method_id: method, amount: 150_000 });
  const shown = await asTrader(trader.session, 'GET', `${DEALS}/${full.deal_id}`);
  t.is(shown.status, 200, shown.text);
  t.like(shown.body.deal, {
    deal_type: 'PAYIN',
    status: 'ESCROW_LOCKED',
    amount_to_pay: '150000',
    timer: 'payment_timeout',
    moves: ['confirm', 'not_received'],
  });
  t.true(Date.parse(shown.body.deal.expires_at) > Date.now());
  const confirmed = await move(trader, full.deal_id, 'confirm', { received_amount: 150_000 });
  t.is(confirmed.status, 200, confirmed.text);
  t.like(confirmed.body.deal, { status: 'COMPLETED', received_amount: '150000', amount_match_status: 'full', moves: [] });
  const merchantView = await signed(m.keys, 'GET', `/api/v1/p2p/merchant/deals/${full.deal_id}`);
  t.like(merchantView.body.deal, { status: 'COMPLETED', received_amount: '150000', amount_match_status: 'full' });

  // The state table's words, as 409.
  const again = await move(trader, full.deal_id, 'confirm', { received_amount: 150_000 });
  t.is(again.status, 409, again.text);
  t.regex(again.text, /deal is COMPLETED; receipt cannot be confirmed/);

  // Partial and overpaid: verified, the autocompletion blocked for an operator.
  // Amounts of their own: one live PayIn per requisite and amount (docs/trader.md).
  for (const [received, match, amount] of [
    [120_000, 'partial', 150_100],
    [170_000, 'overpaid', 150_200],
  ] as const) {
    const deal = await createPayin(m.keys, { payment_method_id: method, amount });
    const res = await move(trader, deal.deal_id, 'confirm', { received_amount: received });
    t.is(res.status, 200, res.text);
    t.like(res.body.deal, { status: 'PAYMENT_VERIFIED', received_amount: String(received), amount_match_status: match, moves: [] });
    t.is((await dealRow(sql, deal.deal_id)).amount_match_status, match);
  }

  const audit = await auditOf(full.deal_id);
  t.deepEqual(
    audit.map((r) => [r.actor_kind, r.action]),
    [['trader_account', 'deal.confirm']],
  );
  t.like(audit[0]!.after, { status: 'COMPLETED', received_amount: '150000', amount_match_status: 'full' });
  t.is((await move(trader, full.deal_id, 'confirm', { received_amount: 0 })).status, 400, 'a zero amount is bad input');
});

test('PayIn: not received keeps the deal, records the report and raises one operator alert; refused once the deal has ended', async (t) => {
  const method = await isolatedMethod();
  const trader = await traderOn(method);
  const m = await fundedMerchant(0);
  const deal = await createPayin(m.keys, { payment_method_id: method, amount: 150_000 });
  const res = await move(trader, deal.deal_id, 'not-received', { reason: 'nothing on the card statement' });
  t.is(res.status, 200, res.text);
  t.like(res.body.deal, { status: 'ESCROW_LOCKED', not_received_reason: 'nothing on the card statement' });
  t.true(Date.parse(res.body.deal.not_received_at) > 0);
  const [alert] = await sql<{ kind: string; message: string }[]>`select kind, message from operator_alerts where deal_id = ${deal.deal_id}`;
  t.is(alert?.kind, 'payin_not_received');
  t.regex(alert!.message, /nothing on the card statement/);
  t.deepEqual(
    (await auditOf(deal.deal_id)).map((r) => [r.actor_kind, r.action]),
    [['trader_account', 'deal.not_received']],
  );
  // No reason is fine; the report stays one alert.
  t.is((await move(trader, deal.deal_id, 'not-received')).status, 200);
  t.is((await sql`select 1 from operator_alerts where deal_id = ${deal.deal_id}`).length, 1);

  // The merchant cancels: the deal has ended, the report is refused in the table's words.
  t.is((await signed(m.keys, 'POST', `/api/v1/p2p/merchant/deals/${deal.deal_id}/cancel`, { reason: 'left' })).status, 200);
  const late = await move(trader, deal.deal_id, 'not-received', {});
  t.is(late.status, 409, late.text);
  t.regex(late.text, /deal is CANCELLED; a payment can be reported as not received only while the deal waits for it/);
  const lateConfirm = await move(trader, deal.deal_id, 'confirm', { received_amount: 150_000 });
  t.is(lateConfirm.status, 409);
  t.regex(lateConfirm.text, /deal is CANCELLED; receipt cannot be confirmed/);
});

test('scoping: another trader’s deal is 404 on every route and absent from its list; a PayOut move on a PayIn is 409', async (t) => {
  const method = await isolatedMethod();
  const owner = await traderOn(method);
  const stranger = await traderOn(await isolatedMethod());
  const m = await fundedMerchant(0);
  const deal = await createPayin(m.keys, { payment_method_id: method, amount: 150_000 });

  t.is((await asTrader(stranger.session, 'GET', `${DEALS}/${deal.deal_id}`)).status, 404);
  for (const [action, body] of [
    ['confirm', { received_amount: 150_000 }],
    ['not-received', {}],
    ['take', undefined],
    ['start', undefined],
    ['reject', { reason: 'no' }],
  ] as const) {
    const res = await move(stranger, deal.deal_id, action, body);
    t.is(res.status, 404, `${action}: ${res.text}`);
  }
  const upload = proofUpload('REF-1');
  t.is((await traderUpload(stranger.session, `${DEALS}/${deal.deal_id}/complete`, upload)).status, 404);
  const list = await asTrader(stranger.session, 'GET', DEALS);
  t.is(list.status, 200, list.text);
  t.deepEqual([...list.body.live, ...list.body.history], []);

  const own = await asTrader(owner.session, 'GET', `${DEALS}?deal_type=PAYIN`);
  t.deepEqual(
    own.body.live.map((d: Json) => d.deal_id),
    [deal.deal_id],
  );
  t.deepEqual((await asTrader(owner.session, 'GET', `${DEALS}?deal_type=PAYOUT`)).body.live, []);
  const wrongType = await move(owner, deal.deal_id, 'start');
  t.is(wrongType.status, 409, wrongType.text);
  t.is((await auditOf(deal.deal_id)).length, 0, 'refused moves leave no audit row');
});

test('PayOut: start and complete with a proof — the merchant’s webhook (a real receiver) and deal carry the bank reference and the file, which the merchant downloads', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const method = await isolatedMethod();
  const trader = await traderOn(method);
  const m = await fundedMerchant(10_000, { webhook_url: receiver.url });
  const created = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ payment_method: method }));
  t.is(created.status, 200, created.text);
  const dealId = created.body.deal.deal_id as string;
  t.is(created.body.deal.status, 'MATCHED');

  const shown = await asTrader(trader.session, 'GET', `${DEALS}/${dealId}`);
  t.like(shown.body.deal, { deal_type: 'PAYOUT', status: 'MATCHED', timer: 'transfer_sla', target_requisite: '4111111111111111', moves: ['start'] });

  // Complete before start: the table's words.
  const early = await traderUpload(trader.session, `${DEALS}/${dealId}/complete`, proofUpload('REF-EARLY'));
  t.is(early.status, 409, early.text);
  t.regex(early.text, /payout is MATCHED/);
  t.is((await sql`select 1 from evidence_files where deal_id = ${dealId}`).length, 0, 'nothing stored for a refused move');

  const started = await move(trader, dealId, 'start');
  t.is(started.status, 200, started.text);
  t.like(started.body.deal, { status: 'PROCESSING', moves: ['complete', 'reject'] });

  const noFile = await traderUpload(trader.session, `${DEALS}/${dealId}/complete`, multipart([{ name: 'bank_reference', data: 'REF-1' }]));
  t.is(noFile.status, 400, noFile.text);
  const noReference = await traderUpload(trader.session, `${DEALS}/${dealId}/complete`, proofUpload(''));
  t.is(noReference.status, 400, noReference.text);
  const textProof = await traderUpload(trader.session, `${DEALS}/${dealId}/complete`, proofUpload('REF-1', 'just text'));
  t.is(textProof.status, 400, 'a proof is an image or a PDF');

  const completed = await traderUpload(trader.session, `${DEALS}/${dealId}/complete`, proofUpload('SBER-2026-000123'));
  t.is(completed.status, 200, completed.text);
  const fileId = completed.body.file.file_id as string;
  t.like(completed.body.deal, { status: 'COMPLETED', bank_reference: 'SBER-2026-000123', proof_file_id: fileId, moves: [] });

  const merchantDeal = (await signed(m.keys, 'GET', `/api/v1/p2p/merchant/deals/${dealId}`)).body.deal;
  t.deepEqual(merchantDeal.payout_proof, { bank_reference: 'SBER-2026-000123', file_id: fileId });
  const hook = await eventually(async () => {
    for (const r of receiver.received) {
      const body = JSON.parse(r.body);
      if (body.type === 'deal.completed' && body.deal?.deal_id === dealId) return body;
    }
    return undefined;
  }, 'deal.completed at the receiver');
  t.deepEqual(hook.deal.payout_proof, { bank_reference: 'SBER-2026-000123', file_id: fileId });
  const file = await download(hmacHeaders(m.keys, ''), `/api/v1/p2p/merchant/files/${fileId}`);
  t.is(file.status, 200);
  t.true(file.bytes.equals(SAMPLES.png), 'the merchant reads the trader’s proof');

  // Over: every move is refused in the table's words.
  const reject = await move(trader, dealId, 'reject', { reason: 'late' });
  t.is(reject.status, 409);
  t.regex(reject.text, /payout is COMPLETED/);
  t.is((await move(trader, dealId, 'start')).status, 409);

  t.deepEqual(
    (await auditOf(dealId)).map((r) => [r.actor_kind, r.actor_id === trader.accountId, r.action]),
    [
      ['trader_account', true, 'payout.start'],
      ['trader_account', true, 'payout.complete'],
    ],
  );
  t.like((await auditOf(dealId))[1]!.after, { status: 'COMPLETED', payout_bank_reference: 'SBER-2026-000123', payout_proof_file_id: fileId });
});

test('PayOut: reject with a reason — FAILED, the merchant’s hold returned', async (t) => {
  const method = await isolatedMethod();
  const trader = await traderOn(method);
  const m = await fundedMerchant(10_000);
  const created = await signed(m.keys, 'POST', PAYOUT, m.payoutBody({ payment_method: method }));
  const dealId = created.body.deal.deal_id as string;
  t.is((await move(trader, dealId, 'reject', { reason: 'wrong card' })).status, 409, 'not started yet: payout is MATCHED');
  t.is((await move(trader, dealId, 'start')).status, 200);
  t.is((await move(trader, dealId, 'reject', {})).status, 400, 'a reason is required');
  const rejected = await move(trader, dealId, 'reject', { reason: 'the card number is wrong' });
  t.is(rejected.status, 200, rejected.text);
  t.like(rejected.body.deal, { status: 'FAILED', failure_reason: 'the card number is wrong' });
  const balance = await signed(m.keys, 'GET', '/api/v1/p2p/merchant/balance');
  t.like(balance.body.wallets[0], { available: '10000', frozen: '0' });
});

/** 30 traders with a requisite on a method of their own, and an UNASSIGNED payout on it that nothing re-matches. */
async function unassignedPayout(t: ExecutionContext, traders: number) {
  // Its own worker: no re-match for an hour, so only a take moves the payout.
  const stack = await startIsolatedStack({ PAYOUT_RETRY_MATCH_SECONDS: 3600, PAYOUT_ASSIGN_SLA_SECONDS: 3600 });
  t.teardown(() => stack.close());
  const method = await isolatedMethod();
  const m = await fundedMerchant(10_000);
  const created = await signed(m.keys, 'POST', `${stack.url}${PAYOUT}`, m.payoutBody({ payment_method: method }));
  t.is(created.body.deal.status, 'UNASSIGNED', created.text);
  const takers = await Promise.all(Array.from({ length: traders }, () => traderOn(method)));
  return { dealId: created.body.deal.deal_id as string, takers, method, merchant: m };
}

test('take: 30 traders take one UNASSIGNED payout at once — exactly one wins, 29 get 409 payout is MATCHED; the winner’s audit row', async (t) => {
  const { dealId, takers } = await unassignedPayout(t, 30);
  const available = await asTrader(takers[0]!.session, 'GET', '/api/v1/p2p/trader/payouts/available');
  t.is(available.status, 200, available.text);
  t.like(
    available.body.data.find((d: Json) => d.deal_id === dealId),
    { status: 'UNASSIGNED', timer: 'assign_sla', moves: ['take'], requisite_id: '' },
  );

  const answers = await Promise.all(takers.map((trader) => move(trader, dealId, 'take')));
  const winners = answers.flatMap((res, i) => (res.status === 200 ? [i] : []));
  t.is(winners.length, 1, answers.map((r) => r.status).join(','));
  const losers = answers.filter((res) => res.status !== 200);
  t.true(
    losers.every((res) => res.status === 409 && /payout is MATCHED/.test(res.text)),
    losers.map((r) => `${r.status} ${r.text}`).join('\n'),
  );
  const winner = takers[winners[0]!]!;
  const row = await dealRow(sql, dealId);
  t.is(row.status, 'MATCHED');
  t.is(row.trader_id, winner.traderId);
  t.is(row.requisite_id, winner.requisiteId);
  t.like(answers[winners[0]!]!.body.deal, { status: 'MATCHED', timer: 'transfer_sla', moves: ['start'] });
  t.deepEqual(
    (await auditOf(dealId)).map((r) => [r.actor_kind, r.action]),
    [['trader_account', 'payout.take']],
  );
  // The winner's now; the others no longer see it.
  t.is((await asTrader(winner.session, 'GET', `${DEALS}/${dealId}`)).status, 200);
  t.is((await asTrader(takers[(winners[0]! + 1) % 30]!.session, 'GET', `${DEALS}/${dealId}`)).status, 404);
  const after = await asTrader(takers[(winners[0]! + 1) % 30]!.session, 'GET', '/api/v1/p2p/trader/payouts/available');
  t.false(after.body.data.some((d: Json) => d.deal_id === dealId));
  // A repeat of the winner's take answers its payout.
  t.is((await move(winner, dealId, 'take')).status, 200);
});

test('take: a payout none of the trader’s requisites serves is 404 (and not listed)', async (t) => {
  const { dealId } = await unassignedPayout(t, 0);
  const small = await traderOn(await isolatedMethod());
  t.false((await asTrader(small.session, 'GET', '/api/v1/p2p/trader/payouts/available')).body.data.some((d: Json) => d.deal_id === dealId));
  t.is((await move(small, dealId, 'take')).status, 404);
  t.is((await dealRow(sql, dealId)).status, 'UNASSIGNED');
});
