/**
 * Polls until check() returns a truthy value (async outcomes: timers, fee distribution, visibility).
 * The deadline only bounds a wait that has gone wrong: it is generous (minutes) because the suite
 * runs on loaded machines, where what takes a second can take a minute; a passing wait costs only
 * the time its condition takes.
 */
export async function eventually<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
