/**
 * A deal workflow's timers, advanceable for sandbox deals. The workflow waits through
 * `wait(timer, done, ms)` instead of `condition(done, ms)`: the same timer command (a deal that
 * is never advanced runs exactly as with `condition`), plus a flag checked
 * beside it that the `advanceTimer` update sets. The update answers once what the timer's end
 * does has run (the workflow's next wait began, or it ended).
 */
import { condition, setHandler, sleep } from '@temporalio/workflow';
import { advanceTimerUpdate, type DealTimer } from './contracts/sandbox-trader';
import { rejected } from './failures';

export function sandboxClock(options: { sandbox: () => boolean; status: () => string }) {
  let pending: DealTimer | undefined;
  let advanced = false;
  /** Bumped when a wait begins and when the workflow ends: a consequence has run. */
  let generation = 0;
  let ended = false;

  setHandler(
    advanceTimerUpdate,
    async () => {
      // A live deal that has not reached its first timer yet (an advance sent right after the
      // create, while the workflow still runs its post-create steps) waits for it instead of a refusal.
      await condition(() => pending !== undefined || ended);
      if (!pending || advanced) throw rejected('FAILED_PRECONDITION', `the deal has no timer running (it is ${options.status()})`);
      const timer = pending;
      const seen = generation;
      advanced = true;
      await condition(() => generation !== seen || ended);
      return { timer, status: options.status() };
    },
    {
      validator: () => {
        if (!options.sandbox()) throw rejected('FAILED_PRECONDITION', 'advance is for sandbox deals only');
        // Refused at once: the workflow is done waiting, a timer is already being fired, or the
        // deal has passed its first wait and is between timers (e.g. APPEALED, waiting for no timer).
        if (ended || advanced || (!pending && generation > 0))
          throw rejected('FAILED_PRECONDITION', `the deal has no timer running (it is ${options.status()})`);
      },
    },
  );

  return {
    /** As condition(done, ms): 'done' when done() held, 'elapsed' when the timer ran out, 'advanced' when the update fired it. */
    async wait(timer: DealTimer, done: () => boolean, ms: number): Promise<'done' | 'elapsed' | 'advanced'> {
      generation += 1;
      pending = timer;
      try {
        const held = await condition(() => done() || advanced, ms);
        return advanced ? 'advanced' : held ? 'done' : 'elapsed';
      } finally {
        pending = undefined;
        advanced = false;
      }
    },
    /** As sleep(ms), advanceable; a zero wait stays the plain sleep it was (its history has no condition). */
    async sleep(timer: DealTimer, ms: number): Promise<void> {
      if (ms <= 0) {
        generation += 1;
        await sleep(ms);
        return;
      }
      await this.wait(timer, () => false, ms);
    },
    /** The workflow is done waiting: an advance in flight answers. */
    end() {
      ended = true;
    },
  };
}
