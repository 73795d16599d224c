/** Merchant deposits recorded by an operator, idempotent by tx_hash. */
import { depositConfirmed } from '../../db/queries/wallet-deposits';
import type { AppDeps } from '../deps';
import { NotFound } from '../../domain/errors';
import { findMerchantGate } from '../../db/queries/api-keys';
import { recordDeposit } from '../../db/queries/deposits';
import { ensureWallet } from '../../db/queries/wallets';
import { insertAudit } from '../../db/queries/audit';
import type { AuditActor } from '../../domain/audit';
import type { SandboxDepositLimits } from '../../db/queries/sandbox';

/**
 * `play`: a sandbox merchant's play deposit (POST /sandbox/deposits) under these caps — refused for
 * a merchant that is live by the time its transaction holds the merchant's lock (recordDeposit) —
 * and announced with p2p.finance.deposit_confirmed for a new deposit, as the chain watcher's
 * credited deposit is (the sandbox deposit stands for a chain deposit).
 */
export async function recordMerchantDeposit(
  deps: AppDeps,
  merchantId: string,
  amount: bigint,
  txHash: string,
  actor?: AuditActor,
  play?: SandboxDepositLimits,
) {
  return deps.sql.begin(async (tx) => {
    const merchant = await findMerchantGate(tx, merchantId);
    if (!merchant) throw new NotFound('merchant not found');
    const wallet = await ensureWallet(tx, 'merchant', merchantId, 'USDT');
    const { deposit, created } = await recordDeposit(tx, { merchantId, walletId: wallet.id, amount, txHash, ...(play ? { play } : {}) });
    if (created && play) await depositConfirmed(tx, deposit.id);
    if (created && actor) {
      await insertAudit(tx, actor, {
        action: 'deposit.record',
        objectType: 'deposit',
        objectId: deposit.id,
        after: { merchant_id: merchantId, amount, tx_hash: deposit.tx_hash, status: deposit.status },
      });
    }
    return {
      created,
      deposit: {
        deposit_id: deposit.id,
        merchant_id: deposit.merchant_id,
        wallet_id: deposit.wallet_id,
        amount: deposit.amount.toString(),
        currency: 'USDT' as const,
        tx_hash: deposit.tx_hash,
        status: deposit.status,
        created_at: deposit.created_at.toISOString(),
        ...(deposit.sandbox ? { sandbox: true as const } : {}),
      },
    };
  });
}
