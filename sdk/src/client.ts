/**
 * The gateway client: the typed openapi-fetch client over the generated types (`gateway.api`,
 * every operation of the document), and methods named after the merchant API's operationIds
 * that sign, retry, unwrap the answer and throw typed errors.
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi.js';
import { ApiError, CallbackWaitTimeoutError, IdempotencyMismatchError } from './errors.js';
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
export type WithdrawRequest = Schemas['WithdrawRequest'];
export type CreatePassRequest = Schemas['CreatePassRequest'];
export type PaymentMethod = Schemas['PaymentMethod'];
export type Bank = Schemas['Bank'];
export type Currency = Schemas['Currency'];
export type Turnover = Schemas['Turnover'];
/** The merchant's profile: its fields and the two withdrawal settings, in one object. */
export type MerchantProfile = Schemas['Merchant'] & Omit<Schemas['MyMerchant'], 'merchant'>;

type QueryOf<Op extends keyof operations> = operations[Op]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
type BodyOf<Op extends keyof operations> = operations[Op]['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;

/** A create body whose idempotency_key may be left out: the SDK then makes one (a UUID) and reuses it on every retry. */
export type WithOptionalKey<B> = Omit<B, 'idempotency_key'> & { idempotency_key?: string };

/**
 * An amount in minor units (USDT cents for withdrawals): a number that is a safe integer, a bigint
 * (beyond 2^53), or a string of an exact integer such as '150000'. Anything else — 1500.5,
 * '1500.00', 2 ** 60 as a number — is refused with a TypeError before the request is sent, never
 * rounded. It is sent as a JSON integer.
 */
export type Amount = number | bigint | string;
/** POST /sandbox/deals/{deal_id}/advance: the deal after its timer fired, and which timer it was. */
export type SandboxAdvance = components['schemas']['SandboxAdvanceResponse'];
type SandboxDepositRequest = components['schemas']['SandboxDepositRequest'];
/** A deposit of play USDT (POST /sandbox/deposits). */
export type SandboxDepositResult = operations['sandboxDeposit']['responses']['201']['content']['application/json']['deposit'];

/** A request body whose amount fields (K) take any Amount. */
export type WithAmounts<B, K extends PropertyKey = 'amount'> = { [P in keyof B]: P extends K ? Amount : B[P] };

export type CreatePayinInput = WithOptionalKey<WithAmounts<CreatePayinRequest>>;
export type CreatePayoutInput = WithOptionalKey<WithAmounts<CreatePayoutRequest>>;
export type CreateWithdrawalInput = WithAmounts<WithdrawRequest>;
export type CreatePassInput = WithAmounts<CreatePassRequest>;

/** Options of the creates that take an idempotency_key. */
export interface CreateOptions {
  /**
   * A repeat with a known idempotency_key answers the object that key made first and ignores the
   * new body. When that object differs from this body (the amount, say), the create throws
   * IdempotencyMismatchError; true returns the original object instead.
   */
  allowIdempotentMismatch?: boolean;
}

/** A create's answer with what the gateway said about it. */
export interface CreateOutcome {
  /** The gateway's Idempotent-Replayed header: true when the key had made the object before, false when this call made it, undefined when the answer did not say. */
  replayed: boolean | undefined;
  /** The fields in which the answered object differs from this body (empty unless allowIdempotentMismatch let a difference through). */
  mismatched: string[];
}

/** retryCallback's `wait`: how long to wait for the delivery's final status, and how often to look. */
export interface CallbackWaitOptions {
  /** Give up after this long with a CallbackWaitTimeoutError (default 60 s). */
  timeoutMs?: number;
  /** Pause between looks (default 1 s). */
  intervalMs?: number;
}

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
  return (await answered(pending)).data;
}

/** The answer's data with the response it came in (its headers), or the typed error of a non-2xx answer. */
async function answered<R extends Result>(pending: Promise<R>): Promise<{ data: NonNullable<R['data']>; response: Response }> {
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
  return { data: data as NonNullable<R['data']>, response };
}

/** An Amount as it is sent: a safe-integer number as it is, a bigint or a digit string as a bigint (a JSON integer). */
export function toAmount(value: unknown, field = 'amount'): number | bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value;
    throw new TypeError(`${field} must be an integer in minor units; ${value} is not a safe integer (pass a bigint or a digit string beyond 2^53)`);
  }
  if (typeof value === 'string') {
    if (/^-?\d+$/.test(value)) return BigInt(value);
    throw new TypeError(`${field} must be an integer in minor units; ${JSON.stringify(value)} is not an exact integer`);
  }
  throw new TypeError(`${field} must be a number, a bigint or a digit string, not ${value === null ? 'null' : typeof value}`);
}

/** The Idempotent-Replayed header: true, false, or undefined when absent (an older gateway). */
function replayedOf(response: Response): boolean | undefined {
  const value = response.headers.get('Idempotent-Replayed')?.trim().toLowerCase();
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/** Whether a field of a create body has the same value in the object answered. */
type Comparison = (sent: unknown, received: unknown) => boolean;
const sameInteger: Comparison = (a, b) => {
  try {
    return BigInt(a as string) === BigInt(b as string);
  } catch {
    return false;
  }
};
const sameString: Comparison = (a, b) => a === b;
/** The gateway trims target_requisite before it keeps it. */
const sameTrimmed: Comparison = (a, b) => typeof a === 'string' && a.trim() === b;
const sameMap: Comparison = (a, b) => {
  const x = Object.entries((a ?? {}) as Record<string, unknown>).sort(([k], [l]) => k.localeCompare(l));
  const y = Object.entries((b ?? {}) as Record<string, unknown>).sort(([k], [l]) => k.localeCompare(l));
  return JSON.stringify(x) === JSON.stringify(y);
};

/**
 * The fields a create's answer lets the SDK compare with its body. The payment method is not
 * among them: the body names it (payment_method_id, payment_method: a slug or a UUID) but the
 * deal does not carry it, so a repeat with another method cannot be told apart. Nor are a
 * PayOut's wallet_id and target_bank, which the deal does not carry either.
 */
const COMPARED: Record<'payin' | 'payout' | 'withdrawal', Record<string, Comparison>> = {
  payin: { amount: sameInteger, currency: sameString, client_id: sameString },
  payout: { amount: sameInteger, currency: sameString, target_requisite: sameTrimmed, target_name: sameString, requisite_details: sameMap },
  withdrawal: { amount: sameInteger, address: sameString },
};

/** The names of the fields sent that the answered object has with another value (a field absent on either side is not compared). */
function mismatches(kind: keyof typeof COMPARED, sent: Record<string, unknown>, received: object): string[] {
  const answer = received as Record<string, unknown>;
  return Object.entries(COMPARED[kind])
    .filter(([field, same]) => sent[field] !== undefined && answer[field] !== undefined && !same(sent[field], answer[field]))
    .map(([field]) => field);
}

const FINAL_DELIVERY = new Set(['SUCCESS', 'ERROR']);
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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

  /**
   * Sandbox merchants (the Sandbox section of the API reference; a live merchant gets 403): `advance(dealId)` fires the
   * deal's current timer now (a PayIn expires, a PayOut's SLA runs out, the fee is distributed) and
   * answers `{ deal, timer }`; `deposit(amount)` credits play USDT cents (pass an idempotencyKey to
   * make a repeat answer the first deposit).
   */
  readonly sandbox = {
    advance: (dealId: string): Promise<SandboxAdvance> =>
      call(this.api.POST(`${M}/sandbox/deals/{deal_id}/advance`, { params: { path: { deal_id: dealId } } })),
    deposit: async (amount: Amount, options: { idempotencyKey?: string } = {}): Promise<SandboxDepositResult> => {
      const body = { amount: toAmount(amount), idempotency_key: options.idempotencyKey ?? randomUUID() };
      return (await call(this.api.POST(`${M}/sandbox/deposits`, { body: body as unknown as SandboxDepositRequest }))).deposit;
    },
  };

  /** Sign with another key pair from now on (rotateApiKeys does this itself). */
  setCredentials(pair: KeyPair): void {
    this.credentials.token = pair.token;
    this.credentials.secret = pair.secret;
  }

  // ---- Deals ----

  /**
   * Create a PayIn (ESCROW_LOCKED when answered). Idempotent by idempotency_key: pass your order
   * id. A repeat with the key answers the original deal; if that deal's amount, currency or
   * client_id differ from this body, IdempotencyMismatchError (unless allowIdempotentMismatch).
   */
  async createPayin(body: CreatePayinInput, options: CreateOptions = {}): Promise<Deal> {
    return (await this.createPayinWithOutcome(body, options)).deal;
  }

  /** createPayin, answering `{ deal, replayed, mismatched }`: whether the key had made the deal before. */
  async createPayinWithOutcome(body: CreatePayinInput, options: CreateOptions = {}): Promise<{ deal: Deal } & CreateOutcome> {
    const payload = { ...body, amount: toAmount(body.amount), idempotency_key: body.idempotency_key ?? randomUUID() };
    const { data, response } = await answered(this.api.POST(`${M}/deals/payin`, { body: payload as unknown as CreatePayinRequest }));
    return { deal: data.deal, ...this.outcome('payin', payload, data.deal, response, options) };
  }

  /**
   * Create a PayOut (the USDT hold is placed at once). Idempotent by idempotency_key; a repeat whose
   * original deal has another amount, currency, target_requisite, target_name or requisite_details
   * throws IdempotencyMismatchError (unless allowIdempotentMismatch).
   */
  async createPayout(body: CreatePayoutInput, options: CreateOptions = {}): Promise<PayoutDeal> {
    return (await this.createPayoutWithOutcome(body, options)).deal;
  }

  /** createPayout, answering `{ deal, replayed, mismatched }`. */
  async createPayoutWithOutcome(body: CreatePayoutInput, options: CreateOptions = {}): Promise<{ deal: PayoutDeal } & CreateOutcome> {
    const payload = { ...body, amount: toAmount(body.amount), idempotency_key: body.idempotency_key ?? randomUUID() };
    const { data, response } = await answered(this.api.POST(`${M}/deals/payout`, { body: payload as unknown as CreatePayoutRequest }));
    return { deal: data.deal, ...this.outcome('payout', payload, data.deal, response, options) };
  }

  /** What the gateway said of a create, and the refusal of an answer that is not what was sent. */
  private outcome(
    kind: 'payin' | 'payout' | 'withdrawal',
    sent: Record<string, unknown> & { idempotency_key?: string | undefined },
    received: Deal | PayoutDeal | Withdrawal,
    response: Response,
    options: CreateOptions,
  ): CreateOutcome {
    const replayed = replayedOf(response);
    const mismatched = sent.idempotency_key ? mismatches(kind, sent, received) : [];
    // Idempotent-Replayed: false says this call made the object, from this very body: a
    // difference is then the gateway's normalisation, not another body's deal.
    if (mismatched.length > 0 && replayed !== false && !options.allowIdempotentMismatch) {
      throw new IdempotencyMismatchError({ idempotencyKey: sent.idempotency_key!, sent, received, fields: mismatched, replayed });
    }
    return { replayed, mismatched };
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
  getTurnover(query: QueryOf<'getTurnover'> = {}): Promise<Turnover> {
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

  /**
   * Deliver an ERROR or RETRY delivery again now (once per cooldown). The gateway answers the
   * delivery as queued for that attempt. With `wait`, this resolves once the delivery has been
   * attempted since and its status is final (SUCCESS, or ERROR: no more automatic attempts); one
   * that fails and goes back to RETRY keeps being waited for, as its automatic attempts continue.
   * When `timeoutMs` (60 s) passes first: CallbackWaitTimeoutError, with the last state seen.
   */
  async retryCallback(callbackId: string, options: { wait?: boolean | CallbackWaitOptions } = {}): Promise<CallbackDelivery> {
    const queued = await call(this.api.POST(`${M}/callbacks/{callback_id}/retry`, { params: { path: { callback_id: callbackId } } }));
    if (!options.wait) return queued;
    const { timeoutMs = 60_000, intervalMs = 1_000 } = options.wait === true ? {} : options.wait;
    const now = this.credentials.now ?? Date.now;
    const sleep = this.credentials.sleep ?? defaultSleep;
    const deadline = now() + timeoutMs;
    const settled = (d: CallbackDelivery) => FINAL_DELIVERY.has(d.status) && (d.attempts > queued.attempts || !FINAL_DELIVERY.has(queued.status));
    let last = queued;
    for (;;) {
      if (settled(last)) return last;
      const left = deadline - now();
      if (left <= 0) {
        throw new CallbackWaitTimeoutError(`delivery ${callbackId} is still ${last.status} after ${timeoutMs} ms (${last.attempts} attempts)`, last);
      }
      await sleep(Math.min(intervalMs, left));
      last = await this.getCallback(callbackId);
    }
  }

  /** One delivery of yours, as it stands now (another merchant's or an unknown id: NotFoundError). */
  getCallback(callbackId: string): Promise<CallbackDelivery> {
    return call(this.api.GET(`${M}/callbacks/{callback_id}`, { params: { path: { callback_id: callbackId } } }));
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

  /** The payment methods of the catalog (their slugs and ids name a deal's method). */
  async listPaymentMethods(): Promise<PaymentMethod[]> {
    return (await call(this.api.GET(`${M}/payment-methods`))).data;
  }

  async listBanks(query: QueryOf<'listBanks'> = {}): Promise<Bank[]> {
    return (await call(this.api.GET(`${M}/banks`, { params: { query } }))).data;
  }

  async listCurrencies(): Promise<Currency[]> {
    return (await call(this.api.GET(`${M}/currencies`))).data;
  }

  /** The merchant's profile: the API's `merchant` object with `auto_withdrawal_mode` and `auto_withdrawal_effective_limit_usdt_cents` beside its fields. */
  async getMyMerchant(): Promise<MerchantProfile> {
    const { merchant, ...settings } = await call(this.api.GET('/api/v1/p2p/my-merchant'));
    return { ...merchant, ...settings };
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

  async createPass(body: CreatePassInput): Promise<Pass> {
    const payload = { ...body, amount: toAmount(body.amount) } as unknown as CreatePassRequest;
    return (await call(this.api.POST(`${M}/passes`, { body: payload }))).pass;
  }

  listPasses(query: QueryOf<'listPasses'> = {}): Promise<Page<Pass>> {
    return call(this.api.GET(`${M}/passes`, { params: { query } }));
  }

  // ---- Withdrawals ----

  /**
   * Withdraw USDT (TRC-20); amount in USDT cents, the fee included. With an idempotency_key the
   * SDK retries it safely, and an answer whose amount or address differ from this body throws
   * IdempotencyMismatchError (unless allowIdempotentMismatch); without one it is sent once.
   */
  async createWithdrawal(body: CreateWithdrawalInput, options: CreateOptions = {}): Promise<Withdrawal> {
    return (await this.createWithdrawalWithOutcome(body, options)).withdrawal;
  }

  /** createWithdrawal, answering `{ withdrawal, replayed, mismatched }`. */
  async createWithdrawalWithOutcome(body: CreateWithdrawalInput, options: CreateOptions = {}): Promise<{ withdrawal: Withdrawal } & CreateOutcome> {
    const payload = { ...body, amount: toAmount(body.amount) };
    const { data, response } = await answered(this.api.POST(`${M}/wallet/withdraw`, { body: payload as unknown as WithdrawRequest }));
    return { withdrawal: data, ...this.outcome('withdrawal', payload, data, response, options) };
  }

  getWithdrawal(withdrawalId: string): Promise<Withdrawal> {
    return call(this.api.GET(`${M}/wallet/withdrawals/{withdrawal_id}`, { params: { path: { withdrawal_id: withdrawalId } } }));
  }

  listWithdrawals(query: QueryOf<'listWithdrawals'> = {}): Promise<Page<Withdrawal>> {
    return call(this.api.GET(`${M}/wallet/withdrawals`, { params: { query } }));
  }
}
