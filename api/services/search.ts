/**
 * The console's one search box: what the operator typed, read as every term it can be (an id or
 * its start, a card or phone tail, an amount, a name, an email, a client id, a withdrawal's
 * address or transaction id), looked up in each kind of object the operator's role may list
 * (domain/roles.ts, SEARCH_KINDS), results grouped by kind with names.
 */
import type { AppDeps } from '../deps';
import { idPrefix } from '../../domain/ids';
import { searchKindsFor, type OperatorRole, type SearchKind } from '../../domain/roles';
import { canonicalTxHash, tronAddressProblem } from '../../domain/tron/address';
import { searchAppeals, searchDeals, searchMerchants, searchOperators, searchTraders, searchWithdrawals, type SearchTerms } from '../../db/queries/search';

const MAX_EXPONENT = 4;

/** "1 500.00", "1500,5", "1500" → the decimal text and its minor units at each exponent it is whole at. */
function amountTerms(q: string): Pick<SearchTerms, 'amount' | 'amountMinor'> & { usdtCents?: bigint } {
  const text = q.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  const match = /^(\d{1,15})(?:\.(\d{1,4}))?$/.exec(text);
  if (!match) return {};
  const whole = match[1]!;
  const fraction = match[2] ?? '';
  const minor: bigint[] = [];
  for (let exponent = fraction.length; exponent <= MAX_EXPONENT; exponent++) minor.push(BigInt(whole + fraction.padEnd(exponent, '0')));
  return {
    amount: fraction ? `${whole}.${fraction}` : whole,
    amountMinor: minor,
    ...(fraction.length <= 2 ? { usdtCents: BigInt(whole + fraction.padEnd(2, '0')) } : {}),
  };
}

/** Everything `q` can be. */
function searchTerms(q: string): SearchTerms & { usdtCents?: bigint; address?: string } {
  const text = q.trim();
  const id = idPrefix(text);
  // A tail as people write it: "1234", "*1234", "…1234", "•• 1234".
  const tail = /^(?:[*…•·.\s]*)(\d{4})$/.exec(text)?.[1];
  const txHash = /^(0x)?[0-9a-fA-F]{64}$/.test(text) ? canonicalTxHash(text) : undefined;
  const address = tronAddressProblem(text) ? undefined : text;
  return {
    ...(id ? { id } : {}),
    ...(tail ? { tail } : {}),
    ...amountTerms(text),
    ...(text.length >= 2 ? { text: text.toLowerCase() } : {}),
    ...(txHash ? { txHash } : {}),
    ...(address ? { address } : {}),
  };
}

const iso = (d: Date) => d.toISOString();

export async function searchConsole(deps: AppDeps, role: OperatorRole, q: { q: string; limit?: number }) {
  const limit = Math.min(Math.max(q.limit ?? 10, 1), 25);
  const terms = searchTerms(q.q);
  const kinds = searchKindsFor(role);
  const may = (kind: SearchKind) => kinds.includes(kind);
  const none = Promise.resolve([]);
  // Appeals are found through the deals the same search found (a card tail finds the disputed deal's appeal).
  const dealHits = may('deals') || may('appeals') ? await searchDeals(deps.sql, terms, limit) : [];
  const [appeals, withdrawals, merchants, traders, operators] = await Promise.all([
    may('appeals')
      ? searchAppeals(
          deps.sql,
          terms,
          dealHits.map((d) => d.id),
          limit,
        )
      : none,
    may('withdrawals') ? searchWithdrawals(deps.sql, terms, limit) : none,
    may('merchants') ? searchMerchants(deps.sql, terms, limit) : none,
    may('traders') ? searchTraders(deps.sql, terms, limit) : none,
    may('operators') ? searchOperators(deps.sql, terms, limit) : none,
  ]);
  return {
    q: q.q,
    kinds,
    deals: may('deals')
      ? dealHits.map((d) => ({
          deal_id: d.id,
          deal_type: d.deal_type,
          status: d.status,
          amount: d.amount.toString(),
          currency: d.currency,
          client_id: d.client_id,
          merchant_id: d.merchant_id,
          merchant_name: d.merchant_name,
          sandbox: d.sandbox,
          created_at: iso(d.created_at),
          matched: d.matched,
        }))
      : [],
    appeals: appeals.map((a) => ({
      appeal_id: a.id,
      deal_id: a.deal_id,
      status: a.status,
      merchant_id: a.merchant_id,
      merchant_name: a.merchant_name,
      created_at: iso(a.created_at),
      matched: a.matched,
    })),
    withdrawals: withdrawals.map((w) => ({
      withdrawal_id: w.id,
      status: w.status,
      amount: w.amount.toString(),
      address: w.address,
      tx_hash: w.tx_hash,
      merchant_id: w.merchant_id,
      merchant_name: w.merchant_name,
      created_at: iso(w.created_at),
      matched: w.matched,
    })),
    merchants: merchants.map((m) => ({ merchant_id: m.id, name: m.name, email: m.email, status: m.status, sandbox: m.sandbox, matched: m.matched })),
    traders: traders.map((t) => ({ trader_id: t.id, name: t.name, status: t.status, matched: t.matched })),
    operators: operators.map((o) => ({ operator_id: o.id, email: o.email, role: o.role, disabled: o.disabled, matched: o.matched })),
  };
}
