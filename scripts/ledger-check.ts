/**
 * npm run ledger:check: every wallet's figures equal the sum of its ledger entries, every ledger
 * transaction balances, and the business invariants hold (auditInvariants: frozen = live holds,
 * pending_credits = undistributed credits), and every live hold belongs to an object whose
 * workflow is running (a hold with no workflow is never released: issue 25). Exits 1 and lists
 * the differences otherwise. Uses DATABASE_URL and the Temporal settings (TEMPORAL_ADDRESS …).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { loadConfig, type Config } from '../config';
import { auditInvariants, auditLedger, liveHoldOwners, type HoldOwner } from '../db/queries/ledger';
import { createSql, type Sql } from '../db/sql';
import { createTemporalClient } from '../temporal/client';
import type { TemporalConfig } from '../temporal/connection';
import { payinWorkflowId } from '../workflows/contracts/payin';
import { payoutWorkflowId } from '../workflows/contracts/payout';
import { withdrawalWorkflowId } from '../workflows/contracts/withdrawal';

const workflowIdOf: Record<HoldOwner['kind'], (id: string) => string> = {
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
export async function strandedHolds(sql: Sql, temporal: Client): Promise<(HoldOwner & { workflow: string })[]> {
  const owners = await liveHoldOwners(sql);
  const closed: (HoldOwner & { workflow: string })[] = [];
  for (let i = 0; i < owners.length; i += 16) {
    const batch = owners.slice(i, i + 16);
    const states = await Promise.all(batch.map((o) => workflowState(temporal, workflowIdOf[o.kind](o.id))));
    batch.forEach((o, j) => states[j] !== 'RUNNING' && closed.push({ ...o, workflow: states[j]! }));
  }
  if (closed.length === 0) return [];
  const still = new Set((await liveHoldOwners(sql, closed.map((o) => o.id))).map((o) => o.id));
  return closed.filter((o) => still.has(o.id));
}

export async function ledgerCheck(config: Pick<Config, 'DATABASE_URL'> & TemporalConfig): Promise<boolean> {
  const sql = createSql(config.DATABASE_URL, { max: 1 });
  const temporal = await createTemporalClient(config);
  try {
    const [counts] = await sql<{ wallets: number; transactions: number; entries: number }[]>`
      select (select count(*)::int from wallets) as wallets, (select count(*)::int from ledger_transactions) as transactions,
        (select count(*)::int from ledger_entries) as entries`;
    const report = await auditLedger(sql);
    const violations = await auditInvariants(sql);
    const stranded = await strandedHolds(sql, temporal);
    const ok = report.walletMismatches.length === 0 && report.unbalancedTransactions.length === 0 && violations.length === 0 && stranded.length === 0;
    console.log(
      `ledger check: ${counts!.wallets} wallets, ${counts!.transactions} transactions, ${counts!.entries} entries — ` +
        (ok
          ? 'every wallet equals its entries, every transaction balances, frozen and pending figures equal the live holds and undistributed credits, and every live hold has a running workflow'
          : 'MISMATCHES FOUND'),
    );
    for (const m of report.walletMismatches) console.log(`  wallet ${m.wallet_id} ${m.bucket}: figure ${m.figure}, entries ${m.entries}`);
    for (const u of report.unbalancedTransactions) console.log(`  transaction ${u.transaction_id} sums to ${u.sum}`);
    for (const v of violations) console.log(`  ${v.invariant}: wallet ${v.wallet_id} (owner ${v.owner_id}) is ${v.figure}, expected ${v.expected}`);
    for (const s of stranded) console.log(`  live hold without a running workflow: ${s.kind} ${s.id} is ${s.status}, its workflow ${workflowIdOf[s.kind](s.id)} is ${s.workflow}`);
    return ok;
  } finally {
    await sql.end();
    await temporal.connection.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit((await ledgerCheck(loadConfig())) ? 0 : 1);
}
