/**
 * The TRON network as configured (CHAIN_ADAPTER=trongrid): one TronGrid client per worker process,
 * the hot wallet (its key from TRON_HOT_WALLET_KEY, only here, never logged), the USDT contract
 * and the rules the withdrawal adapter and the deposit watcher share.
 */
import { tronHotWalletKey, type Config } from '../../config';
import { raiseAlert } from '../../db/queries/alerts';
import type { Db } from '../../db/sql';
import { tronAddressFromPrivateKey } from '../../domain/tron/address';
import { parsePrivateKey } from '../../domain/tron/transaction';
import { TronGridClient } from './trongrid';

/** A TRON block every 3 s: how long `confirmations` blocks take. */
export const TRON_BLOCK_MS = 3_000;

export type TronConfig = Pick<
  Config,
  | 'NODE_ENV'
  | 'TRON_API_URL'
  | 'TRON_SOLIDITY_API_URL'
  | 'TRON_API_KEY'
  | 'TRON_USDT_CONTRACT'
  | 'TRON_HOT_WALLET_KEY'
  | 'TRON_FEE_LIMIT_SUN'
  | 'TRON_CONFIRMATIONS'
  | 'TRON_POLL_INTERVAL_MS'
  | 'TRON_RECEIPT_POLL_MS'
  | 'TRON_EXPIRY_MARGIN_MS'
  | 'TRON_REBROADCAST_MS'
  | 'TRON_REQUEST_TIMEOUT_MS'
  | 'TRON_DEPOSIT_OVERLAP_MS'
  | 'TRON_DEPOSIT_DROP_AFTER_MS'
  | 'TRON_COLD_ADDRESS_POLL_SECONDS'
  | 'TRON_BALANCE_REFRESH_SECONDS'
  | 'TRON_HOT_WALLET_MIN_TRX_SUN'
  | 'TRON_FAILED_RETRY_MS'
  | 'TRON_WITHDRAWAL_MAX_ATTEMPTS'
>;

export interface Tron {
  client: TronGridClient;
  /** The hot wallet: withdrawals are paid from it. */
  hotWallet: string;
  /** Signs for the hot wallet. Kept out of every log and error message. */
  readonly signingKey: Uint8Array;
  usdtContract: string;
  config: TronConfig;
}

/**
 * The key is read when first needed (a webhooks-only worker never needs it; a deals worker checks
 * it at start, workers/main.ts) and stays out of JSON and util.inspect: a logged object never
 * carries it.
 */
export function connectTron(config: TronConfig): Tron {
  if (!config.TRON_API_URL) throw new Error('TRON_API_URL must be set with CHAIN_ADAPTER=trongrid');
  const client = new TronGridClient({
    url: config.TRON_API_URL,
    solidityUrl: config.TRON_SOLIDITY_API_URL,
    apiKey: config.TRON_API_KEY,
    timeoutMs: config.TRON_REQUEST_TIMEOUT_MS,
  });
  let key: Uint8Array | undefined;
  const signingKey = () => (key ??= parsePrivateKey(tronHotWalletKey(config)));
  const tron = { client, usdtContract: config.TRON_USDT_CONTRACT, config } as Tron;
  let hotWallet: string | undefined;
  Object.defineProperty(tron, 'signingKey', { enumerable: false, get: signingKey });
  Object.defineProperty(tron, 'hotWallet', { enumerable: true, get: () => (hotWallet ??= tronAddressFromPrivateKey(signingKey())) });
  return tron;
}

/** TRX in sun as a decimal string ('12.500000 TRX'). */
export const trxText = (sun: bigint) => `${sun / 1_000_000n}.${(sun % 1_000_000n).toString().padStart(6, '0')} TRX`;

/**
 * The hot wallet's TRX below TRON_HOT_WALLET_MIN_TRX_SUN (withdrawals burn it for energy): the
 * operator alert hot_wallet_low_trx, raised by the withdrawal preflight and the deposit watcher's
 * balance refresh alike. True when raised.
 */
export async function raiseLowTrxAlert(db: Db, tron: Tron, balanceSun: bigint): Promise<boolean> {
  if (balanceSun >= tron.config.TRON_HOT_WALLET_MIN_TRX_SUN) return false;
  await raiseAlert(db, {
    kind: 'hot_wallet_low_trx',
    subject: tron.hotWallet,
    message: `the hot wallet ${tron.hotWallet} holds ${trxText(balanceSun)}, below TRON_HOT_WALLET_MIN_TRX_SUN (${trxText(tron.config.TRON_HOT_WALLET_MIN_TRX_SUN)}): withdrawals burn TRX for energy — top it up or stake for energy`,
  });
  return true;
}
