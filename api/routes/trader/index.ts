/** The trader app's own API under /api/v1/p2p/trader: a trader account's session and, each in its file, what a trader works with. */
import { routeGroup } from '../../route';
import { traderDealRoutes } from './deals';
import { traderSessionRoutes } from './session';
import { traderRequisiteRoutes } from './requisites';
import { traderAppealRoutes } from './appeals';
import { traderWalletRoutes } from './wallet';
import { traderDeviceRoutes } from './devices';

export const traderGroup = routeGroup('/api/v1/p2p/trader', [
  ...traderSessionRoutes,
  ...traderRequisiteRoutes,
  ...traderDealRoutes,
  ...traderWalletRoutes,
  ...traderAppealRoutes,
  ...traderDeviceRoutes,
]);
