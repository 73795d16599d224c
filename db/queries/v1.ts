/**
 * v1_disputes: what a V1 dispute create sends beyond a V2 appeal (receipt type and URL,
 * description, client and merchant comments), kept to be echoed by V1's dispute reads. The one
 * table only the V1 adapter has — everything else V1 reads is V2's (deals, withdrawals, appeals,
 * catalogs), through the same services.
 */
import type { Db } from '../sql';

export interface V1DisputeFields {
  appeal_id: string;
  receipt_type: string;
  receipt_url: string;
  description: string;
  client_comment: string;
  merchant_comment: string;
}

export async function insertV1Dispute(db: Db, row: { appealId: string; receiptType: string; receiptUrl: string; description: string; clientComment: string; merchantComment: string }) {
  await db`
    insert into v1_disputes (appeal_id, receipt_type, receipt_url, description, client_comment, merchant_comment)
    values (${row.appealId}, ${row.receiptType}, ${row.receiptUrl}, ${row.description}, ${row.clientComment}, ${row.merchantComment})
    on conflict (appeal_id) do nothing`;
}

/** The V1 fields of these appeals, by appeal id (appeals opened through V2 have none). */
export async function v1DisputeFields(db: Db, appealIds: string[]): Promise<Map<string, V1DisputeFields>> {
  if (appealIds.length === 0) return new Map();
  const rows = await db<V1DisputeFields[]>`
    select appeal_id, receipt_type, receipt_url, description, client_comment, merchant_comment
    from v1_disputes where appeal_id = any(${appealIds}::uuid[])`;
  return new Map(rows.map((r) => [r.appeal_id, r]));
}
