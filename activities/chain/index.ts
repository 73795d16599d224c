import type { Config } from '../../config';
import type { Sql } from '../../db/sql';
import type { ChainAdapter } from './adapter';
import { simulatedChain } from './simulated';

/** The configured chain adapter (only the simulator exists so far; a TronGrid adapter plugs in here). */
export function createChainAdapter(config: Pick<Config, 'CHAIN_ADAPTER' | 'CHAIN_SIMULATOR' | 'CHAIN_SIMULATOR_LATENCY_MS'>, sql: Sql): ChainAdapter {
  switch (config.CHAIN_ADAPTER) {
    case 'simulated':
      return simulatedChain(sql, { mode: config.CHAIN_SIMULATOR, latencyMs: config.CHAIN_SIMULATOR_LATENCY_MS });
  }
}

export type { ChainAdapter, ChainTransfer } from './adapter';
export { ChainRejected, ChainUnavailable } from './adapter';
