/**
 * Isolation of webhook targets inside one worker process: at most WEBHOOK_MAX_IN_FLIGHT_PER_HOST
 * POSTs in flight to one host (a slow receiver cannot take every activity slot), and a circuit
 * breaker per host (as Svix and Stripe do for failing endpoints): after WEBHOOK_BREAKER_FAILURES
 * consecutive failures the host is parked for WEBHOOK_BREAKER_COOLDOWN_MS, then one probe may
 * go; its success closes the circuit, its failure parks the host again. A delivery that finds its
 * host parked or busy sends nothing and records nothing: its workflow waits on a durable timer
 * and comes back, without spending one of its attempts.
 */
interface HostState {
  inFlight: number;
  failures: number;
  openUntil: number;
  probing: boolean;
}

export type Admission = { admitted: true; release: (ok: boolean | undefined) => void } | { admitted: false; retryInMs: number; reason: 'parked' | 'busy' };

export class HostGate {
  private readonly hosts = new Map<string, HostState>();

  constructor(
    private readonly options: { maxInFlight: number; breakerFailures: number; cooldownMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  private state(host: string): HostState {
    let s = this.hosts.get(host);
    if (!s) this.hosts.set(host, (s = { inFlight: 0, failures: 0, openUntil: 0, probing: false }));
    return s;
  }

  /** force: a manual retry goes even to a parked host (it acts as the probe). */
  admit(host: string, force = false): Admission {
    const s = this.state(host);
    const jitter = () => Math.floor(Math.random() * Math.min(5_000, this.options.cooldownMs / 2));
    let probe = false;
    if (!force && this.options.breakerFailures > 0 && s.failures >= this.options.breakerFailures) {
      const wait = s.openUntil - this.now();
      if (wait > 0 || s.probing) return { admitted: false, retryInMs: Math.max(wait, 1000) + jitter(), reason: 'parked' };
      probe = true; // half-open: this one goes, the others keep waiting
      s.probing = true;
    }
    if (!force && s.inFlight >= this.options.maxInFlight) {
      if (probe) s.probing = false;
      return { admitted: false, retryInMs: Math.min(this.options.cooldownMs, 5_000) + jitter(), reason: 'busy' };
    }
    s.inFlight += 1;
    let released = false;
    return {
      admitted: true,
      /** ok undefined: nothing was sent (refused target), the circuit is left as it was. */
      release: (ok: boolean | undefined) => {
        if (released) return;
        released = true;
        s.inFlight -= 1;
        if (probe) s.probing = false;
        if (ok === undefined) return;
        if (ok) {
          s.failures = 0;
          s.openUntil = 0;
        } else {
          s.failures += 1;
          if (this.options.breakerFailures > 0 && s.failures >= this.options.breakerFailures) s.openUntil = this.now() + this.options.cooldownMs;
        }
      },
    };
  }

  /**
   * Like admit, but a busy host is waited for in this process up to waitMs (a slot frees when a
   * POST ends; waiting costs no CPU and no workflow task), before the delivery is sent away to
   * wait on a durable timer.
   */
  async admitWaiting(host: string, force: boolean, waitMs: number): Promise<Admission> {
    const deadline = this.now() + waitMs;
    for (;;) {
      const admission = this.admit(host, force);
      if (admission.admitted || admission.reason === 'parked' || this.now() >= deadline) return admission;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }

  /** For logs and the bench: hosts whose circuit is open. */
  parkedHosts(): string[] {
    return [...this.hosts].filter(([, s]) => this.options.breakerFailures > 0 && s.failures >= this.options.breakerFailures).map(([h]) => h);
  }
}

export function targetHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
