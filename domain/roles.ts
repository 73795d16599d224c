/**
 * The parties that sign in, their roles, and the one table of what each role may call: every
 * route of a party's door, by its operationId, with the roles allowed. The API checks every
 * request of an account (and of the spec's JWTs, which stand for a role) against it
 * (api/mount.ts), and the OpenAPI document shows it per route (x-roles), so an app can hide what
 * a role cannot do. Tests enumerate each door's routes and fail on one missing here (or one here
 * that is no route); docs/console.md and docs/cabinet.md show the same tables, checked by a test.
 *
 * A route belongs to one party by its auth mode: `operator` routes are the operators' (the
 * console), `cabinet` and `cabinet_or_hmac` routes the merchant's people's (the cabinet), `trader`
 * routes the traders' (the trader app). A role name means something only within its party (`finance` of a
 * merchant is not `finance` of the operators), so each party has its own column of the table.
 *
 * Operators:
 *   arbiter  appeals: the queue, the conversation, review/close/reopen, resolution, settlement,
 *            and the deal moves an appeal needs (confirm, complete, reconcile, amount, payouts)
 *   finance  money in and out: withdrawals (approve, cancel), deposits, trader top-ups, rates
 *   support  read-only: every GET, nothing else
 *   admin    everything, and alone: merchants, traders, keys, operators
 *
 * A merchant's people (docs/cabinet.md):
 *   owner      everything, and alone: the team (invitations, roles, disabling, removing)
 *   developer  the integration: profile settings (webhook URL, redirects, IP whitelist, limits),
 *              key rotation, passes; reads everything
 *   finance    money and disputes: PayOuts, withdrawals, the deposit address; appeals, their
 *              messages and evidence; reads everything
 *   support    read-only: every GET, nothing else
 */
const PARTIES = ['operator', 'merchant', 'trader'] as const;
export type Party = (typeof PARTIES)[number];

export const OPERATOR_ROLES = ['arbiter', 'finance', 'support', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
export const isOperatorRole = (value: unknown): value is OperatorRole => (OPERATOR_ROLES as readonly unknown[]).includes(value);

export const MERCHANT_ROLES = ['owner', 'developer', 'finance', 'support'] as const;
export type MerchantRole = (typeof MERCHANT_ROLES)[number];

/** The trader app's one role: a trader's account acts for its trader alone. */
export const TRADER_ROLES = ['trader'] as const;
export type TraderRole = (typeof TRADER_ROLES)[number];

/** Each party's roles: what an account of that party may hold (the database checks the same). */
const ROLES_OF: { readonly [P in Party]: readonly string[] } = { operator: OPERATOR_ROLES, merchant: MERCHANT_ROLES, trader: TRADER_ROLES };
export type AnyRole = OperatorRole | MerchantRole | TraderRole;
export const isRoleOf = (party: Party, value: unknown): value is AnyRole => ROLES_OF[party].includes(value as string);

/** Every role reads: the GETs an operator may call. */
const READ: readonly OperatorRole[] = ['support', 'arbiter', 'finance', 'admin'];
const ARBITER: readonly OperatorRole[] = ['arbiter', 'admin'];
const FINANCE: readonly OperatorRole[] = ['finance', 'admin'];
const ADMIN: readonly OperatorRole[] = ['admin'];

/** operationId → the roles allowed. GETs only may name `support`. */
export const OPERATOR_ROUTE_ROLES: Readonly<Record<string, readonly OperatorRole[]>> = {
  // The session itself: every signed-in operator (sign-in is public, no role yet).
  adminGetSession: READ,
  adminDeleteSession: ['arbiter', 'finance', 'support', 'admin'],
  adminEnrollTotp: ['arbiter', 'finance', 'support', 'admin'],
  // The console's home and the audit trail.
  adminGetQueues: READ,
  adminListNotifications: READ,
  adminListAudit: READ,
  // The console's reads of merchants, deals and traders (api/routes/admin/merchants.ts, deals.ts, traders.ts).
  adminListMerchants: READ,
  adminGetMerchant: READ,
  adminSearchDeals: READ,
  adminGetDealTimeline: READ,
  adminListTraders: READ,
  // The search box across deals, appeals, withdrawals, merchants, traders and operators: every role
  // searches, and finds only the kinds its role may list (SEARCH_KINDS below).
  adminSearch: READ,
  // The exports of the filtered lists: whoever reads a list may export it.
  adminExportDeals: READ,
  adminExportWithdrawals: READ,
  adminExportAppeals: READ,
  adminExportAudit: READ,
  // Operators (admin).
  adminChangeOwnPassword: ['arbiter', 'finance', 'support', 'admin'],
  adminListOperators: ADMIN,
  adminCreateOperator: ADMIN,
  adminUpdateOperator: ADMIN,
  adminInviteOperator: ADMIN,
  adminListInvitations: ADMIN,
  adminRevokeInvitation: ADMIN,
  // Merchants, keys, the kill-switch (admin).
  adminCreateMerchant: ADMIN,
  adminInviteMerchantOwner: ADMIN,
  adminUpdateMerchant: ADMIN,
  adminToggleKillSwitch: ADMIN,
  toggleKillSwitch: ADMIN,
  enableMerchant: ADMIN,
  disableMerchant: ADMIN,
  activateMerchant: ADMIN,
  issueApiKeys: ADMIN,
  // Traders (admin), their top-ups (finance).
  adminCreateTrader: ADMIN,
  adminInviteTrader: ADMIN,
  adminApproveTrader: ADMIN,
  adminCreateRequisite: ADMIN,
  adminCreateTraderDeposit: FINANCE,
  // Requisites traders add or change: read by every role, approved or rejected by an admin (it
  // decides which cards and accounts payers are sent to, as it decides the traders themselves).
  adminListPendingRequisites: READ,
  adminApproveRequisite: ADMIN,
  adminRejectRequisite: ADMIN,
  // A trader's money: its wallet (every role reads), its security deposit and minimum working balance (finance).
  adminGetTraderWallet: READ,
  adminSetTraderMoney: FINANCE,
  adminHoldTraderSecurityDeposit: FINANCE,
  adminReleaseTraderSecurityDeposit: FINANCE,
  // Money (finance).
  adminCreateDeposit: FINANCE,
  adminSetRate: FINANCE,
  adminListCurrencies: READ,
  adminListWithdrawals: READ,
  adminApproveWithdrawal: FINANCE,
  adminCancelWithdrawal: FINANCE,
  // Bulk: the single action once per object, so the single action's roles.
  adminBulkApproveWithdrawals: FINANCE,
  adminBulkCancelWithdrawals: FINANCE,
  // Alerts: every role reads; finance (chain, deposits, withdrawals: most kinds) and admin
  // acknowledge and resolve. A deal's alert resolves by itself when the arbiter moves the deal.
  adminListAlerts: READ,
  adminAcknowledgeAlert: FINANCE,
  adminResolveAlert: FINANCE,
  adminBulkResolveAlerts: FINANCE,
  // Appeals and evidence (arbiter).
  adminListAppeals: READ,
  adminGetAppeal: READ,
  adminCreateAppealMessage: ARBITER,
  adminReviewAppeal: ARBITER,
  adminCloseAppeal: ARBITER,
  adminReopenAppeal: ARBITER,
  adminResolveAppeal: ARBITER,
  settleAppeal: ARBITER,
  // The appeal as a case: who works on it, its papers (arbiter); every role sees who may take one.
  adminListAppealAssignees: READ,
  adminAssignAppeal: ARBITER,
  adminUnassignAppeal: ARBITER,
  adminTakeAppeal: ARBITER,
  adminAttachAppealFiles: ARBITER,
  adminUploadFile: ARBITER,
  adminDownloadFile: READ,
  // Deal moves (arbiter).
  adminStartPayout: ARBITER,
  adminCompletePayout: ARBITER,
  adminRejectPayout: ARBITER,
  adminAssignPayout: ARBITER,
  adminReconcileDeal: ARBITER,
  adminConfirmDeal: ARBITER,
  adminCompleteDeal: ARBITER,
  changeDealAmount: ARBITER,
  // Bank notifications that matched no deal (api/routes/admin/bank-notifications.ts): attaching one confirms a deal, as adminConfirmDeal.
  adminListBankNotifications: READ,
  adminGetBankNotification: READ,
  adminAttachBankNotification: ARBITER,
  adminDismissBankNotification: ARBITER,
};

/**
 * What the search box finds, each kind with the list operation whose roles may see it: a role
 * that may not list operators finds none (support, arbiter and finance search all but operators).
 */
export const SEARCH_KINDS = {
  deals: 'adminSearchDeals',
  appeals: 'adminListAppeals',
  withdrawals: 'adminListWithdrawals',
  merchants: 'adminListMerchants',
  traders: 'adminListTraders',
  operators: 'adminListOperators',
} as const;
export type SearchKind = keyof typeof SEARCH_KINDS;

/** The kinds this role's search looks into. */
export const searchKindsFor = (role: OperatorRole): SearchKind[] =>
  (Object.keys(SEARCH_KINDS) as SearchKind[]).filter((kind) => operatorMayCall(SEARCH_KINDS[kind], role));

/**
 * The merchant door: every route the cabinet JWT (J) may call — auth modes `cabinet` and
 * `cabinet_or_hmac` — by operationId, with the member roles allowed. J stands for the `owner`
 * (JWT_MERCHANT_ROLE), so `owner` is in every row and J keeps every route it always had; the
 * merchant's HMAC pair (its servers) is no person and no role: it is not checked here. GETs only
 * may name `support`.
 */
const MEMBER_READ: readonly MerchantRole[] = ['owner', 'developer', 'finance', 'support'];
const EVERY_MEMBER: readonly MerchantRole[] = ['owner', 'developer', 'finance', 'support'];
const OWNER: readonly MerchantRole[] = ['owner'];
const INTEGRATION: readonly MerchantRole[] = ['owner', 'developer'];
const DISPUTES: readonly MerchantRole[] = ['owner', 'finance'];
/** Money out of the merchant's wallet (PayOuts, withdrawals, a new deposit address). */
const MONEY: readonly MerchantRole[] = ['owner', 'finance'];

export const MERCHANT_ROUTE_ROLES: Readonly<Record<string, readonly MerchantRole[]>> = {
  // The member's own session: every member (sign-in and invitation acceptance are public).
  cabinetGetSession: MEMBER_READ,
  cabinetDeleteSession: EVERY_MEMBER,
  cabinetEnrollTotp: EVERY_MEMBER,
  cabinetChangeOwnPassword: EVERY_MEMBER,
  // The team (owner).
  cabinetListMembers: OWNER,
  cabinetUpdateMember: OWNER,
  cabinetRemoveMember: OWNER,
  cabinetInviteMember: OWNER,
  cabinetListInvitations: OWNER,
  cabinetRevokeInvitation: OWNER,
  // The profile: everyone reads it; its settings (webhook URL, redirects, IP whitelist, limits)
  // and the key pair are the integration's.
  getMyMerchant: MEMBER_READ,
  updateMyMerchant: INTEGRATION,
  rotateApiKeys: INTEGRATION,
  // Catalogs and the events feed (reads).
  listPaymentMethods: MEMBER_READ,
  listBanks: MEMBER_READ,
  listCurrencies: MEMBER_READ,
  listEvents: MEMBER_READ,
  // Disputes: appeals, their conversation and evidence (finance).
  createAppeal: DISPUTES,
  listAppeals: MEMBER_READ,
  getAppeal: MEMBER_READ,
  createAppealMessage: DISPUTES,
  listAppealMessages: MEMBER_READ,
  uploadFile: DISPUTES,
  downloadFile: MEMBER_READ,
  // Passes route a payer's deals to one provider: part of the integration.
  createPass: INTEGRATION,
  listPasses: MEMBER_READ,
  // The cabinet's money pages: balances and turnover (reads); PayOuts, withdrawals and the
  // deposit address move or receive money (finance); play money is the sandbox's (money too).
  getBalance: MEMBER_READ,
  getTurnover: MEMBER_READ,
  quotePayout: MEMBER_READ,
  createPayout: MONEY,
  getWithdrawFee: MEMBER_READ,
  createWithdrawal: MONEY,
  listWithdrawals: MEMBER_READ,
  getWithdrawal: MEMBER_READ,
  getDepositAddress: MEMBER_READ,
  rotateDepositAddress: MONEY,
  sandboxDeposit: MONEY,
  // The cabinet's deals and developers pages: everyone reads; a delivery's retry and a test event are the integration's.
  cabinetListDeals: MEMBER_READ,
  cabinetExportDeals: MEMBER_READ,
  cabinetGetDeal: MEMBER_READ,
  cabinetListDeliveries: MEMBER_READ,
  cabinetGetDelivery: MEMBER_READ,
  cabinetRetryDelivery: INTEGRATION,
  cabinetSendTestEvent: INTEGRATION,
  cabinetGetWebhookEndpoint: MEMBER_READ,
};

/**
 * The trader door: every route of the trader app (auth mode `trader`), by operationId. A trader's
 * account has one role and acts for its own trader only (its requisites, deals, wallet, appeals);
 * the scope comes from the session, never from the request.
 */
const TRADER: readonly TraderRole[] = ['trader'];

export const TRADER_ROUTE_ROLES: Readonly<Record<string, readonly TraderRole[]>> = {
  // The trader's own session (sign-in and invitation acceptance are public).
  traderGetSession: TRADER,
  traderDeleteSession: TRADER,
  traderEnrollTotp: TRADER,
  traderChangeOwnPassword: TRADER,
  // Its own requisites and presence (api/routes/trader/requisites.ts).
  traderListRequisites: TRADER,
  traderCreateRequisite: TRADER,
  traderGetRequisite: TRADER,
  traderUpdateRequisite: TRADER,
  traderPauseRequisite: TRADER,
  traderResumeRequisite: TRADER,
  traderArchiveRequisite: TRADER,
  traderGetPresence: TRADER,
  traderUpdatePresence: TRADER,
  traderPresenceHeartbeat: TRADER,
  // The trader's deal queue and its moves on its own deals.
  traderListDeals: TRADER,
  traderGetDeal: TRADER,
  traderListAvailablePayouts: TRADER,
  traderConfirmPayin: TRADER,
  traderReportPayinNotReceived: TRADER,
  traderTakePayout: TRADER,
  traderStartPayout: TRADER,
  traderCompletePayout: TRADER,
  traderRejectPayout: TRADER,
  // Disputes on the trader's deals: read them, answer with a statement and evidence.
  traderListAppeals: TRADER,
  traderGetAppeal: TRADER,
  traderCreateAppealMessage: TRADER,
  traderUploadAppealEvidence: TRADER,
  traderDownloadAppealFile: TRADER,
  // The trader's money: wallet, deposit address and deposits, movements, deals' money, withdrawals.
  traderGetWallet: TRADER,
  traderGetDepositAddress: TRADER,
  traderListDeposits: TRADER,
  traderListMovements: TRADER,
  traderListEarnings: TRADER,
  traderGetWithdrawFee: TRADER,
  traderCreateWithdrawal: TRADER,
  traderListWithdrawals: TRADER,
  traderGetWithdrawal: TRADER,
  // Its paired bank devices and what they forwarded (api/routes/trader/devices.ts).
  traderListDevices: TRADER,
  traderStartDevicePairing: TRADER,
  traderSetDeviceRequisites: TRADER,
  traderRevokeDevice: TRADER,
  traderListBankNotifications: TRADER,
};

/** Each door's column of the table. */
export const ROUTE_ROLES: { readonly [P in Party]: Readonly<Record<string, readonly string[]>> } = {
  operator: OPERATOR_ROUTE_ROLES,
  merchant: MERCHANT_ROUTE_ROLES,
  trader: TRADER_ROUTE_ROLES,
};

/** Whether `role` of `party` may call `operationId`; a route missing from the party's table is refused to everyone. */
export function mayCall(party: Party, operationId: string, role: string): boolean {
  return ROUTE_ROLES[party][operationId]?.includes(role) ?? false;
}

/** Whether `role` may call the operator route `operationId`. */
export function operatorMayCall(operationId: string, role: OperatorRole): boolean {
  return mayCall('operator', operationId, role);
}

/**
 * What an account that must set up an authenticator (an invited one) may call before it has:
 * read its session, set up TOTP, sign out. Everything else is 403 (enrolmentRequired).
 */
export const ENROLMENT_OPERATIONS: { readonly [P in Party]: readonly string[] } = {
  operator: ['adminGetSession', 'adminEnrollTotp', 'adminDeleteSession'],
  merchant: ['cabinetGetSession', 'cabinetEnrollTotp', 'cabinetDeleteSession'],
  trader: ['traderGetSession', 'traderEnrollTotp', 'traderDeleteSession'],
};
const TOTP_ROUTES: { readonly [P in Party]: string } = {
  operator: 'POST /api/v1/p2p/admin/session/totp (the console asks for it after sign-in)',
  merchant: 'POST /api/v1/p2p/cabinet/session/totp (the cabinet asks for it after sign-in)',
  trader: 'POST /api/v1/p2p/trader/session/totp (the trader app asks for it after sign-in)',
};
export const enrolmentRequired = (party: Party) => `this account must set up an authenticator before anything else: ${TOTP_ROUTES[party]}`;
export const ENROLMENT_REQUIRED = enrolmentRequired('operator');

/**
 * The Temporal payload codec (api/codec.ts, no route of this table: Temporal's own protocol). It
 * decrypts every payload of every workflow history — payer and merchant data included — so it is
 * the admin's alone, like the rest of the Temporal UI.
 */
export const CODEC_ROLES: readonly OperatorRole[] = ADMIN;

/** The role of the spec's operator JWT (role admin or platform_admin): the table's `admin`. */
export const JWT_OPERATOR_ROLE: OperatorRole = 'admin';
/** The role of the spec's cabinet JWT (role merchant): the merchant table's `owner`, which may call every merchant route. */
export const JWT_MERCHANT_ROLE: MerchantRole = 'owner';
