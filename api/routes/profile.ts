/** The merchant's own profile, at /api/v1/p2p/my-merchant. */
import { defineRoute } from '../route';
import { merchantOf } from '../auth/authenticate';
import { myMerchantResponse, presentMyMerchant } from '../schemas/merchant';
import { patchProfileBody } from '../schemas/profile';
import { getMerchantProfile, patchProfile } from '../services/merchants';
import { EXAMPLES } from '../schemas/examples';

export const profileRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/my-merchant',
      operationId: 'getMyMerchant',
      example: EXAMPLES.getMyMerchant,
      auth: 'cabinet_or_hmac',
      summary: "The caller's merchant profile",
      description:
        'Limit fields appear only while set. While the kill-switch is on this is the one request the merchant may still ' +
        'make, with its cabinet JWT or a member’s cabinet session (to see kill_switch: true); HMAC requests are 403 everywhere.',
      tags: ['Profile'],
      response: myMerchantResponse,
      openWhileDisabled: true,
    },
    async ({ identity }, deps) => presentMyMerchant(await getMerchantProfile(deps, merchantOf(identity).merchantId)),
  ),
  defineRoute(
    {
      method: 'patch',
      path: '/my-merchant',
      operationId: 'updateMyMerchant',
      example: EXAMPLES.updateMyMerchant,
      auth: 'cabinet',
      summary: 'Change the mutable profile fields and limits (cabinet JWT or a member’s cabinet session); answers the full profile',
      description:
        'HMAC is refused (403): server-to-server profile mutations are unsupported. A disabled merchant cannot patch. A member ' +
        'needs a role that may (x-roles: owner, developer) and, with its session cookie, the X-CSRF-Token header. Audited ' +
        '(merchant.update_profile, the changed fields before and after, the member or the JWT as actor).',
      tags: ['Profile'],
      body: patchProfileBody,
      response: myMerchantResponse,
      audit: { action: 'merchant.update_profile', objectType: 'merchant', by: 'service' },
    },
    async ({ identity, body, actor }, deps) => presentMyMerchant(await patchProfile(deps, merchantOf(identity).merchantId, body, actor)),
  ),
];
