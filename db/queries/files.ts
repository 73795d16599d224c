import type { Db } from '../sql';

export interface FileRow {
  id: string;
  owner_type: 'merchant' | 'operator' | 'payer' | 'trader';
  merchant_id: string | null;
  operator_id: string | null;
  /** A trader's upload: its evidence in an appeal on its deal, or the proof of one of its payouts. */
  trader_id: string | null;
  /** A payer's receipt, or a trader's payout proof: the deal it is about. */
  deal_id: string | null;
  file_name: string;
  content_type: string;
  size: bigint;
  sha256: string;
  created_at: Date;
}

export async function insertFile(db: Db, row: Omit<FileRow, 'created_at'>): Promise<FileRow> {
  const [inserted] = await db<FileRow[]>`
    insert into evidence_files (id, owner_type, merchant_id, operator_id, trader_id, deal_id, file_name, content_type, size, sha256)
    values (${row.id}, ${row.owner_type}, ${row.merchant_id}, ${row.operator_id}, ${row.trader_id}, ${row.deal_id}, ${row.file_name},
      ${row.content_type}, ${row.size}, ${row.sha256})
    returning *`;
  return inserted!;
}

export async function findFile(db: Db, fileId: string): Promise<FileRow | undefined> {
  const [row] = await db<FileRow[]>`select * from evidence_files where id = ${fileId}`;
  return row;
}

/**
 * A file a merchant may read: its own, one the arbiter attached to a message of one of the
 * merchant's appeals (not the trader's evidence: the merchant's view of an appeal has no trader side), or a receipt a payer sent from the page of one of the merchant's deals.
 * Anything else is not found (existence is not revealed).
 */
export async function findFileForMerchant(db: Db, merchantId: string, fileId: string): Promise<FileRow | undefined> {
  const [row] = await db<FileRow[]>`
    select f.* from evidence_files f
    where f.id = ${fileId}
      and (f.merchant_id = ${merchantId}
        or exists (select 1 from deals d where d.id = f.deal_id and d.merchant_id = ${merchantId})
        or exists (select 1 from appeal_messages m join appeals a on a.id = m.appeal_id
                   where a.merchant_id = ${merchantId} and m.sender_role <> 'TRADER' and m.file_ids @> array[${fileId}]::uuid[]))`;
  return row;
}

/** The ids among `fileIds` that the owner does not own (unknown ids included), in the given order. */
export async function foreignFileIds(db: Db, owner: { merchantId: string } | { traderId: string } | { operator: true }, fileIds: string[]): Promise<string[]> {
  if (fileIds.length === 0) return [];
  const mine =
    'merchantId' in owner ? db`merchant_id = ${owner.merchantId}` : 'traderId' in owner ? db`trader_id = ${owner.traderId}` : db`owner_type = 'operator'`;
  const rows = await db<{ id: string }[]>`
    select id from evidence_files where id = any(${fileIds}::uuid[]) and ${mine}`;
  const owned = new Set(rows.map((r) => r.id));
  return fileIds.filter((id) => !owned.has(id));
}

/**
 * A file the trader of an appeal's deal may read in that appeal: the merchant's statement's files,
 * the files of the merchant's and the trader's messages. The arbiter's messages and attachments
 * are the merchant's and the operators'; anything else is not found.
 */
export async function findFileForTraderAppeal(db: Db, appealId: string, fileId: string): Promise<FileRow | undefined> {
  const [row] = await db<FileRow[]>`
    select f.* from evidence_files f
    where f.id = ${fileId}
      and (exists (select 1 from appeals a where a.id = ${appealId} and a.file_ids @> array[${fileId}]::uuid[])
        or exists (select 1 from appeal_messages m where m.appeal_id = ${appealId} and m.sender_role in ('MERCHANT', 'TRADER')
                   and m.file_ids @> array[${fileId}]::uuid[]))`;
  return row;
}

/** Deletes a trader's file no message refers to (an answer refused after its file was stored). True when it deleted the row. */
export async function deleteUnattachedTraderFile(db: Db, traderId: string, fileId: string): Promise<boolean> {
  const rows = await db`
    delete from evidence_files f
    where f.id = ${fileId} and f.trader_id = ${traderId}
      and not exists (select 1 from appeal_messages m where m.file_ids @> array[${fileId}]::uuid[])
    returning f.id`;
  return rows.length > 0;
}

export async function filesByIds(db: Db, fileIds: string[]): Promise<FileRow[]> {
  if (fileIds.length === 0) return [];
  return db<FileRow[]>`select * from evidence_files where id = any(${fileIds}::uuid[]) order by created_at, id`;
}

/**
 * Deletes a merchant's file that nothing refers to (no appeal of the merchant, no message):
 * the compensation of a store whose appeal was then refused. True when it deleted the row.
 */
export async function deleteUnattachedFile(db: Db, merchantId: string, fileId: string): Promise<boolean> {
  const rows = await db`
    delete from evidence_files f
    where f.id = ${fileId} and f.merchant_id = ${merchantId}
      and not exists (select 1 from appeals a where a.merchant_id = ${merchantId} and a.file_ids @> array[${fileId}]::uuid[])
      and not exists (select 1 from appeal_messages m where m.file_ids @> array[${fileId}]::uuid[])
    returning f.id`;
  return rows.length > 0;
}

/** The embedded file storage (api/services/file-storage.ts): one bytea row per file in evidence_blobs. */
export async function insertBlob(db: Db, fileId: string, bytes: Buffer): Promise<void> {
  await db`insert into evidence_blobs (file_id, bytes) values (${fileId}, ${bytes}) on conflict (file_id) do nothing`;
}

export async function findBlob(db: Db, fileId: string): Promise<Buffer | undefined> {
  const [row] = await db<{ bytes: Buffer }[]>`select bytes from evidence_blobs where file_id = ${fileId}`;
  return row?.bytes;
}

export async function deleteBlob(db: Db, fileId: string): Promise<void> {
  await db`delete from evidence_blobs where file_id = ${fileId}`;
}
