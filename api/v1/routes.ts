/**
 * Every /v1/ route (spec 4.9) as translation only: the V1 request becomes the V2 service call
 * the V2 route makes (createPayin, createPayout, getMerchantDeal, listBanks …), and its answer
 * becomes the V1 envelope. Each route names the fields of its signed payload (spec 5.5 for the
 * create categories and the banks list; `{timestamp}` for lists and statistics and
 * `{timestamp};{id}` for GET by id — docs/v1.md).
 */
import { merchantOf } from '../auth/authenticate';
import { defineRoute, type RouteDef } from '../route';
import { DomainError, FailedPrecondition, InvalidArgument, NotFound } from '../../domain/errors';
import { walletsOf } from '../../db/queries/wallets';
import { type V1DisputeRow, findV1Dispute, incomingStatistics, insertV1Dispute, listV1Disputes, listV1Deals, listV1Withdrawals, outgoingStatistics, tenantCurrencies } from '../../db/queries/v1';
import { listBanks } from '../services/catalog';
import { createPayin, getMerchantDeal } from '../services/payins';
import { createPayout } from '../services/payouts';
import { createWithdrawal, getMerchantWithdrawal } from '../services/withdrawals';
import { presentWithdrawal } from '../../domain/withdrawal-info';
import { v1Withdrawal } from '../../domain/v1-records';
import { disputeStatusesForCode, v1DisputeCode, withdrawalStatusesForCode } from '../../domain/v1-codes';
import { appealableDeal, createAppeal } from '../services/appeals';
import { discardFile, readFile, storeFile } from '../services/files';
import { createAppealBody } from '../schemas/appeals';
import type { AppDeps } from '../deps';
import { listPage, ok } from './envelope';
import * as s from './schemas';
import { currencyFromNumeric, dealRecord, fiat, listedRecord, selectorsFor, toMinor, usdt } from './translate';

const tags = ['V1 (legacy, deprecated)'];
const DEFINITE_REFUSALS: string[] = ['INVALID_ARGUMENT', 'FAILED_PRECONDITION', 'NOT_FOUND', 'CONFLICT', 'PERMISSION_DENIED'];
const DEFAULT_TAKE = 20;
const V1_DESCRIPTION =
  'Legacy V1 adapter (spec 4.9, 5.5, 9): deprecated; every answer carries Deprecation, Sunset and Link rel="successor-version", ' +
  'and from V1_SUNSET_AT on every /v1/ request is 410 Gone. ';

function unknownCode(code: number): never {
  throw new InvalidArgument(`unknown status code: ${code}`, [{ field: 'status', message: `unknown status code: ${code}`, code: 'unknown_status' }]);
}

const FILE_PATH = '/api/v1/p2p/merchant/files';

function disputeListItem(d: V1DisputeRow) {
  return {
    disputId: d.id,
    status: v1DisputeCode(d.status),
    paymentId: d.deal_id,
    clientComment: d.client_comment ?? '',
    merchantComment: d.merchant_comment ?? '',
    traderComment: '',
    adminComment: d.resolution_note || d.admin_body || '',
    description: d.description ?? d.reason,
    createdAt: d.created_at.toISOString(),
    lastModifiedAt: d.updated_at.toISOString(),
    finalizedAt: d.resolved_at?.toISOString() ?? null,
  };
}

/** The 17-field profile: the 11 list fields plus the receipt and the arbiter's answer file, read as their owner may. */
async function disputeProfile(deps: AppDeps, merchantId: string, d: V1DisputeRow) {
  const file = async (id: string | null | undefined) => {
    if (!id) return { body: '', type: '' };
    const { row, bytes } = await readFile(deps, { kind: 'merchant', merchantId }, id);
    return { body: bytes.toString('base64'), type: row.content_type };
  };
  const receiptId = d.file_ids[0];
  const [receipt, answer] = await Promise.all([file(receiptId), file(d.admin_file_id)]);
  return {
    ...disputeListItem(d),
    receiptFileBody: receipt.body,
    receiptFileType: receipt.type,
    receiptFileUrl: d.receipt_url || (receiptId ? `${FILE_PATH}/${receiptId}` : ''),
    answerFileBody: answer.body,
    answerFileType: answer.type,
    answerFileUrl: d.admin_file_id ? `${FILE_PATH}/${d.admin_file_id}` : '',
  };
}

function window(startDate?: Date, endDate?: Date) {
  if (startDate && endDate && startDate > endDate) throw new InvalidArgument('startDate must not be later than endDate');
  return { startDate, endDate };
}

const createIncoming = (path: string, summary: string) =>
  defineRoute(
    {
      method: 'post',
      path,
      auth: 'v1',
      summary,
      description:
        V1_DESCRIPTION +
        'Signed payload `{timestamp};{payInId};{salt}`. payInId → idempotency_key (a repeat answers the same payment), method → ' +
        'payment_method_id, amount (decimal string) → minor units by the currency exponent, currency (ISO 4217 numeric) → alphabetic, ' +
        'clientId → client_id; successUrl and failUrl are ignored. Then exactly POST /deals/payin.',
      tags,
      body: s.incomingCreateBody,
      response: s.incomingResponse,
      errors: [409],
      v1Payload: ({ body }) => [body.payInId, body.salt],
    },
    async ({ identity, body }, deps) => {
      const scope = merchantOf(identity);
      const currency = await currencyFromNumeric(deps, scope.tenantId, body.currency);
      const row = await createPayin(deps, scope, {
        idempotency_key: body.payInId,
        amount: toMinor(body.amount, currency),
        currency: currency.code,
        payment_method_id: body.method,
        client_id: body.clientId,
      });
      return ok(await dealRecord(deps, row));
    },
  );

const getDeal = (dealType: 'PAYIN' | 'PAYOUT', path: string) =>
  defineRoute(
    {
      method: 'get',
      path,
      auth: 'v1',
      summary: dealType === 'PAYIN' ? 'V1: one PayIn with its numeric V1 status' : 'V1: one PayOut with its numeric V1 status',
      description: V1_DESCRIPTION + 'Signed payload `{timestamp};{id}`. Another merchant\'s or unknown id, or a deal of the other type: 404.',
      tags,
      params: s.idParams,
      response: dealType === 'PAYIN' ? s.incomingResponse : s.outgoingResponse,
      errors: [404],
      v1Payload: ({ params }) => [params.id],
    },
    async ({ identity, params }, deps) => {
      const row = await getMerchantDeal(deps, merchantOf(identity), params.id);
      if (row.deal_type !== dealType) throw new NotFound('deal not found');
      return ok(await dealRecord(deps, row));
    },
  );

const listDeals = (dealType: 'PAYIN' | 'PAYOUT', path: string) =>
  defineRoute(
    {
      method: 'post',
      path,
      auth: 'v1',
      summary: dealType === 'PAYIN' ? 'V1: PayIns, newest first, skip/take' : 'V1: PayOuts, newest first, skip/take',
      description:
        V1_DESCRIPTION +
        'Signed payload `{timestamp}`. Filters: status (numeric V1 code; unknown → 400), skip, take (1–100, default 20), startDate and ' +
        'endDate (RFC 3339, inclusive, by creation)' +
        (dealType === 'PAYIN' ? ', id (UUID)' : '') +
        '. count is every match; next_page_token is the next skip, empty on the last page.',
      tags,
      body: dealType === 'PAYIN' ? s.incomingListBody : s.outgoingListBody,
      bodyOptional: true,
      response: dealType === 'PAYIN' ? s.incomingListResponse : s.outgoingListResponse,
      v1Payload: () => [],
    },
    async ({ identity, body }, deps) => {
      const { merchantId } = merchantOf(identity);
      const q = (body ?? {}) as { status?: number; skip?: number; take?: number; startDate?: Date; endDate?: Date; id?: string };
      const skip = q.skip ?? 0;
      const { rows, count } = await listV1Deals(
        deps.sql,
        { merchantId, dealType, selectors: selectorsFor(dealType, q.status), id: q.id, ...window(q.startDate, q.endDate) },
        skip,
        q.take ?? DEFAULT_TAKE,
      );
      return ok(listPage(rows.map((r) => listedRecord(deps, r)), count, skip));
    },
  );

export const v1Routes: RouteDef[] = [
  createIncoming('/v1/payments/incoming', 'V1: create a PayIn'),
  createIncoming('/v1/payments/incoming/idempotency', 'V1: create a PayIn (legacy mirror of /v1/payments/incoming)'),
  createIncoming('/v1/payments/incoming/nochannel', 'V1: create a PayIn (legacy mirror of /v1/payments/incoming)'),
  getDeal('PAYIN', '/v1/payments/incoming/{id}'),
  listDeals('PAYIN', '/v1/payments/incoming/list'),
  defineRoute(
    {
      method: 'post',
      path: '/v1/payments/incoming/statistics',
      auth: 'v1',
      summary: 'V1: PayIn statistics per payment method (14 fields)',
      description:
        V1_DESCRIPTION +
        'Signed payload `{timestamp}`. Over startDate..endDate (inclusive, by creation; open when absent). Paid = COMPLETED, ' +
        'timeout = EXPIRED, cancelled = CANCELLED + SPAM_REJECTED, returned = REFUND_PENDING, disput = APPEALED + SOFT_DISPUTED; ' +
        'conversionPercent = paid / all × 100 (two decimals); fiat sums in the method currency, balance sums in USDT: what ' +
        'completed PayIns credited the merchant and their fee.',
      tags,
      body: s.statisticsBody,
      bodyOptional: true,
      response: s.incomingStatisticsResponse,
      v1Payload: () => [],
    },
    async ({ identity, body }, deps) => {
      const { startDate, endDate } = window(body?.startDate, body?.endDate);
      const rows = await incomingStatistics(deps.sql, merchantOf(identity).merchantId, startDate, endDate);
      return ok({
        statistics: rows.map((r) => ({
          method: r.method,
          conversionPercent: r.conversion_percent,
          paymentsCount: r.payments_count,
          paymentsPaidCount: r.paid_count,
          paymentsTimeoutCount: r.timeout_count,
          paymentsCancelledCount: r.cancelled_count,
          paymentsReturnedCount: r.returned_count,
          paymentsDisputCount: r.disput_count,
          paymentsCurrency: r.currency_numeric,
          paymentsAmount: fiat(r.payments_amount, r.currency_exponent),
          paymentsPaidAmount: fiat(r.paid_amount, r.currency_exponent),
          balanceCurrency: 'USDT',
          paymentsToBalanceAmount: usdt(r.to_balance_amount),
          paymentsCommissionAmount: usdt(r.commission_amount),
        })),
      });
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/v1/payments/outgoing',
      auth: 'v1',
      summary: 'V1: create a PayOut',
      description:
        V1_DESCRIPTION +
        'Signed payload `{timestamp};{payOutId};{salt}`. payOutId → idempotency_key, paymentMethod → payment_method, cardNumber → ' +
        "target_requisite, fullName → target_name, amount and currency as for PayIn; the hold is taken from the merchant's USDT " +
        'wallet. Then exactly POST /deals/payout.',
      tags,
      body: s.outgoingCreateBody,
      response: s.outgoingResponse,
      errors: [409],
      v1Payload: ({ body }) => [body.payOutId, body.salt],
    },
    async ({ identity, body }, deps) => {
      const scope = merchantOf(identity);
      const currency = await currencyFromNumeric(deps, scope.tenantId, body.currency);
      const amount = toMinor(body.amount, currency);
      const wallet = (await walletsOf(deps.sql, 'merchant', scope.merchantId)).find((w) => w.currency === 'USDT');
      if (!wallet) throw new FailedPrecondition('the merchant has no USDT wallet');
      const row = await createPayout(deps, scope, {
        idempotency_key: body.payOutId,
        amount,
        currency: currency.code,
        wallet_id: wallet.id,
        target_requisite: body.cardNumber,
        target_name: body.fullName,
        payment_method: body.paymentMethod,
      });
      return ok(await dealRecord(deps, row));
    },
  ),
  getDeal('PAYOUT', '/v1/payments/outgoing/{id}'),
  listDeals('PAYOUT', '/v1/payments/outgoing/list'),
  defineRoute(
    {
      method: 'post',
      path: '/v1/payments/outgoing/statistics',
      auth: 'v1',
      summary: 'V1: PayOut statistics per payment method (12 fields)',
      description:
        V1_DESCRIPTION +
        'Signed payload `{timestamp}`. Sent = COMPLETED, cancelled = FAILED + EXPIRED, disput = 0 (a PayOut has no dispute state); ' +
        'conversionPercent = sent / all × 100; paymentsFromBalanceAmount is what completed PayOuts debited in USDT (amount at the ' +
        'SELL rate + fee), paymentsCommissionAmount their fee.',
      tags,
      body: s.statisticsBody,
      bodyOptional: true,
      response: s.outgoingStatisticsResponse,
      v1Payload: () => [],
    },
    async ({ identity, body }, deps) => {
      const { startDate, endDate } = window(body?.startDate, body?.endDate);
      const rows = await outgoingStatistics(deps.sql, merchantOf(identity).merchantId, startDate, endDate);
      return ok({
        statistics: rows.map((r) => ({
          method: r.method,
          conversionPercent: r.conversion_percent,
          paymentsCount: r.payments_count,
          paymentsSentCount: r.sent_count,
          paymentsCancelledCount: r.cancelled_count,
          paymentsDisputCount: r.disput_count,
          paymentsCurrency: r.currency_numeric,
          paymentsAmount: fiat(r.payments_amount, r.currency_exponent),
          paymentsSentAmount: fiat(r.sent_amount, r.currency_exponent),
          balanceCurrency: 'USDT',
          paymentsFromBalanceAmount: usdt(r.from_balance_amount),
          paymentsCommissionAmount: usdt(r.commission_amount),
        })),
      });
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/v1/banks/list',
      auth: 'v1',
      summary: 'V1: banks of the tenant (5-field profile)',
      description:
        V1_DESCRIPTION +
        'Signed payload `{timestamp}`. Filters: country (ISO 3166-1 alpha-2), bankName (bank name or display name, any case), ' +
        'methodName (a RequisiteType such as BANK_CARD), skip, take (1–100, default 20). methodNames are the RequisiteTypes the bank ' +
        'serves; currencies their ISO 4217 numeric codes.',
      tags,
      body: s.banksListBody,
      bodyOptional: true,
      response: s.banksListResponse,
      v1Payload: () => [],
    },
    async ({ identity, body }, deps) => {
      const { tenantId } = merchantOf(identity);
      const q = body ?? {};
      const [banks, currencies] = await Promise.all([
        listBanks(deps, tenantId, { country: q.country, bankName: q.bankName, method: q.methodName }),
        tenantCurrencies(deps.sql, tenantId),
      ]);
      const numeric = new Map(currencies.map((c) => [c.code, c.numeric_code]));
      const skip = q.skip ?? 0;
      const page = banks.slice(skip, skip + (q.take ?? DEFAULT_TAKE)).map((b) => ({
        id: b.id,
        country: b.country,
        bankName: b.display_name,
        methodNames: b.methods,
        currencies: b.currencies.map((c) => numeric.get(c)).filter((n): n is number => typeof n === 'number'),
      }));
      return ok(listPage(page, banks.length, skip));
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/v1/merchant/withdraw',
      auth: 'v1',
      summary: 'V1: withdraw USDT (TRC-20) to a TRON address',
      description:
        V1_DESCRIPTION +
        'Signed payload `{timestamp};{requestId};{wallet};{salt}` (wallet = the body field wallet, or address when only the alias is ' +
        'sent). Keyed by requestId: a repeat with the same amount and wallet answers the withdrawal made under it (in its current ' +
        'state); the same requestId with another amount or wallet is 409; a new requestId is a new withdrawal, even to the same ' +
        'wallet for the same amount. amount is USDT with the fee included (at most 2 decimals); an invalid mainnet TRON address is ' +
        '400. Then the service of POST /wallet/withdraw (same fee, hold, auto/manual rule, workflow).',
      tags,
      body: s.withdrawCreateBody,
      response: s.withdrawalResponse,
      errors: [409],
      v1Payload: ({ body }) => [body.requestId, body.wallet ?? body.address, body.salt],
    },
    async ({ identity, body }, deps) => {
      const { merchantId } = merchantOf(identity);
      if (body.isBalanceCommission === true) {
        throw new InvalidArgument('isBalanceCommission true is not supported: the fee is always taken from the amount', [
          { field: 'isBalanceCommission', message: 'only false is supported', code: 'unsupported' },
        ]);
      }
      const amount = toMinor(body.amount, { code: 'USDT', exponent: 2 });
      const row = await createWithdrawal(
        deps,
        merchantId,
        { address: body.wallet ?? body.address, amount, idempotency_key: body.requestId },
        { value: body.requestId, field: 'requestId' },
      );
      return ok(v1Withdrawal(presentWithdrawal(row), merchantId, { comment: body.comment, callbackUrl: body.callbackUrl }));
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/v1/merchant/withdraw/list',
      auth: 'v1',
      summary: 'V1: withdrawals, newest first, skip/take',
      description:
        V1_DESCRIPTION +
        'Signed payload `{timestamp}`. Filters: status (V1 code 1–4; unknown → 400), skip, take (1–100, default 20), startDate, endDate.',
      tags,
      body: s.withdrawListBody,
      bodyOptional: true,
      response: s.withdrawalListResponse,
      v1Payload: () => [],
    },
    async ({ identity, body }, deps) => {
      const { merchantId } = merchantOf(identity);
      const q = (body ?? {}) as { status?: number; skip?: number; take?: number; startDate?: Date; endDate?: Date };
      let statuses: string[] | undefined;
      if (q.status !== undefined) {
        statuses = withdrawalStatusesForCode(q.status);
        if (!statuses) {
          throw new InvalidArgument(`unknown status code: ${q.status}`, [{ field: 'status', message: `unknown status code: ${q.status}`, code: 'unknown_status' }]);
        }
      }
      const skip = q.skip ?? 0;
      const { rows, count } = await listV1Withdrawals(deps.sql, { merchantId, statuses, ...window(q.startDate, q.endDate) }, skip, q.take ?? DEFAULT_TAKE);
      return ok(listPage(rows.map((r) => v1Withdrawal(presentWithdrawal(r), merchantId)), count, skip));
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/v1/merchant/withdraw/{id}',
      auth: 'v1',
      summary: 'V1: one withdrawal (19-field profile)',
      description: V1_DESCRIPTION + "Signed payload `{timestamp};{id}`. Another merchant's or unknown id: 404.",
      tags,
      params: s.idParams,
      response: s.withdrawalResponse,
      errors: [404],
      v1Payload: ({ params }) => [params.id],
    },
    async ({ identity, params }, deps) => {
      const { merchantId } = merchantOf(identity);
      return ok(v1Withdrawal(presentWithdrawal(await getMerchantWithdrawal(deps, merchantId, params.id)), merchantId));
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/v1/disputs/create',
      auth: 'v1',
      summary: 'V1: open a dispute (an appeal) on a PayIn',
      description:
        V1_DESCRIPTION +
        'Signed payload `{timestamp};{paymentId}`. Becomes POST /appeals: paymentId → deal_id; the reason is description, ' +
        'merchantComment (alias comment) and clientComment joined by new lines (at least 10 characters, as V2); proofImageBase64 ' +
        'becomes an evidence file of the appeal (same types and size limit as file uploads). The fields are echoed back and kept ' +
        'for GET and lists. One dispute per payment (a repeat is 400 FAILED_PRECONDITION, as in V2). A refused dispute stores ' +
        'nothing: the payment, its state and the reason are checked before the proof is stored.',
      tags,
      body: s.disputeCreateBody,
      response: s.disputeResponse,
      errors: [404, 413],
      // The base64 proof image makes this the one large JSON body: read after the merchant's gates.
      maxBodyBytes: 1024 * 1024,
      v1Payload: ({ body }) => [body.paymentId],
    },
    async ({ identity, body }, deps) => {
      const scope = merchantOf(identity);
      const merchantComment = body.merchantComment ?? body.comment ?? '';
      const reasonText = [body.description, merchantComment, body.clientComment].filter((v) => v && v.trim()).join('\n');
      const reason = createAppealBody.shape.reason.safeParse(reasonText);
      if (!reason.success) {
        const message = 'description, merchantComment or clientComment must state the reason, at least 10 characters together';
        throw new InvalidArgument(message, [{ field: 'description', message, code: 'too_small' }]);
      }
      // Every refusal that can be told beforehand comes before the proof is stored; one that comes
      // later (a concurrent dispute on the same payment won the race) takes the stored proof back.
      await appealableDeal(deps, scope, body.paymentId);
      const fileIds: string[] = [];
      if (body.proofImageBase64) {
        const bytes = Buffer.from(body.proofImageBase64.replace(/^data:[^,]*,/, ''), 'base64');
        fileIds.push((await storeFile(deps, { kind: 'merchant', merchantId: scope.merchantId }, bytes, 'proofImageBase64')).id);
      }
      let appeal;
      try {
        appeal = await createAppeal(deps, scope, { deal_id: body.paymentId, reason: reason.data, file_ids: fileIds });
      } catch (error) {
        // Only a definite refusal discards the proof: after an infrastructure failure the appeal may still commit.
        if (error instanceof DomainError && DEFINITE_REFUSALS.includes(error.kind)) await Promise.all(fileIds.map((id) => discardFile(deps, scope, id)));
        throw error;
      }
      await insertV1Dispute(deps.sql, {
        appealId: appeal.id,
        receiptType: body.receiptType ?? '',
        receiptUrl: body.receiptUrl ?? '',
        description: body.description ?? '',
        clientComment: body.clientComment ?? '',
        merchantComment,
      });
      return ok(await disputeProfile(deps, scope.merchantId, (await findV1Dispute(deps.sql, scope.merchantId, appeal.id))!));
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/v1/disputs/list',
      auth: 'v1',
      summary: 'V1: disputes (appeals), newest first, skip/take (11-field profile)',
      description: V1_DESCRIPTION + 'Signed payload `{timestamp}`. Filters: status (V1 dispute code; unknown → 400), skip, take, startDate, endDate.',
      tags,
      body: s.disputeListBody,
      bodyOptional: true,
      response: s.disputeListResponse,
      v1Payload: () => [],
    },
    async ({ identity, body }, deps) => {
      const { merchantId } = merchantOf(identity);
      const q = (body ?? {}) as { status?: number; skip?: number; take?: number; startDate?: Date; endDate?: Date };
      const statuses = q.status === undefined ? undefined : (disputeStatusesForCode(q.status) ?? unknownCode(q.status));
      const skip = q.skip ?? 0;
      const { rows, count } = await listV1Disputes(deps.sql, { merchantId, statuses, ...window(q.startDate, q.endDate) }, skip, q.take ?? DEFAULT_TAKE);
      return ok(listPage(rows.map(disputeListItem), count, skip));
    },
  ),
  defineRoute(
    {
      method: 'get',
      path: '/v1/disputs/{id}',
      auth: 'v1',
      summary: 'V1: one dispute (17-field profile)',
      description: V1_DESCRIPTION + "Signed payload `{timestamp};{id}`. Another merchant's or unknown id: 404.",
      tags,
      params: s.idParams,
      response: s.disputeResponse,
      errors: [404],
      v1Payload: ({ params }) => [params.id],
    },
    async ({ identity, params }, deps) => {
      const { merchantId } = merchantOf(identity);
      const row = await findV1Dispute(deps.sql, merchantId, params.id);
      if (!row) throw new NotFound('dispute not found');
      return ok(await disputeProfile(deps, merchantId, row));
    },
  ),
];
