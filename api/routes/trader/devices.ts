/** The trader's paired bank devices (pairing by QR code, the requisites each serves, revocation) and what they forwarded. */
import { defineRoute } from '../../route';
import { traderOf } from '../../auth/authenticate';
import {
  bankNotificationList,
  bindRequisitesBody,
  createDeviceBody,
  deviceIdParams,
  deviceList,
  devicePairingResponse,
  deviceResponse,
} from '../../schemas/bank-devices';
import { listDevices, revokeOwnDevice, setDeviceRequisites, startPairing } from '../../services/bank-devices';
import { listBankNotifications } from '../../services/bank-notifications';
import { z } from 'zod';
import { traderActor } from '../../services/deal-workflows';

const tags = ['Trader: devices'];

const EXAMPLE_DEVICE = {
  device_id: '7d1c4a52-2f0e-4c1b-9a43-0b6f1f7c2e10',
  name: 'Pixel 8 (T-Bank)',
  status: 'ACTIVE' as const,
  presence: 'heard' as const,
  app_version: '1.4.0',
  heartbeat_at: '2026-11-29T08:00:00.000Z',
  pairing_expires_at: '2026-11-29T07:10:00.000Z',
  paired_at: '2026-11-29T07:01:00.000Z',
  revoked_at: '',
  requisites: [{ requisite_id: '5b0a7e8e-3f57-4d0c-8d9e-3f6a2a1c9b11', summary: 'BANK_CARD •••• 4242 tbank', bank_name: 'tbank', status: 'ACTIVE' }],
  created_at: '2026-11-29T07:00:00.000Z',
};

export const traderDeviceRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/devices',
      operationId: 'traderListDevices',
      auth: 'trader',
      summary: 'My paired bank devices, newest first: whether each is heard, and the requisites it serves',
      tags,
      response: deviceList,
      example: { response: { data: [EXAMPLE_DEVICE], silent_after_seconds: 180, heartbeat_interval_seconds: 60 } },
    },
    ({ identity }, deps) => listDevices(deps, traderOf(identity).traderId),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/devices',
      operationId: 'traderStartDevicePairing',
      auth: 'trader',
      summary: 'Pair a new device: a one-time code (shown as a QR code) the device sends with its own key',
      description: 'The code is answered once and works once, for DEVICE_PAIRING_TTL_SECONDS (10 minutes by default).',
      tags,
      body: createDeviceBody,
      status: 201,
      response: devicePairingResponse,
      audit: { action: 'device.pairing_start', objectType: 'bank_device', by: 'service' },
      example: {
        request: { name: 'Pixel 8 (T-Bank)' },
        response: {
          device: { ...EXAMPLE_DEVICE, status: 'PAIRING', presence: 'waiting_for_pairing', heartbeat_at: '', paired_at: '', requisites: [] },
          pairing_code: 'gwp_…',
          pairing_uri: 'gateway-device://pair?server=https%3A%2F%2Fpay.example.com&code=gwp_…',
          expires_at: '2026-11-29T07:10:00.000Z',
        },
      },
    },
    ({ identity, body, actor }, deps) => startPairing(deps, traderOf(identity).traderId, body.name, traderActor(actor)),
  ),
  defineRoute(
    {
      method: 'put',
      path: '/devices/{device_id}/requisites',
      operationId: 'traderSetDeviceRequisites',
      auth: 'trader',
      summary: 'The requisites whose bank notifications this device forwards (exactly these)',
      description: 'While the device is silent its requisites get no deals. One device per requisite: naming one another device serves moves it here.',
      tags,
      params: deviceIdParams,
      body: bindRequisitesBody,
      response: deviceResponse,
      errors: [404, 409],
      audit: { action: 'device.requisites', objectType: 'bank_device', by: 'service' },
      example: { request: { requisite_ids: ['5b0a7e8e-3f57-4d0c-8d9e-3f6a2a1c9b11'] }, response: { device: EXAMPLE_DEVICE } },
    },
    ({ identity, params, body, actor }, deps) =>
      setDeviceRequisites(deps, traderOf(identity).traderId, params.device_id, body.requisite_ids, traderActor(actor)),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/devices/{device_id}/revoke',
      operationId: 'traderRevokeDevice',
      auth: 'trader',
      summary: 'Revoke a device for good: its key signs nothing more, its requisites go back to confirmation by hand',
      tags,
      params: deviceIdParams,
      response: deviceResponse,
      errors: [404, 409],
      audit: { action: 'device.revoke', objectType: 'bank_device', by: 'service' },
      example: { response: { device: { ...EXAMPLE_DEVICE, status: 'REVOKED', presence: 'revoked', revoked_at: '2026-11-29T09:00:00.000Z', requisites: [] } } },
    },
    ({ identity, params, actor }, deps) => revokeOwnDevice(deps, traderOf(identity).traderId, params.device_id, traderActor(actor)),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/bank-notifications',
      operationId: 'traderListBankNotifications',
      auth: 'trader',
      summary: 'What my devices forwarded, newest first, and what became of each (the deal it confirmed, or why not)',
      tags,
      query: z.object({
        page_size: z.coerce.number().int().min(1).max(200).optional(),
        page_token: z.string().max(500).optional(),
      }),
      response: bankNotificationList,
    },
    ({ identity, query }, deps) => listBankNotifications(deps, query, { traderId: traderOf(identity).traderId }),
  ),
];
