/**
 * API V2: nested routers, each under its prefix — the merchant's (merchant/), its people's
 * (cabinet/), the traders' (trader/), their bank devices' (device/), the operator's (admin/), the payer's (checkout/) — plus the few spec paths directly under /api/v1/p2p and
 * the health check. Their routes are registered in the OpenAPI document as their group mounts
 * them (api/route.ts routeGroup); api/mount.ts turns the groups into Koa routers.
 */
import type { ApiPart } from '../mount';
import { routerOf } from '../mount';
import { routeGroup, type RouteGroup } from '../route';
import { adminP2pRoutes, adminGroup } from './admin';
import { cabinetGroup } from './cabinet';
import { checkoutGroup, pageGroup } from './checkout';
import { healthRoutes } from './health';
import { merchantMirrors, merchantGroup } from './merchant';
import { profileRoutes } from './profile';
import { traderGroup } from './trader';
import { deviceGroup } from './device';

const groups: RouteGroup[] = [
  routeGroup('', healthRoutes),
  routeGroup('/api/v1/p2p', [...profileRoutes, ...merchantMirrors, ...adminP2pRoutes]),
  merchantGroup,
  cabinetGroup,
  traderGroup,
  deviceGroup,
  adminGroup,
  checkoutGroup,
  pageGroup,
];

export const v2Api: ApiPart = {
  routes: groups.flatMap((group) => group.routes),
  middleware(deps) {
    const router = routerOf(groups, deps);
    return [router.routes(), router.allowedMethods({ throw: true })];
  },
};
