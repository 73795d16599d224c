/** How the API, the workers, scripts and tests reach Temporal: address, namespace and TLS. */
import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import type { Config } from '../config';

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
