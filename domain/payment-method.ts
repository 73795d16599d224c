/** The payment method a deal create names, against the tenant's catalog: a pure check of what the create read. */
import { InvalidArgument } from './errors';

export interface NamedPaymentMethod {
  id: string;
  slug: string;
  currency_code: string;
}

/**
 * A payment method looked up by UUID or slug (the same row either way; undefined: unknown) that
 * must take `currency`. Unknown values (an enum such as BANK_CARD included) list the allowed slugs.
 */
export function checkPaymentMethod<M extends NamedPaymentMethod>(
  method: M | undefined,
  allowedSlugs: string[],
  idOrSlug: string,
  currency: string,
  field: 'payment_method_id' | 'payment_method',
): M {
  if (!method) {
    throw new InvalidArgument(`unknown ${field} "${idOrSlug}"; allowed: ${allowedSlugs.join(', ')}`, [
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
