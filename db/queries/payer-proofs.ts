/** The payer's proofs of payment from the hosted page (payer_proofs): a slot per submission, a few per deal. */
import type { Db } from '../sql';

interface PayerProofRow {
  deal_id: string;
  slot: number;
  file_id: string | null;
  card_last4: string | null;
  created_at: Date;
}

/** A proof with its receipt's metadata (null without a receipt). */
export interface PayerProofWithFile extends PayerProofRow {
  content_type: string | null;
  size: bigint | null;
  file_name: string | null;
}

/**
 * Claims the deal's next slot for a submission: the slot number, or undefined when all `limit`
 * slots are taken. Two concurrent claims of one slot meet at the primary key; the loser reads the
 * slots again, so each try either claims a slot or finds one more taken.
 */
export async function claimPayerProofSlot(
  tx: Db,
  proof: { dealId: string; fileId: string | null; cardLast4: string | null },
  limit: number,
): Promise<number | undefined> {
  for (let attempt = 0; attempt <= limit; attempt += 1) {
    const [claimed] = await tx<{ slot: number }[]>`
      insert into payer_proofs (deal_id, slot, file_id, card_last4)
      select ${proof.dealId}, coalesce(max(slot), 0) + 1, ${proof.fileId}, ${proof.cardLast4}
      from payer_proofs where deal_id = ${proof.dealId}
      having coalesce(max(slot), 0) < ${limit}
      on conflict do nothing
      returning slot`;
    if (claimed) return claimed.slot;
    const [taken] = await tx<{ n: number }[]>`select count(*)::int as n from payer_proofs where deal_id = ${proof.dealId}`;
    if ((taken?.n ?? 0) >= limit) return undefined;
  }
  return undefined;
}

/** Every proof of a deal, oldest first, with its receipt's metadata. */
export async function payerProofsOf(db: Db, dealId: string): Promise<PayerProofWithFile[]> {
  return db<PayerProofWithFile[]>`
    select p.*, f.content_type, f.size, f.file_name
    from payer_proofs p left join evidence_files f on f.id = p.file_id
    where p.deal_id = ${dealId}
    order by p.slot`;
}
