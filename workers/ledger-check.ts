/**
 * The ledger check (npm run ledger:check, scripts/ledger-check.ts) and its periodic run in the
 * worker: every LEDGER_CHECK_INTERVAL_SECONDS one worker process at a time — a session advisory
 * lock taken with try, so the others skip that turn — audits the ledger and sets the
 * gateway_ledger_check_* gauges (config/metrics.ts). Every statement is bounded by a statement
 * timeout; the check reads aggregates over the ledger once per interval, not per scrape.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../config/metrics';
import { verifyAuditChain, type AuditChainReport } from '../db/queries/audit-chain';
import { auditInvariants, auditLedger, liveHoldOwners, type HoldOwner, type InvariantViolation, type LedgerAuditReport } from '../db/queries/ledger';
import { unbackedLiveMoney, type UnbackedCredit } from '../db/queries/ledger-backing';
import type { Db, Sql } from '../db/sql';
import { auditWorlds } from '../db/queries/ledger-worlds';
import { payinWorkflowId } from '../workflows/contracts/payin';
import { payoutWorkflowId } from '../workflows/contracts/payout';
import { withdrawalWorkflowId } from '../workflows/contracts/withdrawal';

export const workflowIdOf: Record<HoldOwner['kind'], (id: string) => string> = {
  payin: payinWorkflowId,
  payout: payoutWorkflowId,
  withdrawal: withdrawalWorkflowId,
};

/** The workflow's state: RUNNING, another close status, or NOT_FOUND. */
async function workflowState(temporal: Client, workflowId: string): Promise<string> {
  try {
    return (await temporal.workflow.getHandle(workflowId).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'NOT_FOUND';
    throw error;
  }
}

/**
 * The holds no workflow will ever release: objects holding money whose workflow is not running.
 * An object is read again after its workflow was found closed, so one that settled in between
 * (the row moves before its workflow returns) is not reported.
 */
export async function strandedHolds(sql: Db, temporal: Client): Promise<(HoldOwner & { workflow: string })[]> {
  const owners = await liveHoldOwners(sql);
  const closed: (HoldOwner & { workflow: string })[] = [];
  for (let i = 0; i < owners.length; i += 16) {
    const batch = owners.slice(i, i + 16);
    const states = await Promise.all(batch.map((o) => workflowState(temporal, workflowIdOf[o.kind](o.id))));
    for (const [j, o] of batch.entries()) if (states[j] !== 'RUNNING') closed.push({ ...o, workflow: states[j]! });
  }
  if (closed.length === 0) return [];
  const still = new Set(
    (
      await liveHoldOwners(
        sql,
        closed.map((o) => o.id),
      )
    ).map((o) => o.id),
  );
  return closed.filter((o) => still.has(o.id));
}

export interface LedgerCheckResult {
  ok: boolean;
  report: LedgerAuditReport;
  violations: InvariantViolation[];
  stranded: (HoldOwner & { workflow: string })[];
  /** Live money with no recorded deposit behind it (db/queries/ledger-backing.ts). */
  unbacked: UnbackedCredit[];
  /** The audit trail's hash chain (db/queries/audit-chain.ts). */
  auditChain: AuditChainReport;
}

export async function checkLedger(sql: Db, temporal: Client): Promise<LedgerCheckResult> {
  const report = await auditLedger(sql);
  const violations = [...(await auditInvariants(sql)), ...(await auditWorlds(sql))];
  const stranded = await strandedHolds(sql, temporal);
  const unbacked = await unbackedLiveMoney(sql);
  const auditChain = await verifyAuditChain(sql);
  const ok =
    report.walletMismatches.length === 0 &&
    report.unbalancedTransactions.length === 0 &&
    violations.length === 0 &&
    stranded.length === 0 &&
    unbacked.length === 0 &&
    auditChain.breaks.length === 0;
  return { ok, report, violations, stranded, unbacked, auditChain };
}

/** pg advisory lock key of the periodic check ("ledger" in ASCII). */
const LEDGER_CHECK_LOCK = 0x6c6564676572;
/** Each statement of a periodic check at most this long: a check never holds the database for long. */
const STATEMENT_TIMEOUT_MS = 30_000;

/** One periodic turn: false when another worker holds the turn (nothing measured). */
async function runLedgerCheckTurn(deps: { sql: Sql; temporal: Client; log: Logger; metrics: WorkerMetrics }): Promise<boolean> {
  const started = performance.now();
  // A reserved connection: the session lock and the check's statements share it.
  const conn = await deps.sql.reserve();
  try {
    const [turn] = await conn<{ ok: boolean }[]>`select pg_try_advisory_lock(${LEDGER_CHECK_LOCK}) as ok`;
    if (!turn?.ok) return false;
    try {
      await conn`select set_config('statement_timeout', ${String(STATEMENT_TIMEOUT_MS)}, false)`;
      const result = await checkLedger(conn as unknown as Db, deps.temporal);
      const now = Date.now() / 1000;
      const m = deps.metrics;
      m.ledgerCheckOk.set(result.ok ? 1 : 0);
      m.ledgerCheckLastRun.set(now);
      (result.ok ? m.ledgerCheckLastSuccess : m.ledgerCheckLastFailure).set(now);
      m.ledgerCheckDuration.set((performance.now() - started) / 1000);
      if (!result.ok) {
        deps.log.error(
          {
            walletMismatches: result.report.walletMismatches.length,
            unbalancedTransactions: result.report.unbalancedTransactions.length,
            violations: result.violations.length,
            stranded: result.stranded.map((s) => ({ kind: s.kind, id: s.id, status: s.status, workflow: s.workflow })).slice(0, 20),
            unbacked: result.unbacked.length,
            auditChainBreaks: result.auditChain.breaks.slice(0, 5),
          },
          'ledger check: MISMATCHES FOUND (npm run ledger:check lists them)',
        );
      }
      return true;
    } finally {
      await conn`select set_config('statement_timeout', '0', false), pg_advisory_unlock(${LEDGER_CHECK_LOCK})`;
    }
  } finally {
    conn.release();
  }
}

/** Runs a turn every intervalSeconds (the first after one interval); stop() waits for a running turn. */
export function startLedgerChecks(deps: { sql: Sql; temporal: Client; log: Logger; metrics: WorkerMetrics; intervalSeconds: number }) {
  if (deps.intervalSeconds <= 0) return undefined;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() =>
      runLedgerCheckTurn(deps).catch((error: unknown) => deps.log.warn({ err: error }, 'ledger check could not run; next turn in one interval')),
    );
  }, deps.intervalSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
