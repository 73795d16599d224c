import { z } from 'zod';
import { TronAddressDeriver } from '../domain/tron';

export const DEV_JWT_SECRET = 'dev-jwt-secret-change-me';
/** A fixed 32-byte key for development only; production refuses to start with it. */
export const DEV_SECRETS_KEY = Buffer.from('dev-secrets-key-never-in-prod-32').toString('base64');
/**
 * The BIP39 test mnemonic "abandon … about" as a seed: its addresses are public knowledge (anyone
 * can spend from them), so it is for development only; production refuses to start with it.
 */
export const DEV_WALLET_HD_SEED =
  '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4';

const seconds = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

/** Parses "5s,30s,5m,15m,1h" into milliseconds. */
export function parseDurations(text: string): number[] {
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
    DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/gateway'),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TASK_QUEUE: z.string().default('gateway'),
    /** Webhook deliveries have a queue (and worker) of their own; default: <TEMPORAL_TASK_QUEUE>-webhooks. */
    WEBHOOK_TASK_QUEUE: z.string().optional(),
    JWT_SECRET: z.string().min(16).default(DEV_JWT_SECRET),
    SECRETS_ENCRYPTION_KEY: z
      .string()
      .default(DEV_SECRETS_KEY)
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded'),
    CHECKOUT_BASE_URL: z.string().url().default('http://127.0.0.1:3000'),
    PAYIN_TIMEOUT_SECONDS: seconds(1800),
    PAYOUT_ASSIGN_SLA_SECONDS: seconds(900),
    PAYOUT_RETRY_MATCH_SECONDS: seconds(30),
    FEE_DISTRIBUTION_DELAY_SECONDS: seconds(60),
    WEBHOOK_RETRY_DELAYS: z.string().default('5s,30s,5m,15m,1h').transform(parseDurations),
    CALLBACK_RETRY_COOLDOWN_SECONDS: seconds(60),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    OUTBOX_POLL_MS: z.coerce.number().int().min(50).default(1000),
    /** Whether this worker process also runs the outbox relay (several may; they share the work). */
    OUTBOX_RELAY: bool(true),
    MERCHANT_KEY_GRACE_PERIOD: seconds(900),
    V1_SUNSET_AT: z.string().datetime({ offset: true }).default('2027-01-12T00:00:00Z').transform((v) => new Date(v)),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: bool(nodeEnv !== 'production'),
    DEFAULT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(10_000),
    TRUST_PROXY: bool(false),
    // Wallet (issue 10): deposit addresses, withdrawal fee, auto-withdrawal, the chain adapter.
    /** Hex seed of the deposit-address HD wallet (m/44'/195'/0'/0/<index>); ignored when WALLET_XPUB is set. */
    WALLET_HD_SEED: z.string().regex(/^([0-9a-fA-F]{2}){16,64}$/, 'must be 16 to 64 bytes of hex').default(DEV_WALLET_HD_SEED),
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
    /** The chain adapter; only the embedded simulator exists so far. */
    CHAIN_ADAPTER: z.enum(['simulated']).default('simulated'),
    /** Simulated chain: ok | fail (every transfer refused for good) | flaky (first 2 sends of each withdrawal fail transiently) | hang (never answers). */
    CHAIN_SIMULATOR: z.enum(['ok', 'fail', 'flaky', 'hang']).default('ok'),
    /** Simulated network latency before and after the transfer is accepted, ms. */
    CHAIN_SIMULATOR_LATENCY_MS: z.coerce.number().int().min(0).default(0),
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
  const config = { ...parsed.data, WEBHOOK_TASK_QUEUE: parsed.data.WEBHOOK_TASK_QUEUE ?? `${parsed.data.TEMPORAL_TASK_QUEUE}-webhooks` };
  try {
    TronAddressDeriver.fromConfig(config);
  } catch (error) {
    throw new Error(`invalid configuration:\n  WALLET_XPUB / WALLET_HD_SEED: ${(error as Error).message}`);
  }
  if (config.NODE_ENV === 'production') {
    if (config.JWT_SECRET === DEV_JWT_SECRET) throw new Error('JWT_SECRET must be set in production');
    if (config.SECRETS_ENCRYPTION_KEY === DEV_SECRETS_KEY)
      throw new Error('SECRETS_ENCRYPTION_KEY must be set in production');
    if (!config.WALLET_XPUB && config.WALLET_HD_SEED.toLowerCase() === DEV_WALLET_HD_SEED)
      throw new Error('WALLET_XPUB (or a WALLET_HD_SEED other than the development seed) must be set in production');
  }
  return config;
}
