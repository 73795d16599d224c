/**
 * Request and answer examples of the merchant API's operations, by operationId: shown in the
 * OpenAPI document beside the schemas (defineRoute's `example`), checked against those schemas
 * by `npm run lint:openapi` (Redocly's no-invalid-media-type-examples), and what the SDK's
 * README and the quickstart show. One deal and one of each object, so the examples tell one story.
 */
const DEAL_ID = '5b0c8f7e-2d41-5c3a-9e6f-0a1b2c3d4e5f';
const AT = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T10:04:12.345Z';
const APPEAL_ID = 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f';
const FILE_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const TOKEN = 'eyJjcmVhdGVkQXQiOiIyMDI2LTExLTIyVDEwOjAwOjAwLjAwMDAwMFoiLCJpZCI6IjViMGM4ZjdlIn0.5kQm2vX0cT9rLw1pYb3n8A';

/** A PayIn as POST /deals/payin answers it (ESCROW_LOCKED). */
export const EXAMPLE_DEAL = {
  deal_id: DEAL_ID,
  status: 'ESCROW_LOCKED',
  amount: '150000',
  currency: 'RUB',
  created_at: AT,
  client_id: 'customer-42',
  deal_type: 'PAYIN',
  updated_at: AT,
  payment_url: 'https://pay.example.com/pay/3f9a0c1e5b7d2a4c6e8f0a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d',
  target_requisite: '',
  received_amount: '0',
  amount_match_status: '',
} as const;

/** A PayOut as the listing shows it (MerchantDealInfo). */
const PAYOUT_INFO = {
  deal_id: '2e4f6a8c-0b1d-5e3f-8a5c-7e9b1d3f5a7c',
  status: 'MATCHED',
  amount: '50000',
  currency: 'RUB',
  created_at: AT,
  client_id: '',
  deal_type: 'PAYOUT',
  updated_at: AT,
  payment_url: '',
  target_requisite: '4111111111111111',
  received_amount: '0',
  amount_match_status: '',
};

/** A PayOut as POST /deals/payout answers it: the requisite details and name echoed. */
const PAYOUT = { ...PAYOUT_INFO, requisite_details: {}, target_name: 'Ivan Petrov' };

const DELIVERY = {
  callback_id: '8f7e6d5c-4b3a-5291-8a0f-1e2d3c4b5a69',
  deal_id: DEAL_ID,
  event_id: '7d6f3a8e-1c2b-5d4e-9f0a-1b2c3d4e5f60',
  event_type: 'deal.escrow_locked',
  url: 'https://shop.example.com/webhooks/gateway',
  status: 'SUCCESS',
  attempts: 1,
  http_status: 200,
  response_body: 'ok',
  created_at: AT,
  updated_at: AT,
};

const APPEAL = {
  appeal_id: APPEAL_ID,
  deal_id: DEAL_ID,
  status: 'OPEN',
  reason: 'The payer sent the money at 10:02 but the deal did not complete.',
  file_ids: [FILE_ID],
  resolution_note: '',
  created_at: LATER,
  updated_at: LATER,
  resolved_at: '',
};

const MESSAGE = {
  message_id: '4d5e6f70-8192-4a3b-9c4d-5e6f708192a3',
  appeal_id: APPEAL_ID,
  sender_role: 'MERCHANT',
  body: 'The bank statement is attached.',
  file_ids: [FILE_ID],
  created_at: LATER,
};

const PASS = {
  pass_id: '6c5b4a39-2817-4f6e-8d5c-4b3a29180f7e',
  tenant_id: '00000000-0000-4000-8000-000000000001',
  merchant_id: '1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9',
  provider_id: '',
  amount: '150000',
  currency_id: '',
  payment_method_id: '',
  requisite_type: 'BANK_CARD',
  status: 'ACTIVE',
  expires_at: '2026-11-22T11:00:00.000Z',
  used_deal_id: '',
  created_at: AT,
};

const DEPOSIT_ADDRESS = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const WITHDRAWAL_ADDRESS = 'TGgd7pXdZALo9GyT4pmF2tT6JRf7ETWVcL';

/** A withdrawal processed automatically (under the merchant's limit), confirmed on chain. */
const WITHDRAWAL = {
  withdrawal_id: 'a1b2c3d4-e5f6-5a7b-8c9d-0e1f2a3b4c5d',
  status: 'COMPLETED',
  currency: 'USDT',
  amount: '500000',
  fee_usdt_cents: '100',
  net_usdt_cents: '499900',
  address: WITHDRAWAL_ADDRESS,
  tx_hash: '9bb2f5e80c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f',
  idempotency_key: 'withdrawal-77',
  processing: 'AUTO',
  cancel_reason: '',
  created_at: AT,
  updated_at: LATER,
  approved_at: '',
  completed_at: LATER,
  cancelled_at: '',
};

/** The profile of the merchant the other examples belong to. */
const MY_MERCHANT = {
  merchant: {
    id: '0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a',
    name: 'Shop',
    email: 'payments@shop.example.com',
    status: 'ACTIVE',
    kill_switch: false,
    kill_switch_reason: '',
    balance_usdt: '1250000',
    escrow_usdt: '61000',
    trc20_address: DEPOSIT_ADDRESS,
    trc20_usdt_balance: '0',
    trc20_trx_balance: '0',
    trc20_balances_at: '',
    project_url: 'https://shop.example.com',
    checkout_brand_name: 'Shop',
    success_redirect_url: 'https://shop.example.com/paid',
    fail_redirect_url: 'https://shop.example.com/failed',
    finance_chat_id: '',
    appeal_chat_id: '',
    ip_whitelist: ['203.0.113.7'],
    api_token: '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0',
    withdrawal_address: WITHDRAWAL_ADDRESS,
    moderation_status: 'APPROVED',
    api_version: 'v2',
    webhook_url: 'https://shop.example.com/webhooks/gateway',
    signature_binding: 'optional',
    sandbox: false,
    created_at: AT,
    updated_at: AT,
    deal_min_amount: '10000',
  },
  auto_withdrawal_mode: 'AUTO_UP_TO_LIMIT',
  auto_withdrawal_effective_limit_usdt_cents: '100000',
};

/** What a payer sent from the page (GET appeal). */
const PAYER_PROOF = {
  reference: '7F3A9-1C2B8',
  card_last4: '4417',
  receipts: [
    {
      file_id: '8d1f7c1e-0a4b-4c57-9a39-2b5c6f1e9d02',
      content_type: 'image/jpeg',
      size: '183204',
      file_name: 'receipt.jpg',
      created_at: '2026-11-25T10:03:12.000Z',
    },
  ],
  submitted_at: '2026-11-25T10:03:12.000Z',
};

const MEMBER_ID = '7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918';
const INVITATION_ID = '2b3c4d5e-6f70-4a8b-9c0d-1e2f3a4b5c6d';
/** A member of the example merchant's team, as the cabinet shows it. */
const MEMBER = {
  member_id: MEMBER_ID,
  email: 'dev@shop.example.com',
  role: 'developer',
  totp_enrolled: true,
  disabled: false,
  disabled_at: '',
  created_at: AT,
  totp_required: true,
  last_sign_in_at: LATER,
  last_sign_in_address: '203.0.113.7',
};
const INVITATION = {
  invitation_id: INVITATION_ID,
  email: 'support@shop.example.com',
  role: 'support',
  invited_by: `merchant_account:${MEMBER_ID}`,
  created_at: AT,
  expires_at: '2026-11-25T10:00:00.000Z',
  expired: false,
};
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

export const EXAMPLES = {
  createPayin: {
    request: {
      idempotency_key: 'order-1001',
      amount: 150000,
      currency: 'RUB',
      payment_method_id: 'card-rub',
      client_id: 'customer-42',
      description: 'Order 1001',
    },
    response: { deal: EXAMPLE_DEAL },
  },
  createPayout: {
    request: {
      idempotency_key: 'payout-2001',
      amount: 50000,
      currency: 'RUB',
      wallet_id: '3a4b5c6d-7e8f-4091-a2b3-c4d5e6f70819',
      target_requisite: '4111111111111111',
      target_name: 'Ivan Petrov',
      payment_method: 'card-rub',
    },
    response: { deal: PAYOUT },
  },
  getDeal: { response: { deal: EXAMPLE_DEAL } },
  cancelDeal: {
    request: { reason: 'the customer cancelled the order' },
    response: { deal: { ...EXAMPLE_DEAL, status: 'CANCELLED', updated_at: LATER } },
  },
  listDeals: { response: { data: [EXAMPLE_DEAL, PAYOUT_INFO], next_page_token: TOKEN } },
  getTurnover: {
    response: {
      data: [
        { date: '2026-11-21', deal_type: 'PAYIN', currency: 'RUB', count: 12, amount: '1830000' },
        { date: '2026-11-22', deal_type: 'PAYOUT', currency: 'RUB', count: 3, amount: '150000' },
      ],
      next_page_token: '',
    },
  },
  listCallbacks: { response: { data: [DELIVERY], next_page_token: '' } },
  retryCallback: { response: { ...DELIVERY, status: 'RETRY', attempts: 5, http_status: 503, response_body: 'maintenance' } },
  getCallback: { response: DELIVERY },
  rotateApiKeys: {
    response: {
      token: '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0',
      secret: 'whsec_MfKQ9r7uJ2lHqg0vY3xWc1Zp5oTnR8sE4bAiDkLmNjU=',
    },
  },
  listPaymentMethods: {
    response: {
      data: [
        {
          id: '7b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9',
          slug: 'card-rub',
          name: 'Bank card (RUB)',
          requisite_types: ['BANK_CARD'],
          currency_code: 'RUB',
          status: 'ACTIVE',
        },
        { id: '8c2d3e4f-5061-4728-93a4-b5c6d7e8f90a', slug: 'sbp-rub', name: 'SBP (RUB)', requisite_types: ['SBP'], currency_code: 'RUB', status: 'ACTIVE' },
      ],
    },
  },
  listBanks: {
    response: { data: [{ bank_name: 'sberbank', display_name: 'Sberbank', country: 'RU', methods: ['BANK_CARD', 'SBP'] }] },
  },
  listCurrencies: {
    response: { data: [{ id: '9d3e4f50-6172-4839-a4b5-c6d7e8f90a1b', code: 'RUB', name: 'Russian ruble', exponent: 2 }] },
  },
  getBalance: {
    response: {
      wallets: [
        {
          wallet_id: '3a4b5c6d-7e8f-4091-a2b3-c4d5e6f70819',
          currency: 'USDT',
          available: '1250000',
          frozen: '61000',
          total: '1311000',
          pending_credits: '16200',
        },
      ],
    },
  },
  getDepositAddress: { response: { address: DEPOSIT_ADDRESS, updated_at: AT } },
  rotateDepositAddress: { response: { address: 'TPL66VK2gCXNCD7EJg9pgJRfqcRazjhUZY', updated_at: LATER } },
  listDeposits: {
    response: {
      data: [
        {
          deposit_id: 'e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b',
          status: 'CONFIRMED',
          currency: 'USDT',
          amount: '250000',
          tx_hash: 'f591b0c6ea5e0b9f1b6d1c2a3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d4729',
          address: DEPOSIT_ADDRESS,
          confirmations: 19,
          created_at: AT,
          confirmed_at: LATER,
        },
      ],
      next_page_token: '',
    },
  },
  getWithdrawFee: { response: { amount: '500000', fee_usdt_cents: '100', net_usdt_cents: '499900' } },
  createWithdrawal: {
    request: { address: WITHDRAWAL_ADDRESS, amount: 500000, idempotency_key: 'withdrawal-77' },
    response: WITHDRAWAL,
  },
  listWithdrawals: { response: { data: [WITHDRAWAL], next_page_token: '' } },
  getWithdrawal: { response: WITHDRAWAL },
  getMyMerchant: { response: MY_MERCHANT },
  updateMyMerchant: {
    request: { checkout_brand_name: 'Shop', deal_max_amount: 10000000 },
    response: { ...MY_MERCHANT, merchant: { ...MY_MERCHANT.merchant, checkout_brand_name: 'Shop', deal_max_amount: '10000000', updated_at: LATER } },
  },
  uploadFile: {
    response: {
      file: {
        file_id: FILE_ID,
        content_type: 'application/pdf',
        size: '48213',
        sha256: 'a3f5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5',
        created_at: LATER,
      },
    },
  },
  createAppeal: {
    request: { deal_id: DEAL_ID, reason: 'The payer sent the money at 10:02 but the deal did not complete.', file_ids: [FILE_ID] },
    response: { data: APPEAL },
  },
  listAppeals: { response: { data: [APPEAL], next_page_token: '' } },
  getAppeal: { response: { data: { ...APPEAL, payer_proof: PAYER_PROOF } } },
  createAppealMessage: { request: { body: 'The bank statement is attached.', file_ids: [FILE_ID] }, response: { data: MESSAGE } },
  listAppealMessages: { response: { data: { messages: [MESSAGE] } } },
  createPass: { request: { amount: 150000, requisite_type: 'BANK_CARD' }, response: { pass: PASS } },
  listPasses: { response: { data: [PASS], next_page_token: '' } },
  cabinetGetSession: {
    response: {
      member: { ...MEMBER, role: 'owner', email: 'owner@shop.example.com' },
      merchant: { merchant_id: '0f1e2d3c-4b5a-4697-8877-665544332211', name: 'Sunrise Books' },
      csrf_token: 'q3Vx8mN2pL5tR7wY9zA1bC4dE6fG8hJ0kM2nP4rS6tU',
      expires_at: LATER,
      absolute_expires_at: '2026-11-22T22:00:00.000Z',
      idle_timeout_seconds: 1800,
    },
  },
  cabinetEnrollTotp: {
    request: { secret: TOTP_SECRET, code: '492039', confirm_password: 'the member’s password' },
    response: { enrolled: true, secret: TOTP_SECRET, otpauth_uri: `otpauth://totp/Gateway:owner%40shop.example.com?secret=${TOTP_SECRET}&issuer=Gateway` },
  },
  cabinetChangeOwnPassword: {
    request: { new_password: 'a new long passphrase', confirm_password: 'the present password' },
    response: { changed: true, sessions_ended: 1 },
  },
  cabinetInviteMember: {
    request: { email: 'support@shop.example.com', role: 'support' },
    response: {
      invitation: INVITATION,
      invite_url: 'https://gateway.example.com/cabinet/invitation#token=Xy3kP9qR2sT5vW8zA1bC4dE6fG8hJ0kM2nP4rS6tU7w',
      revoked_earlier: 0,
    },
  },
  cabinetListInvitations: { response: { data: [INVITATION] } },
  cabinetRevokeInvitation: { response: { invitation: INVITATION } },
  cabinetListMembers: { response: { data: [MEMBER] } },
  cabinetUpdateMember: { request: { role: 'finance' }, response: { member: { ...MEMBER, role: 'finance' } } },
} satisfies Record<string, { request?: unknown; response?: unknown }>;

/** A trader's requisite (the trader app's requisites). */
export const EXAMPLE_TRADER_REQUISITE = {
  requisite_id: '7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  trader_id: '30000000-0000-4000-8000-000000000004',
  payment_method: 'card-rub',
  currency: 'RUB',
  requisite_type: 'BANK_CARD',
  card_number: '2200123412341234',
  phone_number: '',
  iban: '',
  holder_name: 'Dana Holder',
  bank_name: 'sberbank',
  status: 'ACTIVE',
  rejection_reason: '',
  added_by: 'trader',
  limits: {
    min_amount: '10000',
    max_amount: '5000000',
    daily_limit: '5000000',
    daily_count_limit: 20,
    monthly_limit: null,
    max_live_deals: 3,
    cooldown_seconds: 60,
  },
  created_at: AT,
  updated_at: LATER,
} as const;

export const EXAMPLE_TRADER_REQUISITE_CREATE = {
  payment_method: 'card-rub',
  requisite_type: 'BANK_CARD',
  card_number: '2200123412341234',
  holder_name: 'Dana Holder',
  bank_name: 'sberbank',
  min_amount: 10_000,
  max_amount: 5_000_000,
  daily_limit: 5_000_000,
  daily_count_limit: 20,
  max_live_deals: 3,
  cooldown_seconds: 60,
} as const;

/** A trader's presence while online. */
export const EXAMPLE_TRADER_PRESENCE = {
  online: true,
  heartbeat_at: LATER,
  online_at: AT,
  offline_reason: null,
  offline_at: null,
  working_hours: { timezone: 'Europe/Moscow', from: '09:00', to: '21:00' },
  within_working_hours: true,
  matchable: true,
  heartbeat_timeout_seconds: 90,
} as const;
