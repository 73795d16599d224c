/**
 * npm run ledger:check: every wallet's figures equal the sum of its ledger entries, every ledger
 * transaction balances, and the business invariants hold (auditInvariants: frozen = live holds,
 * pending_credits = undistributed credits), and every live hold belongs to an object whose
 * workflow is running (a hold with no workflow is never released), live money comes
 * only from recorded deposits (db/queries/ledger-backing.ts) and the audit trail's hash chain is
 * unbroken (db/queries/audit-chain.ts). Exits 1 and lists the differences otherwise. Uses DATABASE_URL and the Temporal settings (TEMPORAL_ADDRESS …).
 */
import { loadConfig, type Config } from '../config';
import { createSql } from '../db/sql';
import { createTemporalClient } from '../temporal/client';
import type { TemporalConfig } from '../temporal/connection';
import type { AuditChainReport } from '../db/queries/audit-chain';
import type { UnbackedCredit } from '../db/queries/ledger-backing';
import { checkLedger, workflowIdOf } from '../workers/ledger-check';

// The check itself lives beside its periodic run in the worker (workers/ledger-check.ts).
export { strandedHolds } from '../workers/ledger-check';

export async function ledgerCheck(config: Pick<Config, 'DATABASE_URL'> & TemporalConfig): Promise<boolean> {
  const sql = createSql(config.DATABASE_URL, { max: 1 });
  const temporal = await createTemporalClient(config);
  try {
    const [counts] = await sql<{ wallets: number; transactions: number; entries: number }[]>`
      select (select count(*)::int from wallets) as wallets, (select count(*)::int from ledger_transactions) as transactions,
        (select count(*)::int from ledger_entries) as entries`;
    const result = await checkLedger(sql, temporal);
    const { ok, report, violations, stranded } = result;
    console.log(
      `ledger check: ${counts!.wallets} wallets, ${counts!.transactions} transactions, ${counts!.entries} entries — ` +
        (ok
          ? 'every wallet equals its entries, every transaction balances, frozen and pending figures equal the live holds and undistributed credits, and every live hold has a running workflow'
          : 'MISMATCHES FOUND'),
    );
    for (const m of report.walletMismatches) console.log(`  wallet ${m.wallet_id} ${m.bucket}: figure ${m.figure}, entries ${m.entries}`);
    for (const u of report.unbalancedTransactions) console.log(`  transaction ${u.transaction_id} sums to ${u.sum}`);
    for (const v of violations) console.log(`  ${v.invariant}: wallet ${v.wallet_id} (owner ${v.owner_id}) is ${v.figure}, expected ${v.expected}`);
    for (const s of stranded)
      console.log(`  live hold without a running workflow: ${s.kind} ${s.id} is ${s.status}, its workflow ${workflowIdOf[s.kind](s.id)} is ${s.workflow}`);
    printBacking(result.unbacked);
    printAuditChain(result.auditChain);
    return ok;
  } finally {
    await sql.end();
    await temporal.connection.close();
  }
}

/** Live money with no recorded deposit behind it: every trader's balance must trace to deposits and deals. */
function printBacking(unbacked: UnbackedCredit[]) {
  if (unbacked.length === 0) {
    console.log(
      '  live money: every system account paid only for a recorded deposit or trader top-up; every trader wallet moved only by its recorded top-ups and deposits, its own deals and withdrawals, and its security deposit',
    );
    return;
  }
  for (const u of unbacked)
    console.log(
      `  UNBACKED: ${u.kind} ${u.key} (transaction ${u.transaction_id}) gives ${u.amount} from ${u.source} to wallet ${u.wallet_id ?? '?'}: ${u.rule}`,
    );
}

/** The audit trail's hash chain: its length and head, or every break found. */
function printAuditChain(chain: AuditChainReport) {
  if (chain.breaks.length === 0) {
    console.log(`  audit chain: ${chain.rows} rows, unbroken`);
    return;
  }
  for (const b of chain.breaks) console.log(`  AUDIT CHAIN BROKEN at ${b.chain_seq || '-'} (row ${b.id || '-'}): ${b.problem}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit((await ledgerCheck(loadConfig())) ? 0 : 1);
}
