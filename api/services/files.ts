/**
 * Evidence files: a multipart upload is parsed by @fastify/busboy from
 * the raw bytes the body middleware kept (the HMAC was verified over exactly those bytes), its
 * type is sniffed from the content (file-type), never taken from the part's header, and the
 * bytes go to the FileStorage. Every refusal happens before anything is stored.
 */
import { createHash } from 'node:crypto';
import { Busboy } from '@fastify/busboy';
import { fileTypeFromBuffer } from 'file-type';
import type { AppDeps } from '../deps';
import type { Db } from '../../db/sql';
import type { AuditActor } from '../../domain/audit';
import { insertAudit } from '../../db/queries/audit';
import { InvalidArgument, NotFound } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { deleteUnattachedFile, findFile, findFileForMerchant, foreignFileIds, insertFile, type FileRow } from '../../db/queries/files';
import { postgresFileStorage, type FileStorage } from './file-storage';

/** What an evidence file may be, by its sniffed type. */
export const ALLOWED_FILE_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'text/plain'] as const;
const SNIFFED: Record<string, string> = { pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };
const PART_NAME = 'file';

export type FileOwner = { kind: 'merchant'; merchantId: string } | { kind: 'operator'; operatorId: string } | { kind: 'trader'; traderId: string };
/**
 * Who may store a file: an owner above, a payer's page (a receipt of its deal, api/services/payer-proof.ts)
 * or a trader for one of its payouts (the proof of the transfer, api/services/trader-deals.ts).
 */
export type FileWriter = FileOwner | { kind: 'payer'; dealId: string } | { kind: 'trader'; traderId: string; dealId: string };

/** What a file may be beyond the type rule, and what else commits with its row. */
export interface StoreOptions {
  /** The sniffed types accepted (default: ALLOWED_FILE_TYPES). */
  types?: readonly string[];
  /** Runs in the transaction of the file row: a throw leaves neither the row nor the bytes. */
  alsoInTransaction?: (tx: Db, row: FileRow) => Promise<void>;
}

export const storageOf = (deps: AppDeps): FileStorage => deps.fileStorage ?? postgresFileStorage(deps.sql);

const refuse = (message: string) => new InvalidArgument(message, [{ field: PART_NAME, message, code: 'invalid_file' }]);

/** Parses the one `file` part out of a complete multipart body; any other file part, a truncated body or no file is 400. */
async function parseUpload(raw: Buffer, contentType: string, maxBytes: number): Promise<{ bytes: Buffer; fileName: string }> {
  const { file } = await parseMultipart(raw, contentType, maxBytes, PART_NAME);
  if (!file) throw refuse(`no file: send it as multipart/form-data in the part named "${PART_NAME}"`);
  return file;
}

/**
 * The text fields and the one file (in the part `fileField`, optional) of a complete multipart
 * body — the upload above and the payer's page forms. A file in another part, a second file, a
 * truncated body or one file beyond `maxBytes` is refused (413 for the size); a file part with no
 * bytes (a form whose file input was left empty) counts as no file.
 */
export function parseMultipart(
  raw: Buffer,
  contentType: string,
  maxBytes: number,
  fileField: string,
): Promise<{ fields: Record<string, string>; file?: { bytes: Buffer; fileName: string } }> {
  return new Promise((resolve, reject) => {
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { 'content-type': contentType },
        limits: { files: 1, fileSize: maxBytes, fields: 20, fieldSize: 4096, parts: 21, headerPairs: 20 },
        isPartAFile: (name, _type, fileName) => name === fileField || fileName !== undefined,
      });
    } catch {
      return reject(refuse('Content-Type must be multipart/form-data with a boundary'));
    }
    let failure: Error | undefined;
    let found: { bytes: Buffer; fileName: string } | undefined;
    const fields: Record<string, string> = {};
    let pending: Promise<void> = Promise.resolve();
    const fail = (error: Error) => {
      failure ??= error;
    };
    parser.on('field', (name, value) => {
      fields[name.slice(0, 50)] = value;
    });
    parser.on('file', (name, stream, fileName) => {
      if (name !== fileField) {
        fail(refuse(`unexpected file part "${name.slice(0, 50)}"; send the file in the part named "${fileField}"`));
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      pending = new Promise<void>((done) => {
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('limit', () => fail(tooLarge(maxBytes)));
        stream.on('end', () => {
          const bytes = Buffer.concat(chunks);
          if (!stream.truncated && (bytes.length > 0 || fileField === PART_NAME)) found = { bytes, fileName: cleanName(fileName ?? '') };
          done();
        });
        stream.on('error', (error) => {
          fail(error instanceof Error ? error : new Error(String(error)));
          done();
        });
      });
    });
    parser.on('filesLimit', () => fail(refuse(`send exactly one file, in the part named "${fileField}"`)));
    parser.on('partsLimit', () => fail(refuse('too many parts in the multipart body')));
    parser.on('error', () => fail(refuse('malformed or truncated multipart body')));
    parser.on('finish', () => {
      void pending.then(() => {
        if (failure) return reject(failure instanceof InvalidArgument ? failure : refuse('malformed or truncated multipart body'));
        resolve(found ? { fields, file: found } : { fields });
      });
    });
    parser.end(raw);
  });
}

function tooLarge(maxBytes: number) {
  const error = refuse(`file is larger than ${maxBytes} bytes`);
  error.httpStatus = 413;
  return error;
}

/** A display name only (never a path): control characters and path parts dropped, at most 200 characters. */
function cleanName(name: string): string {
  return (name.split(/[\\/]/).pop() ?? '').replace(/\p{Cc}/gu, '').slice(0, 200);
}

/** Text is accepted when it is valid UTF-8 without control characters other than tab, LF, CR and FF. */
function isPlainText(bytes: Buffer): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  return !/(?![\t\n\f\r])\p{Cc}/u.test(text);
}

const TYPE_NAMES: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/webp': 'WEBP',
  'text/plain': 'plain text',
};
/** "PDF, PNG and plain text". */
const typeNames = (types: readonly string[]) => {
  const names = types.map((t) => TYPE_NAMES[t] ?? t);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : (names[0] ?? '');
};

/** The content type from the bytes themselves; undefined when it is none of the allowed ones. */
async function sniffType(bytes: Buffer): Promise<string | undefined> {
  const detected = await fileTypeFromBuffer(bytes);
  if (detected) return SNIFFED[detected.ext];
  return isPlainText(bytes) ? 'text/plain' : undefined;
}

export function presentFile(row: FileRow) {
  return {
    file_id: row.id,
    content_type: row.content_type,
    size: row.size.toString(),
    sha256: row.sha256,
    created_at: row.created_at.toISOString(),
  };
}

/** An upload; an operator's (`actor`) is audited in the transaction of its file row. */
export async function uploadFile(deps: AppDeps, owner: FileOwner, raw: unknown, contentType: string, actor?: AuditActor): Promise<FileRow> {
  if (!/^multipart\/form-data\b/i.test(contentType) || !Buffer.isBuffer(raw)) {
    throw refuse(`the file must be sent as multipart/form-data in the part named "${PART_NAME}"`);
  }
  const { bytes, fileName } = await parseUpload(raw, contentType, deps.config.EVIDENCE_MAX_BYTES);
  return storeFile(deps, owner, bytes, fileName, actor);
}

/**
 * Stores evidence bytes received by any route (the multipart upload above, the V1 adapter's
 * base64 proofImageBase64): the same size limit, content sniffing and storage for every caller.
 */
export async function storeFile(
  deps: AppDeps,
  owner: FileWriter,
  bytes: Buffer,
  fileName: string,
  actor?: AuditActor,
  options: StoreOptions = {},
): Promise<FileRow> {
  const max = deps.config.EVIDENCE_MAX_BYTES;
  if (bytes.length === 0) throw refuse('the file is empty');
  if (bytes.length > max) throw tooLarge(max);
  const type = await sniffType(bytes);
  const allowed = options.types ?? ALLOWED_FILE_TYPES;
  if (!type || !allowed.includes(type)) throw refuse(`unsupported file type: allowed are ${typeNames(allowed)} (${allowed.join(', ')})`);

  const id = newId();
  const storage = storageOf(deps);
  await storage.put(id, bytes);
  try {
    // The file row and, for an operator, its audit row: one transaction.
    return await deps.sql.begin(async (tx) => {
      const row = await insertFile(tx, {
        id,
        owner_type: owner.kind,
        merchant_id: owner.kind === 'merchant' ? owner.merchantId : null,
        operator_id: owner.kind === 'operator' ? owner.operatorId : null,
        trader_id: owner.kind === 'trader' ? owner.traderId : null,
        deal_id: owner.kind === 'payer' || (owner.kind === 'trader' && 'dealId' in owner) ? owner.dealId : null,
        file_name: fileName,
        content_type: type,
        size: BigInt(bytes.length),
        sha256: createHash('sha256').update(bytes).digest('hex'),
      });
      if (actor)
        await insertAudit(tx, actor, { action: 'file.upload', objectType: 'file', objectId: row.id, after: { ...presentFile(row), file_name: row.file_name } });
      await options.alsoInTransaction?.(tx, row);
      return row;
    });
  } catch (error) {
    await storage.delete(id).catch(() => undefined);
    throw error;
  }
}

/**
 * Takes back a file this request stored for a command that was then refused (the V1 adapter's
 * dispute proof): the row and its bytes go, unless something already refers to the file.
 */
export async function discardFile(deps: AppDeps, owner: { merchantId: string }, fileId: string): Promise<void> {
  if (await deleteUnattachedFile(deps.sql, owner.merchantId, fileId)) await storageOf(deps).delete(fileId);
}

/** The file and its bytes for a reader: merchants see their own and the arbiter's files in their appeals; operators see all. */
export async function readFile(deps: AppDeps, reader: FileOwner, fileId: string): Promise<{ row: FileRow; bytes: Buffer }> {
  if (reader.kind === 'trader') throw new NotFound('file not found'); // a trader reads a file through its appeal (api/services/trader-appeals.ts)
  const row = reader.kind === 'merchant' ? await findFileForMerchant(deps.sql, reader.merchantId, fileId) : await findFile(deps.sql, fileId);
  if (!row) throw new NotFound('file not found');
  const bytes = await storageOf(deps).get(fileId);
  if (!bytes) throw new NotFound('file not found');
  return { row, bytes };
}

/** file_ids on appeals and messages must be the caller's own uploads: 400 naming the first that is not. */
export async function requireOwnFiles(deps: AppDeps, owner: FileOwner, fileIds: string[], field = 'file_ids'): Promise<string[]> {
  const unique = [...new Set(fileIds)];
  const mine =
    owner.kind === 'merchant' ? { merchantId: owner.merchantId } : owner.kind === 'trader' ? { traderId: owner.traderId } : { operator: true as const };
  const foreign = await foreignFileIds(deps.sql, mine, unique);
  if (foreign.length > 0) {
    const message = `file ${foreign[0]} is not one of your uploaded files`;
    throw new InvalidArgument(message, [{ field, message, code: 'unknown_file' }]);
  }
  return unique;
}
