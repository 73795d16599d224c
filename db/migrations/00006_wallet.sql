-- Wallet: TRC-20 deposit addresses, deposit statuses, USDT withdrawals, the simulated chain.

-- One BIP44 index per generated address, global across merchants (m/44'/195'/0'/0/<index>).
create sequence deposit_address_index as integer minvalue 0 start with 0;

-- Every address ever given to a merchant stays attributable to it (late deposits to a rotated
-- address still credit the right merchant). The current one is the merchant's highest index.
create table deposit_addresses (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  address text not null unique,
  derivation_index integer not null unique check (derivation_index >= 0),
  created_at timestamptz not null default now()
);
create index deposit_addresses_current on deposit_addresses (merchant_id, derivation_index desc);

-- Deposits: the receiving address (empty for operator-recorded deposits) and when they were credited.
alter table deposits add column address text not null default '';
alter table deposits add column confirmations integer not null default 0;
alter table deposits add column confirmed_at timestamptz;
update deposits set confirmed_at = created_at where status = 'CONFIRMED';
create index deposits_listing on deposits (merchant_id, created_at desc, id desc);

-- Contract 7: new merchants start in AUTO_UP_TO_LIMIT; the API passes AUTO_WITHDRAWAL_LIMIT_USDT_CENTS
-- (these column defaults mirror its default). Existing merchants keep their setting.
alter table merchants alter column auto_withdrawal_mode set default 'AUTO_UP_TO_LIMIT';
alter table merchants alter column auto_withdrawal_limit_usdt_cents set default 100000;
alter table merchants add constraint merchants_auto_withdrawal_mode check (auto_withdrawal_mode in ('AUTO_UP_TO_LIMIT', 'MANUAL_ONLY'));
alter table merchants add constraint merchants_auto_withdrawal_limit check (auto_withdrawal_limit_usdt_cents >= 0);

create table withdrawals (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  wallet_id uuid not null references wallets(id),
  status text not null check (status in ('PENDING', 'PENDING_MANUAL', 'APPROVED', 'COMPLETED', 'CANCELLED')),
  auto boolean not null,
  address text not null,
  amount bigint not null check (amount > 0),
  fee bigint not null check (fee >= 0),
  net bigint not null check (net > 0 and net + fee = amount),
  -- Server-side idempotency: sha256(merchant, address, amount, fee) and its generation.
  dedup_key text not null,
  dedup_generation integer not null,
  idempotency_key text not null default '',
  tx_hash text not null default '',
  -- The broadcast intent: recorded (and committed) before every call to the chain adapter.
  broadcast_attempts integer not null default 0,
  broadcast_started_at timestamptz,
  last_broadcast_error text not null default '',
  cancel_reason text not null default '',
  approved_by text not null default '',
  cancelled_by text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  approved_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz,
  unique (merchant_id, dedup_key, dedup_generation)
);
create index withdrawals_listing on withdrawals (merchant_id, created_at desc, id desc);
create index withdrawals_by_status on withdrawals (status, created_at desc, id desc);
create index withdrawals_all on withdrawals (created_at desc, id desc);
create index withdrawals_live on withdrawals (wallet_id) include (amount) where status in ('PENDING', 'PENDING_MANUAL', 'APPROVED');

-- The embedded simulated chain (CHAIN_SIMULATOR): what "the network" has accepted, one transfer
-- per withdrawal id. It stands outside the gateway's own state, like a real chain would.
create table simulated_chain_transfers (
  withdrawal_id uuid primary key,
  tx_hash text not null unique,
  to_address text not null,
  amount bigint not null check (amount > 0),
  send_calls integer not null default 1,
  created_at timestamptz not null default now(),
  last_call_at timestamptz not null default now()
);
