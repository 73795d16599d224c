/** Whitelist passes: created ACTIVE with a TTL, reserved by PayIn matching, expired by their workflow. */
import type { AppDeps } from '../deps';
import { InvalidArgument } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { findCurrency, findPaymentMethod } from '../../db/queries/catalog';
import { insertPass, listPasses, type PassRow } from '../../db/queries/passes';
import { findTrader } from '../../db/queries/traders';
import { passSearchAttributes, passTaskQueue, passWorkflowId, passWorkflowType, type PassWorkflow } from '../../workflows/contracts/pass';
import { clampPageSize, cursorOf, keysetPage } from './page-token';
import type { MerchantScope } from './payins';

const PASS_STATUSES = ['ACTIVE', 'USED', 'EXPIRED'];

export function presentPass(row: PassRow, nowMs: number) {
  const expired = row.status === 'ACTIVE' && row.expires_at.getTime() <= nowMs;
  return {
    pass_id: row.id,
    tenant_id: row.tenant_id,
    merchant_id: row.merchant_id,
    provider_id: row.provider_id ?? '',
    amount: row.amount.toString(),
    currency_id: row.currency_id ?? '',
    payment_method_id: row.payment_method_id ?? '',
    requisite_type: row.requisite_type ?? '',
    status: expired ? ('EXPIRED' as const) : row.status,
    expires_at: row.expires_at.toISOString(),
    used_deal_id: row.used_deal_id ?? '',
    created_at: row.created_at.toISOString(),
  };
}

const invalid = (field: string, message: string) => new InvalidArgument(message, [{ field, message, code: 'invalid_reference' }]);

export async function createPass(
  deps: AppDeps,
  scope: MerchantScope,
  body: { amount: bigint; currency_id?: string; requisite_type?: string; payment_method_id?: string; provider_id?: string },
): Promise<PassRow> {
  let currencyCode: string | undefined;
  if (body.currency_id) {
    const currency = await findCurrency(deps.sql, scope.tenantId, body.currency_id);
    if (!currency) throw invalid('currency_id', `unknown currency_id ${body.currency_id}`);
    currencyCode = currency.code;
  }
  if (body.payment_method_id) {
    const method = await findPaymentMethod(deps.sql, scope.tenantId, body.payment_method_id);
    if (!method) throw invalid('payment_method_id', `unknown payment_method_id ${body.payment_method_id}`);
    if (currencyCode && method.currency_code !== currencyCode) {
      throw invalid('payment_method_id', `payment method ${body.payment_method_id} is for ${method.currency_code}, not ${currencyCode}`);
    }
    if (body.requisite_type && !method.requisite_types.includes(body.requisite_type)) {
      throw invalid(
        'requisite_type',
        `payment method ${body.payment_method_id} has no requisite type ${body.requisite_type} (it has ${method.requisite_types.join(', ')})`,
      );
    }
  }
  if (body.provider_id) {
    const trader = await findTrader(deps.sql, body.provider_id);
    if (trader?.tenant_id !== scope.tenantId) throw invalid('provider_id', `unknown provider_id ${body.provider_id}`);
  }
  const row = await insertPass(
    deps.sql,
    {
      id: newId(),
      tenant_id: scope.tenantId,
      merchant_id: scope.merchantId,
      provider_id: body.provider_id ?? null,
      amount: body.amount,
      currency_id: body.currency_id ?? null,
      payment_method_id: body.payment_method_id ?? null,
      requisite_type: body.requisite_type ?? null,
    },
    deps.config.PASS_TTL_SECONDS,
  );
  // The expiry timer. Should this start fail, reads and matching still treat the pass as expired at expires_at.
  await deps.temporal.workflow.start<PassWorkflow>(passWorkflowType, {
    workflowId: passWorkflowId(row.id),
    taskQueue: passTaskQueue(deps.config),
    args: [{ passId: row.id, expiresAt: row.expires_at.toISOString() }],
    typedSearchAttributes: passSearchAttributes({ merchantId: scope.merchantId }),
  });
  return row;
}

export async function listMerchantPasses(deps: AppDeps, merchantId: string, q: { status?: string[]; page_size?: number; page_token?: string }) {
  const scope = `passes:${merchantId}`;
  const after = cursorOf(deps, scope, q.page_token);
  const statuses = q.status?.filter((s) => PASS_STATUSES.includes(s));
  if (q.status && q.status.length > 0 && statuses!.length === 0) return { data: [], next_page_token: '' };
  const size = clampPageSize(q.page_size, 20, 100);
  const page = keysetPage(deps, scope, await listPasses(deps.sql, merchantId, statuses, size + 1, after), size);
  const now = deps.now();
  return { data: page.rows.map((r) => presentPass(r, now)), next_page_token: page.next_page_token };
}
