/**
 * A TronGrid-compatible HTTP client: TronGrid itself, or the HTTP API of an own java-tron full
 * node (the /wallet endpoints) next to a TronGrid-style indexer (the /v1 endpoints). Only the
 * documented endpoints the wallet needs:
 *
 *   GET  /v1/accounts/{address}                      TRX balance and TRC-20 balances
 *   GET  /v1/accounts/{address}/transactions/trc20   TRC-20 transfers (deposits), fingerprint paging
 *   POST /wallet/getnowblock                         head block (confirmations, reference time)
 *   POST /wallet/triggersmartcontract                build transfer(to, amount) unsigned
 *   POST /wallet/broadcasttransaction                send a signed transaction
 *   POST /wallet/gettransactioninfobyid              receipt (SUCCESS / OUT_OF_ENERGY / REVERT …)
 *   POST /wallet/gettransactionbyid                  is this txid on chain at all
 *   POST /walletsolidity/gettransactioninfobyid      the receipt as the solidified node has it (only
 *                                                    solidified blocks): a dead verdict's confirmation
 *
 * Every answer is parsed without losing int64 precision and validated with zod; nothing from the
 * node is used unchecked (a transaction it builds is checked byte for byte by
 * domain/tron/transaction.ts before anything signs it).
 *
 * Failures. ChainUnavailable (retry later; the same request is safe to repeat) for: network
 * errors, timeouts, 5xx, 429 beyond the retries here, any other unexpected status, and answers
 * that are not what the documentation says (TronBadAnswer). ChainRejected only for a definite
 * refusal of a transaction by the node (TronRefused). 429 is retried here with exponential
 * backoff (Retry-After honoured up to maxBackoffMs; a longer one is passed up as TronRateLimited).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parse as parseLossless } from 'lossless-json';
import { z } from 'zod';
import { canonicalTxHash, isTronAddress, tronAddressToHex } from '../../domain/tron/address';
import {
  checkUsdtTransfer,
  encodeTransferParameters,
  normalizeTronAddress,
  TRANSFER_FUNCTION,
  centsToUsdtUnits,
  toHex,
  type BroadcastTransaction,
  type CheckedUsdtTransfer,
} from '../../domain/tron/transaction';
import { ChainRejected, ChainUnavailable } from './adapter';

export interface TronGridOptions {
  /** TRON_API_URL, e.g. https://api.trongrid.io or an own node's HTTP API. */
  url: string;
  /** TRON_SOLIDITY_API_URL: where /walletsolidity/ is served (default `url`; an own java-tron node serves it on its solidity port). */
  solidityUrl?: string | undefined;
  /** TRON_API_KEY, sent as TRON-PRO-API-KEY when set. */
  apiKey?: string | undefined;
  /** Per request, including reading the answer (default 10 s). */
  timeoutMs?: number;
  /** How many times a 429 is retried before giving up with TronRateLimited (default 3). */
  rateLimitRetries?: number;
  /** First backoff after a 429 without Retry-After; doubles each time (default 500 ms). */
  backoffMs?: number;
  /** Longest wait here; a longer Retry-After is passed up instead of waited for (default 10 s). */
  maxBackoffMs?: number;
  /** Answers larger than this are refused (default 8 MiB; getnowblock carries a whole block). */
  maxResponseBytes?: number;
  /** For tests. */
  fetch?: typeof fetch;
}

// The subclasses keep their base's `name` (ChainUnavailable / ChainRejected): that is the failure
// type Temporal and the activities classify by; instanceof tells the finer kind.

/** The node answered, but not with what its documentation says. Retryable (another node, later). */
export class TronBadAnswer extends ChainUnavailable {}

/** Rate-limited beyond what is worth waiting for inside one call. */
export class TronRateLimited extends ChainUnavailable {
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/** The node refused for good (a transaction or a build request). `code` is the node's code. */
export class TronRefused extends ChainRejected {
  constructor(
    readonly endpoint: string,
    readonly code: string,
    readonly nodeMessage: string,
    readonly txid?: string,
  ) {
    super(`${endpoint}: ${code}${nodeMessage ? ` (${nodeMessage})` : ''}`);
  }
  /** The transaction's window passed (or its reference block is gone): rebuild only once the old txid is known not to be on chain. */
  get expired(): boolean {
    return this.code === 'TRANSACTION_EXPIRATION_ERROR' || this.code === 'TAPOS_ERROR';
  }
}

/** Broadcast codes that say "not now", not "never": the transaction was not taken, try again. */
const TRANSIENT_BROADCAST_CODES = new Set(['SERVER_BUSY', 'NO_CONNECTION', 'NOT_ENOUGH_EFFECTIVE_CONNECTION', 'BLOCK_UNSOLIDIFIED']);

// ---------------------------------------------------------------------------------------------
// Answer shapes (developers.tron.network / tronprotocol documentation, TronGrid v1 README).
// Integers are parsed as bigint, so int64 fields never pass through a double.
// ---------------------------------------------------------------------------------------------
const int = z.bigint();
const hex = (bytes?: number) => z.string().regex(bytes === undefined ? /^(?:[0-9a-fA-F]{2})*$/ : new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`));
/** A string the parser turns into its canonical form, or refuses with `message`. */
const canonical = (parse: (s: string) => string | undefined, message: (s: string) => string) =>
  z.string().transform((s, ctx) => {
    const parsed = parse(s);
    if (parsed !== undefined) return parsed;
    ctx.addIssue({ code: 'custom', message: message(s) });
    return z.NEVER;
  });
const txid = canonical(canonicalTxHash, () => 'not a txid');
const address = canonical(normalizeTronAddress, (s) => `not a TRON address: ${s}`);
const digits = z
  .string()
  .regex(/^\d{1,78}$/)
  .transform((s) => BigInt(s));

const accountAnswer = z.object({
  success: z.literal(true),
  data: z
    .array(
      z.looseObject({
        address,
        balance: int.min(0n).optional(),
        trc20: z.array(z.record(z.string(), digits)).optional(),
      }),
    )
    .max(1),
});

const trc20Transfer = z.looseObject({
  transaction_id: txid,
  token_info: z.looseObject({ address, decimals: int, symbol: z.string().optional(), name: z.string().optional() }),
  block_timestamp: int.min(0n),
  from: address,
  to: address,
  type: z.string(),
  value: digits,
});
const trc20Answer = z.object({
  success: z.literal(true),
  data: z.array(trc20Transfer),
  meta: z.looseObject({ fingerprint: z.string().min(1).max(512).optional() }).optional(),
});

const nowBlockAnswer = z.looseObject({
  blockID: hex(32),
  block_header: z.looseObject({ raw_data: z.looseObject({ number: int.min(0n), timestamp: int.min(0n) }) }),
});

const returnShape = z.looseObject({ result: z.boolean().optional(), code: z.string().optional(), message: z.string().optional() });
const triggerAnswer = z.looseObject({
  result: returnShape,
  transaction: z.looseObject({ txID: z.string(), raw_data_hex: hex(), raw_data: z.unknown() }).optional(),
});

const broadcastAnswer = z.looseObject({
  result: z.boolean().optional(),
  code: z.string().optional(),
  message: z.string().optional(),
  txid: z.string().optional(),
});

const infoAnswer = z.union([
  z.object({}).strict(),
  z.looseObject({
    id: txid,
    fee: int.min(0n).optional(),
    blockNumber: int.min(0n),
    blockTimeStamp: int.min(0n),
    receipt: z.looseObject({
      result: z.string().optional(),
      energy_usage_total: int.optional(),
      energy_fee: int.optional(),
      net_usage: int.optional(),
      net_fee: int.optional(),
    }),
    result: z.enum(['SUCESS', 'SUCCESS', 'FAILED']).optional(),
    resMessage: z.string().optional(),
    // Event logs (visible=false: the emitting contract as 20 bytes hex, topics and data as 32-byte words).
    log: z
      .array(z.looseObject({ address: hex(20), topics: z.array(hex(32)).max(4), data: hex().optional() }))
      .max(10_000)
      .optional(),
  }),
]);

const transactionAnswer = z.union([
  z.object({}).strict(),
  z.looseObject({
    txID: txid,
    raw_data_hex: hex(),
    signature: z.array(hex(65)).optional(),
    ret: z.array(z.looseObject({ contractRet: z.string().optional() })).optional(),
  }),
]);

export interface TronAccount {
  address: string;
  /** false: the address was never activated on chain (no TRX ever received); balances are then 0. */
  exists: boolean;
  balanceSun: bigint;
  /** TRC-20 contract ('T…') → balance in the token's smallest unit. */
  trc20: Map<string, bigint>;
}

export interface Trc20Transfer {
  txHash: string;
  /** The token contract ('T…') as the indexer reports it. */
  token: string;
  decimals: number;
  symbol: string | undefined;
  from: string;
  to: string;
  /** Smallest units of the token. */
  value: bigint;
  /** The block's time, ms. */
  blockTimestamp: number;
  type: string;
}

export interface Trc20Query {
  /** Only transfers whose recipient is the address (only_to). */
  onlyTo?: boolean;
  /** only_confirmed / only_unconfirmed; both when omitted. */
  confirmation?: 'confirmed' | 'unconfirmed';
  contract?: string;
  /** ms; the indexer's min_timestamp (block time, inclusive). */
  minTimestamp?: number;
  /** 1..200 (default 200). */
  limit?: number;
  fingerprint?: string;
}

export interface TronTransactionInfo {
  txid: string;
  blockNumber: bigint;
  blockTimestamp: number;
  /** The contract's execution result: 'SUCCESS', 'REVERT', 'OUT_OF_ENERGY', … ('DEFAULT' when the node omits it). */
  receiptResult: string;
  /** The transaction-level result: FAILED when the contract did not succeed. */
  failed: boolean;
  /** Decoded resMessage, when the node gives one. */
  message: string | undefined;
  feeSun: bigint;
  energyUsageTotal: bigint;
  /** The transaction's event logs: the emitting contract ('T…'), topics and data (lower-case hex). */
  logs: TronLog[];
}

interface TronLog {
  address: string;
  topics: string[];
  data: string;
}

/** keccak-256("Transfer(address,address,uint256)"): topic 0 of every TRC-20 transfer. */
const TRANSFER_EVENT_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/**
 * The TRC-20 Transfer events of `contract` in a receipt: recipient ('T…') and value (smallest
 * units) each. Logs of other contracts, other events and malformed ones are left out.
 */
export function trc20TransfersIn(info: TronTransactionInfo, contract: string): { to: string; value: bigint }[] {
  const out: { to: string; value: bigint }[] = [];
  for (const log of info.logs) {
    if (log.address !== contract || log.topics.length !== 3 || log.topics[0] !== TRANSFER_EVENT_TOPIC) continue;
    const word = log.topics[2]!;
    if (!/^0{24}/.test(word) || !/^[0-9a-f]{64}$/.test(log.data)) continue;
    const to = normalizeTronAddress(`41${word.slice(24)}`);
    if (!to) continue;
    out.push({ to, value: BigInt(`0x${log.data}`) });
  }
  return out;
}

export interface TronTransaction {
  txid: string;
  rawDataHex: string;
  signatures: string[];
  contractRet: string | undefined;
}

function parseNumber(text: string): unknown {
  return /^-?\d+$/.test(text) ? BigInt(text) : Number(text);
}

/** A hex-encoded UTF-8 message (visible=false) as text; anything else as given. */
function decodeNodeMessage(message: string | undefined): string {
  if (!message) return '';
  if (/^(?:[0-9a-fA-F]{2})+$/.test(message)) {
    const text = Buffer.from(message, 'hex').toString('utf8');
    if (!text.includes('\uFFFD')) return text;
  }
  return message;
}

function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** TronGrid's rate limiter speaks in 403/503/200 bodies too: "…exceeds the frequency limit(15), and the query server is suspended for 30s". */
const RATE_LIMIT_TEXT = /frequency limit|rate exceeded|suspended for/i;

function suspendedForMs(text: string): number | undefined {
  const match = /suspended for (\d{1,5}) ?s/i.exec(text);
  return match ? Number(match[1]) * 1000 : undefined;
}

function withTimeout(timeoutMs: number, signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([timeout, signal]) : timeout;
}

export class TronGridClient {
  private readonly base: string;
  private readonly solidityBase: string;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly rateLimitRetries: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: TronGridOptions) {
    const url = new URL(options.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RangeError('TRON_API_URL must be an http(s) URL');
    this.base = url.toString().replace(/\/+$/, '');
    const solidity = new URL(options.solidityUrl ?? options.url);
    if (solidity.protocol !== 'https:' && solidity.protocol !== 'http:') throw new RangeError('TRON_SOLIDITY_API_URL must be an http(s) URL');
    this.solidityBase = solidity.toString().replace(/\/+$/, '');
    this.fetch = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.rateLimitRetries = options.rateLimitRetries ?? 3;
    this.backoffMs = options.backoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.maxResponseBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  }

  // -------------------------------------------------------------------------------------------
  // Transport
  // -------------------------------------------------------------------------------------------
  private async request(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal | undefined, base = this.base): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey) headers['TRON-PRO-API-KEY'] = this.options.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new ChainUnavailable(`${path}: call abandoned`);
      const attemptSignal = withTimeout(this.timeoutMs, signal);
      let response: Response;
      let text: string;
      try {
        response = await this.fetch(`${base}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: attemptSignal,
          redirect: 'error',
        });
        text = await this.readBody(response, path);
      } catch (error) {
        if (error instanceof ChainUnavailable) throw error;
        if (signal?.aborted) throw new ChainUnavailable(`${path}: call abandoned`);
        if (attemptSignal.aborted) throw new ChainUnavailable(`${path}: no answer within ${this.timeoutMs} ms`);
        throw new ChainUnavailable(`${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (response.status === 429 || (response.status === 403 && RATE_LIMIT_TEXT.test(text))) {
        const hinted = retryAfterMs(response.headers.get('retry-after'), Date.now()) ?? suspendedForMs(text);
        const wait = hinted ?? Math.min(this.backoffMs * 2 ** attempt, this.maxBackoffMs);
        if (attempt >= this.rateLimitRetries || wait > this.maxBackoffMs) {
          throw new TronRateLimited(`${path}: rate-limited (HTTP ${response.status}) after ${attempt + 1} attempts`, hinted);
        }
        try {
          await sleep(wait, undefined, { signal });
        } catch {
          throw new ChainUnavailable(`${path}: call abandoned`);
        }
        continue;
      }
      if (response.status >= 500) throw new ChainUnavailable(`${path}: HTTP ${response.status}`);
      if (response.status !== 200) throw new TronBadAnswer(`${path}: HTTP ${response.status} ${text.slice(0, 200)}`);
      let parsed: unknown;
      try {
        parsed = parseLossless(text, null, parseNumber);
      } catch {
        throw new TronBadAnswer(`${path}: answer is not JSON: ${text.slice(0, 120)}`);
      }
      if (parsed && typeof parsed === 'object' && 'Error' in parsed) {
        // java-tron's servlet errors come back as HTTP 200 {"Error": "..."}; TronGrid's rate limiter too.
        const message = String((parsed as { Error: unknown }).Error);
        if (RATE_LIMIT_TEXT.test(message)) throw new TronRateLimited(`${path}: ${message}`, suspendedForMs(message));
        throw new TronBadAnswer(`${path}: node error: ${message.slice(0, 200)}`);
      }
      return parsed;
    }
  }

  private async readBody(response: Response, path: string): Promise<string> {
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > this.maxResponseBytes) {
      await response.body?.cancel();
      throw new TronBadAnswer(`${path}: answer of ${declared} bytes is over the limit`);
    }
    if (!response.body) return '';
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > this.maxResponseBytes) throw new TronBadAnswer(`${path}: answer is over ${this.maxResponseBytes} bytes`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private validate<T extends z.ZodType>(schema: T, answer: unknown, path: string): z.output<T> {
    const result = schema.safeParse(answer);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new TronBadAnswer(`${path}: unexpected answer (${issue?.path.join('.') || '(root)'}: ${issue?.message})`);
    }
    return result.data;
  }

  private static address(value: string): string {
    if (!isTronAddress(value)) throw new RangeError(`not a TRON address: ${value}`);
    return value;
  }

  // -------------------------------------------------------------------------------------------
  // Endpoints
  // -------------------------------------------------------------------------------------------

  /** GET /v1/accounts/{address}: TRX and TRC-20 balances (zero for an address never activated). */
  async getAccount(address: string, signal?: AbortSignal): Promise<TronAccount> {
    const path = `/v1/accounts/${TronGridClient.address(address)}`;
    const answer = this.validate(accountAnswer, await this.request('GET', path, undefined, signal), path);
    const row = answer.data[0];
    if (!row) return { address, exists: false, balanceSun: 0n, trc20: new Map() };
    if (row.address !== address) throw new TronBadAnswer(`${path}: answer is about ${row.address}`);
    const trc20 = new Map<string, bigint>();
    for (const entry of row.trc20 ?? []) {
      for (const [contract, balance] of Object.entries(entry)) {
        const token = normalizeTronAddress(contract);
        if (!token) throw new TronBadAnswer(`${path}: trc20 key ${contract} is not an address`);
        trc20.set(token, balance);
      }
    }
    return { address, exists: true, balanceSun: row.balance ?? 0n, trc20 };
  }

  /**
   * GET /v1/accounts/{address}/transactions/trc20: one page. Pass the returned fingerprint (with
   * the same other parameters) for the next page; none means this was the last page. Rows are
   * validated, and with onlyTo every row must be to `address`.
   */
  async trc20Transfers(
    address: string,
    query: Trc20Query = {},
    signal?: AbortSignal,
  ): Promise<{ transfers: Trc20Transfer[]; fingerprint: string | undefined }> {
    const params = new URLSearchParams();
    if (query.onlyTo) params.set('only_to', 'true');
    if (query.confirmation === 'confirmed') params.set('only_confirmed', 'true');
    if (query.confirmation === 'unconfirmed') params.set('only_unconfirmed', 'true');
    if (query.contract) params.set('contract_address', TronGridClient.address(query.contract));
    if (query.minTimestamp !== undefined) params.set('min_timestamp', String(Math.max(0, Math.floor(query.minTimestamp))));
    const limit = query.limit ?? 200;
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new RangeError('limit is 1..200');
    params.set('limit', String(limit));
    if (query.fingerprint) params.set('fingerprint', query.fingerprint);
    const path = `/v1/accounts/${TronGridClient.address(address)}/transactions/trc20?${params}`;
    const answer = this.validate(trc20Answer, await this.request('GET', path, undefined, signal), path);
    if (answer.data.length > limit) throw new TronBadAnswer(`${path}: ${answer.data.length} rows for limit ${limit}`);
    const transfers = answer.data.map((row) => {
      if (query.onlyTo && row.to !== address) throw new TronBadAnswer(`${path}: a row to ${row.to} in an only_to answer`);
      if (row.token_info.decimals < 0n || row.token_info.decimals > 77n) throw new TronBadAnswer(`${path}: decimals ${row.token_info.decimals}`);
      return {
        txHash: row.transaction_id,
        token: row.token_info.address,
        decimals: Number(row.token_info.decimals),
        symbol: row.token_info.symbol,
        from: row.from,
        to: row.to,
        value: row.value,
        blockTimestamp: Number(row.block_timestamp),
        type: row.type,
      };
    });
    const fingerprint = answer.meta?.fingerprint;
    if (fingerprint !== undefined && fingerprint === query.fingerprint) throw new TronBadAnswer(`${path}: the same fingerprint again`);
    return { transfers, fingerprint: transfers.length > 0 ? fingerprint : undefined };
  }

  /** POST /wallet/getnowblock: the head block's number, id and time. */
  async nowBlock(signal?: AbortSignal): Promise<{ number: bigint; id: string; timestamp: number }> {
    const path = '/wallet/getnowblock';
    const answer = this.validate(nowBlockAnswer, await this.request('POST', path, {}, signal), path);
    return { number: answer.block_header.raw_data.number, id: answer.blockID.toLowerCase(), timestamp: Number(answer.block_header.raw_data.timestamp) };
  }

  /**
   * POST /wallet/triggersmartcontract for transfer(to, amount) on `contract` from `owner`: the
   * node's unsigned transaction, as it sent it. Not checked here: see buildUsdtTransfer.
   */
  async triggerTransfer(
    input: { owner: string; contract: string; to: string; units: bigint; feeLimit: bigint },
    signal?: AbortSignal,
  ): Promise<{ txID: string; rawDataHex: string }> {
    const path = '/wallet/triggersmartcontract';
    const body = {
      owner_address: tronAddressToHex(input.owner),
      contract_address: tronAddressToHex(input.contract),
      function_selector: TRANSFER_FUNCTION,
      parameter: toHex(encodeTransferParameters(input.to, input.units)),
      fee_limit: Number(input.feeLimit),
      call_value: 0,
      visible: false,
    };
    if (!Number.isSafeInteger(body.fee_limit) || body.fee_limit <= 0) throw new RangeError('fee_limit must be a positive number of sun');
    const answer = this.validate(triggerAnswer, await this.request('POST', path, body, signal), path);
    if (answer.result.result !== true || !answer.transaction) {
      throw new TronRefused(path, answer.result.code ?? 'UNKNOWN', decodeNodeMessage(answer.result.message));
    }
    return { txID: answer.transaction.txID, rawDataHex: answer.transaction.raw_data_hex };
  }

  /** POST /wallet/broadcasttransaction. A duplicate (already in the pool or on chain) is not an error. */
  async broadcast(transaction: BroadcastTransaction, signal?: AbortSignal): Promise<{ txid: string; duplicate: boolean }> {
    const path = '/wallet/broadcasttransaction';
    const answer = this.validate(broadcastAnswer, await this.request('POST', path, transaction, signal), path);
    if (answer.txid !== undefined && canonicalTxHash(answer.txid) !== transaction.txID) {
      throw new TronBadAnswer(`${path}: node computed txid ${answer.txid}, not ${transaction.txID}`);
    }
    if (answer.result === true) return { txid: transaction.txID, duplicate: false };
    const code = answer.code ?? 'UNKNOWN';
    const message = decodeNodeMessage(answer.message);
    if (code === 'DUP_TRANSACTION_ERROR') return { txid: transaction.txID, duplicate: true };
    if (TRANSIENT_BROADCAST_CODES.has(code)) throw new ChainUnavailable(`${path}: ${code}${message ? ` (${message})` : ''}`);
    throw new TronRefused(path, code, message, transaction.txID);
  }

  /** POST /wallet/gettransactioninfobyid: the receipt, or undefined while the txid is in no block. */
  async transactionInfo(id: string, signal?: AbortSignal): Promise<TronTransactionInfo | undefined> {
    return this.receipt('/wallet/gettransactioninfobyid', this.base, id, signal);
  }

  /**
   * POST /walletsolidity/gettransactioninfobyid: the receipt as the solidified node has it, or
   * undefined while the txid is in no solidified block (not yet, or never). A solidified block is
   * never replaced: this is the answer a dead verdict waits for.
   */
  async solidTransactionInfo(id: string, signal?: AbortSignal): Promise<TronTransactionInfo | undefined> {
    return this.receipt('/walletsolidity/gettransactioninfobyid', this.solidityBase, id, signal);
  }

  private async receipt(path: string, base: string, id: string, signal: AbortSignal | undefined): Promise<TronTransactionInfo | undefined> {
    const value = canonicalTxHash(id);
    if (!value) throw new RangeError(`not a txid: ${id}`);
    const answer = this.validate(infoAnswer, await this.request('POST', path, { value }, signal, base), path);
    if (!('id' in answer)) return undefined;
    if (answer.id !== value) throw new TronBadAnswer(`${path}: answer is about ${answer.id}`);
    return {
      txid: answer.id,
      blockNumber: answer.blockNumber,
      blockTimestamp: Number(answer.blockTimeStamp),
      receiptResult: answer.receipt.result ?? 'DEFAULT',
      failed: answer.result === 'FAILED',
      message: answer.resMessage === undefined ? undefined : decodeNodeMessage(answer.resMessage),
      feeSun: answer.fee ?? 0n,
      energyUsageTotal: answer.receipt.energy_usage_total ?? 0n,
      logs: (answer.log ?? []).map((l) => ({
        address: normalizeTronAddress(`41${l.address}`) ?? '',
        topics: l.topics.map((t) => t.toLowerCase()),
        data: (l.data ?? '').toLowerCase(),
      })),
    };
  }

  /** POST /wallet/gettransactionbyid: the transaction as the chain has it, or undefined when it is in no block. */
  async transaction(id: string, signal?: AbortSignal): Promise<TronTransaction | undefined> {
    const path = '/wallet/gettransactionbyid';
    const value = canonicalTxHash(id);
    if (!value) throw new RangeError(`not a txid: ${id}`);
    const answer = this.validate(transactionAnswer, await this.request('POST', path, { value }, signal), path);
    if (!('txID' in answer)) return undefined;
    if (answer.txID !== value) throw new TronBadAnswer(`${path}: answer is about ${answer.txID}`);
    return { txid: answer.txID, rawDataHex: answer.raw_data_hex.toLowerCase(), signatures: answer.signature ?? [], contractRet: answer.ret?.[0]?.contractRet };
  }
}

/**
 * Build → check: asks the node for transfer(to, amountCents) from the hot wallet and returns it
 * only if the bytes say exactly that (domain/tron/transaction.ts checkUsdtTransfer; a node that returns
 * anything else gets a TronTransactionMismatch, never a signature).
 */
export async function buildUsdtTransfer(
  client: TronGridClient,
  input: { owner: string; usdtContract: string; to: string; amountCents: bigint; feeLimit: bigint; now: number; minRemainingMs?: number },
  signal?: AbortSignal,
): Promise<CheckedUsdtTransfer> {
  const built = await client.triggerTransfer(
    { owner: input.owner, contract: input.usdtContract, to: input.to, units: centsToUsdtUnits(input.amountCents), feeLimit: input.feeLimit },
    signal,
  );
  return checkUsdtTransfer(built.rawDataHex, input, built.txID);
}
