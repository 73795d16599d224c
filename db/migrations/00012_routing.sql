-- Routing that learns and explains (docs/routing.md): each requisite's score from its recent
-- outcomes, refreshed by the worker (workers/routing-scores.ts), and every deal's routing decision
-- (the candidates the matcher saw, their scores, the one it chose and why), written in the deal's
-- creating transaction.

-- ---------------------------------------------------------------------------------------------
-- Scores
-- ---------------------------------------------------------------------------------------------

-- One row per requisite that had a deal in the window (ROUTING_SCORE_WINDOW_HOURS); a requisite
-- without a row is scored at the prior (domain/routing.ts). The counts are kept beside the score so
-- an operator can read why a requisite scores as it does. Rewritten whole by each refresh.
create table requisite_scores (
  requisite_id uuid primary key references requisites(id),
  score integer not null check (score between 0 and 1000),
  completed integer not null default 0,
  expired integer not null default 0,
  -- Appeals on the requisite's deals resolved for the merchant (outcome SATISFIED): the trader lost.
  appeals_lost integer not null default 0,
  -- Confirmed deals (an audit row 'deal.confirm'), those confirmed later than the slow mark, and
  -- the mean seconds from creation to confirmation (null: none confirmed).
  confirmed integer not null default 0,
  slow_confirms integer not null default 0,
  confirm_seconds_avg integer,
  -- Deals a paired bank device confirmed (a MATCHED bank notification).
  auto_confirmed integer not null default 0,
  computed_at timestamptz not null default now()
);

-- ---------------------------------------------------------------------------------------------
-- Decisions
-- ---------------------------------------------------------------------------------------------

-- Why a deal went to its requisite. candidates: up to 20 of {requisite_id, trader_id, trader_name,
-- score, same_bank}, in the order the matcher tried them. reason: best_score, same_bank_best_score,
-- exploration, only_candidate, pass (a matching pass narrowed the candidates), sandbox.
create table routing_decisions (
  deal_id uuid primary key references deals(id),
  candidates jsonb not null,
  chosen_requisite_id uuid not null references requisites(id),
  reason text not null check (reason in ('best_score', 'same_bank_best_score', 'exploration', 'only_candidate', 'pass', 'sandbox')),
  explored boolean not null default false,
  created_at timestamptz not null default now()
);
