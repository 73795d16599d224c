/**
 * Where evidence bytes live. A small interface so an object store can replace the embedded
 * default; the metadata (owner, type, size, sha256) always stays in Postgres (evidence_files).
 */
import type { Sql } from '../../db/sql';

export interface FileStorage {
  put(fileId: string, bytes: Buffer): Promise<void>;
  get(fileId: string): Promise<Buffer | undefined>;
  delete(fileId: string): Promise<void>;
}

/** The embedded default: one bytea row per file in evidence_blobs. */
export function postgresFileStorage(sql: Sql): FileStorage {
  return {
    async put(fileId, bytes) {
      await sql`insert into evidence_blobs (file_id, bytes) values (${fileId}, ${bytes}) on conflict (file_id) do nothing`;
    },
    async get(fileId) {
      const [row] = await sql<{ bytes: Buffer }[]>`select bytes from evidence_blobs where file_id = ${fileId}`;
      return row?.bytes;
    },
    async delete(fileId) {
      await sql`delete from evidence_blobs where file_id = ${fileId}`;
    },
  };
}
