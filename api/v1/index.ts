/**
 * The legacy V1 API as one part of the API: every /v1/ request — a route or
 * not — passes the deprecation middleware (headers, V1 error envelope, 410 after the sunset, the
 * per-merchant count), then V1's own router, nested under /v1. Its routes only translate: they
 * call the V2 services. The adapter list, api/adapters.ts, is the one module that loads it (and,
 * for the worker, V1's webhook format, ./webhooks.ts): retiring V1 is deleting this folder,
 * db/queries/v1.ts and its line there (docs/v1.md, "Removing V1").
 */
import type { RouterContext } from '@koa/router';
import type { Context, Next } from 'koa';
import type { ApiPart } from '../mount';
import { groupRouter } from '../mount';
import { routeGroup } from '../route';
import { bankRoutes } from './banks';
import { deprecationMiddleware, isV1Path } from './deprecation';
import { disputeRoutes } from './disputes';
import './openapi';
import { paymentRoutes } from './payments';
import { withdrawalRoutes } from './withdrawals';

const v1Routes = routeGroup('/v1', [...paymentRoutes, ...bankRoutes, ...withdrawalRoutes, ...disputeRoutes]);

export const v1Api: ApiPart = {
  routes: v1Routes.routes,
  middleware(deps, metrics) {
    const deprecation = deprecationMiddleware(deps, metrics);
    const router = groupRouter(v1Routes, deps);
    const routes = router.routes();
    const allowedMethods = router.allowedMethods({ throw: true });
    // Every /v1/ path is V1's and ends here: a path V1 lacks is answered 404 (api/app.ts), in the V1 envelope.
    const serve = (ctx: RouterContext) => deprecation(ctx, () => routes(ctx, () => allowedMethods(ctx, async () => {})));
    return [(ctx: Context, next: Next) => (isV1Path(ctx.path) ? serve(ctx as RouterContext) : next())];
  },
};
