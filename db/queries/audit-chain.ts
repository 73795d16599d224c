/**
 * The audit trail's hash chain (db/migrations/00001_baseline.sql), walked by the ledger check. Each row's hash is
 * recomputed here from its stored fields — the same canonical bytes the insert trigger hashed,
 * built in TypeScript so that nothing of the database's own functions is trusted — and linked to
 * the hash of the row before it. A deleted row breaks the sequence or the link; an edited one no
 * longer matches its hash; a row inserted without the chain has none; rows removed from the end
 * leave the head (audit_log_head) ahead of the last row.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../sql';

const GENESIS_HASH = Buffer.alloc(32);

interface AuditChainBreak {
  chain_seq: string;
  id: string;
  problem: string;
}

export interface AuditChainReport {
  rows: number;
  breaks: AuditChainBreak[];
}

interface ChainRow {
  id: string;
  chain_seq: string | null;
  prev_hash: Buffer | null;
  hash: Buffer | null;
  at_utc: string;
  actor_kind: string;
  actor_id: string;
  role: string;
  action: string;
  object_type: string;
  object_id: string;
  before_text: string | null;
  after_text: string | null;
  request_id: string;
  request_key: string;
  /** The session or token reference (the audit_log table of db/migrations/00001_baseline.sql); null for system actors and failed sign-ins. */
  actor_credential: string | null;
}

/** `<octet length>:<text>`, or `-` for null: unambiguous whatever the text holds. */
const field = (value: string | null) => (value === null ? '-' : `${Buffer.byteLength(value, 'utf8')}:${value}`);

/**
 * The canonical content of a row, as the insert trigger builds it (audit_log_content, then the
 * credential's field when the row has one: a row without it hashes what it always did).
 */
function auditRowContent(row: Omit<ChainRow, 'prev_hash' | 'hash' | 'actor_credential'> & { actor_credential?: string | null }): Buffer {
  return Buffer.from(
    [
      row.chain_seq,
      row.id,
      row.at_utc,
      row.actor_kind,
      row.actor_id,
      row.role,
      row.action,
      row.object_type,
      row.object_id,
      row.before_text,
      row.after_text,
      row.request_id,
      row.request_key,
    ]
      .map(field)
      .join('') + (row.actor_credential == null ? '' : field(row.actor_credential)),
    'utf8',
  );
}

const chainHash = (prev: Buffer, content: Buffer) => createHash('sha256').update(prev).update(content).digest();

/** At most this many breaks are listed (the first one is what matters; the count says the rest). */
const MAX_LISTED = 50;

export async function verifyAuditChain(db: Db): Promise<AuditChainReport> {
  const breaks: AuditChainBreak[] = [];
  let more = 0;
  const report = (b: AuditChainBreak) => (breaks.length < MAX_LISTED ? breaks.push(b) : more++);
  let expectedSeq = 1n;
  let prev = GENESIS_HASH;
  let rows = 0;
  // The head first: rows of later inserts (above it) are left to the next check, and every row up
  // to it is committed, since a row and the head move in one transaction.
  const [head] = await db<{ seq: string; hash: Buffer }[]>`select seq::text, hash from audit_log_head`;
  const upTo = head?.seq ?? '0';
  const cursor = db<ChainRow[]>`
    select id::text, chain_seq::text, prev_hash, hash, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at_utc,
      actor_kind, actor_id, role, action, object_type, object_id, before::text as before_text, after::text as after_text,
      request_id, request_key, actor_credential
    from audit_log where chain_seq <= ${upTo}::bigint or chain_seq is null or hash is null
    order by audit_log.chain_seq nulls first, audit_log.id`.cursor(500);
  for await (const batch of cursor) {
    for (const row of batch) {
      rows++;
      if (row.chain_seq === null || row.hash === null || row.prev_hash === null) {
        report({ chain_seq: '', id: row.id, problem: 'row is outside the chain (no sequence or hash)' });
        continue;
      }
      const seq = BigInt(row.chain_seq);
      if (seq !== expectedSeq) {
        report({ chain_seq: row.chain_seq, id: row.id, problem: seq > expectedSeq ? `rows ${expectedSeq}..${seq - 1n} are missing` : 'sequence repeats' });
      }
      if (!Buffer.from(row.prev_hash).equals(prev)) report({ chain_seq: row.chain_seq, id: row.id, problem: 'does not link to the row before it' });
      const hash = chainHash(Buffer.from(row.prev_hash), auditRowContent(row));
      if (!hash.equals(Buffer.from(row.hash))) report({ chain_seq: row.chain_seq, id: row.id, problem: 'content does not match its hash (edited)' });
      prev = Buffer.from(row.hash);
      expectedSeq = seq + 1n;
    }
  }
  if (!head) report({ chain_seq: '', id: '', problem: 'the chain head (audit_log_head) is missing' });
  else if (BigInt(head.seq) !== expectedSeq - 1n || !Buffer.from(head.hash).equals(prev)) {
    report({ chain_seq: head.seq, id: '', problem: `the head is at ${head.seq} but the last row is ${expectedSeq - 1n} (rows removed from the end)` });
  }
  if (more > 0) breaks.push({ chain_seq: '', id: '', problem: `… and ${more} more` });
  return { rows, breaks };
}
