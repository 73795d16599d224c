/**
 * npm test: one throwaway stack per run (see ephemeral-stack.ts), then ava over unit and
 * integration tests, then teardown. Durations are short so timers fire within the suite.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startEphemeralStack, type EphemeralStack } from './ephemeral-stack';
import { ledgerCheck } from './ledger-check';
import { onInterrupt, ROOT, stopAll } from './stack';

/** Short durations: every timer of the workflows fires within the suite. */
const TEST_DURATIONS: NodeJS.ProcessEnv = {
  MERCHANT_KEY_GRACE_PERIOD: '900',
  PAYIN_TIMEOUT_SECONDS: '30',
  PAYOUT_ASSIGN_SLA_SECONDS: '30',
  PAYOUT_RETRY_MATCH_SECONDS: '1',
  FEE_DISTRIBUTION_DELAY_SECONDS: '1',
  WEBHOOK_RETRY_DELAYS: '200ms,400ms,600ms,800ms,1s',
  CALLBACK_RETRY_COOLDOWN_SECONDS: '2',
};

let stack: EphemeralStack | undefined;
onInterrupt(async () => (stack ? stack.teardown() : stopAll()));

let exitCode = 1;
try {
  stack = await startEphemeralStack('test', TEST_DURATIONS);
  const env = stack.env;
  exitCode = await new Promise<number>((done) => {
    const ava = spawn(process.execPath, [join(ROOT, 'node_modules', 'ava', 'entrypoints', 'cli.mjs'), ...process.argv.slice(2)], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, ...env, TEST_API_URL: stack!.apiUrl },
    });
    ava.on('exit', (code) => done(code ?? 1));
  });
  // After the whole suite: the ledger of everything the tests did must still add up.
  if (!(await ledgerCheck(env.DATABASE_URL!))) exitCode = 1;
} catch (error) {
  console.error(error);
} finally {
  await stack?.teardown();
  if (exitCode !== 0) stack?.showLogTails();
}
process.exit(exitCode);
