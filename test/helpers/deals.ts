import { randomUUID } from 'node:crypto';
import { createSql, type Sql } from '../../db/sql';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';
import { asOperator, signed, unsigned, type KeyPair } from './api';
import { txHashOf } from './tx-hash';

export const PAYIN = '/api/v1/p2p/merchant/deals/payin';

export function payinBody(overrides: Record<string, unknown> = {}) {
  return { idempotency_key: randomUUID(), amount: 150_000, currency: 'RUB', payment_method_id: 'card-rub', client_id: 'payer-1', ...overrides };
}

export async function createPayin(keys: KeyPair, overrides: Record<string, unknown> = {}) {
  const res = await signed(keys, 'POST', PAYIN, payinBody(overrides));
  if (res.status !== 200) throw new Error(`payin create failed: ${res.status} ${res.text}`);
  return res.body.deal as { deal_id: string; status: string; payment_url: string; amount: string };
}

export const hashOf = (paymentUrl: string) => paymentUrl.split('/pay/')[1]!;

export const checkout = (hash: string, action?: 'cancel' | 'notify-payment') =>
  unsigned(action ? 'POST' : 'GET', `/api/v1/p2p/checkout/${hash}${action ? `/${action}` : ''}`);

export const operatorDeal = (dealId: string, action: 'confirm' | 'complete' | 'reconciliation', body?: unknown) =>
  asOperator('POST', `/api/v1/p2p/admin/deals/${dealId}/${action}`, body);

export const changeAmount = (dealId: string, body: Record<string, unknown>) =>
  asOperator('POST', `/api/v1/p2p/deals/${dealId}/amount`, { reason: 'operator correction', idempotency_key: randomUUID(), ...body });

export async function walletOf(sql: Sql, ownerType: 'merchant' | 'trader', ownerId: string) {
  const [row] = await sql<{ available: bigint; frozen: bigint; pending_credits: bigint }[]>`
    select available, frozen, pending_credits from wallets where owner_type = ${ownerType} and owner_id = ${ownerId} and currency = 'USDT'`;
  return row!;
}

export async function dealRow(sql: Sql, dealId: string) {
  const [row] = await sql`select * from deals where id = ${dealId}`;
  return row!;
}

export async function eventsOf(sql: Sql, dealId: string): Promise<string[]> {
  const rows = await sql<{ event_type: string }[]>`select event_type from outbox_events where deal_id = ${dealId} order by seq`;
  return rows.map((r) => r.event_type);
}

/**
 * A trader with a chosen liquidity and one requisite on a payment method of its own (RUB), so
 * no other test's deal can land on it. Pass `method` as payment_method_id to route to it.
 */
/** A fresh RUB payment method with no requisite yet. */
export async function isolatedMethod(): Promise<string> {
  const method = `iso-${randomUUID().slice(0, 13)}`;
  const sql = createSql(process.env.DATABASE_URL!, { max: 1 });
  try {
    await sql`insert into payment_methods (id, tenant_id, slug, name, currency_code, requisite_types)
      values (${randomUUID()}, ${DEFAULT_TENANT_ID}, ${method}, ${`Isolated ${method}`}, 'RUB', ${['BANK_CARD']})`;
  } finally {
    await sql.end();
  }
  return method;
}

export const PAYOUT = '/api/v1/p2p/merchant/deals/payout';

/** A merchant funded with USDT, its wallet id, and a payout body builder. */
export async function fundedMerchant(usdtCents: number, overrides: Record<string, unknown> = {}) {
  const { newMerchant: make } = await import('./api');
  const merchant = await make(overrides);
  await asOperator('POST', '/api/v1/p2p/admin/deposits', {
    merchant_id: merchant.merchantId,
    amount: usdtCents,
    tx_hash: txHashOf(`fund-${merchant.merchantId}`),
  });
  const balance = await signed(merchant.keys, 'GET', '/api/v1/p2p/merchant/balance');
  const walletId = balance.body.wallets[0].wallet_id as string;
  const payoutBody = (extra: Record<string, unknown> = {}) => ({
    idempotency_key: randomUUID(),
    amount: 95_000,
    currency: 'RUB',
    wallet_id: walletId,
    target_requisite: '4111111111111111',
    target_name: 'Anna Recipient',
    payment_method: 'card-rub',
    ...extra,
  });
  return { ...merchant, walletId, payoutBody };
}

export async function isolatedTrader(options: { liquidity: number; min?: number; max?: number; dailyLimit?: number; bank?: string; method?: string }) {
  const method = options.method ?? (await isolatedMethod());
  const trader = await asOperator('POST', '/api/v1/p2p/admin/traders', { name: `Trader ${randomUUID().slice(0, 8)}` });
  const traderId = trader.body.trader.trader_id as string;
  if (options.liquidity > 0) {
    await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/deposits`, { amount: options.liquidity, tx_hash: txHashOf(`fund-${traderId}`) });
  }
  const requisite = await asOperator('POST', `/api/v1/p2p/admin/traders/${traderId}/requisites`, {
    payment_method: method,
    requisite_type: 'BANK_CARD',
    card_number: '2200999988887777',
    holder_name: 'Isolated Holder',
    bank_name: options.bank ?? 'isolated-bank',
    min_amount: options.min ?? 100,
    max_amount: options.max ?? 100_000_000,
    ...(options.dailyLimit ? { daily_limit: options.dailyLimit } : {}),
  });
  if (requisite.status !== 201) throw new Error(requisite.text);
  return { traderId, method, requisiteId: requisite.body.requisite.requisite_id as string };
}
