/** The baseline's worker: its own process, the gateway worker's connection and codec settings. */
import { fileURLToPath } from 'node:url';
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { loadConfig } from '../../config';
import { temporalConnectionOptions } from '../../temporal/connection';
import { temporalDataConverter } from '../../temporal/payload-codec';

const config = loadConfig();
Runtime.install({ shutdownSignals: ['SIGINT', 'SIGTERM'], logger: new DefaultLogger('WARN') });
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
const worker = await Worker.create({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: process.env.BENCH_BASELINE_QUEUE ?? 'bench-baseline',
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  activities: { baselineTouch: async () => true },
  dataConverter: temporalDataConverter(config),
});
await worker.run();
await connection.close();
