/** Traders: create one with its USDT liquidity wallet, top it up, add requisites. */
import type { AppDeps } from '../deps';
import { NotFound } from '../../domain/errors';
import { creditTraderLiquidity } from '../../db/queries/deposits';
import { DEFAULT_TENANT_ID } from '../../db/queries/merchants';
import { findTrader, insertRequisite, insertTrader, listTradersPage, requisitesOf } from '../../db/queries/traders';
import { ensureWallet } from '../../db/queries/wallets';
import { settleSecurityHold } from '../../db/queries/trader-money';
import { cardDataRing } from '../../db/queries/requisite-secrets';
import { insertAudit } from '../../db/queries/audit';
import type { AuditActor } from '../../domain/audit';
import { clampPageSize, cursorOf, keysetPage } from './page-token';
import { deliverTraderInvitation, makeTraderInvitation } from './trader-accounts';
import { requisiteMethod } from './trader-requisites';

async function presentTrader(deps: AppDeps, trader: { id: string; name: string; status: string; created_at: Date }) {
  const wallet = await ensureWallet(deps.sql, 'trader', trader.id, 'USDT');
  return { trader_id: trader.id, name: trader.name, status: trader.status, wallet_id: wallet.id, created_at: trader.created_at.toISOString() };
}

/**
 * Creates a trader. Without `email` an operator manages it (ACTIVE at once, as before any trader
 * had an account); with `email` its account is invited in the same transaction (both or neither)
 * and the trader is PENDING_APPROVAL until an operator approves it (api/services/trader-accounts.ts).
 */
export async function createTrader(deps: AppDeps, name: string, actor?: AuditActor, email?: string) {
  const { trader, invitation } = await deps.sql.begin(async (tx) => {
    const row = await insertTrader(tx, DEFAULT_TENANT_ID, name, email === undefined ? 'ACTIVE' : 'PENDING_APPROVAL');
    if (actor) await insertAudit(tx, actor, { action: 'trader.create', objectType: 'trader', objectId: row.id, after: { name: row.name, status: row.status } });
    const made = email !== undefined && actor ? await makeTraderInvitation(tx, deps, row.id, email, actor) : undefined;
    return { trader: row, invitation: made };
  });
  return {
    trader: await presentTrader(deps, trader),
    ...(invitation ? { account_invitation: await deliverTraderInvitation(deps, invitation, trader.name) } : {}),
  };
}

/** A trader top-up: `created` is false for an idempotent repeat (same trader, amount and tx_hash). */
export async function fundTrader(deps: AppDeps, traderId: string, amount: bigint, txHash: string, actor?: AuditActor) {
  const { trader, created } = await deps.sql.begin(async (tx) => {
    const row = await findTrader(tx, traderId);
    if (!row) throw new NotFound('trader not found');
    const wallet = await ensureWallet(tx, 'trader', traderId, 'USDT');
    const created = await creditTraderLiquidity(tx, { traderId, walletId: wallet.id, amount, txHash });
    // A top-up is a deposit too: a security deposit still short is held from it.
    if (created) await settleSecurityHold(tx, traderId);
    // A repeat credits nothing and is no new action.
    if (created && actor)
      await insertAudit(tx, actor, { action: 'trader.deposit', objectType: 'trader', objectId: traderId, after: { amount, tx_hash: txHash } });
    return { trader: row, created };
  });
  return { trader: await presentTrader(deps, trader), created };
}

export interface RequisiteInput {
  payment_method: string;
  requisite_type: string;
  card_number?: string;
  phone_number?: string;
  iban?: string;
  holder_name: string;
  bank_name: string;
  min_amount: bigint;
  max_amount: bigint;
  daily_limit?: bigint;
}

export async function addRequisite(deps: AppDeps, traderId: string, input: RequisiteInput, actor?: AuditActor) {
  const method = await requisiteMethod(deps, traderId, input);
  const row = await deps.sql.begin(async (tx) => {
    const inserted = await insertRequisite(tx, cardDataRing(deps.config), {
      trader_id: traderId,
      payment_method_id: method.id,
      requisite_type: input.requisite_type,
      card_number: input.card_number ?? '',
      phone_number: input.phone_number ?? '',
      iban: input.iban ?? '',
      holder_name: input.holder_name,
      bank_name: input.bank_name,
      min_amount: input.min_amount,
      max_amount: input.max_amount,
      daily_limit: input.daily_limit ?? null,
    });
    if (actor) {
      await insertAudit(tx, actor, {
        action: 'trader.requisite_add',
        objectType: 'requisite',
        objectId: inserted.id,
        after: {
          trader_id: traderId,
          payment_method: method.slug,
          requisite_type: inserted.requisite_type,
          bank_name: inserted.bank_name,
          min_amount: inserted.min_amount,
          max_amount: inserted.max_amount,
        },
      });
    }
    return inserted;
  });
  return {
    requisite_id: row.id,
    trader_id: row.trader_id,
    payment_method_id: row.payment_method_id,
    requisite_type: row.requisite_type,
    card_number: row.card_number,
    phone_number: row.phone_number,
    iban: row.iban,
    holder_name: row.holder_name,
    bank_name: row.bank_name,
    min_amount: row.min_amount.toString(),
    max_amount: row.max_amount.toString(),
    ...(row.daily_limit !== null ? { daily_limit: row.daily_limit.toString() } : {}),
    status: row.status,
    created_at: row.created_at.toISOString(),
  };
}

/** The operator console's list of traders with their balances and requisites, newest first. */
export async function listTradersForOperator(deps: AppDeps, q: { page_size?: number; page_token?: string }) {
  const scope = 'console:traders';
  const size = clampPageSize(q.page_size, 50, 200);
  const page = keysetPage(deps, scope, await listTradersPage(deps.sql, { after: cursorOf(deps, scope, q.page_token), limit: size + 1 }), size);
  const requisites = await requisitesOf(
    deps.sql,
    cardDataRing(deps.config),
    page.rows.map((t) => t.id),
  );
  return {
    data: page.rows.map((t) => ({
      trader_id: t.id,
      name: t.name,
      status: t.status,
      balance_usdt: t.available.toString(),
      frozen_usdt: t.frozen.toString(),
      // What its app last said (the matcher also wants a fresh heartbeat); an operator-managed trader is always present.
      presence: !t.self_managed ? 'managed' : t.online ? 'online' : t.offline_reason === 'heartbeat_lost' ? 'paused_silent' : 'offline',
      heartbeat_at: t.heartbeat_at?.toISOString() ?? '',
      created_at: t.created_at.toISOString(),
      requisites: requisites
        .filter((r) => r.trader_id === t.id)
        .map((r) => ({
          requisite_id: r.id,
          payment_method: r.payment_method,
          requisite_type: r.requisite_type,
          card_number: r.card_number,
          phone_number: r.phone_number,
          iban: r.iban,
          holder_name: r.holder_name,
          bank_name: r.bank_name,
          min_amount: r.min_amount.toString(),
          max_amount: r.max_amount.toString(),
          daily_limit: r.daily_limit === null ? '' : r.daily_limit.toString(),
          status: r.status,
        })),
    })),
    next_page_token: page.next_page_token,
  };
}
