import type { Context } from 'koa';
import Router from '@koa/router';
import getRawBody from 'raw-body';
import { z } from 'zod';
import type { Payload } from '@temporalio/common';
import { InvalidArgument, NotFound, PermissionDenied } from '../domain/errors';
import { CODEC_ROLES, ENROLMENT_REQUIRED } from '../domain/roles';
import { displayCodec, PayloadDecryptionError } from '../temporal/payload-codec';
import { authenticate } from './auth/authenticate';
import type { AppDeps } from './deps';

/** A history page of payloads can be large; Temporal's own limit is 2 MB per payload. */
const CODEC_BODY_LIMIT = '8mb';

/**
 * Payloads as protobuf JSON: bytes (metadata values, data) are base64 strings, and empty fields
 * are omitted — an empty list arrives as `{}` (the Temporal CLI sends that).
 */
const jsonPayload = z.object({
  metadata: z.record(z.string(), z.string()).nullish(),
  data: z.string().nullish(),
});
const codecBody = z.object({ payloads: z.array(jsonPayload).default([]) });

type JsonPayload = z.output<typeof jsonPayload>;

function parseBody(raw: string) {
  try {
    return codecBody.parse(JSON.parse(raw));
  } catch (error) {
    if (error instanceof SyntaxError) throw new InvalidArgument('malformed JSON body');
    throw error;
  }
}

const fromJson = ({ metadata, data }: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(data ?? '', 'base64'),
});
const toJson = ({ metadata, data }: Payload) => ({
  metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')])),
  data: Buffer.from(data ?? []).toString('base64'),
});

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const ip = address.startsWith('::ffff:') ? address.slice(7) : address;
  return ip === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip);
}

/**
 * Who may use the codec: an admin (CODEC_ROLES) — the operator JWT (admin / platform_admin) or a
 * console session of an admin account (with its CSRF token, as every POST) — or — only with
 * CODEC_LOOPBACK_WITHOUT_AUTH, which production refuses — a caller on this machine's loopback
 * socket that came through no proxy (the local dev UI runs in the developer's browser and has
 * no login that could hand it a token).
 */
async function authorise(ctx: Context, deps: AppDeps) {
  const localDev = deps.config.CODEC_LOOPBACK_WITHOUT_AUTH && isLoopback(ctx.req.socket.remoteAddress) && !ctx.get('X-Forwarded-For');
  if (localDev) return;
  await authenticate(ctx, 'operator', deps, {
    readBody: async () => {}, // its body is read below, after this
    authorize: (who) => {
      if (who.kind === 'operator' && who.enrolmentPending === true) throw new PermissionDenied(ENROLMENT_REQUIRED);
      if (who.kind === 'operator' && !CODEC_ROLES.includes(who.role)) {
        throw new PermissionDenied(`the operator role ${who.role} may not use the payload codec (allowed: ${CODEC_ROLES.join(', ')})`);
      }
    },
  });
}

/** CORS for the Temporal UI's origins only; the UI may send credentials and its token. */
function allowOrigin(ctx: Context, deps: AppDeps) {
  ctx.vary('Origin');
  const origin = ctx.get('Origin');
  if (origin && deps.config.CODEC_CORS_ORIGINS.includes(origin)) {
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Allow-Credentials', 'true');
  }
}

/**
 * The Temporal codec server protocol (POST …/encode and …/decode with `{ payloads: [...] }` in
 * protobuf JSON, the namespace in X-Namespace) over the deployment's one payload codec, so the
 * Temporal UI and CLI (`--codec-endpoint`, `--codec-auth "Bearer <jwt>"`) show decrypted payloads
 * to operators. Payloads are never logged.
 */
export function codecRouter(deps: AppDeps): Router {
  // Shows what a history holds, a payload the workers refused (not encrypted) included.
  const codec = displayCodec(deps.config);
  const router = new Router({ prefix: '/codec', sensitive: true });
  for (const action of ['encode', 'decode'] as const) {
    router.options(`/${action}`, (ctx) => {
      allowOrigin(ctx, deps);
      ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
    });
    router.post(`/${action}`, async (ctx) => {
      allowOrigin(ctx, deps);
      await authorise(ctx, deps);
      const namespace = ctx.get('X-Namespace');
      if (namespace && namespace !== deps.config.TEMPORAL_NAMESPACE) throw new NotFound(`no codec for namespace ${namespace}`);
      const raw = await getRawBody(ctx.req, { limit: CODEC_BODY_LIMIT, encoding: 'utf8' });
      const body = parseBody(raw);
      const payloads = body.payloads.map(fromJson);
      try {
        const result = action === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
        ctx.body = { payloads: result.map(toJson) };
      } catch (error) {
        if (error instanceof PayloadDecryptionError) throw new InvalidArgument(error.message);
        throw error;
      }
    });
  }
  return router;
}
