import { readFileSync } from 'node:fs';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { Config } from '../config';
import { PayloadEncryptionCodec } from './payload-codec';

/** What a connection to Temporal needs: address, namespace, payload keys and TLS. */
export type TemporalConfig = Pick<
  Config,
  | 'TEMPORAL_ADDRESS'
  | 'TEMPORAL_NAMESPACE'
  | 'TEMPORAL_PAYLOAD_ENCRYPTION'
  | 'TEMPORAL_PAYLOAD_KEYS'
  | 'TEMPORAL_TLS'
  | 'TEMPORAL_TLS_CA'
  | 'TEMPORAL_TLS_CERT'
  | 'TEMPORAL_TLS_KEY'
  | 'TEMPORAL_TLS_SERVER_NAME'
>;

/** The one payload codec of the deployment: the worker, every client and the codec endpoint use it. */
export function payloadCodec(config: Pick<Config, 'TEMPORAL_PAYLOAD_ENCRYPTION' | 'TEMPORAL_PAYLOAD_KEYS'>): PayloadEncryptionCodec {
  return new PayloadEncryptionCodec(config.TEMPORAL_PAYLOAD_KEYS, { encrypt: config.TEMPORAL_PAYLOAD_ENCRYPTION });
}

export function temporalDataConverter(config: Pick<Config, 'TEMPORAL_PAYLOAD_ENCRYPTION' | 'TEMPORAL_PAYLOAD_KEYS'>): DataConverter {
  return { payloadCodecs: [payloadCodec(config)] };
}

/**
 * TLS when configured, plain otherwise. The files are read at connect time, so a renewed
 * certificate is picked up by a restart. The same options serve Connection and NativeConnection.
 */
export function temporalTls(
  config: Pick<Config, 'TEMPORAL_TLS' | 'TEMPORAL_TLS_CA' | 'TEMPORAL_TLS_CERT' | 'TEMPORAL_TLS_KEY' | 'TEMPORAL_TLS_SERVER_NAME'>,
): TLSConfig | undefined {
  const { TEMPORAL_TLS_CA: ca, TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_SERVER_NAME: serverName } = config;
  if (!config.TEMPORAL_TLS && !ca && !cert && !key) return undefined;
  return {
    ...(ca ? { serverRootCACertificate: readFileSync(ca) } : {}),
    ...(cert && key ? { clientCertPair: { crt: readFileSync(cert), key: readFileSync(key) } } : {}),
    ...(serverName ? { serverNameOverride: serverName } : {}),
  };
}

export function temporalConnectionOptions(config: TemporalConfig): { address: string; tls?: TLSConfig } {
  const tls = temporalTls(config);
  return { address: config.TEMPORAL_ADDRESS, ...(tls ? { tls } : {}) };
}

/** The one Temporal client module, shared by the API, the relay, scripts, tests and the bench. */
export async function createTemporalClient(config: TemporalConfig): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: temporalDataConverter(config) });
}

/**
 * Whether every given task queue has a workflow poller right now (DescribeTaskQueue). Readiness
 * of a stack is "the API answers and a worker polls every queue": a request sent before the
 * first poll waits for it (seconds while the worker bundles), which the bench would otherwise
 * count as latency.
 */
export async function taskQueuesPolled(
  service: Client['workflowService'],
  namespace: string,
  taskQueues: string[],
): Promise<Record<string, boolean>> {
  const entries = await Promise.all(
    taskQueues.map(async (name) => {
      const response = await service.describeTaskQueue({
        namespace,
        taskQueue: { name, kind: 1 /* TASK_QUEUE_KIND_NORMAL */ },
        taskQueueType: 1 /* TASK_QUEUE_TYPE_WORKFLOW */,
      });
      return [name, (response.pollers?.length ?? 0) > 0] as const;
    }),
  );
  return Object.fromEntries(entries);
}
