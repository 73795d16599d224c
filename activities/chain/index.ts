import type { Logger } from 'pino';
import type { Config } from '../../config';
import type { Sql } from '../../db/sql';
import type { ChainAdapter } from './adapter';
import { simulatedChain } from './simulated';
import { connectTron, type TronConfig } from './tron';
import { tronDepositWatcher } from './tron-deposits';
import { tronGridChain } from './tron-withdrawals';

export type ChainConfig = Pick<Config, 'CHAIN_ADAPTER' | 'CHAIN_SIMULATOR' | 'CHAIN_SIMULATOR_LATENCY_MS'> & TronConfig;

/** The configured chain: the withdrawal adapter and, on a real network, the deposit watcher. */
export interface Chain {
  adapter: ChainAdapter;
  /** Only with CHAIN_ADAPTER=trongrid (the simulator has no deposits: POST /admin/deposits stands in). */
  depositWatcher?: ReturnType<typeof tronDepositWatcher>;
}

export function createChain(config: ChainConfig, sql: Sql, log: Logger): Chain {
  switch (config.CHAIN_ADAPTER) {
    case 'simulated':
      return { adapter: simulatedChain(sql, { mode: config.CHAIN_SIMULATOR, latencyMs: config.CHAIN_SIMULATOR_LATENCY_MS }) };
    case 'trongrid': {
      const tron = connectTron(config);
      return { adapter: tronGridChain(sql, tron), depositWatcher: tronDepositWatcher(sql, tron, log) };
    }
  }
}

export type { ChainAdapter, SentTransfer, TransferStatus } from './adapter';
export { ChainRejected } from './adapter';
