import { z } from 'zod';

export const DEV_JWT_SECRET = 'dev-jwt-secret-change-me';
/** A fixed 32-byte key for development only; production refuses to start with it. */
export const DEV_SECRETS_KEY = Buffer.from('dev-secrets-key-never-in-prod-32').toString('base64');

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
    /** Evidence files (issue 9): largest accepted upload in bytes. */
    EVIDENCE_MAX_BYTES: z.coerce.number().int().min(1).default(10 * 1024 * 1024),
    /** Whitelist passes (spec 4.6): an ACTIVE pass expires this long after its creation. */
    PASS_TTL_SECONDS: seconds(86_400),
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
  if (config.NODE_ENV === 'production') {
    if (config.JWT_SECRET === DEV_JWT_SECRET) throw new Error('JWT_SECRET must be set in production');
    if (config.SECRETS_ENCRYPTION_KEY === DEV_SECRETS_KEY)
      throw new Error('SECRETS_ENCRYPTION_KEY must be set in production');
  }
  return config;
}
