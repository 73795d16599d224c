/**
 * Every /v1/ answer, errors included, carries Deprecation, Sunset (HTTP-date of
 * V1_SUNSET_AT) and Link rel="successor-version"; from V1_SUNSET_AT on every /v1/ request is
 * 410 Gone. Errors of /v1/ are rendered in the V1 envelope. Each V1 call is counted per merchant.
 */
import type { Context, Next } from 'koa';
import { Counter, type Registry } from 'prom-client';
import { Gone } from '../../domain/errors';
import type { AppDeps } from '../deps';
import { renderV1Problem } from './envelope';

export const isV1Path = (path: string) => path === '/v1' || path.startsWith('/v1/');

/** Where V1 clients are sent: the API document, whose V2 part succeeds V1. */
const SUCCESSOR_LINK = '</docs>; rel="successor-version", </openapi.json>; rel="service-desc"';

/** Who still calls V1, per merchant: registered in the API's metrics. */
function v1Calls(metrics: Registry): Counter<'merchant_id'> {
  return new Counter({
    name: 'v1_requests_total',
    help: 'Legacy /v1/ requests per merchant (merchant_id "unauthenticated" when none verified): who still has to migrate',
    labelNames: ['merchant_id'],
    registers: [metrics],
  });
}

/** Wraps every /v1/ request: the deprecation headers, the V1 envelope for errors, 410 after the sunset, the count. */
export function deprecationMiddleware(deps: AppDeps, metrics: Registry) {
  const sunset = deps.config.V1_SUNSET_AT;
  const calls = v1Calls(metrics);
  return async (ctx: Context, next: Next) => {
    ctx.state.renderProblem = renderV1Problem;
    ctx.set('Deprecation', 'true');
    ctx.set('Sunset', sunset.toUTCString());
    ctx.set('Link', SUCCESSOR_LINK);
    try {
      if (deps.now() >= sunset.getTime()) {
        throw new Gone(`API V1 was retired on ${sunset.toISOString()}; use API V2 (/api/v1/p2p/merchant, see /docs)`);
      }
      await next();
    } finally {
      calls.inc({ merchant_id: (ctx.state.identity as { merchantId?: string } | undefined)?.merchantId ?? 'unauthenticated' });
    }
  };
}
