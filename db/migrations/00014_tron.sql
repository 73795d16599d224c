-- The wallet on a real TRON network (issue 19): withdrawal transactions stored before their
-- broadcast, deposits seen on chain (exact amount, block time, DROPPED), the watcher's cursors,
-- cached on-chain balances, operator alerts about something else than a deal.

-- Every transaction signed for a withdrawal, committed before its first broadcast (a retry
-- rebroadcasts these bytes, never a new build). At most one may be live (SIGNED or BROADCAST):
-- a new one is built only after the chain said the last one is dead (FAILED receipt at depth,
-- or EXPIRED: not on chain while the node's head is past its expiration).
create table withdrawal_transactions (
  txid text primary key check (txid ~ '^[0-9a-f]{64}$'),
  withdrawal_id uuid not null references withdrawals(id),
  attempt integer not null check (attempt >= 1),
  raw_data_hex text not null,
  signature text not null,
  fee_limit_sun bigint not null check (fee_limit_sun > 0),
  built_at timestamptz not null,
  expires_at timestamptz not null,
  status text not null default 'SIGNED' check (status in ('SIGNED', 'BROADCAST', 'CONFIRMED', 'FAILED', 'EXPIRED')),
  broadcasts integer not null default 0,
  last_broadcast_at timestamptz,
  block_number bigint,
  receipt_result text not null default '',
  fee_sun bigint,
  last_error text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (withdrawal_id, attempt)
);
create unique index withdrawal_transactions_live on withdrawal_transactions (withdrawal_id) where status in ('SIGNED', 'BROADCAST');

-- Deposits the watcher saw: the exact on-chain amount (6 decimals; `amount` is its whole cents),
-- the block time the indexer gave, and DROPPED for a transfer that vanished before it was final.
alter table deposits add column chain_units bigint check (chain_units > 0);
alter table deposits add column block_at timestamptz;
alter table deposits add column dropped_at timestamptz;
alter table deposits add constraint deposits_status check (status in ('PENDING', 'CONFIRMED', 'DROPPED'));
create index deposits_by_address on deposits (address, status) where address <> '';

-- The deposit watcher's cursor per address: the block time (ms) of the newest confirmed transfer
-- it took in, and when it last looked.
create table chain_watch_addresses (
  address text primary key references deposit_addresses(address),
  confirmed_cursor_ms bigint not null default 0,
  polled_at timestamptz
);

-- On-chain balances read from the node, with their age: deposit addresses (the profile's
-- trc20_usdt_balance / trc20_trx_balance) and the hot wallet.
create table chain_balances (
  address text primary key,
  usdt_units bigint not null check (usdt_units >= 0),
  trx_sun bigint not null check (trx_sun >= 0),
  refreshed_at timestamptz not null
);

-- Alerts about a withdrawal, a deposit or the hot wallet name their subject; one open alert per
-- (kind, subject).
alter table operator_alerts add column subject text;
create unique index operator_alerts_open_subject on operator_alerts (kind, subject) where resolved_at is null and subject is not null;
