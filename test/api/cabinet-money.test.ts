/**
 * The cabinet's money routes under a member's session: the balance and the PayOut quote read by
 * every role; the quote's hold equal to the hold the PayOut then takes; a PayOut and a withdrawal
 * by the owner (CSRF required); support refused (403) on every money move, nothing moved.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { CABINET, asMember, invitedMember, merchantWithOwner } from '../helpers/cabinet-session';
import { deposit, randomTronAddress } from '../helpers/wallet';

const M = '/api/v1/p2p/merchant';

test('a member reads the balance and a PayOut quote; the owner’s PayOut holds what was quoted; support may move nothing', async (t) => {
  const { merchantId, owner } = await merchantWithOwner({ sandbox: true });
  t.is((await deposit(merchantId, 1_000_000)).status, 201);
  const support = await invitedMember(owner, 'support');

  const balance = await asMember(support.session, 'GET', `${M}/balance`);
  t.is(balance.status, 200, balance.text);
  const wallet = balance.body.wallets.find((w: { currency: string }) => w.currency === 'USDT');
  t.is(wallet.available, '1000000');

  const quote = await asMember(support.session, 'GET', `${M}/deals/payout/quote?amount=95000&currency=RUB`);
  t.is(quote.status, 200, quote.text);
  t.is(BigInt(quote.body.hold_usdt_cents), BigInt(quote.body.amount_usdt_cents) + BigInt(quote.body.fee_usdt_cents));
  t.true(BigInt(quote.body.hold_usdt_cents) > 0n);
  t.is(quote.body.available_usdt_cents, '1000000');
  t.is((await asMember(support.session, 'GET', `${M}/deals/payout/quote?amount=1.5&currency=RUB`)).status, 400);

  const payout = {
    idempotency_key: randomUUID(),
    amount: 95_000,
    currency: 'RUB',
    wallet_id: wallet.wallet_id,
    target_requisite: '4111111111111111',
    payment_method: 'card-rub',
  };
  // Support: refused before anything is read; nothing held.
  const refused = await asMember(support.session, 'POST', `${M}/deals/payout`, payout);
  t.is(refused.status, 403, refused.text);
  t.is((await asMember(support.session, 'POST', `${M}/wallet/withdraw`, { address: randomTronAddress(), amount: 10_000 })).status, 403);
  t.is((await asMember(support.session, 'POST', `${M}/wallet/deposit-address`, {})).status, 403);
  t.is((await asMember(support.session, 'POST', `${M}/sandbox/deposits`, { amount: 100 })).status, 403);
  // The owner without its CSRF token: refused too.
  t.is((await asMember(owner.session, 'POST', `${M}/deals/payout`, payout, { csrf: null })).status, 403);
  t.is((await asMember(owner.session, 'GET', `${M}/balance`)).body.wallets[0].frozen, '0');

  const created = await asMember(owner.session, 'POST', `${M}/deals/payout`, payout);
  t.is(created.status, 200, created.text);
  const after = (await asMember(owner.session, 'GET', `${M}/balance`)).body.wallets[0];
  t.is(BigInt(after.available), 1_000_000n - BigInt(quote.body.hold_usdt_cents), 'the hold is the quoted one');

  const fee = await asMember(owner.session, 'GET', `${M}/wallet/withdraw-fee?amount=20000`);
  t.is(fee.status, 200, fee.text);
  const withdrawal = await asMember(owner.session, 'POST', `${M}/wallet/withdraw`, { address: randomTronAddress(), amount: 20_000 });
  t.is(withdrawal.status, 200, withdrawal.text);
  t.is(withdrawal.body.fee_usdt_cents, fee.body.fee_usdt_cents);
  const history = await asMember(support.session, 'GET', `${M}/wallet/withdrawals`);
  t.is(history.status, 200, history.text);
  t.true(history.body.data.some((w: { withdrawal_id: string }) => w.withdrawal_id === withdrawal.body.withdrawal_id));
  t.is((await asMember(owner.session, 'GET', `${CABINET}/session`)).status, 200);
});
