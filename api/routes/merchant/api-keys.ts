/** The merchant's key pair (it signs every request): issued by an operator, rotated by the merchant. */
import { defineRoute } from '../../route';
import { EXAMPLES } from '../../schemas/examples';
import { merchantOf } from '../../auth/authenticate';
import { keyPairResponse, merchantIdBody } from '../../schemas/merchant';
import { replaceMerchantKeys } from '../../services/merchants';

export const apiKeyRoutes = [
  defineRoute(
    {
      method: 'post',
      path: '/api-keys',
      operationId: 'issueApiKeys',
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
      audit: { action: 'merchant.keys_issue', objectType: 'merchant', by: 'service' },
    },
    ({ body, actor }, deps) => replaceMerchantKeys(deps, body.merchant_id, actor),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/api-keys/rotate',
      operationId: 'rotateApiKeys',
      example: EXAMPLES.rotateApiKeys,
      auth: 'cabinet_or_hmac',
      summary: 'Rotate the key pair: the new pair is valid at once; the old pair keeps working as a whole pair for the grace window',
      description:
        'Hands out a secret, so it refuses an HMAC signature that any earlier request carried (the headers of a body-less GET of the same ' +
        'second included): sign it with a timestamp of its own, or add the request-bound v2 signature, which binds it to this route. ' +
        'A person rotating it (the cabinet JWT, a member’s session: owner or developer) is audited (merchant.keys_rotate, the public token only).',
      tags: ['Keys'],
      singleUse: 'rotation',
      response: keyPairResponse,
      audit: { action: 'merchant.keys_rotate', objectType: 'merchant', by: 'service' },
    },
    ({ identity, actor }, deps) => replaceMerchantKeys(deps, merchantOf(identity).merchantId, actor, 'merchant.keys_rotate'),
  ),
];
