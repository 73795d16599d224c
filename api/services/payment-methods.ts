import type { AppDeps } from '../deps';
import { InvalidArgument } from '../../domain/errors';
import { listPaymentMethods, type PaymentMethodRow } from '../../db/queries/catalog';

/**
 * A payment method looked up by UUID or slug (the same row either way; undefined: unknown) that
 * must take `currency`. Unknown values (an enum such as BANK_CARD included) list the allowed slugs.
 */
export async function checkPaymentMethod(
  deps: AppDeps,
  tenantId: string,
  method: PaymentMethodRow | undefined,
  idOrSlug: string,
  currency: string,
  field: 'payment_method_id' | 'payment_method',
): Promise<PaymentMethodRow> {
  if (!method) {
    const rows = await listPaymentMethods(deps.sql, tenantId, 'ACTIVE');
    throw new InvalidArgument(`unknown ${field} "${idOrSlug}"; allowed: ${rows.map((r) => r.slug).join(', ')}`, [
      { field, message: 'unknown payment method', code: 'unknown_payment_method' },
    ]);
  }
  if (method.currency_code !== currency) {
    throw new InvalidArgument(`payment method ${method.slug} takes ${method.currency_code}, not ${currency}`, [
      { field: 'currency', message: 'currency differs from the payment method currency', code: 'currency_mismatch' },
    ]);
  }
  return method;
}
