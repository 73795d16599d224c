/**
 * The gateway client: the typed openapi-fetch client over the generated types (`gateway.api`,
 * every operation of the document), and methods named after the merchant API's operationIds
 * that sign, retry, unwrap the answer and throw typed errors.
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi.js';
import { ApiError } from './errors.js';
import { createSignedFetch, type SignedFetchOptions } from './http.js';
import { EventFeed, paginate, type Page } from './pagination.js';
import type { WebhookEvent } from './webhooks.js';

type Schemas = components['schemas'];
export type Deal = Schemas['MerchantDealInfo'];
export type PayoutDeal = Schemas['PayoutResponse']['deal'];
export type CreatePayinRequest = Schemas['CreatePayinRequest'];
export type CreatePayoutRequest = Schemas['CreatePayoutRequest'];
export type Balance = Schemas['Balance'];
export type CallbackDelivery = Schemas['CallbackDelivery'];
export type KeyPair = Schemas['KeyPair'];
export type Appeal = Schemas['Appeal'];
export type Pass = Schemas['Pass'];
export type Withdrawal = Schemas['Withdrawal'];

type QueryOf<Op extends keyof operations> = operations[Op]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
type BodyOf<Op extends keyof operations> = operations[Op]['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;

/** A create body whose idempotency_key may be left out: the SDK then makes one (a UUID) and reuses it on every retry. */
export type WithOptionalKey<B> = Omit<B, 'idempotency_key'> & { idempotency_key?: string };

export interface GatewayClientOptions extends SignedFetchOptions {
  /** The gateway's address, e.g. https://gateway.example.com (the paths carry /api/v1/p2p/…). */
  baseUrl: string;
}

/** JSON with bigint written as a plain integer (amounts beyond 2^53). */
export function stringifyJson(value: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    marks.push(v.toString());
    return `\u0000bigint:${marks.length - 1}\u0000`;
  });
  return marks.length === 0 ? text : text.replace(/"\\u0000bigint:(\d+)\\u0000"/g, (_m, i: string) => marks[Number(i)]!);
}

type Result = { data?: unknown; error?: unknown; response: Response };

/** The answer's data, or the typed error of a non-2xx answer. */
async function call<R extends Result>(pending: Promise<R>): Promise<NonNullable<R['data']>> {
  const { data, error, response } = await pending;
  if (!response.ok) {
    const retryAfter = response.headers.get('Retry-After');
    throw ApiError.from({
      status: response.status,
      body: error,
      traceId: response.headers.get('X-Trace-Id') ?? undefined,
      retryAfterSeconds: retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined,
    });
  }
  return data as NonNullable<R['data']>;
}

const M = '/api/v1/p2p/merchant';

export class GatewayClient {
  /** The typed client of every operation (openapi-fetch): `gateway.api.GET('/api/v1/p2p/merchant/deals/{deal_id}', …)`, signed and retried. */
  readonly api: Client<paths>;
  private readonly credentials: SignedFetchOptions;

  constructor(options: GatewayClientOptions) {
    const { baseUrl, ...signing } = options;
    if (!baseUrl) throw new TypeError('baseUrl is required');
    if (!/^[0-9a-f]{64}$/.test(signing.token)) throw new TypeError('token must be the 64 hex characters the gateway issued');
    if (!signing.secret) throw new TypeError('secret is required');
    this.credentials = { userAgent: 'merchant-gateway-sdk/0.1.0', ...signing };
    this.api = createClient<paths>({
      baseUrl,
      fetch: createSignedFetch(this.credentials),
      bodySerializer: stringifyJson,
      headers: { Accept: 'application/json' },
    });
  }

  /** Sign with another key pair from now on (rotateApiKeys does this itself). */
  setCredentials(pair: KeyPair): void {
    this.credentials.token = pair.token;
    this.credentials.secret = pair.secret;
  }

  // ---- Deals ----

  /** Create a PayIn (ESCROW_LOCKED when answered). Idempotent by idempotency_key: pass your order id. */
  async createPayin(body: WithOptionalKey<CreatePayinRequest>): Promise<Deal> {
    const payload = { ...body, idempotency_key: body.idempotency_key ?? randomUUID() } as CreatePayinRequest;
    return (await call(this.api.POST(`${M}/deals/payin`, { body: payload }))).deal;
  }

  /** Create a PayOut (the USDT hold is placed at once). Idempotent by idempotency_key. */
  async createPayout(body: WithOptionalKey<CreatePayoutRequest>): Promise<PayoutDeal> {
    const payload = { ...body, idempotency_key: body.idempotency_key ?? randomUUID() } as CreatePayoutRequest;
    return (await call(this.api.POST(`${M}/deals/payout`, { body: payload }))).deal;
  }

  /** One deal (PayIn or PayOut); another merchant's or an unknown id is NotFoundError. */
  async getDeal(dealId: string): Promise<Deal> {
    return (await call(this.api.GET(`${M}/deals/{deal_id}`, { params: { path: { deal_id: dealId } } }))).deal;
  }

  /** Cancel a PayIn before payment confirmation (a repeat on CANCELLED answers the deal again). */
  async cancelDeal(dealId: string, reason?: string): Promise<Deal> {
    const options = { params: { path: { deal_id: dealId } }, ...(reason !== undefined ? { body: { reason } } : {}) };
    return (await call(this.api.POST(`${M}/deals/{deal_id}/cancel`, options))).deal;
  }

  /** One page of the deal listing, newest first. */
  listDeals(query: QueryOf<'listDeals'> = {}): Promise<Page<Deal>> {
    return call(this.api.GET(`${M}/deals`, { params: { query } }));
  }

  /** Every deal of the listing, page after page: `for await (const deal of gateway.allDeals({ deal_type: 'PAYIN' }))`. */
  allDeals(query: Omit<QueryOf<'listDeals'>, 'page_token'> = {}): AsyncGenerator<Deal, void, undefined> {
    return paginate((token) => this.listDeals({ ...query, ...(token ? { page_token: token } : {}) }));
  }

  /** The deals as CSV (the listing's filters). */
  async exportDeals(query: QueryOf<'exportDeals'> = {}): Promise<string> {
    return call(this.api.GET(`${M}/deals/export`, { params: { query }, parseAs: 'text', headers: { Accept: 'text/csv' } })) as Promise<string>;
  }

  /** Daily UTC turnover per deal type and currency. */
  getTurnover(query: QueryOf<'getTurnover'> = {}) {
    return call(this.api.GET(`${M}/deals/turnover`, { params: { query } }));
  }

  // ---- Events and webhooks ----

  /** One page of the events feed, oldest first (the token of its last page is never empty). */
  listEvents(query: QueryOf<'listEvents'> = {}): Promise<Page<WebhookEvent>> {
    return call(this.api.GET(`${M}/events`, { params: { query } }));
  }

  /**
   * The events feed from `pageToken` ('' or absent: from the first event) to its current end;
   * `feed.pageToken` is where it stands — keep it to resume from there next time. At least once:
   * the position passes a page only once every event of it was handled, so a resume after a crash
   * mid-page hands that page out again (dedupe by event_id).
   */
  eventFeed(options: { types?: string[]; pageToken?: string; pageSize?: number } = {}): EventFeed<WebhookEvent> {
    return new EventFeed<WebhookEvent>(
      (token, size) => this.listEvents({ page_size: size, ...(options.types ? { types: options.types } : {}), ...(token ? { page_token: token } : {}) }),
      options,
    );
  }

  /** One page of the webhook delivery history, newest first. */
  listCallbacks(query: QueryOf<'listCallbacks'> = {}): Promise<Page<CallbackDelivery>> {
    return call(this.api.GET(`${M}/callbacks`, { params: { query } }));
  }

  allCallbacks(query: Omit<QueryOf<'listCallbacks'>, 'page_token'> = {}): AsyncGenerator<CallbackDelivery, void, undefined> {
    return paginate((token) => this.listCallbacks({ ...query, ...(token ? { page_token: token } : {}) }));
  }

  /** Deliver an ERROR or RETRY delivery again now (once per cooldown). */
  retryCallback(callbackId: string): Promise<CallbackDelivery> {
    return call(this.api.POST(`${M}/callbacks/{callback_id}/retry`, { params: { path: { callback_id: callbackId } } }));
  }

  // ---- Balance, keys, catalogs, profile ----

  getBalance(): Promise<Balance> {
    return call(this.api.GET(`${M}/balance`));
  }

  /**
   * Rotate the key pair: the new pair works at once, the old one for the grace window (webhooks
   * are signed with both meanwhile). This client signs with the new pair from now on; store its
   * secret — it is shown once.
   */
  async rotateApiKeys(): Promise<KeyPair> {
    const pair = await call(this.api.POST(`${M}/api-keys/rotate`));
    this.setCredentials(pair);
    return pair;
  }

  listPaymentMethods() {
    return call(this.api.GET(`${M}/payment-methods`));
  }

  listBanks(query: QueryOf<'listBanks'> = {}) {
    return call(this.api.GET(`${M}/banks`, { params: { query } }));
  }

  listCurrencies() {
    return call(this.api.GET(`${M}/currencies`));
  }

  getMyMerchant() {
    return call(this.api.GET('/api/v1/p2p/my-merchant'));
  }

  // ---- Appeals and passes ----

  async createAppeal(body: BodyOf<'createAppeal'>): Promise<Appeal> {
    return (await call(this.api.POST(`${M}/appeals`, { body }))).data;
  }

  async getAppeal(appealId: string): Promise<Appeal> {
    return (await call(this.api.GET(`${M}/appeals/{appeal_id}`, { params: { path: { appeal_id: appealId } } }))).data;
  }

  listAppeals(query: QueryOf<'listAppeals'> = {}): Promise<Page<Appeal>> {
    return call(this.api.GET(`${M}/appeals`, { params: { query } }));
  }

  allAppeals(query: Omit<QueryOf<'listAppeals'>, 'page_token'> = {}): AsyncGenerator<Appeal, void, undefined> {
    return paginate((token) => this.listAppeals({ ...query, ...(token ? { page_token: token } : {}) }));
  }

  async createAppealMessage(appealId: string, body: BodyOf<'createAppealMessage'>) {
    return (await call(this.api.POST(`${M}/appeals/{appeal_id}/messages`, { params: { path: { appeal_id: appealId } }, body }))).data;
  }

  async listAppealMessages(appealId: string) {
    return (await call(this.api.GET(`${M}/appeals/{appeal_id}/messages`, { params: { path: { appeal_id: appealId } } }))).data.messages;
  }

  async createPass(body: BodyOf<'createPass'>): Promise<Pass> {
    return (await call(this.api.POST(`${M}/passes`, { body }))).pass;
  }

  listPasses(query: QueryOf<'listPasses'> = {}): Promise<Page<Pass>> {
    return call(this.api.GET(`${M}/passes`, { params: { query } }));
  }

  // ---- Withdrawals ----

  /** Withdraw USDT (TRC-20). With an idempotency_key the SDK retries it safely; without one it is sent once. */
  createWithdrawal(body: BodyOf<'createWithdrawal'>): Promise<Withdrawal> {
    return call(this.api.POST(`${M}/wallet/withdraw`, { body }));
  }

  getWithdrawal(withdrawalId: string): Promise<Withdrawal> {
    return call(this.api.GET(`${M}/wallet/withdrawals/{withdrawal_id}`, { params: { path: { withdrawal_id: withdrawalId } } }));
  }

  listWithdrawals(query: QueryOf<'listWithdrawals'> = {}): Promise<Page<Withdrawal>> {
    return call(this.api.GET(`${M}/wallet/withdrawals`, { params: { query } }));
  }
}
