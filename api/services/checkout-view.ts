import { amountToPay, isPayinTerminal, type PayinStatus } from '../../domain/payin';
import type { CheckoutRow } from '../../db/queries/deals';

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
}

/** CheckoutView (spec 2.8): requisite fields by type; sensitive fields are empty in terminal states. */
export function checkoutView(row: CheckoutRow): CheckoutView {
  const open = !isPayinTerminal(row.status as PayinStatus);
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
    payment_timeout_at: row.payment_timeout_at?.toISOString() ?? '',
    success_redirect_url: row.success_redirect_url,
    fail_redirect_url: row.fail_redirect_url,
  };
}
