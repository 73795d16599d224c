/** Deposit addresses and deposit history (spec 4.2). */
import type { AppDeps } from '../deps';
import { NotFound } from '../../domain/errors';
import { TronAddressDeriver } from '../../domain/tron';
import { addDepositAddress, currentDepositAddress } from '../../db/queries/deposit-addresses';
import { listMerchantDeposits, type WalletDepositRow } from '../../db/queries/wallet-deposits';
import { PageTokens } from './page-token';

export const isCursor = (v: unknown): v is { createdAt: string; id: string } =>
  typeof v === 'object' && v !== null && typeof (v as { createdAt?: unknown }).createdAt === 'string' && typeof (v as { id?: unknown }).id === 'string';

export const clampPageSize = (size: number | undefined) => Math.min(250, size || 50);

/** One keyset page newest first: rows fetched with limit size + 1 tell whether another page exists. */
export function keysetPage<R extends { cursor_ts: string; id: string }, T>(
  deps: AppDeps,
  scope: string,
  rows: R[],
  size: number,
  present: (row: R) => T,
): { data: T[]; next_page_token: string } {
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  return {
    data: page.map(present),
    next_page_token: rows.length > size && last ? new PageTokens(deps.config.SECRETS_ENCRYPTION_KEY).encode({ createdAt: last.cursor_ts, id: last.id }, scope) : '',
  };
}

export const decodeCursor = (deps: AppDeps, scope: string, token: string | undefined) =>
  token ? new PageTokens(deps.config.SECRETS_ENCRYPTION_KEY).decode(token, scope, isCursor) : undefined;

const presentAddress = (row: { address: string; created_at: Date }) => ({ address: row.address, updated_at: row.created_at.toISOString() });

export async function getDepositAddress(deps: AppDeps, merchantId: string) {
  const row = await currentDepositAddress(deps.sql, merchantId);
  if (!row) throw new NotFound('deposit address not generated');
  return presentAddress(row);
}

/** Generates (first call) or rotates (later calls) the deposit address: a new BIP44 index each time. */
export async function rotateDepositAddress(deps: AppDeps, merchantId: string) {
  const deriver = TronAddressDeriver.fromConfig(deps.config);
  const row = await deps.sql.begin((tx) => addDepositAddress(tx, merchantId, (index) => deriver.address(index)));
  if (!row) throw new NotFound('merchant not found');
  deps.log.info({ merchantId, index: row.derivation_index }, 'deposit address generated');
  return presentAddress(row);
}

const presentDeposit = (r: WalletDepositRow) => ({
  deposit_id: r.id,
  status: r.status as 'PENDING' | 'CONFIRMED',
  currency: 'USDT' as const,
  amount: r.amount.toString(),
  tx_hash: r.tx_hash,
  address: r.address,
  confirmations: r.confirmations,
  created_at: r.created_at.toISOString(),
  // Operator-recorded deposits are final when recorded: their confirmation time is their creation.
  confirmed_at: (r.confirmed_at ?? (r.status === 'CONFIRMED' ? r.created_at : null))?.toISOString() ?? '',
});

export async function listDeposits(deps: AppDeps, merchantId: string, q: { page_size?: number; page_token?: string }) {
  const scope = `deposits:${merchantId}`;
  const after = decodeCursor(deps, scope, q.page_token);
  const size = clampPageSize(q.page_size);
  const rows = await listMerchantDeposits(deps.sql, merchantId, { after, limit: size + 1 });
  return keysetPage(deps, scope, rows, size, presentDeposit);
}
