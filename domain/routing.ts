/**
 * Routing that learns and explains (docs/routing.md): a requisite's score from its recent
 * outcomes, and the words of a routing decision. Pure; the worker refreshes the scores
 * (workers/routing-scores.ts), the matcher reads them (db/queries/matching.ts).
 */

/** What a requisite's deals of the score window came to (db/queries/routing.ts scoreCounts). */
export interface ScoreCounts {
  /** Deals that ended COMPLETED. */
  completed: number;
  /** Deals that ended EXPIRED (the payment window or the transfer SLA ran out). */
  expired: number;
  /** Appeals on its deals resolved for the merchant (outcome SATISFIED): the trader lost them. */
  appealsLost: number;
  /** Confirmations that came later than SLOW_CONFIRM_SECONDS after the deal was created. */
  slowConfirms: number;
  /** Deals a paired bank device confirmed (a MATCHED bank notification), with no person acting. */
  autoConfirmed: number;
}

export const SCORE_MAX = 1000;
/** The score of a requisite with no history: neither preferred nor avoided. */
export const SCORE_PRIOR = 500;
/**
 * The prior's weight, in half-deals on each side: a requisite starts as if it had PRIOR_HALVES/2
 * good and PRIOR_HALVES/2 bad deals behind it, so its first deal moves it 500 → 583 (completed) or
 * 500 → 416 (expired) rather than to 1000 or 0, and a long history outweighs the prior.
 */
const PRIOR_HALVES = 5;
/** A confirmation later than this after the deal was created counts as half a bad deal. */
export const SLOW_CONFIRM_SECONDS = 600;

/**
 * The score, 0..1000, integer arithmetic only:
 *
 *   good = 2·completed + autoConfirmed + PRIOR_HALVES          (in half-deals)
 *   bad  = 2·expired + 4·appealsLost + slowConfirms + PRIOR_HALVES
 *   score = ⌊1000 · good / (good + bad)⌋
 *
 * A completed deal is one good deal; one a bank device confirmed counts half a deal more (no person,
 * no misread notification); an expiry is one bad deal, a lost appeal two (the client paid and the
 * trader did not confirm: worse than silence), a slow confirmation half a bad deal (the payer waited).
 * It is a smoothed success share (a Beta prior of 500), so it is bounded by construction and
 * monotone: every count adds to good or to bad only, and good/(good+bad) rises with good and falls
 * with bad. Shares (auto-confirmed per completion, mean time to confirm) would not be: one more
 * manual completion would lower a share, and with it the score.
 */
export function requisiteScore(c: ScoreCounts): number {
  const n = (v: number) => BigInt(Math.max(0, Math.trunc(v)));
  const good = 2n * n(c.completed) + n(c.autoConfirmed) + BigInt(PRIOR_HALVES);
  const bad = 2n * n(c.expired) + 4n * n(c.appealsLost) + n(c.slowConfirms) + BigInt(PRIOR_HALVES);
  return Number((BigInt(SCORE_MAX) * good) / (good + bad));
}

export const ROUTING_REASONS = ['best_score', 'same_bank_best_score', 'exploration', 'only_candidate', 'pass', 'sandbox'] as const;
export type RoutingReason = (typeof ROUTING_REASONS)[number];

/** One requisite the matcher considered, as the decision records it. */
export interface RoutingCandidate {
  requisite_id: string;
  trader_id: string;
  trader_name: string;
  score: number;
  same_bank: boolean;
}

/** The decisions keep at most this many candidates (the matcher reads no more). */
export const MAX_CANDIDATES = 20;

/**
 * Why the matcher chose `chosen` among `candidates`: a sandbox deal and a pass's deal say so first
 * (their candidates were narrowed before any score), then a lone candidate (no order to explore),
 * then an explored create, then the order's own reason (the same bank first, else the score).
 */
export function routingReason(d: {
  sandbox: boolean;
  pass: boolean;
  explored: boolean;
  candidates: readonly RoutingCandidate[];
  chosen: RoutingCandidate;
}): RoutingReason {
  if (d.sandbox) return 'sandbox';
  if (d.pass) return 'pass';
  if (d.candidates.length <= 1) return 'only_candidate';
  if (d.explored) return 'exploration';
  return d.chosen.same_bank ? 'same_bank_best_score' : 'best_score';
}

/** Whether this create explores: `draw` is a uniform integer in [0, 1000). */
export const explores = (permille: number, draw: number) => draw < permille;

/** The reason in words, for an operator (the console's deal page, the timeline API). */
export function reasonInWords(
  reason: RoutingReason,
  d: { candidates: readonly RoutingCandidate[]; chosen_requisite_id: string; explorationPermille?: number },
): string {
  const n = d.candidates.length;
  const chosen = d.candidates.find((c) => c.requisite_id === d.chosen_requisite_id);
  const others = d.candidates.filter((c) => c.requisite_id !== d.chosen_requisite_id).map((c) => c.score);
  const versus = chosen && others.length > 0 ? ` (${chosen.score} vs ${others.join(', ')})` : '';
  switch (reason) {
    case 'sandbox':
      return "sandbox deal: the tenant's sandbox trader takes it";
    case 'pass':
      return `a matching pass narrowed the candidates to its provider (${n} candidate${n === 1 ? '' : 's'})`;
    case 'exploration': {
      const share = d.explorationPermille === undefined ? 'a share' : `${formatPermille(d.explorationPermille)} %`;
      return `explored (${share} of deals go to a random candidate so new requisites earn a score)`;
    }
    case 'only_candidate':
      return 'the only candidate';
    case 'same_bank_best_score':
      return `same bank as the payer, best score of ${n} candidates${versus}`;
    case 'best_score':
      return `best score of ${n} candidates${versus}`;
  }
}

const formatPermille = (p: number) => (p % 10 === 0 ? String(p / 10) : (p / 10).toFixed(1));
