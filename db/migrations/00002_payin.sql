-- PayIn: matching, escrow, amount changes, events.

-- Daily usage of a requisite and deal lookups by checkout hash.
create index deals_requisite_day on deals (requisite_id, created_at) where requisite_id is not null;

-- Append-only audit of operator amount changes (spec 2.9, 4.1.3).
create table deal_amount_changes (
  id uuid primary key,
  deal_id uuid not null references deals(id),
  idempotency_key text not null,
  operator_id text not null,
  reason text not null,
  old_amount bigint not null,
  new_amount bigint not null,
  old_amount_usdt bigint not null,
  new_amount_usdt bigint not null,
  version bigint not null,
  created_at timestamptz not null default now(),
  unique (deal_id, idempotency_key),
  unique (deal_id, version)
);

-- What the trader's escrow for the deal currently is (amount_usdt plus a client-paid fee).
alter table deals add column escrow_usdt bigint not null default 0;
alter table deals add column cancel_reason text not null default '';

-- Outbox events are keyed by a deterministic id (deal, event, version), so a retried
-- activity never writes the same event twice; the primary key already enforces it.
create index outbox_by_deal on outbox_events (deal_id, created_at);

-- The fee rate is fixed at creation like the exchange rate, so amount changes recompute with it.
alter table deals add column fee_bps integer not null default 0;
