/**
 * Isolation of webhook endpoints inside one worker process. An endpoint is what one merchant
 * configured: (merchant, URL). Several merchants often share one host (a webhook relay, an API
 * gateway), so nothing one endpoint does may hold up another's deliveries:
 *
 * - a circuit breaker per endpoint (as Svix and Stripe do for failing endpoints): after
 *   WEBHOOK_BREAKER_FAILURES consecutive failures the endpoint is parked for
 *   WEBHOOK_BREAKER_COOLDOWN_MS, then one probe may go; its success closes the circuit, its
 *   failure parks the endpoint again. Other endpoints on the same host are not affected.
 * - at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT POSTs in flight to one endpoint, so one slow or
 *   hanging receiver cannot take every activity slot of the process;
 * - and a looser WEBHOOK_MAX_IN_FLIGHT_PER_HOST over all of ONE merchant's endpoints on one host
 *   (host:port), a backstop for a merchant whose many endpoints all hang at once (every deal with
 *   its own callback_url on one dead host). It is keyed by merchant too, so one merchant's
 *   endpoints never hold up another merchant's on a shared host. One endpoint alone never reaches
 *   it when it is larger than the per-endpoint cap (the defaults are 16 and 64).
 *
 * A delivery that is not admitted sends nothing and records nothing: its workflow waits on a
 * durable timer and comes back, without spending one of its attempts. The reason tells the
 * workflow whose wait it is: 'parked' and 'busy' are the endpoint's own doing (the wait may grow
 * while they last), 'host-busy' is the merchant's other endpoints' (the wait stays flat).
 */
interface EndpointState {
  inFlight: number;
  failures: number;
  openUntil: number;
  probing: boolean;
}

export interface Target {
  /** endpointKey(merchant, url): the breaker and the per-endpoint cap. */
  endpoint: string;
  /** hostKey(merchant, url): the looser cap over one merchant's endpoints on one host. */
  host: string;
}

type WaitReason = 'parked' | 'busy' | 'host-busy';

/** The endpoint's circuit when a POST was admitted: closed, half_open (the one probe), open (a manual retry forced through). */
type Circuit = 'closed' | 'half_open' | 'open';

export type Admission =
  | { admitted: true; circuit: Circuit; release: (ok: boolean | undefined) => void }
  | { admitted: false; retryInMs: number; reason: WaitReason };

export interface GateOptions {
  maxInFlightPerEndpoint: number;
  maxInFlightPerHost: number;
  breakerFailures: number;
  cooldownMs: number;
}

export class WebhookGate {
  private readonly endpoints = new Map<string, EndpointState>();
  private readonly hosts = new Map<string, number>();

  constructor(
    private readonly options: GateOptions,
    private readonly now: () => number = Date.now,
  ) {}

  private state(endpoint: string): EndpointState {
    let s = this.endpoints.get(endpoint);
    if (!s) {
      s = { inFlight: 0, failures: 0, openUntil: 0, probing: false };
      this.endpoints.set(endpoint, s);
    }
    return s;
  }

  /** An endpoint back to its initial state is forgotten (endpoints come and go with deals' callback_urls). */
  private tidy(endpoint: string, s: EndpointState) {
    if (s.inFlight === 0 && s.failures === 0 && !s.probing) this.endpoints.delete(endpoint);
  }

  /** force: a manual retry goes even to a parked or busy endpoint (it acts as the probe). */
  admit(target: Target, force = false): Admission {
    const s = this.state(target.endpoint);
    const jitter = () => Math.floor(Math.random() * Math.min(5_000, this.options.cooldownMs / 2));
    const busyWait = () => Math.min(this.options.cooldownMs, 5_000) + jitter();
    let probe = false;
    const open = this.options.breakerFailures > 0 && s.failures >= this.options.breakerFailures;
    if (!force && open) {
      const wait = s.openUntil - this.now();
      if (wait > 0 || s.probing) return { admitted: false, retryInMs: Math.max(wait, 1000) + jitter(), reason: 'parked' };
      probe = true; // half-open: this one goes, the others keep waiting
      s.probing = true;
    }
    const hostInFlight = this.hosts.get(target.host) ?? 0;
    const refused: WaitReason | undefined = force
      ? undefined
      : s.inFlight >= this.options.maxInFlightPerEndpoint
        ? 'busy'
        : hostInFlight >= this.options.maxInFlightPerHost
          ? 'host-busy'
          : undefined;
    if (refused) {
      if (probe) s.probing = false;
      this.tidy(target.endpoint, s);
      return { admitted: false, retryInMs: busyWait(), reason: refused };
    }
    s.inFlight += 1;
    this.hosts.set(target.host, hostInFlight + 1);
    let released = false;
    return {
      admitted: true,
      circuit: probe ? 'half_open' : open ? 'open' : 'closed',
      /** ok undefined: nothing was sent (refused target), the circuit is left as it was. */
      release: (ok: boolean | undefined) => {
        if (released) return;
        released = true;
        s.inFlight -= 1;
        const left = (this.hosts.get(target.host) ?? 1) - 1;
        if (left > 0) this.hosts.set(target.host, left);
        else this.hosts.delete(target.host);
        if (probe) s.probing = false;
        if (ok === true) {
          s.failures = 0;
          s.openUntil = 0;
        } else if (ok === false) {
          s.failures += 1;
          if (this.options.breakerFailures > 0 && s.failures >= this.options.breakerFailures) s.openUntil = this.now() + this.options.cooldownMs;
        }
        // Still the object in the map unless it was forgotten while this POST ran (it cannot be: inFlight > 0).
        this.tidy(target.endpoint, s);
      },
    };
  }

  /**
   * Like admit, but a busy endpoint or host is waited for in this process up to waitMs (a slot
   * frees when a POST ends; waiting costs no CPU and no workflow task), before the delivery is
   * sent away to wait on a durable timer.
   */
  async admitWaiting(target: Target, force: boolean, waitMs: number): Promise<Admission> {
    const deadline = this.now() + waitMs;
    for (;;) {
      const admission = this.admit(target, force);
      if (admission.admitted || admission.reason === 'parked' || this.now() >= deadline) return admission;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }

  /** For logs and tests: endpoints whose circuit is open. */
  parkedEndpoints(): string[] {
    return [...this.endpoints].filter(([, s]) => this.options.breakerFailures > 0 && s.failures >= this.options.breakerFailures).map(([e]) => e);
  }

  /** POSTs in flight to a host, all endpoints together. */
  inFlightToHost(host: string): number {
    return this.hosts.get(host) ?? 0;
  }
}

/** The endpoint a delivery goes to: the merchant and the URL as configured (webhook_url or the deal's callback_url). */
export function endpointKey(merchantId: string, url: string): string {
  return `${merchantId} ${url}`;
}

export function targetHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** One merchant's endpoints on one host: what the looser cap counts (never across merchants). */
function hostKey(merchantId: string, url: string): string {
  return `${merchantId} ${targetHost(url)}`;
}

export function targetOf(merchantId: string, url: string): Target {
  return { endpoint: endpointKey(merchantId, url), host: hostKey(merchantId, url) };
}
