/** What the payer calls: the checkout API under /api/v1/p2p/checkout and the hosted page under /pay. */
import { routeGroup } from '../../route';
import { checkoutRoutes } from './checkout';
import { pageRoutes } from './page';

export const checkoutGroup = routeGroup('/api/v1/p2p/checkout', checkoutRoutes);
export const pageGroup = routeGroup('/pay', pageRoutes);
