import { z } from 'zod';
import proxyaddr from 'proxy-addr';
import { isTronAddress, TronAddressDeriver } from '../domain/tron/address';
import { parsePrivateKey, USDT_MAINNET_CONTRACT } from '../domain/tron/transaction';

export const DEV_JWT_SECRET = 'dev-jwt-secret-change-me';
/** A fixed 32-byte key for development only; production refuses to start with it. */
const DEV_SECRETS_KEY = Buffer.from('dev-secrets-key-never-in-prod-32').toString('base64');
/** The development key of Temporal payloads (id `dev`); production refuses to encrypt with it. */
const DEV_PAYLOAD_KEY = Buffer.from('dev-payloads-key-never-in-prod32').toString('base64');
export const DEV_PAYLOAD_KEYS = `dev:${DEV_PAYLOAD_KEY}`;

export interface PayloadKey {
  /** Named in each encrypted payload's metadata, so a payload finds its key after a rotation. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/**
 * Parses TEMPORAL_PAYLOAD_KEYS, "id:base64key[,id:base64key…]": the first key encrypts, every
 * key decrypts (older keys stay listed until no history needs them).
 */
export function parsePayloadKeys(text: string): PayloadKey[] {
  const keys = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const match = /^([A-Za-z0-9._-]{1,64}):([A-Za-z0-9+/=]+)$/.exec(part);
      if (!match) throw new Error('each key is "<id>:<32 bytes base64>", ids of [A-Za-z0-9._-]');
      const key = Buffer.from(match[2]!, 'base64');
      if (key.length !== 32) throw new Error(`key "${match[1]}" must be 32 bytes, base64-encoded`);
      return { id: match[1]!, key };
    });
  if (keys.length === 0) throw new Error('at least one key is needed');
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new Error('key ids must be distinct');
  return keys;
}

/** TRUSTED_PROXIES: "10.0.0.1, 10.1.0.0/16, loopback" — each must be an address, a CIDR or a proxy-addr name. */
function parseTrustedProxies(text: string): string[] {
  const list = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  try {
    proxyaddr.compile(list);
  } catch (error) {
    throw new Error(`TRUSTED_PROXIES: ${(error as Error).message}`);
  }
  return list;
}

/** A comma-separated environment list through a parser; a parse error becomes a config issue. */
const parsedText = <T>(fallback: string, parse: (text: string) => T) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      try {
        return parse(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });
/** An optional setting where an empty string (e.g. `${VAR:-}` in compose) means unset. */
const optionalText = () =>
  z
    .string()
    .optional()
    .transform((v) => (v ? v : undefined));
/**
 * The BIP39 test mnemonic "abandon … about" as a seed: its addresses are public knowledge (anyone
 * can spend from them), so it is for development only; production refuses to start with it.
 */
export const DEV_WALLET_HD_SEED =
  '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4';

/**
 * The development hot wallet key (sha256 of "dev-tron-hot-wallet-never-in-production"; address
 * THMUhBRhA4bjKPLDZW6Xj9v2BiYefreUSG): public knowledge, so anyone could spend from it. Used when
 * TRON_HOT_WALLET_KEY is unset outside production; production refuses it.
 */
export const DEV_TRON_HOT_WALLET_KEY = '1d7629090625d70a207b2cd46b34171247d11a751a901f1500d01ed0d93c2f28';

const seconds = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

/** Parses "5s,30s,5m,15m,1h" into milliseconds. */
function parseDurations(text: string): number[] {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const match = /^(\d+)(ms|s|m|h)$/.exec(part);
      if (!match) throw new Error(`invalid duration "${part}" (use e.g. 5s, 30s, 5m, 1h, 200ms)`);
      return Number(match[1]) * units[match[2]!]!;
    });
}

function schemaFor(nodeEnv: string) {
  return z.object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /**
     * The API's Prometheus endpoint (/metrics) is served on this port of its own, never on PORT
     * (which answers 404 for /metrics): it is for the scraper on the internal network, not for
     * the clients of the API. 0: not served.
     */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9460),
    /** Address the API's metrics port listens on (0.0.0.0 in a container, for the scraper beside it). */
    METRICS_HOST: z.string().default('127.0.0.1'),
    DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/gateway'),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
    /**
     * The role the API and workers connect as (db/roles.ts): the setup that migrates as the owner
     * (npm run migrate / seed, npm start, the test stack, compose's setup job) creates it when
     * missing and grants it DML only (audit_log: SELECT and INSERT). DATABASE_URL of the API and
     * workers names it; production refuses to start as anything more.
     */
    DATABASE_APP_ROLE: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a plain role name ([a-z_][a-z0-9_]*)')
      .default('gateway_app'),
    /** Its password, set by the setup when given (servers with password authentication; compose). */
    DATABASE_APP_PASSWORD: optionalText(),
    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TASK_QUEUE: z.string().default('gateway'),
    /**
     * AES-256-GCM payload codec (temporal/payload-codec.ts): on, every payload is sealed and a
     * plain one is refused by workers and clients; off (refused in production), payloads are
     * written plain and plain ones taken, sealed ones still decoded.
     */
    TEMPORAL_PAYLOAD_ENCRYPTION: bool(true),
    TEMPORAL_PAYLOAD_KEYS: parsedText(DEV_PAYLOAD_KEYS, parsePayloadKeys),
    /** TLS to Temporal: on with system roots when true, or when any of CA / CERT / KEY is set (file paths, PEM). */
    TEMPORAL_TLS: bool(false),
    TEMPORAL_TLS_CA: optionalText(),
    TEMPORAL_TLS_CERT: optionalText(),
    TEMPORAL_TLS_KEY: optionalText(),
    TEMPORAL_TLS_SERVER_NAME: optionalText(),
    /** The Temporal Web UI the operator console links a deal's workflow to (<url>/namespaces/<ns>/workflows/<id>); '' hides the link. */
    TEMPORAL_UI_URL: z.string().default('http://127.0.0.1:8233'),
    /** Browser origins (the Temporal UI) allowed to call the codec endpoint /codec. */
    CODEC_CORS_ORIGINS: parsedText('http://127.0.0.1:8233,http://localhost:8233', (text) =>
      text
        .split(',')
        .map((o) => o.trim().replace(/\/+$/, ''))
        .filter(Boolean),
    ),
    /** Codec requests from a loopback socket need no operator token (the local dev UI has no login). Development only. */
    CODEC_LOOPBACK_WITHOUT_AUTH: bool(nodeEnv === 'development'),
    /** Webhook deliveries have a queue (and worker) of their own; default: <TEMPORAL_TASK_QUEUE>-webhooks. */
    WEBHOOK_TASK_QUEUE: z.string().optional(),
    JWT_SECRET: z.string().min(16).default(DEV_JWT_SECRET),
    SECRETS_ENCRYPTION_KEY: z
      .string()
      .default(DEV_SECRETS_KEY)
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded'),
    /**
     * Keys of card, phone and IBAN numbers at rest (requisites, a PayOut's recipient),
     * "id:base64key[,id:base64key…]": the first seals, every one opens. Unset: one key derived from
     * SECRETS_ENCRYPTION_KEY (db/queries/requisite-secrets.ts).
     */
    CARD_DATA_KEYS: z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined || text.trim() === '') return undefined;
        try {
          return parsePayloadKeys(text);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
    CHECKOUT_BASE_URL: z.string().url().default('http://127.0.0.1:3000'),
    PAYIN_TIMEOUT_SECONDS: seconds(1800),
    /** A trader with an account is matched only while its app's heartbeat is younger than this; then it is paused (heartbeat_lost). */
    TRADER_HEARTBEAT_TIMEOUT_SECONDS: seconds(90),
    /** A paired bank device's requisites are matched only while its last message is younger than this; then it is silent (docs/bank-notifications.md). */
    DEVICE_HEARTBEAT_TIMEOUT_SECONDS: seconds(180),
    /** How often a paired device is asked to send its heartbeat (told at pairing and in every heartbeat's answer). */
    DEVICE_HEARTBEAT_INTERVAL_SECONDS: seconds(60),
    /** How long a device pairing code (the trader app's QR code) may be used. */
    DEVICE_PAIRING_TTL_SECONDS: seconds(600),
    /** Notifications one device may forward per minute (a bank sends a few; more is a loop or an attack): 429 beyond. */
    DEVICE_MESSAGES_PER_MINUTE: z.coerce.number().int().min(1).default(120),
    PAYOUT_ASSIGN_SLA_SECONDS: seconds(900),
    PAYOUT_RETRY_MATCH_SECONDS: seconds(30),
    /** A MATCHED payout whose trader has not started the transfer by then EXPIRES (hold returned). */
    PAYOUT_TRANSFER_SLA_SECONDS: seconds(3600),
    /** A payout PROCESSING this long raises an operator alert (the hold stays: the fiat may be on its way); 0 = never. */
    PAYOUT_PROCESSING_ALERT_SECONDS: seconds(3600),
    FEE_DISTRIBUTION_DELAY_SECONDS: seconds(60),
    /** How long the sandbox trader (and the sandbox arbiter) takes before it acts on a sandbox deal. */
    SANDBOX_TRADER_DELAY_SECONDS: seconds(3),
    /**
     * Caps of one sandbox merchant's play deposits (POST /sandbox/deposits and an operator's
     * recorded deposits to it), USDT cents: per UTC day and over its whole life. Above them a
     * deposit is 400 FAILED_PRECONDITION. The total bounds the merchant's play-money account
     * (at most 10^15, far from the bigint limit).
     */
    SANDBOX_DEPOSIT_DAILY_LIMIT_USDT_CENTS: z.coerce.bigint().min(1n).max(1_000_000_000_000_000n).default(1_000_000_000n),
    SANDBOX_DEPOSIT_TOTAL_LIMIT_USDT_CENTS: z.coerce.bigint().min(1n).max(1_000_000_000_000_000n).default(10_000_000_000n),
    WEBHOOK_RETRY_DELAYS: z.string().default('5s,30s,5m,15m,1h').transform(parseDurations),
    CALLBACK_RETRY_COOLDOWN_SECONDS: seconds(60),
    /** Deadline of one deal step (a single transaction); a step on a dead worker is retried after it. */
    DEAL_STEP_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
    /** Deadline of one attempt of the create step (matching + escrow) the create call waits for. */
    DEAL_CREATE_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    OUTBOX_POLL_MS: z.coerce.number().int().min(50).default(1000),
    /** After a wake, the relay waits this long for more commits before it hands events on: under load one pass (one signal, one stream task) carries many deals' events. 0: at once. */
    OUTBOX_COALESCE_MS: z.coerce.number().int().min(0).max(1000).default(25),
    /**
     * What this worker process polls: `all` (deals and webhook deliveries), `deals` or `webhooks`.
     * Two processes (deals, webhooks with a WORKER_NICE) let the OS put deal work first.
     */
    WORKER_ROLE: z.enum(['all', 'deals', 'webhooks']).default('all'),
    /** OS scheduling priority (nice, -20..19) this worker process sets on itself at start; higher = yields the CPU. */
    WORKER_NICE: z.coerce.number().int().min(-20).max(19).default(0),
    /**
     * Port of this worker process's own HTTP server: `/metrics` (the gateway's prom-client metrics
     * of the worker) and `/health` (its role and metric endpoints). 0: not served.
     */
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    /** Port of the Temporal SDK's own Prometheus exporter (Core runtime metrics, `/metrics`). 0: not exported. */
    TEMPORAL_SDK_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    /** Address the worker's metric servers listen on. */
    WORKER_METRICS_HOST: z.string().default('127.0.0.1'),
    /**
     * How often a worker polling the deals queue runs the ledger check (workers/ledger-check.ts:
     * one process per turn, an advisory lock; gateway_ledger_check_* metrics). 0: never.
     */
    LEDGER_CHECK_INTERVAL_SECONDS: seconds(300),
    /** The window of a requisite's routing score: its deals created within these hours (docs/routing.md). */
    ROUTING_SCORE_WINDOW_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 90)
      .default(168),
    /**
     * How often a worker polling the deals queue refreshes the routing scores (workers/routing-scores.ts:
     * one process per turn, an advisory lock), and once at its start. 0: only at the start.
     */
    ROUTING_SCORE_REFRESH_SECONDS: seconds(60),
    /** The share of creates, per mille, that explore: candidates in random order (the same bank still first), so new requisites earn a score. */
    ROUTING_EXPLORATION_PERMILLE: z.coerce.number().int().min(0).max(1000).default(100),
    /** Whether this worker process also runs the outbox relay (several may; they take turns). */
    OUTBOX_RELAY: bool(true),
    /** How long a deal's delivery stream (one workflow per deal and target) waits for the deal's next event before it closes. */
    WEBHOOK_STREAM_IDLE_SECONDS: seconds(1800),
    /** Webhook POSTs in flight at once to one endpoint (merchant + URL), per worker process; the rest wait their turn. */
    WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: z.coerce.number().int().min(1).default(16),
    /** Webhook POSTs in flight at once to one merchant's endpoints on one host, per worker process: a looser backstop. */
    WEBHOOK_MAX_IN_FLIGHT_PER_HOST: z.coerce.number().int().min(1).default(64),
    /**
     * Activities of automatic webhook retries Temporal dispatches per second, over all webhook
     * workers (each carries up to RETRIES_PER_BATCH attempts of one endpoint): the budget failing
     * endpoints get from the engine, so they cannot crowd deal work out. 0 = no cap.
     */
    WEBHOOK_RETRIES_PER_SECOND: z.coerce.number().min(0).default(10),
    /** Consecutive failed attempts to one endpoint (merchant + URL) that open its circuit (park it); 0 = never. */
    WEBHOOK_BREAKER_FAILURES: z.coerce.number().int().min(0).default(20),
    /** How long a parked endpoint waits before one probe attempt may try it again. */
    WEBHOOK_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).default(30_000),
    MERCHANT_KEY_GRACE_PERIOD: seconds(900),
    V1_SUNSET_AT: z
      .string()
      .datetime({ offset: true })
      .default('2027-01-12T00:00:00Z')
      .transform((v) => new Date(v)),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: bool(nodeEnv !== 'production'),
    DEFAULT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(10_000),
    /**
     * Addresses or CIDRs of the proxies in front of the API (comma-separated; also proxy-addr's
     * names loopback, linklocal, uniquelocal). X-Forwarded-For counts only when the socket peer is
     * one of them, walked from the right over trusted hops (api/auth/client-ip.ts). Empty: the
     * client is the socket peer.
     */
    TRUSTED_PROXIES: parsedText('', parseTrustedProxies),
    /** Replaced by TRUSTED_PROXIES: it believed X-Forwarded-For from any peer. Kept only to refuse it with a clear message. */
    TRUST_PROXY: bool(false),
    // Wallet: deposit addresses, withdrawal fee, auto-withdrawal, the chain adapter.
    /** Hex seed of the deposit-address HD wallet (m/44'/195'/0'/0/<index>); ignored when WALLET_XPUB is set. */
    WALLET_HD_SEED: z
      .string()
      .regex(/^([0-9a-fA-F]{2}){16,64}$/, 'must be 16 to 64 bytes of hex')
      .default(DEV_WALLET_HD_SEED),
    /** Account-level extended public key m/44'/195'/0' (xpub…): addresses without any private key material. */
    WALLET_XPUB: z.string().optional(),
    AUTO_WITHDRAWAL_LIMIT_USDT_CENTS: z.coerce.bigint().min(0n).default(100_000n),
    /** Flat network fee per withdrawal, USDT cents. */
    WITHDRAWAL_FEE_USDT_CENTS: z.coerce.bigint().min(0n).default(100n),
    /** Optional proportional fee on top, basis points of the amount (half-even). */
    WITHDRAWAL_FEE_BPS: z.coerce.number().int().min(0).max(10_000).default(0),
    /** How long a COMPLETED withdrawal keeps its (merchant, address, amount, fee) key after creation. */
    WITHDRAWAL_IDEMPOTENCY_WINDOW_SECONDS: seconds(86_400),
    /** How long POST /wallet/withdraw (and approve) wait for an auto broadcast before answering the current status. */
    WITHDRAWAL_SYNC_WAIT_SECONDS: seconds(10),
    /** Bound of one broadcast attempt; a hanging chain call is abandoned then and retried (same withdrawal id). */
    WITHDRAWAL_BROADCAST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(60),
    /** A worker that dies mid-broadcast is noticed after this long (the attempt heartbeats). */
    WITHDRAWAL_BROADCAST_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).default(10),
    /** Longest pause between broadcast retries (exponential backoff from 1 s). */
    WITHDRAWAL_BROADCAST_MAX_BACKOFF_SECONDS: z.coerce.number().int().min(1).default(60),
    /** The chain adapter: the embedded simulator (development and tests; refused in production) or a TronGrid-compatible node. */
    CHAIN_ADAPTER: z.enum(['simulated', 'trongrid']).default('simulated'),
    /** Simulated chain: ok | fail (every transfer refused for good) | flaky (first 2 sends of each withdrawal fail transiently) | hang (never answers). */
    CHAIN_SIMULATOR: z.enum(['ok', 'fail', 'flaky', 'hang']).default('ok'),
    /** Simulated network latency before and after the transfer is accepted, ms. */
    CHAIN_SIMULATOR_LATENCY_MS: z.coerce.number().int().min(0).default(0),
    // The TRON network (CHAIN_ADAPTER=trongrid; docs/tron.md).
    /** TronGrid (https://api.trongrid.io) or an own node's HTTP API (with a TronGrid-style /v1 indexer). Required with trongrid. */
    TRON_API_URL: optionalText().pipe(z.string().url().optional()),
    /**
     * The solidified node's HTTP API (/walletsolidity/…), asked before a failed or expired
     * withdrawal transaction is taken: TronGrid serves it at TRON_API_URL (the default); an own
     * java-tron node on its solidity port (8091).
     */
    TRON_SOLIDITY_API_URL: optionalText().pipe(z.string().url().optional()),
    /** Sent as TRON-PRO-API-KEY when set. */
    TRON_API_KEY: optionalText(),
    /** The USDT (TRC-20) contract; deposits of any other contract are ignored. */
    TRON_USDT_CONTRACT: z.string().refine(isTronAddress, 'must be a TRON address (T…)').default(USDT_MAINNET_CONTRACT),
    /**
     * The hot wallet's private key (32 bytes hex) that signs withdrawals; only worker processes
     * need it. Unset outside production: DEV_TRON_HOT_WALLET_KEY. Production refuses that key, and
     * a trongrid worker refuses to start without one. Never logged.
     */
    TRON_HOT_WALLET_KEY: optionalText().pipe(
      z
        .string()
        .refine((v) => {
          try {
            return parsePrivateKey(v) !== undefined;
          } catch {
            return false;
          }
        }, 'must be a secp256k1 private key, 64 hex characters')
        .optional(),
    ),
    /** fee_limit of a withdrawal, sun: the most TRX its energy may burn (a USDT transfer to a fresh address needs ~130 000 energy). */
    TRON_FEE_LIMIT_SUN: z.coerce.bigint().min(1n).max(15_000_000_000n).default(50_000_000n),
    /** Blocks on top of a transaction's block before it is final (TRON solidifies after 19, about a minute). */
    TRON_CONFIRMATIONS: z.coerce.number().int().min(1).max(1000).default(19),
    /** Pause between two passes of the deposit watcher (the chain-watch workflow). */
    TRON_POLL_INTERVAL_MS: z.coerce.number().int().min(100).default(5_000),
    /** Pause between two receipt checks of a broadcast withdrawal (a TRON block is 3 s). */
    TRON_RECEIPT_POLL_MS: z.coerce.number().int().min(100).default(3_000),
    /**
     * A withdrawal transaction is taken as expired only once our own clock, too, is past its
     * expiration by this much (besides the node's head by the confirmation depth): a node whose
     * clock runs ahead cannot expire it early.
     */
    TRON_EXPIRY_MARGIN_MS: z.coerce.number().int().min(0).default(60_000),
    /** A transaction not yet in a block is broadcast again (same bytes) once its last broadcast is this old. */
    TRON_REBROADCAST_MS: z.coerce.number().int().min(100).default(15_000),
    /** Deadline of one request to the node (connect, send, read). */
    TRON_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    /** The deposit query starts this long before the newest confirmed transfer seen (the indexer may list late rows). */
    TRON_DEPOSIT_OVERLAP_MS: z.coerce.number().int().min(0).default(600_000),
    /** A PENDING deposit that is on no list and in no block while the node's head is this far past its block is DROPPED. */
    TRON_DEPOSIT_DROP_AFTER_MS: z.coerce.number().int().min(0).default(300_000),
    /** Rotated deposit addresses without recent activity are polled this often (current ones every pass). */
    TRON_COLD_ADDRESS_POLL_SECONDS: seconds(600),
    /** On-chain balances (profile, hot wallet) are read again once this old. */
    TRON_BALANCE_REFRESH_SECONDS: seconds(60),
    /** The hot wallet's TRX below this raises the operator alert hot_wallet_low_trx (energy is burnt from it). */
    TRON_HOT_WALLET_MIN_TRX_SUN: z.coerce.bigint().min(0n).default(200_000_000n),
    /** After a withdrawal's transaction failed on chain (e.g. OUT_OF_ENERGY), the next one is built after this pause. */
    TRON_FAILED_RETRY_MS: z.coerce.number().int().min(0).default(300_000),
    /** Transactions of one withdrawal that may die (failed receipt, or expired off chain) before it is CANCELLED and its hold returned. */
    TRON_WITHDRAWAL_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(3),
    /** Evidence files: largest accepted upload in bytes. */
    EVIDENCE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(10 * 1024 * 1024),
    /**
     * Upload bytes (HMAC uploads, the V1 dispute) read before their signature is checked that one
     * merchant may have in flight in one API process; beyond it 429 unread (api/auth/unverified-uploads.ts).
     * At least the largest upload (EVIDENCE_MAX_BYTES + 64 KiB of multipart).
     */
    UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT: z.coerce
      .number()
      .int()
      .min(1)
      .default(32 * 1024 * 1024),
    /** The same for all merchants together, per API process: what unverified uploads may hold in memory. */
    UNVERIFIED_UPLOAD_BYTES_TOTAL: z.coerce
      .number()
      .int()
      .min(1)
      .default(128 * 1024 * 1024),
    /**
     * Lingering close (api/lingering-close.ts): after an answer that left the request body unread
     * (413, an early 401/403/415/429), what the API still reads and discards before it closes, so
     * the client that is still sending gets the answer instead of a reset. 0 closes at once.
     */
    LINGERING_CLOSE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024),
    /** …and for how long at most, counted from the answer (nginx's lingering_time). */
    LINGERING_CLOSE_MAX_MS: z.coerce.number().int().min(0).default(30_000),
    /** …and how long it waits for the client's next bytes (nginx's lingering_timeout). */
    LINGERING_CLOSE_IDLE_MS: z.coerce.number().int().min(1).default(5_000),
    /** Whitelist passes: an ACTIVE pass expires this long after its creation. */
    PASS_TTL_SECONDS: seconds(86_400),
    // The operator console: accounts, sessions, four-eyes (docs/console.md).
    /** A console session ends after this long without a request (idle timeout). */
    OPERATOR_SESSION_IDLE_SECONDS: z.coerce.number().int().min(1).default(1800),
    /** …and this long after sign-in whatever happens (absolute timeout). */
    OPERATOR_SESSION_ABSOLUTE_SECONDS: z.coerce.number().int().min(1).default(43_200),
    /**
     * Failed sign-ins (and failed password or code confirmations) counted within
     * OPERATOR_SIGN_IN_WINDOW_SECONDS, each attempt reserved before its password is hashed; at a
     * limit further tries are 429 with Retry-After, the right password included: per (email,
     * client address), per email from any address, per address for any email.
     */
    OPERATOR_SIGN_IN_MAX_FAILURES: z.coerce.number().int().min(1).default(10),
    OPERATOR_SIGN_IN_MAX_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).default(20),
    OPERATOR_SIGN_IN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(50),
    OPERATOR_SIGN_IN_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
    /**
     * Sign-ins for unknown emails whose decoy password hash runs, within the window, from all
     * addresses together; past it they are answered after as long, without a hash.
     */
    OPERATOR_SIGN_IN_UNKNOWN_HASHES: z.coerce.number().int().min(0).default(100),
    /** Password hashes (scrypt, 32 MiB, a thread of the pool) one API process runs at once… */
    OPERATOR_PASSWORD_HASHES_AT_ONCE: z.coerce.number().int().min(1).default(1),
    /** …and how many may wait for a slot; beyond, a sign-in is 429 at once. */
    OPERATOR_PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).default(64),
    /** The session cookie's Secure flag: auto (on in production and on https requests), always, never (plain-http development only). */
    OPERATOR_COOKIE_SECURE: z.enum(['auto', 'always', 'never']).default('auto'),
    /**
     * Four-eyes: a withdrawal of more than this many USDT cents (1,000,000 = 10,000 USDT) waiting in
     * the operator queue needs the approvals of two different operators; at or below it one suffices.
     */
    WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS: z.coerce.bigint().min(0n).default(1_000_000n),
    /** The console's home counts a live deal (not APPEALED) untouched for this long as stuck. */
    DEAL_STUCK_SLA_SECONDS: z.coerce.number().int().min(1).default(3600),
    // Cases and the desk (docs/console.md, "Cases", "Invitations", "The desk's notifications").
    /** An appeal must be answered within this long of its opening (or reopening): its respond_by; past it, it is overdue. */
    APPEAL_RESPONSE_SLA_SECONDS: z.coerce.number().int().min(60).default(86_400),
    /** The trader of an appealed deal answers within this long of the opening: its trader_respond_by; past it, answers are refused. */
    APPEAL_TRADER_RESPONSE_SECONDS: z.coerce.number().int().min(1).default(86_400),
    /** An invitation's link (an operator's, a merchant member's) works once, for this long. */
    OPERATOR_INVITE_TTL_SECONDS: z.coerce.number().int().min(60).default(259_200),
    /**
     * Where an invitation's e-mail is written instead of sent (no SMTP here): one JSON line per
     * message, appended. Empty: none is written (the inviting admin still sees the link).
     */
    OPERATOR_MAILBOX_FILE: z.string().default('.data/mailbox/operators.jsonl'),
    /** The same for the cabinet's invitations of a merchant's members (docs/cabinet.md). */
    MERCHANT_MAILBOX_FILE: z.string().default('.data/mailbox/merchants.jsonl'),
    /** The same for traders' invitations (docs/trader.md). */
    TRADER_MAILBOX_FILE: z.string().default('.data/mailbox/traders.jsonl'),
    /** Where the console is reached from outside: the base of an invitation's link (default CHECKOUT_BASE_URL). */
    CONSOLE_BASE_URL: optionalText(),
    /** The desk hook: a URL that receives a signed JSON POST for each new piece of work (new appeals, withdrawals waiting, alerts). Unset: none sent. */
    DESK_HOOK_URL: optionalText(),
    /** …signed with this secret (Standard Webhooks: `whsec_` + base64 of random bytes); required with DESK_HOOK_URL. */
    DESK_HOOK_SECRET: optionalText(),
    /** …tried this many times per event (5 s, doubling up to 10 min between tries: about four hours for 30). */
    DESK_HOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(30),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  });
}

export type Config = z.output<ReturnType<typeof schemaFor>> & { WEBHOOK_TASK_QUEUE: string };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schemaFor(env.NODE_ENV ?? 'development').safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  if ((parsed.data.TEMPORAL_TLS_CERT === undefined) !== (parsed.data.TEMPORAL_TLS_KEY === undefined)) {
    throw new Error('invalid configuration:\n  TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (client certificate and its key)');
  }
  if (parsed.data.TRUST_PROXY && parsed.data.TRUSTED_PROXIES.length === 0) {
    throw new Error(
      'invalid configuration:\n  TRUST_PROXY believed X-Forwarded-For from any peer and is replaced by TRUSTED_PROXIES: list the addresses or CIDRs of your proxies (e.g. TRUSTED_PROXIES=10.0.0.0/8)',
    );
  }
  // The largest upload a merchant may send must fit its budget of unverified bytes, or it would be refused for ever.
  const largestUpload = parsed.data.EVIDENCE_MAX_BYTES + 64 * 1024;
  if (parsed.data.UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT < largestUpload) {
    throw new Error(
      `invalid configuration:\n  UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT must be at least the largest upload, EVIDENCE_MAX_BYTES + 65536 = ${largestUpload}`,
    );
  }
  // A new merchant's auto limit above the four-eyes amount would send out, unapproved, what needs two approvals.
  if (parsed.data.AUTO_WITHDRAWAL_LIMIT_USDT_CENTS > parsed.data.WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS) {
    throw new Error('invalid configuration:\n  AUTO_WITHDRAWAL_LIMIT_USDT_CENTS must not be above WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS');
  }
  if (parsed.data.DESK_HOOK_URL !== undefined && !/^https?:\/\/[^/]/.test(parsed.data.DESK_HOOK_URL)) {
    throw new Error('invalid configuration:\n  DESK_HOOK_URL must be an http(s) URL');
  }
  if (parsed.data.DESK_HOOK_URL !== undefined && parsed.data.DESK_HOOK_SECRET === undefined) {
    throw new Error('invalid configuration:\n  DESK_HOOK_SECRET must be set with DESK_HOOK_URL (the hook signs every POST)');
  }
  if (parsed.data.UNVERIFIED_UPLOAD_BYTES_TOTAL < parsed.data.UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT) {
    throw new Error('invalid configuration:\n  UNVERIFIED_UPLOAD_BYTES_TOTAL must be at least UNVERIFIED_UPLOAD_BYTES_PER_MERCHANT');
  }
  const config = { ...parsed.data, WEBHOOK_TASK_QUEUE: parsed.data.WEBHOOK_TASK_QUEUE ?? `${parsed.data.TEMPORAL_TASK_QUEUE}-webhooks` };
  try {
    TronAddressDeriver.fromConfig(config);
  } catch (error) {
    throw new Error(`invalid configuration:\n  WALLET_XPUB / WALLET_HD_SEED: ${(error as Error).message}`);
  }
  if (config.CHAIN_ADAPTER === 'trongrid' && !config.TRON_API_URL) {
    throw new Error('invalid configuration:\n  TRON_API_URL must be set with CHAIN_ADAPTER=trongrid (e.g. https://api.trongrid.io or an own node)');
  }
  if (config.NODE_ENV === 'production') {
    if (config.CHAIN_ADAPTER === 'simulated')
      throw new Error('CHAIN_ADAPTER=simulated is for development and tests only: set CHAIN_ADAPTER=trongrid and TRON_API_URL in production');
    if (config.TRON_HOT_WALLET_KEY?.toLowerCase() === DEV_TRON_HOT_WALLET_KEY)
      throw new Error('TRON_HOT_WALLET_KEY must be set in production (the development key is public and refused)');
    if (config.JWT_SECRET === DEV_JWT_SECRET) throw new Error('JWT_SECRET must be set in production');
    if (config.SECRETS_ENCRYPTION_KEY === DEV_SECRETS_KEY) throw new Error('SECRETS_ENCRYPTION_KEY must be set in production');
    // Off, a worker would take a plain payload — an approval with a forged actor — from whoever reaches the frontend.
    if (!config.TEMPORAL_PAYLOAD_ENCRYPTION)
      throw new Error('TEMPORAL_PAYLOAD_ENCRYPTION=false is refused in production: workers take plain payloads only with encryption off');
    if (config.TEMPORAL_PAYLOAD_KEYS.some((k) => k.key.equals(Buffer.from(DEV_PAYLOAD_KEY, 'base64'))))
      throw new Error('TEMPORAL_PAYLOAD_KEYS must be set in production (the development key is refused)');
    if (config.CODEC_LOOPBACK_WITHOUT_AUTH) throw new Error('CODEC_LOOPBACK_WITHOUT_AUTH is for development only');
    if (!config.WALLET_XPUB && config.WALLET_HD_SEED.toLowerCase() === DEV_WALLET_HD_SEED)
      throw new Error('WALLET_XPUB (or a WALLET_HD_SEED other than the development seed) must be set in production');
  }
  return config;
}

/**
 * The key that signs withdrawals: TRON_HOT_WALLET_KEY, or the development key outside production.
 * Only the worker (the trongrid chain adapter) asks for it; the API never needs it.
 */
export function tronHotWalletKey(config: Pick<Config, 'NODE_ENV' | 'TRON_HOT_WALLET_KEY'>): string {
  if (config.TRON_HOT_WALLET_KEY) return config.TRON_HOT_WALLET_KEY;
  if (config.NODE_ENV === 'production') throw new Error('TRON_HOT_WALLET_KEY must be set in production for a worker with CHAIN_ADAPTER=trongrid');
  return DEV_TRON_HOT_WALLET_KEY;
}
