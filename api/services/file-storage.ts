/**
 * Where evidence bytes live. A small interface so an object store can replace the embedded
 * default; the metadata (owner, type, size, sha256) always stays in Postgres (evidence_files).
 */
import type { Sql } from '../../db/sql';
import { deleteBlob, findBlob, insertBlob } from '../../db/queries/files';

export interface FileStorage {
  put(fileId: string, bytes: Buffer): Promise<void>;
  get(fileId: string): Promise<Buffer | undefined>;
  delete(fileId: string): Promise<void>;
}

/** The embedded default: one bytea row per file in evidence_blobs. */
export function postgresFileStorage(sql: Sql): FileStorage {
  return {
    put: (fileId, bytes) => insertBlob(sql, fileId, bytes),
    get: (fileId) => findBlob(sql, fileId),
    delete: (fileId) => deleteBlob(sql, fileId),
  };
}
