/**
 * The gateway's own Prometheus metrics (prom-client), defined in one place for both processes:
 * the API registers `apiMetrics`, each worker process `workerMetrics` (docs/operations.md,
 * "Runbook: gateway alerts", lists them with the process that exports each). Names follow the
 * Prometheus conventions: `gateway_` prefix, base units (seconds), `_total` counters, USDT in
 * integer cents. Labels are bounded sets only — deal type, outcome, world, circuit state, status,
 * alert kind, bank parser and its version — never a merchant, deal, URL or address.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { BANK_PARSERS } from '../domain/bank-notifications/parse';
import { PAYIN_TERMINAL, PAYIN_TRANSITIONS } from '../domain/state/payin';
import { PAYOUT_TERMINAL, PAYOUT_TRANSITIONS } from '../domain/state/payout';
import type { Transition } from '../domain/state/state-machine';
import { ROUTING_REASONS } from '../domain/routing';

const DEAL_TYPES = ['payin', 'payout'] as const;
export type DealTypeLabel = (typeof DEAL_TYPES)[number];
const WORLDS = ['live', 'sandbox'] as const;
/** The circuit of a webhook endpoint when an attempt went (activities/webhook-isolation.ts). */
const CIRCUIT_STATES = ['closed', 'half_open', 'open'] as const;
const WEBHOOK_OUTCOMES = ['success', 'failure'] as const;
/** The withdrawal states that wait for someone (domain/state/withdrawals.ts: the live ones). */
const WAITING_WITHDRAWAL_STATUSES = ['PENDING', 'PENDING_MANUAL', 'APPROVED'] as const;

const lower = (s: string) => s.toLowerCase();

/** The final states of each deal type, as outcome labels (domain/state/payin.ts, domain/state/payout.ts). */
const DEAL_OUTCOMES: Record<DealTypeLabel, readonly string[]> = {
  payin: PAYIN_TERMINAL.map(lower),
  payout: PAYOUT_TERMINAL.map(lower),
};

/**
 * The outbox event that says a deal ended, per deal type: the last event of each transition into
 * a final state (a settlement's deal.created … deal.completed ends with deal.completed). Derived
 * from the state tables so a new final move is counted without touching this file.
 */
function finishEvents<S extends string>(transitions: Readonly<Record<string, Transition<S>>>, terminal: readonly S[]): Map<string, string> {
  const byEvent = new Map<string, string>();
  for (const t of Object.values(transitions)) {
    const to = t.to;
    const last = t.events.at(-1);
    if (to === undefined || !terminal.includes(to) || !last) continue;
    const known = byEvent.get(last);
    if (known !== undefined && known !== lower(to)) throw new Error(`event ${last} ends a deal in two states (${known}, ${lower(to)})`);
    byEvent.set(last, lower(to));
  }
  return byEvent;
}

export const DEAL_FINISH_EVENTS: Record<DealTypeLabel, Map<string, string>> = {
  payin: finishEvents(PAYIN_TRANSITIONS, PAYIN_TERMINAL),
  payout: finishEvents(PAYOUT_TRANSITIONS, PAYOUT_TERMINAL),
};

/**
 * The API's: the create call's latency (api/services/payins.ts, payouts.ts), and the bank
 * notifications it parses (domain/bank-notifications/parse.ts), per parser and version.
 */
export function apiMetrics(registry: Registry) {
  const dealCreateDuration = new Histogram({
    name: 'gateway_deal_create_duration_seconds',
    help: "The API's deal create call (a PayIn or PayOut answered with its deal, new or replayed), seconds; exported by the API",
    labelNames: ['type'],
    buckets: [0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2.5, 5, 10],
    registers: [registry],
  });
  for (const type of DEAL_TYPES) dealCreateDuration.zero({ type });
  const bankNotificationsParsed = new Counter({
    name: 'gateway_bank_notifications_parsed_total',
    help: "Bank notifications a device forwarded, by the parser that read them (bank slug, 'unknown' when none knew the message: parser ''), its version (0 for unknown), and result credit/nothing; exported by the API",
    labelNames: ['bank', 'version', 'result'],
    registers: [registry],
  });
  // Each current parser (and 'unknown') at 0 from the start, so a rate over it exists before the first message.
  for (const { bank, version } of [...BANK_PARSERS, { bank: 'unknown', version: 0 }]) {
    for (const result of ['credit', 'nothing']) bankNotificationsParsed.inc({ bank, version: String(version), result }, 0);
  }
  return { dealCreateDuration, bankNotificationsParsed };
}
export type ApiMetrics = ReturnType<typeof apiMetrics>;

/**
 * A worker process's: counters its relay and activities record, and the gauges it reads from
 * Postgres (`dbGauges`, filled by workers/db-gauges.ts on a scrape) and from its own runs (ledger
 * check, chain watch).
 */
export function workerMetrics(registry: Registry) {
  const registers = [registry];
  const dealsCreated = new Counter({
    name: 'gateway_deals_created_total',
    help: 'Deals created, by type and world; counted by the outbox relay from deal.created as its batch commits (each committed event once), so sum over worker processes',
    labelNames: ['type', 'world'],
    registers,
  });
  const dealsFinished = new Counter({
    name: 'gateway_deals_finished_total',
    help: 'Deals that reached a final state, by type, outcome (the final state) and world; counted by the outbox relay from the final event, like gateway_deals_created_total',
    labelNames: ['type', 'outcome', 'world'],
    registers,
  });
  for (const type of DEAL_TYPES)
    for (const world of WORLDS) {
      dealsCreated.inc({ type, world }, 0);
      for (const outcome of DEAL_OUTCOMES[type]) dealsFinished.inc({ type, outcome, world }, 0);
    }

  const webhookAttempts = new Counter({
    name: 'gateway_webhook_attempts_total',
    help: "Webhook POSTs recorded, by outcome (success: 2xx/3xx) and the endpoint's circuit when it went (closed, half_open: the probe, open: a manual retry forced through); counted once per recorded attempt",
    labelNames: ['outcome', 'circuit'],
    registers,
  });
  const webhookDeliveriesFailed = new Counter({
    name: 'gateway_webhook_deliveries_failed_total',
    help: 'Deliveries that ended ERROR after their last automatic attempt (the merchant may retry them by hand), by the circuit of that attempt',
    labelNames: ['circuit'],
    registers,
  });
  for (const circuit of CIRCUIT_STATES) {
    webhookDeliveriesFailed.inc({ circuit }, 0);
    for (const outcome of WEBHOOK_OUTCOMES) webhookAttempts.inc({ outcome, circuit }, 0);
  }
  const webhookDeferred = new Counter({
    name: 'gateway_webhook_deferrals_total',
    help: 'Attempts not sent because the endpoint was parked (circuit open), busy, or the host busy; the delivery waits on a durable timer',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of ['parked', 'busy', 'host-busy']) webhookDeferred.inc({ reason }, 0);
  const webhookDeliveryLag = new Histogram({
    name: 'gateway_webhook_delivery_lag_seconds',
    help: "From the event's commit (outbox created_at) to its successful delivery, seconds; observed once per delivery, by the attempt that succeeded",
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600],
    registers,
  });
  const webhookEndpointsOpen = new Gauge({
    name: 'gateway_webhook_endpoints_open',
    help: "Endpoints (merchant + URL) whose circuit is open in this worker process's webhook gate",
    registers,
  });

  const chainWatchLastPass = new Gauge({
    name: 'gateway_chain_watch_last_pass_timestamp_seconds',
    help: "Unix time the chain watcher's last pass ended in this process (0: none here; CHAIN_ADAPTER=trongrid only); take max() over processes",
    registers,
  });
  const chainWatchPassDuration = new Histogram({
    name: 'gateway_chain_watch_pass_duration_seconds',
    help: 'One chain watcher pass (every due deposit address read, balances refreshed), seconds',
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });

  const ledgerCheckOk = new Gauge({
    name: 'gateway_ledger_check_ok',
    help: "This process's last ledger check: 1 every figure adds up, 0 mismatches (or never ran here: see the timestamp). Run by one worker at a time (advisory lock) every LEDGER_CHECK_INTERVAL_SECONDS",
    registers,
  });
  const ledgerCheckLastRun = new Gauge({
    name: 'gateway_ledger_check_last_run_timestamp_seconds',
    help: 'Unix time of the last ledger check that ran to its end in this process (0: none yet)',
    registers,
  });
  const ledgerCheckLastSuccess = new Gauge({
    name: 'gateway_ledger_check_last_success_timestamp_seconds',
    help: 'Unix time of the last ledger check in this process that found everything in order (0: none)',
    registers,
  });
  const ledgerCheckLastFailure = new Gauge({
    name: 'gateway_ledger_check_last_failure_timestamp_seconds',
    help: 'Unix time of the last ledger check in this process that found mismatches (0: none); failing when max over processes is past the last success',
    registers,
  });
  const ledgerCheckDuration = new Gauge({
    name: 'gateway_ledger_check_duration_seconds',
    help: "The last ledger check's duration in this process, seconds",
    registers,
  });

  const bankNotificationOutcomes = new Counter({
    name: 'gateway_bank_notification_outcomes_total',
    help: "Bank notifications' credits by what their workflow did: matched (claimed exactly one live PayIn), moved (decided before), confirmed (the deal took the confirmation), refused (the deal had moved on: to the operators' queue)",
    labelNames: ['outcome'],
    registers,
  });
  for (const outcome of ['matched', 'moved', 'confirmed', 'refused']) bankNotificationOutcomes.inc({ outcome }, 0);

  const routingDecisions = new Counter({
    name: 'gateway_routing_decisions_total',
    help: "Deals routed, by the decision's reason (best_score, same_bank_best_score, exploration, only_candidate, pass, sandbox); counted by the create (or a payout's later match) as it commits",
    labelNames: ['reason'],
    registers,
  });
  for (const reason of ROUTING_REASONS) routingDecisions.inc({ reason }, 0);
  const routingScoreRefreshDuration = new Gauge({
    name: 'gateway_routing_score_refresh_duration_seconds',
    help: "The last routing score refresh's duration in this process, seconds (one worker refreshes per turn: an advisory lock)",
    registers,
  });

  return {
    dealsCreated,
    dealsFinished,
    bankNotificationOutcomes,
    routingDecisions,
    routingScoreRefreshDuration,
    webhookAttempts,
    webhookDeliveriesFailed,
    webhookDeferred,
    webhookDeliveryLag,
    webhookEndpointsOpen,
    chainWatchLastPass,
    chainWatchPassDuration,
    ledgerCheckOk,
    ledgerCheckLastRun,
    ledgerCheckLastSuccess,
    ledgerCheckLastFailure,
    ledgerCheckDuration,
  };
}
export type WorkerMetrics = ReturnType<typeof workerMetrics>;

type WorldLabel = (typeof WORLDS)[number];

/** What workers/db-gauges.ts reads from Postgres in one statement. */
export interface DbGaugeValues {
  withdrawals: { status: string; world: WorldLabel; count: number; oldestAgeSeconds: number }[];
  alerts: { kind: string; world: WorldLabel; count: number }[];
  hotWallet?: { usdtCents: number; trx: number; ageSeconds: number };
}

/**
 * The gauges read from Postgres, exported by the worker processes that poll the deals queue
 * (WORKER_ROLE all or deals): `read` is cached and single-flight (workers/db-gauges.ts), so
 * several scrapers cost one short statement per cache period per process.
 *
 * The withdrawal queue and the open alerts carry `world` (live, sandbox): a sandbox merchant's
 * waiting withdrawal or an alert on a sandbox deal is play work, and the alert rules read
 * world="live" only, so play money neither raises nor hides an operator's alert.
 */
export function dbGauges(registry: Registry, read: () => Promise<DbGaugeValues | undefined>) {
  const registers = [registry];
  // Every collect asks `read`, which is cached and single-flight: one statement per scrape at most.
  const waiting = new Gauge({
    name: 'gateway_withdrawals_waiting',
    help: "Withdrawals waiting, by status (PENDING, PENDING_MANUAL: an operator must approve, APPROVED: being sent) and world (live; sandbox: a sandbox merchant's play money); read from Postgres by the deals worker, cached",
    labelNames: ['status', 'world'],
    registers,
    async collect() {
      const values = await read();
      if (!values) return; // the read failed: the last values stay (the scrape still answers)
      for (const status of WAITING_WITHDRAWAL_STATUSES)
        for (const world of WORLDS) this.set({ status, world }, values.withdrawals.find((w) => w.status === status && w.world === world)?.count ?? 0);
    },
  });
  const oldest = new Gauge({
    name: 'gateway_withdrawals_oldest_waiting_age_seconds',
    help: 'Age of the oldest waiting withdrawal of each status and world, seconds (0: none waiting); read with gateway_withdrawals_waiting',
    labelNames: ['status', 'world'],
    registers,
    async collect() {
      const values = await read();
      if (!values) return;
      for (const status of WAITING_WITHDRAWAL_STATUSES)
        for (const world of WORLDS)
          this.set({ status, world }, values.withdrawals.find((w) => w.status === status && w.world === world)?.oldestAgeSeconds ?? 0);
    },
  });
  const alerts = new Gauge({
    name: 'gateway_operator_alerts_open',
    help: "Operator alerts not resolved yet, by kind (a fixed set in code; any: all kinds) and world (sandbox: on a sandbox merchant's deal); read with gateway_withdrawals_waiting",
    labelNames: ['kind', 'world'],
    registers,
    async collect() {
      const values = await read();
      if (!values) return;
      this.reset();
      for (const world of WORLDS)
        this.set(
          { kind: 'any', world },
          values.alerts.filter((a) => a.world === world).reduce((n, a) => n + a.count, 0),
        );
      for (const a of values.alerts) this.set({ kind: a.kind, world: a.world }, a.count);
    },
  });
  // One unlabelled figure of the read; the last value stays when a read fails.
  const readGauge = (name: string, help: string, pick: (values: DbGaugeValues) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const values = await read();
        if (values) this.set(pick(values));
      },
    });
  const hotUsdt = readGauge(
    'gateway_hot_wallet_balance_usdt_cents',
    "The TRON hot wallet's USDT, integer cents, as the chain watcher last read it (chain_balances; CHAIN_ADAPTER=trongrid, else 0)",
    (v) => v.hotWallet?.usdtCents ?? 0,
  );
  const hotTrx = readGauge(
    'gateway_hot_wallet_balance_trx',
    "The TRON hot wallet's TRX (pays the energy of withdrawals), as last read (chain_balances), else 0",
    (v) => v.hotWallet?.trx ?? 0,
  );
  const hotAge = readGauge(
    'gateway_hot_wallet_balance_age_seconds',
    'How old the hot wallet balance figures are, seconds (0 when none was read)',
    (v) => v.hotWallet?.ageSeconds ?? 0,
  );
  // Series before the first scrape: every waiting status of each world at 0.
  for (const world of WORLDS) {
    for (const status of WAITING_WITHDRAWAL_STATUSES) {
      waiting.set({ status, world }, 0);
      oldest.set({ status, world }, 0);
    }
    alerts.set({ kind: 'any', world }, 0);
  }
  return { waiting, oldest, alerts, hotUsdt, hotTrx, hotAge };
}
