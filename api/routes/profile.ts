import { defineRoute } from '../route';
import { merchantOf } from '../auth/authenticate';
import { keyPairResponse, merchantIdBody, myMerchantResponse, presentMyMerchant } from '../schemas/merchant';
import { getMerchantProfile, replaceMerchantKeys } from '../services/merchants';
import { patchProfileBody } from '../schemas/profile';
import { patchProfile } from '../services/profile';

const MERCHANT = '/api/v1/p2p/merchant';

export const profileRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/api/v1/p2p/my-merchant',
      auth: 'cabinet_or_hmac',
      summary: "The caller's merchant profile (spec 2.2)",
      description:
        'Limit fields appear only while set. While the kill-switch is on this is the one request the merchant may still ' +
        'make, with its cabinet JWT (to see kill_switch: true); HMAC requests are 403 everywhere.',
      tags: ['Profile'],
      response: myMerchantResponse,
      openWhileDisabled: true,
    },
    async ({ identity }, deps) => presentMyMerchant(await getMerchantProfile(deps, merchantOf(identity).merchantId)),
  ),
  defineRoute(
    {
      method: 'patch',
      path: '/api/v1/p2p/my-merchant',
      auth: 'cabinet',
      summary: 'Change the mutable profile fields and limits (cabinet JWT only); answers the full profile',
      description: 'HMAC is refused (403): server-to-server profile mutations are unsupported. A disabled merchant cannot patch.',
      tags: ['Profile'],
      body: patchProfileBody,
      response: myMerchantResponse,
    },
    async ({ identity, body }, deps) => presentMyMerchant(await patchProfile(deps, merchantOf(identity).merchantId, body)),
  ),
  defineRoute(
    {
      method: 'post',
      path: `${MERCHANT}/api-keys`,
      auth: 'operator',
      summary: 'Issue a key pair for a merchant (operator only)',
      description:
        'Answers { token, secret }; the secret is shown only here. If the merchant already has a pair, it is ' +
        'superseded exactly as by rotation (it keeps the MERCHANT_KEY_GRACE_PERIOD window).',
      tags: ['Keys'],
      body: merchantIdBody,
      status: 201,
      response: keyPairResponse,
      errors: [404],
    },
    ({ body }, deps) => replaceMerchantKeys(deps, body.merchant_id),
  ),
  defineRoute(
    {
      method: 'post',
      path: `${MERCHANT}/api-keys/rotate`,
      auth: 'cabinet_or_hmac',
      summary: 'Rotate the key pair: the new pair is valid at once; the old pair keeps working as a whole pair for the grace window',
      description:
        'Hands out a secret, so it refuses an HMAC signature that any earlier request carried (the headers of a body-less GET of the same ' +
        'second included): sign it with a timestamp of its own, or add the request-bound v2 signature, which binds it to this route.',
      tags: ['Keys'],
      singleUse: 'rotation',
      response: keyPairResponse,
    },
    ({ identity }, deps) => replaceMerchantKeys(deps, merchantOf(identity).merchantId),
  ),
];
