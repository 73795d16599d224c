/**
 * What the audit trail keeps of a deal or an appeal before and after an operator's move: the
 * fields the move may change, money as bigint (stored as digit strings).
 */
import type { AppealRow } from '../db/queries/appeals';
import type { DealRow } from '../db/queries/deals';
import { appealView } from '../domain/state/appeals';

export const auditedDeal = (row: DealRow) => ({
  status: row.status,
  amount: row.amount,
  amount_usdt: row.amount_usdt,
  amount_version: row.amount_version,
  received_amount: row.received_amount,
  amount_match_status: row.amount_match_status,
  requisite_id: row.requisite_id,
  trader_id: row.trader_id,
  cancel_reason: row.cancel_reason,
  failure_reason: row.failure_reason,
  payout_bank_reference: row.payout_bank_reference,
  payout_proof_file_id: row.payout_proof_file_id,
  not_received_reason: row.not_received_reason,
});

/** The appeal with its outcome, and the status of the deal it is about. */
export const auditedAppeal = (appeal: AppealRow, deal: Pick<DealRow, 'status'>) => ({
  ...appealView(appeal),
  outcome: appeal.outcome ?? '',
  deal_status: deal.status,
});
