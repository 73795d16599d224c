-- Hardening (issue 8): replay refusal across routes, one tx_hash namespace for every chain
-- credit, the payout transfer SLA, operator alerts.

-- Every accepted V2 signature with the route it was accepted on, for the replay window. The
-- same signature on another route is refused; single-use routes refuse any repeat.
create table hmac_signatures (
  signature text primary key,
  route text not null,
  expires_at timestamptz not null
);
create index hmac_signatures_expiry on hmac_signatures (expires_at);

-- One chain transaction credits one wallet once: merchant deposits and trader top-ups share
-- this namespace, so a tx_hash can never be credited to both.
create table chain_credits (
  tx_hash text primary key,
  owner_type text not null check (owner_type in ('merchant', 'trader')),
  owner_id uuid not null,
  wallet_id uuid not null references wallets(id),
  amount bigint not null check (amount > 0),
  created_at timestamptz not null default now()
);
insert into chain_credits (tx_hash, owner_type, owner_id, wallet_id, amount, created_at)
  select tx_hash, 'merchant', merchant_id, wallet_id, amount, created_at from deposits
  on conflict do nothing;
insert into chain_credits (tx_hash, owner_type, owner_id, wallet_id, amount, created_at)
  select substr(t.idempotency_key, length('trader-deposit:') + 1), 'trader', w.owner_id, w.id, e.amount, t.created_at
  from ledger_transactions t
  join ledger_entries e on e.transaction_id = t.id and e.amount > 0
  join wallets w on w.id = e.wallet_id and w.owner_type = 'trader'
  where t.idempotency_key like 'trader-deposit:%'
  on conflict do nothing;

-- PayOut transfer SLA: a MATCHED payout whose trader has not started by then expires.
alter table deals add column transfer_deadline_at timestamptz;
update deals set transfer_deadline_at = updated_at + interval '1 hour' where deal_type = 'PAYOUT' and status = 'MATCHED';

-- Things an operator must look at (an overdue PROCESSING payout holds the merchant's money).
create table operator_alerts (
  id uuid primary key,
  kind text not null,
  deal_id uuid references deals(id),
  message text not null,
  created_at timestamptz not null default now(),
  resolved_at timestamptz,
  unique (kind, deal_id)
);
create index operator_alerts_open on operator_alerts (created_at desc) where resolved_at is null;
