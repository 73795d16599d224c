/** Paired bank devices and their notifications: the device's own requests, the trader's devices, the operators' queue. */
import { z } from 'zod';
import { int64String, line, lineRule, text, timestamp, uuid } from './common';

const sequenceNumber = (description: string) =>
  z
    .number({ error: 'sequence must be an integer' })
    .int('sequence must be an integer')
    .min(1, 'sequence must be at least 1')
    .max(Number.MAX_SAFE_INTEGER, `sequence is at most ${Number.MAX_SAFE_INTEGER}`)
    .openapi({ description });

const appVersion = line('app_version', 40).optional().openapi({ description: "the device app's version, shown to the trader" });

// ---- The device's requests ----

export const devicePairingBody = z
  .object({
    pairing_code: z.string({ error: 'pairing_code is required' }).min(1, 'pairing_code is required').max(100).superRefine(lineRule('pairing_code')),
    public_key: z
      .string({ error: 'public_key is required' })
      .regex(/^[A-Za-z0-9_-]{43}=?$/, 'public_key must be a base64url Ed25519 public key (32 bytes)')
      .openapi({ description: 'the Ed25519 public key the device generated and keeps the secret key of (base64url, 32 bytes); it signs this request' }),
    app_version: appVersion,
  })
  .openapi('DevicePairingRequest');

const deviceRequisite = z
  .object({
    requisite_id: z.string().openapi({ format: 'uuid' }),
    summary: z.string().openapi({ description: 'type, masked number and bank', example: 'BANK_CARD •••• 4242 tbank' }),
    bank_name: z.string(),
    status: z.string(),
  })
  .openapi('DeviceRequisite');

export const deviceStateResponse = z
  .object({
    device_id: z.string().openapi({ format: 'uuid' }),
    name: z.string(),
    trader_name: z.string(),
    status: z.enum(['ACTIVE', 'REVOKED']),
    last_sequence: int64String,
    heartbeat_interval_seconds: z.number().int().openapi({ description: 'send a heartbeat at least this often' }),
    silent_after_seconds: z.number().int().openapi({ description: "without a message for this long the device's requisites get no deals" }),
    requisites: z.array(deviceRequisite).openapi({ description: 'the requisites whose bank notifications this device forwards' }),
    server_time: timestamp,
  })
  .openapi('DeviceState');

export const deviceHeartbeatBody = z
  .object({
    sequence: sequenceNumber("higher than every earlier message's of this device (the counter it keeps); a lower or equal one is a replayed heartbeat: 409"),
    app_version: appVersion,
  })
  .openapi('DeviceHeartbeatRequest');

export const deviceNotificationBody = z
  .object({
    sequence: sequenceNumber(
      'a number this device never used for another message (the counter it keeps; notifications may arrive out of order): a used one is 409, unless this is the same notification again (replayed)',
    ),
    sender: line('sender', 120)
      .pipe(z.string().min(1, 'sender is required'))
      .openapi({ description: 'who the notification came from: the SMS sender (900, T-Bank) or the app package (ru.sberbankmobile)', example: '900' }),
    text: text('text', 4000)
      .pipe(z.string().min(1, 'text is required'))
      .openapi({ description: "the notification's text exactly as the device read it", example: 'Перевод от Иван И. +1 500р MIR-4242 Баланс: 12 345,67р' }),
    received_at: z
      .string({ error: 'received_at is required' })
      .datetime({ offset: true, message: 'received_at must be an RFC 3339 date-time' })
      .openapi({ format: 'date-time', description: 'when the device received it' }),
  })
  .openapi('DeviceNotificationRequest');

const notificationStatus = z.enum(['RECEIVED', 'MATCHED', 'UNMATCHED', 'UNPARSED', 'IGNORED', 'ATTACHED', 'DISMISSED']);

export const deviceNotificationResponse = z
  .object({
    notification_id: z.string().openapi({ format: 'uuid' }),
    status: notificationStatus.openapi({
      description:
        'RECEIVED: a credit, being matched; UNPARSED: nothing read from it (kept for review); IGNORED: not a credit. A repeat of a stored notification answers it again (replayed)',
    }),
    replayed: z.boolean(),
  })
  .openapi('DeviceNotificationAccepted');

// ---- The trader's devices ----

export const createDeviceBody = z
  .object({ name: line('name', 80).pipe(z.string().min(1, 'name is required')).openapi({ example: 'Pixel 8 (T-Bank)' }) })
  .openapi('CreateDevicePairingRequest');

export const deviceIdParams = z.object({ device_id: uuid('device_id') });

const device = z
  .object({
    device_id: z.string().openapi({ format: 'uuid' }),
    name: z.string(),
    status: z.enum(['PAIRING', 'ACTIVE', 'REVOKED']),
    presence: z.enum(['waiting_for_pairing', 'pairing_expired', 'heard', 'silent', 'revoked']).openapi({
      description: 'heard: a message within the silence timeout; silent: none for longer (its requisites get no deals until it is heard again)',
    }),
    app_version: z.string(),
    heartbeat_at: z.string().openapi({ description: 'its last message, RFC 3339, or empty' }),
    pairing_expires_at: timestamp,
    paired_at: z.string(),
    revoked_at: z.string(),
    requisites: z.array(deviceRequisite),
    created_at: timestamp,
  })
  .openapi('TraderDevice');

export const deviceResponse = z.object({ device }).openapi('TraderDeviceResponse');
export const deviceList = z
  .object({ data: z.array(device), silent_after_seconds: z.number().int(), heartbeat_interval_seconds: z.number().int() })
  .openapi('TraderDeviceList');

export const devicePairingResponse = z
  .object({
    device,
    pairing_code: z.string().openapi({ description: 'one-time, shown once: the device sends it with its public key; spent by the pairing' }),
    pairing_uri: z.string().openapi({
      description: 'what the QR code carries: `gateway-device://pair?server=<API base URL>&code=<pairing_code>`',
      example: 'gateway-device://pair?server=https%3A%2F%2Fpay.example.com&code=gwp_…',
    }),
    expires_at: timestamp,
  })
  .openapi('TraderDevicePairing');

export const bindRequisitesBody = z
  .object({
    requisite_ids: z
      .array(uuid('requisite_ids[]'), { error: 'requisite_ids must be an array of requisite ids' })
      .max(50, 'requisite_ids holds at most 50 ids')
      .openapi({
        description:
          "exactly the requisites whose bank notifications this device forwards (one device per requisite: a requisite served by another of the trader's devices moves here)",
      }),
  })
  .openapi('BindDeviceRequisitesRequest');

// ---- Notifications: the trader's list and the operators' queue ----

const candidateDeal = z
  .object({
    deal_id: z.string().openapi({ format: 'uuid' }),
    merchant_name: z.string(),
    status: z.string(),
    amount_to_pay: int64String,
    currency: z.string(),
    exact_amount: z.boolean().openapi({ description: "its amount to pay is the credit's" }),
    created_at: timestamp,
    payment_timeout_at: timestamp,
    settlement_path: z
      .boolean()
      .openapi({ description: 'it ended without the payment (EXPIRED, CANCELLED): late money is settled through an appeal of the deal (spec: settlement)' }),
  })
  .openapi('BankNotificationCandidate');

const bankNotification = z
  .object({
    notification_id: z.string().openapi({ format: 'uuid' }),
    status: notificationStatus,
    reason: z.string().openapi({ description: 'why it is UNMATCHED: no_live_deal, ambiguous, already_matched, deal_refused' }),
    trader_id: z.string().openapi({ format: 'uuid' }),
    trader_name: z.string(),
    device_id: z.string().openapi({ format: 'uuid' }),
    device_name: z.string(),
    sender: z.string(),
    text: z.string(),
    received_at: timestamp,
    parser: z.string().openapi({ description: "the bank parser that read it (sberbank, tbank, kaspi, kapitalbank, ziraat, sbp), '' when none knew it" }),
    parser_version: z.number().int(),
    amount: z.string().openapi({ description: 'minor units as a digit string, empty when nothing was read' }),
    currency: z.string(),
    payer_name: z.string(),
    card_tail: z.string(),
    deal_id: z.string().openapi({ description: 'the deal it confirmed (MATCHED, ATTACHED) or was refused by; empty otherwise' }),
    resolved_by: z.string(),
    resolution_note: z.string(),
    created_at: timestamp,
    candidates: z.array(candidateDeal).optional().openapi({ description: 'in the queue: the deals of the device’s requisites it could be for' }),
  })
  .openapi('BankNotification');

export const bankNotificationList = z.object({ data: z.array(bankNotification), next_page_token: z.string() }).openapi('BankNotificationList');
export const bankNotificationResponse = z.object({ notification: bankNotification }).openapi('BankNotificationResponse');

export const bankNotificationQuery = z.object({
  status: z
    .enum(['queue', 'UNMATCHED', 'UNPARSED', 'MATCHED', 'ATTACHED', 'DISMISSED', 'IGNORED', 'RECEIVED'])
    .optional()
    .openapi({ description: 'queue (default): UNMATCHED and UNPARSED, the ones waiting for an operator' }),
  trader_id: uuid('trader_id').optional(),
  page_size: z.coerce.number().int().min(1).max(200).optional(),
  page_token: z.string().max(500).optional(),
});

export const notificationIdParams = z.object({ notification_id: uuid('notification_id') });

export const attachNotificationBody = z
  .object({
    deal_id: uuid('deal_id'),
    note: text('note', 1000).optional(),
  })
  .openapi('AttachBankNotificationRequest');

export const dismissNotificationBody = z
  .object({ note: text('note', 1000).pipe(z.string().min(1, 'note is required: say why it needs no deal')) })
  .openapi('DismissBankNotificationRequest');

/** On a deal's timeline in the console: the bank notification that confirmed the deal, or null. */
export const dealBankNotification = z
  .object({
    notification_id: z.string().openapi({ format: 'uuid' }),
    status: z.enum(['MATCHED', 'ATTACHED']).openapi({ description: 'MATCHED: it confirmed the deal by itself; ATTACHED: an operator attached it' }),
    device_id: z.string().openapi({ format: 'uuid' }),
    device_name: z.string(),
    trader_name: z.string(),
    received_at: timestamp,
    parser: z.string().openapi({ description: 'the bank parser that read it' }),
    amount: z.string().openapi({ description: 'the credit, minor units as a digit string' }),
    currency: z.string(),
  })
  .nullable()
  .openapi('DealBankNotification', { description: 'the bank notification that confirmed the deal (MATCHED or ATTACHED); null when none did' });
