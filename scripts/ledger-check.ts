/**
 * npm run ledger:check: every wallet's figures equal the sum of its ledger entries, every ledger
 * transaction balances, and the business invariants hold (auditInvariants: frozen = live holds,
 * pending_credits = undistributed credits). Exits 1 and lists the differences otherwise.
 * Uses DATABASE_URL.
 */
import { loadConfig } from '../config';
import { auditInvariants, auditLedger } from '../db/queries/ledger';
import { createSql } from '../db/sql';

export async function ledgerCheck(databaseUrl: string): Promise<boolean> {
  const sql = createSql(databaseUrl, { max: 1 });
  try {
    const [counts] = await sql<{ wallets: number; transactions: number; entries: number }[]>`
      select (select count(*)::int from wallets) as wallets, (select count(*)::int from ledger_transactions) as transactions,
        (select count(*)::int from ledger_entries) as entries`;
    const report = await auditLedger(sql);
    const violations = await auditInvariants(sql);
    const ok = report.walletMismatches.length === 0 && report.unbalancedTransactions.length === 0 && violations.length === 0;
    console.log(
      `ledger check: ${counts!.wallets} wallets, ${counts!.transactions} transactions, ${counts!.entries} entries — ` +
        (ok
          ? 'every wallet equals its entries, every transaction balances, and frozen and pending figures equal the live holds and undistributed credits'
          : 'MISMATCHES FOUND'),
    );
    for (const m of report.walletMismatches) console.log(`  wallet ${m.wallet_id} ${m.bucket}: figure ${m.figure}, entries ${m.entries}`);
    for (const u of report.unbalancedTransactions) console.log(`  transaction ${u.transaction_id} sums to ${u.sum}`);
    for (const v of violations) console.log(`  ${v.invariant}: wallet ${v.wallet_id} (owner ${v.owner_id}) is ${v.figure}, expected ${v.expected}`);
    return ok;
  } finally {
    await sql.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit((await ledgerCheck(loadConfig().DATABASE_URL)) ? 0 : 1);
}
