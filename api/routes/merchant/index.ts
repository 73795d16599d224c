/**
 * The merchant's API under /api/v1/p2p/merchant: one file per aggregate, tried in this
 * order — the literal paths (/deals/export, /deals/turnover, /deals/payout/quote) before /deals/{deal_id}.
 */
import { routeGroup } from '../../route';
import { apiKeyRoutes } from './api-keys';
import { appealRoutes } from './appeals';
import { callbackMirrors, callbackRoutes } from './callbacks';
import { catalogRoutes } from './catalog';
import { dealListingMirrors, dealListingRoutes } from './deal-listing';
import { dealRoutes } from './deals';
import { eventRoutes } from './events';
import { fileRoutes } from './files';
import { passRoutes } from './passes';
import { payoutQuoteRoutes } from './payout-quote';
import { sandboxRoutes } from './sandbox';
import { walletRoutes } from './wallet';
import { withdrawalRoutes } from './withdrawals';

export const merchantGroup = routeGroup('/api/v1/p2p/merchant', [
  ...apiKeyRoutes,
  ...catalogRoutes,
  ...dealListingRoutes,
  ...payoutQuoteRoutes,
  ...dealRoutes,
  ...callbackRoutes,
  ...eventRoutes,
  ...walletRoutes,
  ...withdrawalRoutes,
  ...fileRoutes,
  ...appealRoutes,
  ...passRoutes,
  ...sandboxRoutes,
]);

/** Merchant routes whose older paths sit directly under /api/v1/p2p (api/routes/index.ts mounts them there). */
export const merchantMirrors = [...dealListingMirrors, ...callbackMirrors];
