/**
 * Evidence file routes: upload as multipart/form-data (part `file`), read back by
 * id — as merchant/files.ts (HMAC or cabinet JWT) and admin/files.ts (operators) mount them.
 */
import type { Context } from 'koa';
import { defineRoute } from '../route';
import { EXAMPLES } from '../schemas/examples';
import { merchantOf, type Identity } from '../auth/authenticate';
import { fileParams, fileResponse, uploadForm } from '../schemas/files';
import { ALLOWED_FILE_TYPES, presentFile, readFile, uploadFile, type FileOwner } from '../services/files';
import type { AppDeps } from '../deps';

const tags = ['Appeals: evidence files'];

const UPLOAD_DESCRIPTION =
  'multipart/form-data with the file in the part named `file`. The type is sniffed from the bytes: ' +
  `${ALLOWED_FILE_TYPES.join(', ')}; anything else is 400 listing them. At most EVIDENCE_MAX_BYTES (default 10 MB): ` +
  'larger is 413. Empty files, a missing or second file part and malformed or truncated bodies are 400. Nothing is ' +
  'stored unless the whole upload is accepted. HMAC callers sign the raw bytes of the multipart body (`<t>.<raw body>`). ' +
  'An HMAC upload is read before its signature can be checked, so it is 429 (Retry-After), unread, while too many upload bytes of the ' +
  "merchant or of all merchants are in flight unverified, and while the minute's verified requests and failed uploads (a wrong " +
  'signature, an abort) reach the rate limit; cabinet uploads are not concerned.';

const owner = (identity: Identity): FileOwner =>
  identity.kind === 'operator' ? { kind: 'operator', operatorId: identity.operatorId } : { kind: 'merchant', merchantId: merchantOf(identity).merchantId };

async function sendFile(deps: AppDeps, identity: Identity, fileId: string, ctx: Context) {
  const { row, bytes } = await readFile(deps, owner(identity), fileId);
  ctx.status = 200;
  ctx.type = row.content_type === 'text/plain' ? 'text/plain; charset=utf-8' : row.content_type;
  // User-supplied content: never rendered inline by a browser, never re-sniffed.
  ctx.set('Content-Disposition', `attachment; filename="${row.id}"`);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
  ctx.set('X-Checksum-Sha256', row.sha256);
  ctx.body = bytes;
}

export const uploadRoute = (path: string, operationId: string, auth: 'cabinet_or_hmac' | 'operator', summary: string) =>
  defineRoute(
    {
      method: 'post',
      path,
      operationId,
      auth,
      summary,
      description: UPLOAD_DESCRIPTION,
      tags,
      multipartBody: uploadForm,
      singleUse: 'route',
      status: 201,
      response: fileResponse,
      errors: [413],
      example: { response: EXAMPLES.uploadFile.response },
      // An operator's upload is audited in the transaction of its file row (api/services/files.ts).
      ...(auth === 'operator' ? { audit: { action: 'file.upload', objectType: 'file', by: 'service' as const } } : {}),
    },
    async ({ identity, actor }, deps, ctx) => ({
      file: presentFile(await uploadFile(deps, owner(identity), ctx.state.rawBody, ctx.get('Content-Type'), actor)),
    }),
  );

export const downloadRoute = (path: string, operationId: string, auth: 'cabinet_or_hmac' | 'operator', summary: string, description: string) =>
  defineRoute(
    {
      method: 'get',
      path,
      operationId,
      auth,
      summary,
      description,
      tags,
      params: fileParams,
      responseContentType: 'application/octet-stream',
      responseHeaders: {
        'Content-Disposition': { description: '`attachment; filename="<file_id>"`: never shown inline', schema: { type: 'string' } },
        'X-Checksum-Sha256': { description: "the file's SHA-256, lowercase hex (the file's sha256)", schema: { type: 'string' } },
      },
      errors: [404],
    },
    async ({ identity, params }, deps, ctx) => {
      await sendFile(deps, identity, params.file_id, ctx);
    },
  );
