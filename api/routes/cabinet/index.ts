/** The merchant cabinet's own API under /api/v1/p2p/cabinet: a member's session and the team. The merchant's routes accept its sessions where they accept the cabinet JWT. */
import { routeGroup } from '../../route';
import { cabinetSessionRoutes } from './session';
import { cabinetTeamRoutes } from './team';
import { cabinetOpsRoutes } from './ops';

export const cabinetGroup = routeGroup('/api/v1/p2p/cabinet', [...cabinetSessionRoutes, ...cabinetTeamRoutes, ...cabinetOpsRoutes]);
