import type { RouteDef } from '../route';
import { healthRoutes } from './health';
import { operatorRoutes } from './operator';
import { profileRoutes } from './profile';

/** Every route of the API; each file registers its paths in the OpenAPI document as it is defined. */
export const allRoutes: RouteDef[] = [...healthRoutes, ...profileRoutes, ...operatorRoutes];
