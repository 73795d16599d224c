/**
 * Money as operators read and type it: in major units with the currency ("1 500.00 RUB"), turned
 * into the API's minor units exactly — digits only, never through a JS number — by the currency's
 * exponent from the tenant's catalogue (GET /admin/currencies). Deal limits have no currency of
 * their own (they bound a deal's amount in whatever currency the deal is): they are typed with the
 * exponent the tenant's fiat currencies share, or in minor units if those differ.
 */
import { useId } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap } from './api';
import { formatMinor, parseMajor } from './amounts';
import { DOOR } from './door';
import { Field } from './ui';

export { formatMinor, parseMajor };

function useCurrencies() {
  return useQuery({
    queryKey: ['currencies'],
    // The door's own catalogue: a member may not read the operators' (both carry code and exponent).
    queryFn: async (): Promise<{ data: Array<{ code: string; exponent: number }> }> =>
      DOOR === 'cabinet' ? unwrap(api.GET('/api/v1/p2p/merchant/currencies')) : unwrap(api.GET('/api/v1/p2p/admin/currencies')),
    staleTime: 10 * 60_000,
  });
}

/**
 * The exponent of a currency by its code (undefined while the catalogue loads or for an unknown
 * code). `LIMITS` stands for the currency-less deal limits: the exponent every fiat currency
 * shares, 0 (minor units) when they differ.
 */
export const LIMITS = 'deal currency';
export function useExponent(code: string): number | undefined {
  const list = useCurrencies().data?.data;
  if (!list) return undefined;
  if (code === LIMITS) {
    const fiat = new Set(list.filter((c) => c.code !== 'USDT').map((c) => c.exponent));
    return fiat.size === 1 ? [...fiat][0] : 0;
  }
  return list.find((c) => c.code === code)?.exponent;
}

/** An amount with its currency: "1 500.00 RUB" (the minor units while the exponent is unknown). */
export function Money({ minor, currency }: { minor: string | undefined; currency: string }) {
  const exponent = useExponent(currency);
  if (minor === undefined || minor === '') return <span>—</span>;
  return (
    <span className={currency === LIMITS ? 'money' : 'money whole'} data-minor={minor}>
      {exponent === undefined ? `${minor} minor units` : formatMinor(minor, exponent)} {currency === LIMITS ? '(in the deal’s currency)' : currency}
    </span>
  );
}

/** The same as text, for a dialog's sentence or a label. */
export function useFormatMoney(): (minor: string | undefined, currency: string) => string {
  const list = useCurrencies().data?.data;
  return (minor, currency) => {
    if (minor === undefined || minor === '') return '—';
    const exponent =
      currency === LIMITS
        ? (() => {
            const fiat = new Set((list ?? []).filter((c) => c.code !== 'USDT').map((c) => c.exponent));
            return fiat.size === 1 ? [...fiat][0]! : 0;
          })()
        : list?.find((c) => c.code === currency)?.exponent;
    const unit = currency === LIMITS ? '(in the deal’s currency)' : currency;
    return exponent === undefined ? `${minor} minor units of ${currency}` : `${formatMinor(minor, exponent)} ${unit}`;
  };
}

/**
 * An amount field in major units: the currency beside the input, and under it what the typed text
 * is (the amount the API will get) or why it is not one. `value` is the text as typed; the caller
 * turns it into minor units with `toMinor` when it sends.
 */
export function MoneyInput({
  label,
  currency,
  value,
  onChange,
  hint,
  required,
}: {
  label: string;
  currency: string;
  value: string;
  onChange: (text: string) => void;
  hint?: string;
  required?: boolean;
}) {
  const exponent = useExponent(currency);
  const unitId = useId();
  let reading = '';
  if (value.trim() !== '' && exponent !== undefined) {
    try {
      reading = `= ${formatMinor(parseMajor(value, exponent), exponent)} ${currency === LIMITS ? '' : currency}`.trim();
    } catch (error) {
      reading = (error as Error).message;
    }
  }
  const unit = currency === LIMITS ? (exponent === 0 ? 'minor units of the deal’s currency' : 'in the deal’s currency') : currency;
  return (
    <Field label={`${label} (${unit})`} hint={[hint, reading].filter(Boolean).join(' ') || undefined}>
      <span className="money-input">
        <input inputMode="decimal" autoComplete="off" required={required} aria-describedby={unitId} value={value} onChange={(e) => onChange(e.target.value)} />
        <span id={unitId} className="unit">
          {currency === LIMITS ? '' : currency}
        </span>
      </span>
    </Field>
  );
}

/** The minor units of typed text for a request, or the refusal (thrown, shown by the action). */
export function useToMinor(currency: string): (text: string, what?: string) => string {
  const exponent = useExponent(currency);
  return (text, what) => {
    if (exponent === undefined) throw new ApiError(0, `the exponent of ${currency} is not known yet; try again`);
    return parseMajor(text, exponent, what);
  };
}
