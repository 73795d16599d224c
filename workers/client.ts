import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';

/** The one Temporal client module, shared by the API, scripts and tests. */
export async function createTemporalClient(config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>): Promise<Client> {
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}
