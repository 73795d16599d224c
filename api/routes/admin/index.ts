/** The operator's API under /api/v1/p2p/admin (what it manages and the moves it makes): one file per aggregate. */
import { routeGroup } from '../../route';
import { alertRoutes } from './alerts';
import { bankNotificationRoutes } from './bank-notifications';
import { consoleRoutes } from './console';
import { appealP2pRoutes, appealRoutes } from './appeals';
import { dealP2pRoutes, dealRoutes } from './deals';
import { depositRoutes } from './deposits';
import { fileRoutes } from './files';
import { merchantP2pRoutes, merchantRoutes } from './merchants';
import { notificationRoutes } from './notifications';
import { rateRoutes } from './rates';
import { searchRoutes } from './search';
import { traderRoutes } from './traders';
import { withdrawalRoutes } from './withdrawals';

export const adminGroup = routeGroup('/api/v1/p2p/admin', [
  ...consoleRoutes,
  ...searchRoutes,
  ...notificationRoutes,
  ...merchantRoutes,
  ...depositRoutes,
  ...rateRoutes,
  ...traderRoutes,
  ...alertRoutes,
  ...bankNotificationRoutes,
  ...dealRoutes,
  ...withdrawalRoutes,
  ...fileRoutes,
  ...appealRoutes,
]);

/** Operator routes at spec paths directly under /api/v1/p2p (api/routes/index.ts mounts them there). */
export const adminP2pRoutes = [...merchantP2pRoutes, ...dealP2pRoutes, ...appealP2pRoutes];
