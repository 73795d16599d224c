/**
 * The routing scores' refresh (docs/routing.md): at a deals worker's start and then every
 * ROUTING_SCORE_REFRESH_SECONDS, one worker process at a time — a transaction advisory lock taken
 * with try, so the others skip that turn — counts each requisite's outcomes over
 * ROUTING_SCORE_WINDOW_HOURS and rewrites requisite_scores (db/queries/routing.ts). The matcher
 * only reads the table: no create ever computes a score.
 */
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../config/metrics';
import { refreshRequisiteScores } from '../db/queries/routing';
import type { Sql } from '../db/sql';

interface Deps {
  sql: Sql;
  log: Logger;
  metrics?: WorkerMetrics;
  windowHours: number;
  intervalSeconds: number;
}

async function refreshTurn(deps: Deps): Promise<void> {
  const started = performance.now();
  const { refreshed, requisites } = await refreshRequisiteScores(deps.sql, deps.windowHours);
  if (!refreshed) return;
  const seconds = (performance.now() - started) / 1000;
  deps.metrics?.routingScoreRefreshDuration.set(seconds);
  deps.log.debug({ requisites, ms: Math.round(seconds * 1000) }, 'routing scores refreshed');
}

/** Refreshes now, then every intervalSeconds (0: only now); stop() waits for a running turn. */
export function startRoutingScoreRefresh(deps: Deps) {
  const turn = () =>
    refreshTurn(deps).catch((error: unknown) => deps.log.warn({ err: error }, 'routing scores could not be refreshed; next turn in one interval'));
  let running: Promise<unknown> = turn();
  const timer = deps.intervalSeconds > 0 ? setInterval(() => (running = running.then(turn)), deps.intervalSeconds * 1000) : undefined;
  timer?.unref();
  return {
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
