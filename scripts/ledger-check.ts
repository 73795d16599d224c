/**
 * npm run ledger:check: every wallet's figures equal the sum of its ledger entries and every
 * ledger transaction balances. Exits 1 and lists the differences otherwise. Uses DATABASE_URL.
 */
import { loadConfig } from '../config';
import { auditLedger } from '../db/queries/ledger';
import { auditMerchantFrozen } from '../db/queries/frozen-invariant';
import { createSql } from '../db/sql';

export async function ledgerCheck(databaseUrl: string): Promise<boolean> {
  const sql = createSql(databaseUrl, { max: 1 });
  try {
    const [counts] = await sql<{ wallets: number; transactions: number; entries: number }[]>`
      select (select count(*)::int from wallets) as wallets, (select count(*)::int from ledger_transactions) as transactions,
        (select count(*)::int from ledger_entries) as entries`;
    const report = await auditLedger(sql);
    const ok = report.walletMismatches.length === 0 && report.unbalancedTransactions.length === 0;
    console.log(
      `ledger check: ${counts!.wallets} wallets, ${counts!.transactions} transactions, ${counts!.entries} entries — ` +
        (ok ? 'every wallet equals its entries and every transaction balances' : 'MISMATCHES FOUND'),
    );
    for (const m of report.walletMismatches) console.log(`  wallet ${m.wallet_id} ${m.bucket}: figure ${m.figure}, entries ${m.entries}`);
    for (const u of report.unbalancedTransactions) console.log(`  transaction ${u.transaction_id} sums to ${u.sum}`);
    // Issue 10: a merchant's frozen = its live payout holds + its pending withdrawals.
    const frozen = await auditMerchantFrozen(sql);
    for (const f of frozen) {
      console.log(`  merchant ${f.merchant_id} frozen ${f.frozen} ≠ payout holds ${f.payout_holds} + pending withdrawals ${f.withdrawal_holds}`);
    }
    return ok && frozen.length === 0;
  } finally {
    await sql.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit((await ledgerCheck(loadConfig().DATABASE_URL)) ? 0 : 1);
}
