/**
 * Every SQL statement only the V1 adapter (api/v1/) runs. Its key lookup: V1 requests name the
 * merchant, not a token. And v1_disputes: what a V1 dispute create sends beyond a V2 appeal
 * (receipt type and URL, description, client and merchant comments), kept to be echoed by V1's
 * dispute reads — the one table only the V1 adapter has; everything else V1 reads is V2's (deals,
 * withdrawals, appeals, catalogs), through the same services.
 */
import { UUID_RE } from '../../domain/ids';
import type { Db } from '../sql';
import type { AuthKeyRow } from './api-keys';

export interface V1KeyRow extends AuthKeyRow {
  api_version: 'v1' | 'v2';
}

/**
 * V1 requests name the merchant, not a token (the V1 headers): every pair of the merchant that may
 * still sign — the current one and superseded ones inside their grace window — with the
 * merchant fields authentication needs.
 */
export async function findV1Keys(db: Db, merchantId: string, now: Date): Promise<V1KeyRow[]> {
  if (!UUID_RE.test(merchantId)) return [];
  return db<V1KeyRow[]>`
    select k.id as key_id, k.secret_sealed, k.grace_until, m.id as merchant_id, m.tenant_id,
           m.disabled_at, m.ip_whitelist, m.rate_limit_per_minute, m.signature_binding, m.api_version
    from api_keys k join merchants m on m.id = k.merchant_id
    where m.id = ${merchantId} and (k.grace_until is null or k.grace_until > ${now})
    order by k.created_at desc`;
}

export interface V1DisputeFields {
  appeal_id: string;
  receipt_type: string;
  receipt_url: string;
  description: string;
  client_comment: string;
  merchant_comment: string;
}

export async function insertV1Dispute(
  db: Db,
  row: { appealId: string; receiptType: string; receiptUrl: string; description: string; clientComment: string; merchantComment: string },
) {
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
