/** The merchant's wallet: its balances, deposit addresses and deposit history. */
import type { AppDeps } from '../deps';
import { NotFound } from '../../domain/errors';
import { TronAddressDeriver } from '../../domain/tron/address';
import { addDepositAddress, currentDepositAddress } from '../../db/queries/deposit-addresses';
import { listMerchantDeposits } from '../../db/queries/wallet-deposits';
import { presentDeposit } from '../../domain/records/deposit-info';
import { walletsOf } from '../../db/queries/wallets';
import { clampPageSize, cursorOf, keysetPage } from './page-token';

/** The merchant's provisioned wallets, by currency. */
export const merchantWallets = (deps: AppDeps, merchantId: string) => walletsOf(deps.sql, 'merchant', merchantId);

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

export async function listDeposits(deps: AppDeps, merchantId: string, q: { page_size?: number; page_token?: string }) {
  const scope = `deposits:${merchantId}`;
  const size = clampPageSize(q.page_size);
  const rows = await listMerchantDeposits(deps.sql, merchantId, { after: cursorOf(deps, scope, q.page_token), limit: size + 1 });
  const page = keysetPage(deps, scope, rows, size);
  return { data: page.rows.map(presentDeposit), next_page_token: page.next_page_token };
}
