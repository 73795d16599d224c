/**
 * Operator roles and the one table of what each may call: every operator route, by
 * its operationId, with the roles allowed. The API checks every operator request against it
 * (api/mount.ts) — a console session and the spec's operator JWT alike (the JWT is `admin`) —
 * and the OpenAPI document shows it per route (x-roles), so the console can hide what a role
 * cannot do. A test enumerates the operator routes and fails on one missing here (or one here
 * that is no route); docs/console.md shows the same table, checked by a test.
 *
 *   arbiter  appeals: the queue, the conversation, review/close/reopen, resolution, settlement,
 *            and the deal moves an appeal needs (confirm, complete, reconcile, amount, payouts)
 *   finance  money in and out: withdrawals (approve, cancel), deposits, trader top-ups, rates
 *   support  read-only: every GET, nothing else
 *   admin    everything, and alone: merchants, traders, keys, operators
 */
export const OPERATOR_ROLES = ['arbiter', 'finance', 'support', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
export const isOperatorRole = (value: unknown): value is OperatorRole => (OPERATOR_ROLES as readonly unknown[]).includes(value);

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
  adminUpdateMerchant: ADMIN,
  adminToggleKillSwitch: ADMIN,
  toggleKillSwitch: ADMIN,
  enableMerchant: ADMIN,
  disableMerchant: ADMIN,
  activateMerchant: ADMIN,
  issueApiKeys: ADMIN,
  // Traders (admin), their top-ups (finance).
  adminCreateTrader: ADMIN,
  adminCreateRequisite: ADMIN,
  adminCreateTraderDeposit: FINANCE,
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
 * What an account that must set up an authenticator (an invited one) may call before it has:
 * read its session, set up TOTP, sign out. Everything else is 403 ENROLMENT_REQUIRED.
 */
export const ENROLMENT_OPERATIONS: readonly string[] = ['adminGetSession', 'adminEnrollTotp', 'adminDeleteSession'];
export const ENROLMENT_REQUIRED =
  'this account must set up an authenticator before anything else: POST /api/v1/p2p/admin/session/totp (the console asks for it after sign-in)';

/**
 * The Temporal payload codec (api/codec.ts, no route of this table: Temporal's own protocol). It
 * decrypts every payload of every workflow history — payer and merchant data included — so it is
 * the admin's alone, like the rest of the Temporal UI.
 */
export const CODEC_ROLES: readonly OperatorRole[] = ADMIN;

/** Whether `role` may call the operator route `operationId`; a route missing from the table is refused to everyone. */
export function operatorMayCall(operationId: string, role: OperatorRole): boolean {
  return OPERATOR_ROUTE_ROLES[operationId]?.includes(role) ?? false;
}

/** The role of the spec's operator JWT (role admin or platform_admin): the table's `admin`. */
export const JWT_OPERATOR_ROLE: OperatorRole = 'admin';
