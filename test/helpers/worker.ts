import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { eventually } from './poll';
import { NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import pino from 'pino';
import { createActivities } from '../../activities';
import { adapterWebhookFormats } from '../../api/adapters';
import { loadConfig, type Config } from '../../config';
import { createSql } from '../../db/sql';
import { SecretBox } from '../../domain/crypto/secret-box';
import { temporalConnectionOptions } from '../../temporal/connection';
import { temporalDataConverter } from '../../temporal/payload-codec';
import { ensureChainWatch } from '../../workers/chain-watch';
import { appEnv, startApp } from './app';

/** The real worker entrypoint as a child process (to be killed with SIGKILL), with env overrides. */
export function startWorkerProcess(env: Record<string, string>): ChildProcess {
  const entry = fileURLToPath(new URL('../../workers/main.ts', import.meta.url));
  // Its warnings and errors go to .data/logs/test-worker-process.log (appended by every such process),
  // where a test that waited in vain for it can be explained.
  const logs = fileURLToPath(new URL('../../.data/logs', import.meta.url));
  mkdirSync(logs, { recursive: true });
  const log = openSync(join(logs, 'test-worker-process.log'), 'a');
  return spawn(process.execPath, ['--import', 'tsx', entry], { env: { ...appEnv(), LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', log, log] });
}

/**
 * The bound on a worker process's cold start (loading, bundling its workflows, connecting): seconds
 * on an idle machine, minutes under a CPU burner. Only a wait that has gone wrong reaches it.
 */
export const WORKER_COLD_START_MS = 480_000;

/**
 * Waits until the worker process `pid` polls `taskQueue` (1: workflow tasks, 2: activity tasks) and
 * answers when. Matched by pid: a killed predecessor stays in the server's poller list for a while.
 */
export async function pollingBy(client: Client, taskQueue: string, pid: number | undefined, taskQueueType: 1 | 2 = 1): Promise<number> {
  const identity = `${pid}@`;
  return eventually(
    async () => {
      const { pollers } = await client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: taskQueue }, taskQueueType });
      return (pollers ?? []).some((p) => p.identity?.startsWith(identity)) && Date.now();
    },
    `worker process ${pid} to poll ${taskQueue}`,
    WORKER_COLD_START_MS,
  );
}

/** A worker in this process on the given task queue (no relay), to stop and restart at will. */
export async function startWorker(taskQueue: string, overrides: Partial<Config> = {}, options: { workflowBundle?: WorkflowBundle } = {}) {
  const config = { ...loadConfig(appEnv()), ...overrides, TEMPORAL_TASK_QUEUE: taskQueue };
  const sql = createSql(config.DATABASE_URL, { max: 5 });
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: temporalDataConverter(config) });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: fileURLToPath(new URL('../../workflows/index.ts', import.meta.url)) }),
    activities: createActivities({
      config,
      sql,
      log: pino({ level: 'silent' }),
      secretBox: new SecretBox(config.SECRETS_ENCRYPTION_KEY),
      // As workers/main.ts: V2's format and the adapters' (V1's).
      webhookFormats: await adapterWebhookFormats(),
      temporal: client,
    }),
    dataConverter: temporalDataConverter(config),
  });
  const running = worker.run();
  // As workers/main.ts: with CHAIN_ADAPTER=trongrid the deposit watcher runs (one per task queue).
  await ensureChainWatch(client, config);
  return {
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await sql.end();
    },
  };
}

/**
 * An API and a worker in this process on a task queue of their own, with config overrides —
 * for timer behaviour (e.g. a 2-second payment timeout) without slowing the shared stack.
 */
export async function startIsolatedStack(overrides: Partial<Config>) {
  const taskQueue = `isolated-${process.pid}-${Date.now()}`;
  const worker = await startWorker(taskQueue, overrides);
  const app = await startApp({ ...overrides, TEMPORAL_TASK_QUEUE: taskQueue });
  return {
    url: app.url,
    async close() {
      await app.close();
      await worker.stop();
    },
  };
}
