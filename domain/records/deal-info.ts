/**
 * MerchantDealInfo: exactly these fields, int64 as strings — plus, on settlement deals only, the
 * additional attributes `parent_deal_id` (the EXPIRED original) and `origin_appeal_id` (the
 * appeal that settled it). Ordinary deals omit both keys (clients ignore fields they do not
 * know), so their objects keep exactly the spec's deal fields.
 */
export interface MerchantDealInfo {
  deal_id: string;
  status: string;
  amount: string;
  currency: string;
  created_at: string;
  client_id: string;
  deal_type: 'PAYIN' | 'PAYOUT';
  updated_at: string;
  payment_url: string;
  target_requisite: string;
  received_amount: string;
  amount_match_status: string;
  parent_deal_id?: string;
  origin_appeal_id?: string;
  /** On a sandbox merchant's deals only (a live merchant's keep exactly the spec's deal fields). */
  sandbox?: true;
  /** On a PayOut its trader completed with a proof only: the bank's reference and the proof file (read through the files route). */
  payout_proof?: { bank_reference: string; file_id: string };
}

export interface DealInfoSource {
  id: string;
  status: string;
  amount: bigint;
  currency: string;
  created_at: Date;
  client_id: string;
  deal_type: 'PAYIN' | 'PAYOUT';
  updated_at: Date;
  checkout_hash: string | null;
  target_requisite: string;
  received_amount: bigint;
  amount_match_status: string;
  /** Set on settlement deals only; absent from narrow reads (the CSV stream), which do not show them. */
  parent_deal_id?: string | null;
  origin_appeal_id?: string | null;
  /** The merchant's world; absent from narrow reads. */
  sandbox?: boolean;
  /** A PayOut's proof from its trader; absent from narrow reads. */
  payout_bank_reference?: string;
  payout_proof_file_id?: string | null;
}

export function merchantDealInfo(row: DealInfoSource, checkoutBaseUrl: string): MerchantDealInfo {
  const isPayin = row.deal_type === 'PAYIN';
  return {
    deal_id: row.id,
    status: row.status,
    amount: row.amount.toString(),
    currency: row.currency,
    created_at: row.created_at.toISOString(),
    client_id: row.client_id,
    deal_type: row.deal_type,
    updated_at: row.updated_at.toISOString(),
    payment_url: isPayin && row.checkout_hash ? `${checkoutBaseUrl.replace(/\/$/, '')}/pay/${row.checkout_hash}` : '',
    target_requisite: isPayin ? '' : row.target_requisite,
    received_amount: isPayin ? row.received_amount.toString() : '0',
    amount_match_status: isPayin ? row.amount_match_status : '',
    ...(row.origin_appeal_id ? { parent_deal_id: row.parent_deal_id ?? '', origin_appeal_id: row.origin_appeal_id } : {}),
    ...(row.sandbox ? { sandbox: true as const } : {}),
    ...(!isPayin && (row.payout_bank_reference || row.payout_proof_file_id)
      ? { payout_proof: { bank_reference: row.payout_bank_reference ?? '', file_id: row.payout_proof_file_id ?? '' } }
      : {}),
  };
}

/** The webhook/outbox payload of a deal event: the deal plus its amount_version. */
export function dealEventPayload(row: DealInfoSource & { amount_version: bigint }, checkoutBaseUrl: string) {
  return { deal: { ...merchantDealInfo(row, checkoutBaseUrl), amount_version: row.amount_version.toString() } };
}
