import type { RouteDef } from '../route';
import { appealRoutes } from './appeals';
import { callbackRoutes } from './callbacks';
import { catalogRoutes } from './catalog';
import { checkoutRoutes } from './checkout';
import { dealListingRoutes } from './deal-listing';
import { dealRoutes } from './deals';
import { fileRoutes } from './files';
import { healthRoutes } from './health';
import { operatorDealRoutes } from './operator-deals';
import { operatorRoutes } from './operator';
import { operatorAppealRoutes } from './operator-appeals';
import { passRoutes } from './passes';
import { profileRoutes } from './profile';
import { operatorWalletRoutes } from './operator-wallet';
import { walletRoutes } from './wallet';
import { v1Routes } from '../v1/routes';

/** Every route of the API; each file registers its paths in the OpenAPI document as it is defined. */
export const allRoutes: RouteDef[] = [
  ...healthRoutes,
  ...profileRoutes,
  ...catalogRoutes,
  ...dealListingRoutes,
  ...dealRoutes,
  ...checkoutRoutes,
  ...callbackRoutes,
  ...operatorRoutes,
  ...operatorDealRoutes,
  ...walletRoutes,
  ...operatorWalletRoutes,
  // Issue 9: evidence files, appeals, the arbiter, settlement, passes.
  ...fileRoutes,
  ...appealRoutes,
  ...operatorAppealRoutes,
  ...passRoutes,
  ...v1Routes,
];
