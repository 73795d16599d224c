/**
 * Requisites a trader manages in the trader app (add, edit, pause, resume, archive) and the
 * operators' approval of them. Every move is checked against REQUISITE_TRANSITIONS
 * (domain/state/requisites.ts) under the requisite's row lock and audited in its transaction.
 */
import { cardDataRing } from '../../db/queries/requisite-secrets';
import type { AppDeps } from '../deps';
import type { Db } from '../../db/sql';
import { FailedPrecondition, InvalidArgument, NotFound } from '../../domain/errors';
import { REQUISITE_DETAIL_FIELDS, REQUISITE_TRANSITIONS, requisiteRefusal, type RequisiteMove } from '../../domain/state/requisites';
import { findPaymentMethod } from '../../db/queries/catalog';
import { findTrader, insertRequisite, type RequisiteRow } from '../../db/queries/traders';
import {
  methodsForTrader,
  pendingRequisites,
  requisiteOfTrader,
  requisitesOfTrader,
  updateRequisite,
  type RequisiteChanges,
  type RequisiteWithMethod,
} from '../../db/queries/trader-requisites';
import { insertAudit } from '../../db/queries/audit';
import type { AuditActor } from '../../domain/audit';

/** The limits of a requisite as the API takes them; null clears one. */
interface RequisiteLimits {
  min_amount?: bigint;
  max_amount?: bigint;
  daily_limit?: bigint | null;
  daily_count_limit?: number | null;
  monthly_limit?: bigint | null;
  max_live_deals?: number | null;
  cooldown_seconds?: number;
}

export interface NewTraderRequisite extends RequisiteLimits {
  payment_method: string;
  requisite_type: string;
  card_number?: string;
  phone_number?: string;
  iban?: string;
  holder_name: string;
  bank_name: string;
  min_amount: bigint;
  max_amount: bigint;
}

export type RequisitePatch = RequisiteLimits & { card_number?: string; phone_number?: string; iban?: string; holder_name?: string; bank_name?: string };

const digits = (v: bigint | null) => (v === null ? null : v.toString());

/** A requisite as the trader app and the console read it. */
function presentRequisite(r: RequisiteRow & { payment_method?: string; currency?: string }) {
  return {
    requisite_id: r.id,
    trader_id: r.trader_id,
    payment_method: r.payment_method ?? '',
    currency: r.currency ?? '',
    requisite_type: r.requisite_type,
    card_number: r.card_number,
    phone_number: r.phone_number,
    iban: r.iban,
    holder_name: r.holder_name,
    bank_name: r.bank_name,
    status: r.status,
    rejection_reason: r.rejection_reason,
    added_by: r.added_by,
    limits: {
      min_amount: r.min_amount.toString(),
      max_amount: r.max_amount.toString(),
      daily_limit: digits(r.daily_limit),
      daily_count_limit: r.daily_count_limit,
      monthly_limit: digits(r.monthly_limit),
      max_live_deals: r.max_live_deals,
      cooldown_seconds: r.cooldown_seconds,
    },
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** What the audit trail keeps of a requisite: never the full card, phone or IBAN. */
function audited(r: RequisiteRow) {
  const tail = (v: string) => (v ? `…${v.slice(-4)}` : '');
  return {
    status: r.status,
    requisite_type: r.requisite_type,
    card_tail: tail(r.card_number),
    phone_tail: tail(r.phone_number),
    iban_tail: tail(r.iban),
    holder_name: r.holder_name,
    bank_name: r.bank_name,
    min_amount: r.min_amount,
    max_amount: r.max_amount,
    daily_limit: r.daily_limit,
    daily_count_limit: r.daily_count_limit,
    monthly_limit: r.monthly_limit,
    max_live_deals: r.max_live_deals,
    cooldown_seconds: r.cooldown_seconds,
    ...(r.rejection_reason ? { rejection_reason: r.rejection_reason } : {}),
  };
}

function neededDetail(type: string): 'iban' | 'card_number' | 'phone_number' {
  return type === 'BANK_TRANSFER' ? 'iban' : type === 'BANK_CARD' ? 'card_number' : 'phone_number';
}

export async function listTraderRequisites(deps: AppDeps, traderId: string) {
  const [rows, methods] = await Promise.all([requisitesOfTrader(deps.sql, cardDataRing(deps.config), traderId), methodsForTrader(deps.sql, traderId)]);
  return { data: rows.map(presentRequisite), payment_methods: methods };
}

export async function getTraderRequisite(deps: AppDeps, traderId: string, requisiteId: string) {
  const row = await requisiteOfTrader(deps.sql, cardDataRing(deps.config), traderId, requisiteId);
  if (!row) throw new NotFound('requisite not found');
  return presentRequisite(row);
}

/**
 * The payment method a new requisite of the trader is for, whoever adds it (the trader, an
 * operator): 404 for an unknown trader, 400 for an unknown method, a type the method does not
 * take, or a requisite without the number its type needs.
 */
export async function requisiteMethod(
  deps: AppDeps,
  traderId: string,
  input: { payment_method: string; requisite_type: string; card_number?: string | undefined; phone_number?: string | undefined; iban?: string | undefined },
) {
  const trader = await findTrader(deps.sql, traderId);
  if (!trader) throw new NotFound('trader not found');
  const method = await findPaymentMethod(deps.sql, trader.tenant_id, input.payment_method);
  if (!method) throw new InvalidArgument(`unknown payment_method ${input.payment_method}`);
  if (!method.requisite_types.includes(input.requisite_type)) {
    throw new InvalidArgument(`payment method ${method.slug} takes requisite types ${method.requisite_types.join(', ')}`);
  }
  const needed = neededDetail(input.requisite_type);
  if (!input[needed]) throw new InvalidArgument(`${needed} is required for ${input.requisite_type} requisites`);
  return method;
}

/** A trader's new requisite: PENDING_APPROVAL until an operator approves it. */
export async function addTraderRequisite(deps: AppDeps, traderId: string, input: NewTraderRequisite, actor: AuditActor) {
  const method = await requisiteMethod(deps, traderId, input);
  return deps.sql.begin(async (tx) => {
    const row = await insertRequisite(tx, cardDataRing(deps.config), {
      trader_id: traderId,
      payment_method_id: method.id,
      requisite_type: input.requisite_type,
      card_number: input.card_number ?? '',
      phone_number: input.phone_number ?? '',
      iban: input.iban ?? '',
      holder_name: input.holder_name,
      bank_name: input.bank_name,
      min_amount: input.min_amount,
      max_amount: input.max_amount,
      daily_limit: input.daily_limit ?? null,
      daily_count_limit: input.daily_count_limit ?? null,
      monthly_limit: input.monthly_limit ?? null,
      max_live_deals: input.max_live_deals ?? null,
      cooldown_seconds: input.cooldown_seconds ?? 0,
      added_by: 'trader',
    });
    await insertAudit(tx, actor, {
      action: 'trader.requisite_add',
      objectType: 'requisite',
      objectId: row.id,
      after: { trader_id: traderId, payment_method: method.slug, ...audited(row) },
    });
    return presentRequisite({ ...row, payment_method: method.slug, currency: method.currency_code });
  });
}

/** Locks the requisite (of this trader, when given), checks the move, applies the changes and audits it. */
async function move(
  deps: AppDeps,
  traderId: string | undefined,
  requisiteId: string,
  name: RequisiteMove,
  actor: AuditActor,
  changes: (row: RequisiteWithMethod) => RequisiteChanges,
) {
  return deps.sql.begin(async (tx: Db) => {
    const ring = cardDataRing(deps.config);
    const row = await requisiteOfTrader(tx, ring, traderId, requisiteId, true);
    if (!row) throw new NotFound('requisite not found');
    const refusal = requisiteRefusal(name, row.status);
    if (refusal) throw new FailedPrecondition(refusal);
    const to = REQUISITE_TRANSITIONS[name].to;
    const updated = await updateRequisite(tx, ring, row, { ...changes(row), ...(to ? { status: to } : {}) });
    await insertAudit(tx, actor, {
      action: `requisite.${name}`,
      objectType: 'requisite',
      objectId: row.id,
      before: audited(row),
      after: audited(updated),
    });
    return presentRequisite({ ...updated, payment_method: row.payment_method, currency: row.currency });
  });
}

/**
 * A trader's edit: new payment details (card, phone, IBAN, holder, bank) send the requisite back to
 * PENDING_APPROVAL; limits alone keep its status. Changing nothing is no move.
 */
export async function editTraderRequisite(deps: AppDeps, traderId: string, requisiteId: string, patch: RequisitePatch, actor: AuditActor) {
  const current = await requisiteOfTrader(deps.sql, cardDataRing(deps.config), traderId, requisiteId);
  if (!current) throw new NotFound('requisite not found');
  const detailsChanged = REQUISITE_DETAIL_FIELDS.some((f) => patch[f] !== undefined && patch[f] !== current[f]);
  return move(deps, traderId, requisiteId, detailsChanged ? 'edit_details' : 'edit_limits', actor, (row) => {
    const min = patch.min_amount ?? row.min_amount;
    const max = patch.max_amount ?? row.max_amount;
    if (max < min) throw new InvalidArgument('max_amount must not be below min_amount');
    if (detailsChanged) {
      const needed = neededDetail(row.requisite_type);
      if (patch[needed] === '') throw new InvalidArgument(`${needed} is required for ${row.requisite_type} requisites`);
    }
    return { ...patch, ...(detailsChanged ? { rejection_reason: '', reviewed_at: null } : {}) };
  });
}

export const pauseTraderRequisite = (deps: AppDeps, traderId: string, id: string, actor: AuditActor) => move(deps, traderId, id, 'pause', actor, () => ({}));
export const resumeTraderRequisite = (deps: AppDeps, traderId: string, id: string, actor: AuditActor) => move(deps, traderId, id, 'resume', actor, () => ({}));
export const archiveTraderRequisite = (deps: AppDeps, traderId: string, id: string, actor: AuditActor) =>
  move(deps, traderId, id, 'archive', actor, () => ({}));

/** An operator approves a requisite waiting for approval: it is matched from now on. */
export const approveRequisite = (deps: AppDeps, id: string, actor: AuditActor) =>
  move(deps, undefined, id, 'approve', actor, () => ({ rejection_reason: '', reviewed_at: new Date() }));

/** An operator refuses it with a reason the trader reads. */
export const rejectRequisite = (deps: AppDeps, id: string, reason: string, actor: AuditActor) =>
  move(deps, undefined, id, 'reject', actor, () => ({ rejection_reason: reason, reviewed_at: new Date() }));

/** The console's queue of requisites waiting for approval, oldest first. */
export async function listPendingRequisites(deps: AppDeps) {
  const rows = await pendingRequisites(deps.sql, cardDataRing(deps.config), 200);
  return { data: rows.map((r) => ({ ...presentRequisite(r), trader_name: r.trader_name })) };
}
