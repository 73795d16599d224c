import { amountToPay, isPayinTerminal, type PayinStatus } from '../../domain/state/payin';
import { PAYER_PROOFS_PER_DEAL, payerProofAccepted, payerReference, type DealStamps } from '../../domain/state/payer-page';
import { findAmountAtVersion, type CheckoutRow } from '../../db/queries/deals';
import type { AppDeps } from '../deps';

export interface CheckoutView {
  status: string;
  amount: string;
  amount_to_pay: string;
  currency: string;
  payment_method_name: string;
  requisite_type: string;
  card_number: string;
  phone_number: string;
  iban: string;
  holder_name: string;
  bank_name: string;
  brand_name: string;
  description: string;
  payment_timeout_at: string;
  success_redirect_url: string;
  fail_redirect_url: string;
  /** Added for the payer's page; none of the fields above changed. */
  amount_version: string;
  reference: string;
  bank_display_name: string;
  timeline: DealStamps;
  payer_proof: { receipts: number; card_last4: string; can_add: boolean };
}

const iso = (at: Date | null | undefined) => at?.toISOString() ?? '';

/** CheckoutView: requisite fields by type; sensitive fields are empty in terminal states. */
export function checkoutView(row: CheckoutRow): CheckoutView {
  const terminal = isPayinTerminal(row.status as PayinStatus);
  const open = !terminal;
  const type = row.requisite_type ?? '';
  const show = (value: string | null, forTypes: string[]) => (open && forTypes.includes(type) ? (value ?? '') : '');
  return {
    status: row.status,
    amount: row.amount.toString(),
    amount_to_pay: amountToPay(row).toString(),
    currency: row.currency,
    payment_method_name: row.payment_method_name,
    requisite_type: type,
    card_number: show(row.card_number, ['BANK_CARD']),
    phone_number: show(row.phone_number, ['SBP', 'SIM', 'E_WALLET']),
    iban: show(row.iban, ['BANK_TRANSFER']),
    holder_name: open ? (row.holder_name ?? '') : '',
    bank_name: open ? (row.bank_name ?? '') : '',
    brand_name: row.checkout_brand_name || row.merchant_name,
    description: row.description,
    payment_timeout_at: iso(row.payment_timeout_at),
    success_redirect_url: row.success_redirect_url,
    fail_redirect_url: row.fail_redirect_url,
    amount_version: row.amount_version.toString(),
    reference: row.checkout_hash ? payerReference(row.checkout_hash) : '',
    bank_display_name: open ? (row.bank_display_name ?? row.bank_name ?? '') : '',
    timeline: {
      created_at: iso(row.created_at),
      payment_notified_at: iso(row.payment_notified_at),
      payment_verified_at: iso(row.payment_verified_at),
      ended_at: terminal ? iso(row.updated_at) : '',
    },
    payer_proof: {
      receipts: row.proof_receipts ?? 0,
      card_last4: row.proof_card_last4 ?? '',
      can_add: payerProofAccepted(row.status) && (row.proof_count ?? 0) < PAYER_PROOFS_PER_DEAL,
    },
  };
}

/** What the payer was asked to pay at an earlier amount_version (the page's "old → new"); undefined if unknown. */
export async function amountToPayAtVersion(deps: AppDeps, row: CheckoutRow, version: bigint): Promise<bigint | undefined> {
  const amount = await findAmountAtVersion(deps.sql, row.id, version);
  return amount === undefined ? undefined : amountToPay({ ...row, amount });
}
