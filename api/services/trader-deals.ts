/**
 * The trader's deal queue (the trader app): its deals, live first with their timers, the UNASSIGNED
 * payouts it may take, and its moves — each an update of the deal's workflow with the trader as
 * the actor, audited in the step's transaction, as the operator's moves are. Another trader's deal
 * is 404; a move the deal's state does not allow is 409 in the state table's words. The sandbox
 * trader sends the same updates (activities/sandbox.ts).
 */
import { cardDataRing, openRequisiteDetails, withTarget } from '../../db/queries/requisite-secrets';
import type { KeyRing } from '../../domain/crypto/key-ring';
import { ServiceError, isGrpcServiceError, type WorkflowHandle } from '@temporalio/client';
import { setTimeout as delay } from 'node:timers/promises';
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { Conflict, DomainError, InvalidArgument, NotFound, TooManyInFlight } from '../../domain/errors';
import { amountToPay, PAYIN_TERMINAL } from '../../domain/state/payin';
import { PAYOUT_TERMINAL } from '../../domain/state/payout';
import { traderMoveRefusal, traderMovesFor, type TraderDealMove } from '../../domain/state/trader-deal-moves';
import { findDeal } from '../../db/queries/deals';
import { findTraderDeal, listTraderDeals, takeablePayouts, type TraderDealRow } from '../../db/queries/trader-deals';
import { confirmReceivedUpdate, payinWorkflowId, reportNotReceivedUpdate, type PayinWorkflow } from '../../workflows/contracts/payin';
import {
  completePayoutUpdate,
  payoutWorkflowId,
  rejectPayoutUpdate,
  startPayoutUpdate,
  takePayoutUpdate,
  type PayoutWorkflow,
} from '../../workflows/contracts/payout';
import { closedRejects, traderActor, updateDeal } from './deal-workflows';
import { clampPageSize, cursorOf, keysetPage } from './page-token';
import { parseMultipart, presentFile, storeFile } from './files';

/** Every terminal status of either table: the trader's history. */
const TERMINAL = [...new Set<string>([...PAYIN_TERMINAL, ...PAYOUT_TERMINAL])];
/** Live deals a trader holds at once are few; the queue shows them all (up to this many). */
const LIVE_LIMIT = 200;
/** What a proof file may be: a photo or screenshot of the bank's receipt, or its PDF. */
const PROOF_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'application/pdf'] as const;

/** The trader's deal as the trader app shows it. */
function presentTraderDeal(ring: KeyRing, row: TraderDealRow) {
  const payin = row.deal_type === 'PAYIN';
  const live = !TERMINAL.includes(row.status);
  // The deadline the deal waits on now: a PayIn's payment timeout, a payout's assignment or transfer window.
  const [timer, expiresAt] = !live
    ? ['', null]
    : payin
      ? ['payment_timeout', row.payment_timeout_at]
      : row.status === 'UNASSIGNED'
        ? ['assign_sla', row.assign_deadline_at]
        : row.status === 'MATCHED'
          ? ['transfer_sla', row.transfer_deadline_at]
          : ['', null];
  return {
    deal_id: row.id,
    deal_type: row.deal_type,
    status: row.status,
    amount: row.amount.toString(),
    currency: row.currency,
    currency_exponent: row.currency_exponent,
    payment_method: row.method_slug,
    requisite_id: row.requisite_id ?? '',
    requisite_summary: row.requisite_summary,
    amount_to_pay: payin ? amountToPay(row).toString() : row.amount.toString(),
    received_amount: payin ? row.received_amount.toString() : '0',
    amount_match_status: payin ? row.amount_match_status : '',
    target_requisite: payin ? '' : withTarget(ring, row).target_requisite,
    target_name: payin ? '' : row.target_name,
    target_bank: payin ? '' : row.target_bank,
    requisite_details: payin ? {} : openRequisiteDetails(ring, row),
    timer: timer as '' | 'payment_timeout' | 'assign_sla' | 'transfer_sla',
    expires_at: expiresAt ? expiresAt.toISOString() : '',
    bank_reference: row.payout_bank_reference,
    proof_file_id: row.payout_proof_file_id ?? '',
    not_received_at: row.not_received_at ? row.not_received_at.toISOString() : '',
    not_received_reason: row.not_received_reason,
    failure_reason: row.failure_reason,
    moves: traderMovesFor(row.deal_type, row.status).filter((m) => m !== 'take' || row.trader_id === null),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export interface TraderDealQuery {
  deal_type?: 'PAYIN' | 'PAYOUT' | undefined;
  status?: string[] | undefined;
  page_size?: number | undefined;
  page_token?: string | undefined;
}

/** The scope of the history's page tokens: one trader's (another's token is 400). */
const scopeOf = (traderId: string) => `trader-deals:${traderId}`;

/** The trader's queue: every live deal (its timers), then one page of its history, newest first. */
export async function listOwnDeals(deps: AppDeps, traderId: string, query: TraderDealQuery) {
  const filter = { traderId, terminal: TERMINAL, dealType: query.deal_type, statuses: query.status };
  const before = cursorOf(deps, scopeOf(traderId), query.page_token);
  const size = clampPageSize(query.page_size, 50, 200);
  const [live, history] = await Promise.all([
    // The live deals come with the first page only; the next pages are history.
    before ? Promise.resolve([]) : listTraderDeals(deps.sql, { ...filter, live: true, limit: LIVE_LIMIT }),
    listTraderDeals(deps.sql, { ...filter, live: false, before, limit: size + 1 }),
  ]);
  const page = keysetPage(deps, scopeOf(traderId), history, size);
  return {
    live: live.map((r) => presentTraderDeal(cardDataRing(deps.config), r)),
    history: page.rows.map((r) => presentTraderDeal(cardDataRing(deps.config), r)),
    next_page_token: page.next_page_token,
  };
}

/** The trader's deal; another trader's and an unknown id alike are 404. */
async function ownDeal(deps: AppDeps, traderId: string, dealId: string): Promise<TraderDealRow> {
  const row = await findTraderDeal(deps.sql, traderId, dealId);
  if (!row) throw new NotFound('deal not found');
  return row;
}

/** The UNASSIGNED payouts one of the trader's ACTIVE requisites can serve, oldest first. */
export async function availablePayouts(deps: AppDeps, traderId: string, pageSize: number | undefined) {
  return {
    data: (await takeablePayouts(deps.sql, traderId, { limit: clampPageSize(pageSize, 50, 200) })).map((r) => presentTraderDeal(cardDataRing(deps.config), r)),
  };
}

/** A state refusal (the workflow's, or a closed run's) in the trader's words: 409. */
function asConflict(error: unknown): unknown {
  return error instanceof DomainError && error.kind === 'FAILED_PRECONDITION' ? new Conflict(error.message) : error;
}

/** The deal's own refusal of the move, read from its row first (a fast path; the workflow decides). */
function refuseEarly(row: TraderDealRow, move: TraderDealMove) {
  const refused = traderMoveRefusal(row.deal_type, move, row.status);
  if (refused) throw new Conflict(refused);
}

async function ownOfType(deps: AppDeps, traderId: string, dealId: string, type: 'PAYIN' | 'PAYOUT', move: TraderDealMove) {
  const row = await ownDeal(deps, traderId, dealId);
  if (row.deal_type !== type)
    throw new Conflict(`deal is a ${row.deal_type === 'PAYIN' ? 'PayIn' : 'PayOut'}; ${move} is a ${type === 'PAYIN' ? 'PayIn' : 'PayOut'} move`);
  refuseEarly(row, move);
  return row;
}

async function payinCommand(deps: AppDeps, row: TraderDealRow, send: (h: WorkflowHandle<PayinWorkflow>) => Promise<unknown>) {
  try {
    await updateDeal<PayinWorkflow>(deps, payinWorkflowId(row.id), row.id, send, closedRejects);
  } catch (error) {
    throw asConflict(error);
  }
}

async function payoutCommand(deps: AppDeps, row: TraderDealRow, send: (h: WorkflowHandle<PayoutWorkflow>) => Promise<unknown>) {
  try {
    await updateDeal<PayoutWorkflow>(deps, payoutWorkflowId(row.id), row.id, send, closedRejects);
  } catch (error) {
    throw asConflict(error);
  }
}

/** The trader's deal as the app shows it (another trader's and an unknown id alike are 404). */
export const ownDealView = async (deps: AppDeps, traderId: string, dealId: string) =>
  presentTraderDeal(cardDataRing(deps.config), await ownDeal(deps, traderId, dealId));

// ---- PayIn ----

/**
 * The trader received the payment: what arrived is recorded (received_amount, amount_match_status
 * against the amount to pay, as a reconciliation records it) and the receipt confirmed, in one
 * step — a full amount completes the deal; partial or overpaid leaves it PAYMENT_VERIFIED for an operator.
 */
export async function confirmReceived(deps: AppDeps, traderId: string, dealId: string, received: bigint, actor?: AuditActor) {
  const row = await ownOfType(deps, traderId, dealId, 'PAYIN', 'confirm');
  await payinCommand(deps, row, (h) => h.executeUpdate(confirmReceivedUpdate, { args: [received.toString(), traderActor(actor)] }));
  return ownDealView(deps, traderId, dealId);
}

/**
 * The trader did not receive the payment. The PayIn table has no such state: the report is kept
 * on the deal and raises an operator alert; the deal waits for its expiry, an appeal or an operator.
 */
export async function reportNotReceived(deps: AppDeps, traderId: string, dealId: string, reason: string, actor?: AuditActor) {
  const row = await ownOfType(deps, traderId, dealId, 'PAYIN', 'not_received');
  await payinCommand(deps, row, (h) => h.executeUpdate(reportNotReceivedUpdate, { args: [reason, traderActor(actor)] }));
  return ownDealView(deps, traderId, dealId);
}

// ---- PayOut ----

/** gRPC RESOURCE_EXHAUSTED: the run has as many updates in flight as the server takes at once. */
const RESOURCE_EXHAUSTED = 8;
const isBusy = (error: unknown) =>
  error instanceof TooManyInFlight || (error instanceof ServiceError && isGrpcServiceError(error.cause) && error.cause.code === RESOURCE_EXHAUSTED);

/**
 * The trader takes an UNASSIGNED payout one of its ACTIVE requisites serves: MATCHED to it. The
 * payout's workflow runs takes one at a time, so of concurrent takers exactly one wins and the others
 * are 409 (`payout is MATCHED`). A run busy with other takes is asked again while the payout is still free.
 */
export async function takePayout(deps: AppDeps, traderId: string, dealId: string, actor?: AuditActor) {
  const by = traderActor(actor);
  for (let attempt = 0; ; attempt++) {
    const [row] = await takeablePayouts(deps.sql, traderId, { dealId, limit: 1 });
    if (!row) {
      // Taken meanwhile (by this trader, or another) or never servable by it.
      const own = await findTraderDeal(deps.sql, traderId, dealId);
      if (own?.status === 'MATCHED') return presentTraderDeal(cardDataRing(deps.config), own);
      throw await notTakeable(deps, dealId);
    }
    try {
      await payoutCommand(deps, row, (h) => h.executeUpdate(takePayoutUpdate, { args: [traderId, by] }));
      return ownDealView(deps, traderId, dealId);
    } catch (error) {
      if (!isBusy(error) || attempt >= 40) throw error;
      await delay(25 + Math.floor(Math.random() * 75));
    }
  }
}

/** Why a payout cannot be taken: 409 when it is no longer UNASSIGNED (the state table's words), else 404 (not one the trader may take). */
async function notTakeable(deps: AppDeps, dealId: string): Promise<DomainError> {
  const deal = await findDeal(deps.sql, dealId);
  if (deal?.deal_type === 'PAYOUT' && deal.status !== 'UNASSIGNED') {
    const refused = traderMoveRefusal('PAYOUT', 'take', deal.status);
    if (refused) return new Conflict(refused);
  }
  return new NotFound('deal not found');
}

/** The trader starts the transfer: MATCHED → PROCESSING. */
export async function startOwnPayout(deps: AppDeps, traderId: string, dealId: string, actor?: AuditActor) {
  const row = await ownOfType(deps, traderId, dealId, 'PAYOUT', 'start');
  await payoutCommand(deps, row, (h) => h.executeUpdate(startPayoutUpdate, { args: [traderActor(actor)] }));
  return ownDealView(deps, traderId, dealId);
}

/** The transfer failed or cannot be made: PROCESSING → FAILED, the merchant's hold returned. */
export async function rejectOwnPayout(deps: AppDeps, traderId: string, dealId: string, reason: string, actor?: AuditActor) {
  const row = await ownOfType(deps, traderId, dealId, 'PAYOUT', 'reject');
  await payoutCommand(deps, row, (h) => h.executeUpdate(rejectPayoutUpdate, { args: [reason, traderActor(actor)] }));
  return ownDealView(deps, traderId, dealId);
}

const BANK_REFERENCE_MAX = 100;

/**
 * The transfer was sent: PROCESSING → COMPLETED with its proof — the bank's reference and a file (a
 * photo, screenshot or PDF of the receipt) sent as multipart/form-data (`bank_reference`, `file`),
 * stored through the evidence pipeline as the trader's file of this deal (its merchant may read
 * it). The move is checked before anything is stored; the merchant's deal and its deal.completed
 * webhook then carry payout_proof.
 */
export async function completeOwnPayout(deps: AppDeps, traderId: string, dealId: string, upload: { raw: unknown; contentType: string }, actor?: AuditActor) {
  const by = traderActor(actor);
  const row = await ownOfType(deps, traderId, dealId, 'PAYOUT', 'complete');
  if (!/^multipart\/form-data\b/i.test(upload.contentType) || !Buffer.isBuffer(upload.raw)) {
    throw new InvalidArgument('send the proof as multipart/form-data: the part "file" and the field "bank_reference"');
  }
  const { fields, file } = await parseMultipart(upload.raw, upload.contentType, deps.config.EVIDENCE_MAX_BYTES, 'file');
  const bankReference = (fields.bank_reference ?? '').trim();
  if (!bankReference || bankReference.length > BANK_REFERENCE_MAX || /\p{Cc}/u.test(bankReference)) {
    const message = `bank_reference is required: the bank's reference of the transfer, 1 to ${BANK_REFERENCE_MAX} characters`;
    throw new InvalidArgument(message, [{ field: 'bank_reference', message, code: 'invalid_value' }]);
  }
  if (!file) {
    const message = 'file is required: a photo, screenshot or PDF of the transfer receipt, in the part named "file"';
    throw new InvalidArgument(message, [{ field: 'file', message, code: 'invalid_file' }]);
  }
  const stored = await storeFile(deps, { kind: 'trader', traderId, dealId }, file.bytes, file.fileName, by, { types: PROOF_TYPES });
  await payoutCommand(deps, row, (h) => h.executeUpdate(completePayoutUpdate, { args: [by, { bankReference, fileId: stored.id }] }));
  return { deal: await ownDealView(deps, traderId, dealId), file: presentFile(stored) };
}
