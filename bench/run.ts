/**
 * npm run bench [-- scenario ...]: starts a throwaway full stack (Postgres, Temporal dev server,
 * worker, API) and drives it over HTTP with signed requests (a fresh timestamp and a real HMAC
 * each). Prints requests/s, p50, p99 and errors per scenario. BENCH_CLIENTS, BENCH_SECONDS tune it.
 */
import { signJwt } from '../api/auth/jwt';
import { signatureHeader } from '../domain/signature';
import { startEphemeralStack } from '../scripts/ephemeral-stack';
import { onInterrupt } from '../scripts/stack';
import { printResult, runLoad } from './load';

const clients = Number(process.env.BENCH_CLIENTS ?? 32);
const durationMs = Number(process.env.BENCH_SECONDS ?? 10) * 1000;
const wanted = new Set(process.argv.slice(2));

const stack = await startEphemeralStack('bench', { LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '20', FEE_DISTRIBUTION_DELAY_SECONDS: '0' });
onInterrupt(() => stack.teardown());
const api = stack.apiUrl;
const operator = await signJwt({ sub: 'bench', role: 'admin' }, stack.env.JWT_SECRET!);

async function operatorPost(path: string, body: unknown) {
  const response = await fetch(api + path, {
    method: 'POST',
    headers: { Authorization: `Bearer ${operator}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<any>;
}

const merchant = await operatorPost('/api/v1/p2p/admin/merchants', {
  name: 'Bench merchant',
  email: `bench-${Date.now()}@example.test`,
  webhook_url: 'http://127.0.0.1:9/webhooks',
  rate_limit_per_minute: 1_000_000,
  payin_fee_bps: 250,
});
const keys = (await operatorPost('/api/v1/p2p/merchant/api-keys', { merchant_id: merchant.merchant.id })) as { token: string; secret: string };

function signedFetch(method: string, path: string, body = '') {
  const t = Math.floor(Date.now() / 1000);
  return fetch(api + path, {
    method,
    headers: {
      'Content-Type': 'application/json',
      'X-Merchant-Token': keys.token,
      'X-Timestamp': String(t),
      'X-Signature': signatureHeader(keys.secret, t, body),
    },
    ...(body ? { body } : {}),
  });
}

let keyCounter = 0;
const payinBody = () =>
  JSON.stringify({ idempotency_key: `bench-${process.pid}-${keyCounter++}`, amount: 150_000, currency: 'RUB', payment_method_id: 'card-rub' });

let completedLifecycles = 0;
async function lifecycle(): Promise<Response> {
  const created = await signedFetch('POST', '/api/v1/p2p/merchant/deals/payin', payinBody());
  if (!created.ok) return created;
  const { deal } = (await created.json()) as { deal: { deal_id: string; payment_url: string } };
  const hash = deal.payment_url.split('/pay/')[1];
  const notified = await fetch(`${api}/api/v1/p2p/checkout/${hash}/notify-payment`, { method: 'POST' });
  if (!notified.ok) return notified;
  await notified.arrayBuffer();
  const confirmed = await fetch(`${api}/api/v1/p2p/admin/deals/${deal.deal_id}/confirm`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${operator}` },
  });
  if (confirmed.ok) completedLifecycles += 1;
  return confirmed;
}

async function pendingCredits(): Promise<bigint> {
  const res = await signedFetch('GET', '/api/v1/p2p/my-merchant');
  const body = (await res.json()) as { merchant: { balance_usdt: string } };
  return BigInt(body.merchant.balance_usdt);
}

const scenarios: Record<string, () => Promise<void>> = {
  'my-merchant': async () =>
    printResult(await runLoad(`signed GET my-merchant (${clients} clients)`, { clients, durationMs }, () => signedFetch('GET', '/api/v1/p2p/my-merchant'))),
  'payin-create': async () =>
    printResult(
      await runLoad(`PayIn create, distinct keys (${clients} clients)`, { clients, durationMs }, () =>
        signedFetch('POST', '/api/v1/p2p/merchant/deals/payin', payinBody()),
      ),
    ),
  'payin-lifecycle': async () => {
    const before = await pendingCredits();
    completedLifecycles = 0;
    const result = await runLoad(`PayIn create→notify→confirm=COMPLETED (${clients} clients)`, { clients, durationMs }, lifecycle);
    printResult(result);
    // Fee distribution (delay 0 here) then moves every net credit to available: time the drain.
    const ended = Date.now();
    const expected = before + BigInt(completedLifecycles) * 1581n; // 1622 − 2.5 % fee (41), warm-up included
    let now = before;
    while (Date.now() - ended < 120_000 && (now = await pendingCredits()) < expected) await new Promise((r) => setTimeout(r, 200));
    console.log(`  all net credits available ${Date.now() - ended} ms after the last completion (balance ${now}, expected ≥ ${expected})`);
  },
};

try {
  console.log(`bench: ${clients} clients, ${durationMs / 1000} s per scenario, all services on this machine (${(await import('node:os')).cpus().length} cores)`);
  for (const [name, run] of Object.entries(scenarios)) {
    if (wanted.size === 0 || wanted.has(name)) await run();
  }
} finally {
  await stack.teardown();
}
process.exit(0);
