/**
 * The operator password hashes this API process runs: scrypt (domain/crypto/passwords.ts) takes 32 MiB
 * and a thread of libuv's pool for ~0.1 s, and that pool also reads files (the console's static
 * pages) and resolves names. Without a bound, a flood of sign-ins filled the pool and a static
 * page took 35 s. Every hash therefore runs under a semaphore of OPERATOR_PASSWORD_HASHES_AT_ONCE
 * slots (async-sema); at most OPERATOR_PASSWORD_HASH_QUEUE wait for one, beyond that the request is
 * 429 at once. The gate also knows how long a check takes from arrival to answer, so an unknown
 * email past the global budget of decoy hashes can be answered after as long without one.
 */
import { Sema } from 'async-sema';
import { TooManyInFlight } from '../../domain/errors';
import { decoyHash, hashPassword, verifyPassword } from '../../domain/crypto/passwords';

export interface PasswordHashLimits {
  atOnce: number;
  queue: number;
}

const HASHES_BUSY = 'too many sign-ins are being checked at this moment; try again in a few seconds';

export class PasswordHashGate {
  readonly #slots: Sema;
  #running = 0;
  /** Moving average of a check's time from arrival to answer (queue included), in ms. */
  #typicalMs = 150;

  constructor(readonly limits: PasswordHashLimits) {
    this.#slots = new Sema(limits.atOnce);
  }

  static fromConfig(config: { OPERATOR_PASSWORD_HASHES_AT_ONCE: number; OPERATOR_PASSWORD_HASH_QUEUE: number }): PasswordHashGate {
    return new PasswordHashGate({ atOnce: config.OPERATOR_PASSWORD_HASHES_AT_ONCE, queue: config.OPERATOR_PASSWORD_HASH_QUEUE });
  }

  /** Hashes running now, and waiting for a slot. */
  running(): number {
    return this.#running;
  }
  waiting(): number {
    return this.#slots.nrWaiting();
  }

  #full(): boolean {
    return this.#running >= this.limits.atOnce && this.#slots.nrWaiting() >= this.limits.queue;
  }

  /** Runs `hash` in a slot; a full queue is 429 (TooManyInFlight) without waiting. */
  async run<T>(hash: () => Promise<T>): Promise<T> {
    if (this.#full()) throw new TooManyInFlight(HASHES_BUSY);
    await this.#slots.acquire();
    this.#running += 1;
    try {
      return await hash();
    } finally {
      this.#running -= 1;
      this.#slots.release();
    }
  }

  /** Whether `password` matches `stored`, timed for idle(). */
  async verify(password: string, stored: string): Promise<boolean> {
    const started = performance.now();
    const ok = await this.run(() => verifyPassword(password, stored));
    this.#typicalMs = 0.8 * this.#typicalMs + 0.2 * (performance.now() - started);
    return ok;
  }

  /** The check of an unknown email: a decoy hash, the same work as a known one (always false). */
  async verifyDecoy(password: string): Promise<false> {
    await this.verify(password, await this.run(() => decoyHash()));
    return false;
  }

  /**
   * Waits as long as a check takes now, without hashing: an unknown email past the global budget.
   * When the queue is full it is 429 like a known email would be, so the answer tells nothing.
   */
  async idle(): Promise<false> {
    if (this.#full()) throw new TooManyInFlight(HASHES_BUSY);
    const jitter = 0.8 + Math.random() * 0.4;
    await new Promise((resolve) => setTimeout(resolve, this.#typicalMs * jitter));
    return false;
  }

  /** A new password's hash (account create, password set). */
  hash(password: string): Promise<string> {
    return this.run(() => hashPassword(password));
  }
}
