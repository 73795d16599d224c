/**
 * The trader's money as the trader app and the operator see it: balances (available, escrow,
 * security deposit, withdrawals held), whether the trader is in the matching pool and why not,
 * its deposit address and chain deposits, its wallet's movements and what each deal did to it;
 * the operator's settings (security deposit, minimum working balance) and the security
 * deposit's hold and release. The rules live in db/queries/trader-money.ts.
 */
import type { AppDeps } from '../deps';
import { NotFound, PermissionDenied } from '../../domain/errors';
import { TronAddressDeriver } from '../../domain/tron/address';
import { presentDeposit } from '../../domain/records/deposit-info';
import type { AuditActor } from '../../domain/audit';
import { insertAudit } from '../../db/queries/audit';
import { ensureTraderDepositAddress } from '../../db/queries/deposit-addresses';
import {
  listTraderDealMoney,
  listTraderDeposits,
  listTraderMovements,
  outOfPoolReasons,
  releaseSecurityDeposit,
  setTraderMoneySettings,
  settleSecurityHold,
  traderFrozenParts,
  traderMoney,
  type TraderMoneyRow,
} from '../../db/queries/trader-money';
import { clampPageSize, cursorOf, keysetPage } from './page-token';

async function readTraderMoney(deps: AppDeps, traderId: string): Promise<TraderMoneyRow> {
  const row = await traderMoney(deps.sql, traderId);
  if (!row) throw new NotFound('trader not found');
  return row;
}

/** The wallet view: every figure in USDT cents (int64 strings). */
async function presentTraderWallet(deps: AppDeps, t: TraderMoneyRow) {
  const parts = await traderFrozenParts(deps.sql, t.id);
  const reasons = outOfPoolReasons(t);
  if (t.status !== 'ACTIVE') reasons.unshift('TRADER_NOT_ACTIVE');
  return {
    trader_id: t.id,
    currency: 'USDT' as const,
    available: t.available.toString(),
    frozen: t.frozen.toString(),
    escrow: parts.escrow.toString(),
    withdrawals_held: parts.withdrawals.toString(),
    security_deposit: {
      required: t.security_deposit.toString(),
      held: t.security_deposit_held.toString(),
      released_at: t.security_deposit_released_at?.toISOString() ?? '',
    },
    min_working_balance: t.min_working_balance.toString(),
    in_pool: reasons.length === 0,
    out_of_pool_reasons: reasons,
  };
}

export async function getTraderWallet(deps: AppDeps, traderId: string) {
  return presentTraderWallet(deps, await readTraderMoney(deps, traderId));
}

/** The trader's TRC-20 deposit address: made at the first request (the merchants' derivation, the next BIP44 index), then always the same. */
export async function getTraderDepositAddress(deps: AppDeps, traderId: string) {
  const trader = await readTraderMoney(deps, traderId);
  if (trader.sandbox) throw new PermissionDenied('the sandbox trader has no deposit address');
  const deriver = TronAddressDeriver.fromConfig(deps.config);
  const row = await deps.sql.begin((tx) => ensureTraderDepositAddress(tx, traderId, (index) => deriver.address(index)));
  if (!row) throw new NotFound('trader not found');
  return { address: row.address, currency: 'USDT' as const, network: 'TRC20' as const, created_at: row.created_at.toISOString() };
}

export async function listTraderDepositsPage(deps: AppDeps, traderId: string, q: { page_size?: number; page_token?: string }) {
  const scope = `trader-deposits:${traderId}`;
  const size = clampPageSize(q.page_size);
  const rows = await listTraderDeposits(deps.sql, traderId, { after: cursorOf(deps, scope, q.page_token), limit: size + 1 });
  const page = keysetPage(deps, scope, rows, size);
  return { data: page.rows.map(presentDeposit), next_page_token: page.next_page_token };
}

/** Every ledger move of the trader's USDT wallet, newest first. */
export async function listTraderMovementsPage(deps: AppDeps, traderId: string, q: { page_size?: number; page_token?: string }) {
  const t = await readTraderMoney(deps, traderId);
  const scope = `trader-movements:${traderId}`;
  const size = clampPageSize(q.page_size);
  const rows = await listTraderMovements(deps.sql, t.wallet_id, { after: cursorOf(deps, scope, q.page_token), limit: size + 1 });
  const page = keysetPage(deps, scope, rows, size);
  return {
    data: page.rows.map((m) => ({
      transaction_id: m.transaction_id,
      kind: m.kind,
      ref_type: m.ref_type,
      ref_id: m.ref_id,
      available_change: m.available.toString(),
      frozen_change: m.frozen.toString(),
      deal_type: m.deal_type ?? '',
      at: m.created_at.toISOString(),
    })),
    next_page_token: page.next_page_token,
  };
}

/**
 * Per deal, what it did to the trader's USDT. The fee model pays the trader no reward: a PayIn
 * takes its escrow (the trader got the fiat amount from the payer), a PayOut pays it amount_usdt
 * (it sent the fiat amount); the trader's margin is the rate it works at, outside the gateway.
 */
export async function listTraderEarningsPage(deps: AppDeps, traderId: string, q: { page_size?: number; page_token?: string }) {
  const t = await readTraderMoney(deps, traderId);
  const scope = `trader-earnings:${traderId}`;
  const size = clampPageSize(q.page_size);
  const rows = await listTraderDealMoney(deps.sql, traderId, t.wallet_id, { after: cursorOf(deps, scope, q.page_token), limit: size + 1 });
  const page = keysetPage(deps, scope, rows, size);
  return {
    data: page.rows.map((d) => ({
      deal_id: d.id,
      deal_type: d.deal_type as 'PAYIN' | 'PAYOUT',
      status: d.status,
      amount: d.amount.toString(),
      currency: d.currency,
      fiat_change: (d.deal_type === 'PAYIN' ? d.amount : -d.amount).toString(),
      usdt_change: d.usdt_change.toString(),
      usdt_frozen: d.usdt_frozen.toString(),
      reward_usdt: '0',
      created_at: d.created_at.toISOString(),
      updated_at: d.updated_at.toISOString(),
    })),
    next_page_token: page.next_page_token,
  };
}

// ---- The operator's side ----

const auditView = (t: TraderMoneyRow) => ({
  security_deposit: t.security_deposit,
  security_deposit_held: t.security_deposit_held,
  min_working_balance: t.min_working_balance,
  released: t.security_deposit_released_at !== null,
});

/** The operator sets the security deposit and/or the minimum working balance; the hold follows at once, as far as available allows. */
export async function setTraderMoney(
  deps: AppDeps,
  traderId: string,
  body: { security_deposit?: bigint | undefined; min_working_balance?: bigint | undefined },
  actor?: AuditActor,
) {
  const row = await deps.sql.begin(async (tx) => {
    const before = await traderMoney(tx, traderId, { lock: true });
    if (!before) throw new NotFound('trader not found');
    const after = await setTraderMoneySettings(tx, traderId, body);
    if (actor)
      await insertAudit(tx, actor, {
        action: 'trader.money_settings',
        objectType: 'trader',
        objectId: traderId,
        before: auditView(before),
        after: auditView(after),
      });
    return after;
  });
  return presentTraderWallet(deps, await readTraderMoney(deps, row.id));
}

/** Hold the security deposit again (a trader back to work after a release): as far as available allows. */
export async function holdTraderSecurityDeposit(deps: AppDeps, traderId: string, actor?: AuditActor) {
  await deps.sql.begin(async (tx) => {
    const before = await traderMoney(tx, traderId, { lock: true });
    if (!before) throw new NotFound('trader not found');
    const after = await settleSecurityHold(tx, traderId, { resume: true });
    if (actor)
      await insertAudit(tx, actor, {
        action: 'trader.security_hold',
        objectType: 'trader',
        objectId: traderId,
        before: auditView(before),
        after: auditView(after),
      });
  });
  return getTraderWallet(deps, traderId);
}

/** The trader stops: its security deposit goes back to available, and it is out of the pool until an operator holds it again. */
export async function releaseTraderSecurityDeposit(deps: AppDeps, traderId: string, actor?: AuditActor) {
  await deps.sql.begin(async (tx) => {
    const before = await traderMoney(tx, traderId, { lock: true });
    if (!before) throw new NotFound('trader not found');
    const after = await releaseSecurityDeposit(tx, traderId);
    if (actor)
      await insertAudit(tx, actor, {
        action: 'trader.security_release',
        objectType: 'trader',
        objectId: traderId,
        before: auditView(before),
        after: auditView(after),
      });
  });
  return getTraderWallet(deps, traderId);
}
