/**
 * The bank device protocol under /api/v1/p2p/device (docs/bank-notifications.md): a trader's
 * phone pairs with a one-time code and its own key, then signs its heartbeats and the bank
 * notifications it forwards (api/auth/device.ts).
 */
import { routeGroup, defineRoute } from '../../route';
import { deviceAuth, devicePairingAuth } from '../../auth/device';
import { deviceHeartbeatBody, deviceNotificationBody, deviceNotificationResponse, devicePairingBody, deviceStateResponse } from '../../schemas/bank-devices';
import { deviceHeartbeat, pairDevice } from '../../services/bank-devices';
import { receiveNotification } from '../../services/bank-notifications';
import type { Identity } from '../../auth/authenticate';
import { Unauthenticated } from '../../../domain/errors';

const tags = ['Bank devices'];

const deviceOf = (identity: Identity) => {
  if (identity.kind !== 'device') throw new Unauthenticated('a paired device’s signature is required');
  return identity;
};

const EXAMPLE_STATE = {
  device_id: '7d1c4a52-2f0e-4c1b-9a43-0b6f1f7c2e10',
  name: 'Pixel 8 (T-Bank)',
  trader_name: 'Demo trader Dana',
  status: 'ACTIVE' as const,
  last_sequence: '41',
  heartbeat_interval_seconds: 60,
  silent_after_seconds: 180,
  requisites: [{ requisite_id: '5b0a7e8e-3f57-4d0c-8d9e-3f6a2a1c9b11', summary: 'BANK_CARD •••• 4242 tbank', bank_name: 'tbank', status: 'ACTIVE' }],
  server_time: '2026-11-29T08:00:00.000Z',
};

export const deviceGroup = routeGroup('/api/v1/p2p/device', [
  defineRoute(
    {
      method: 'post',
      path: '/pairing',
      operationId: 'devicePair',
      auth: devicePairingAuth,
      summary: 'Pair a device: the one-time code from the trader app’s QR code and the device’s own public key',
      description:
        'Signed (X-Device-Timestamp, X-Device-Signature) with the key the body registers. The code is spent by the first pairing that ' +
        'uses it: a used, expired or unknown code is 401. The answer names the device (X-Device-Id of its later requests) and the ' +
        'requisites it forwards notifications for (the trader picks them in the app).',
      tags,
      body: devicePairingBody,
      status: 201,
      response: deviceStateResponse,
      example: { request: { pairing_code: 'gwp_…', public_key: 'mV1Z3dH2oJ6rJ7wq0bq4xJ9kq3nS3o4VnL3r8X2m1Q4', app_version: '1.4.0' }, response: EXAMPLE_STATE },
    },
    ({ body }, deps) => pairDevice(deps, body),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/heartbeat',
      operationId: 'deviceHeartbeat',
      auth: deviceAuth,
      summary: 'The device is alive: its requisites stay in the matcher',
      description:
        'At least every heartbeat_interval_seconds. A device unheard for silent_after_seconds takes its requisites out of the matcher ' +
        'until its next message (a heartbeat or a notification). Its sequence must be higher than any earlier message’s (409 otherwise).',
      tags,
      body: deviceHeartbeatBody,
      response: deviceStateResponse,
      errors: [409],
      example: { request: { sequence: 42, app_version: '1.4.0' }, response: EXAMPLE_STATE },
    },
    ({ identity, body }, deps) => deviceHeartbeat(deps, deviceOf(identity).deviceId, body),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/notifications',
      operationId: 'deviceSendNotification',
      auth: deviceAuth,
      summary: 'Forward a bank notification exactly as the device received it',
      description:
        'Stored once by its hash (device, sender, received_at, text): the same notification again answers the stored one (replayed, ' +
        'whatever its sequence). A new one must carry a sequence number the device never used (409 otherwise: a replay). The ' +
        'bank’s parser reads it; a credit on one of the device’s requisites that matches exactly one live PayIn confirms that deal ' +
        'with the amount received; anything else waits for an operator. Answered at once (202): the match runs in its workflow.',
      tags,
      body: deviceNotificationBody,
      status: 202,
      response: deviceNotificationResponse,
      errors: [409],
      example: {
        request: { sequence: 43, sender: 'T-Bank', text: 'Пополнение, счет RUB. 1 500 ₽. Иван И. Доступно 12 345,67 ₽', received_at: '2026-11-29T08:00:00Z' },
        response: { notification_id: '0f2e3b4c-5d6e-4f70-8192-a3b4c5d6e7f8', status: 'RECEIVED', replayed: false },
      },
    },
    ({ identity, body }, deps) => receiveNotification(deps, deviceOf(identity), body),
  ),
]);
