/** The embedded simulated chain's ledger of accepted transfers (activities/chain/simulated.ts). */
import type { Db } from '../sql';

/** Records a transfer once per withdrawal (a repeat counts the call) and returns its tx hash: the first one. */
export async function acceptSimulatedTransfer(db: Db, t: { withdrawalId: string; txHash: string; toAddress: string; amount: bigint }): Promise<string> {
  const [accepted] = await db<{ tx_hash: string }[]>`
    insert into simulated_chain_transfers (withdrawal_id, tx_hash, to_address, amount)
    values (${t.withdrawalId}, ${t.txHash}, ${t.toAddress}, ${t.amount})
    on conflict (withdrawal_id) do update set send_calls = simulated_chain_transfers.send_calls + 1, last_call_at = now()
    returning tx_hash`;
  return accepted!.tx_hash;
}
