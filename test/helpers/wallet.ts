import { randomBytes, randomUUID } from 'node:crypto';
import { txHashOf } from './tx-hash';

export { txHashOf };
import { fileURLToPath } from 'node:url';
import { DefaultLogger, Runtime, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Config } from '../../config';
import { encodeTronAddress } from '../../domain/tron/address';
import { asOperator, newMerchant, signed, type KeyPair } from './api';
import { startApp } from './app';
import { startWorker } from './worker';

export const WALLET = '/api/v1/p2p/merchant/wallet';
export const ADMIN = '/api/v1/p2p/admin';

/** A fresh, valid mainnet address (random 20-byte account id): each test sends to its own. */
export function randomTronAddress(): string {
  const payload = new Uint8Array(21);
  payload[0] = 0x41;
  payload.set(randomBytes(20), 1);
  return encodeTronAddress(payload);
}

export async function deposit(merchantId: string, amount: number | bigint, txHash = txHashOf()) {
  return asOperator('POST', `${ADMIN}/deposits`, { merchant_id: merchantId, amount: Number(amount), tx_hash: txHash });
}

export async function merchantSettings(merchantId: string, body: Record<string, unknown>) {
  const res = await asOperator('PATCH', `${ADMIN}/merchants/${merchantId}`, body);
  if (res.status !== 200) throw new Error(`settings failed: ${res.status} ${res.text}`);
  return res.body.merchant;
}

/** A merchant with USDT cents on its wallet and, optionally, operator settings (auto mode, limit). */
export async function walletMerchant(usdtCents: number, settings: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}) {
  const m = await newMerchant(overrides);
  if (usdtCents > 0) {
    const funded = await deposit(m.merchantId, usdtCents);
    if (funded.status !== 201) throw new Error(`deposit failed: ${funded.status} ${funded.text}`);
  }
  if (Object.keys(settings).length > 0) await merchantSettings(m.merchantId, settings);
  return m;
}

export const withdraw = (keys: KeyPair, body: Record<string, unknown>, base = '') => signed(keys, 'POST', `${base}${WALLET}/withdraw`, body);
export const withdrawalAction = (id: string, action: 'approve' | 'cancel', body?: unknown, base = '') =>
  asOperator('POST', `${base}${ADMIN}/withdrawals/${id}/${action}`, body);

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** One workflow bundle for every in-process worker of a test file (bundling is the slow part). */
const workflowBundle = () =>
  (bundle ??= bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)), logger: undefined }));

let runtimeInstalled = false;

/** A worker in this process on a task queue of its own, with config overrides (e.g. the chain simulator's mode). */
export async function startWalletWorker(taskQueue: string, overrides: Partial<Config>) {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    try {
      // Expected activity failures (refused, abandoned broadcasts) would otherwise flood the test output.
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      /* a runtime exists already */
    }
  }
  return startWorker(taskQueue, overrides, { workflowBundle: await workflowBundle() });
}

/** An API and a worker in this process on a task queue of their own, sharing the suite's database and Temporal. */
export async function startWalletStack(overrides: Partial<Config>) {
  const taskQueue = `wallet-${process.pid}-${randomUUID().slice(0, 8)}`;
  const worker = await startWalletWorker(taskQueue, overrides);
  const app = await startApp({ ...overrides, TEMPORAL_TASK_QUEUE: taskQueue });
  return {
    url: app.url,
    taskQueue,
    worker,
    async close() {
      await app.close();
      await worker.stop();
    },
  };
}
