-- Foundation schema. Money is bigint minor units everywhere (USDT in cents).

create table tenants (
  id uuid primary key,
  name text not null,
  created_at timestamptz not null default now()
);

create table currencies (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  code text not null,
  numeric_code integer,
  name text not null,
  exponent smallint not null check (exponent between 0 and 4),
  status text not null default 'ACTIVE',
  unique (tenant_id, code),
  unique (tenant_id, numeric_code)
);

create table payment_methods (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  slug text not null,
  name text not null,
  currency_code text not null,
  requisite_types text[] not null,
  status text not null default 'ACTIVE',
  unique (tenant_id, slug)
);

create table banks (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  bank_name text not null,
  display_name text not null,
  country text not null,
  currencies text[] not null default '{}',
  methods text[] not null default '{}',
  status text not null default 'ACTIVE',
  unique (tenant_id, bank_name)
);

create table rates (
  tenant_id uuid not null references tenants(id),
  currency_code text not null,
  buy_rate_micro bigint not null check (buy_rate_micro > 0),
  sell_rate_micro bigint not null check (sell_rate_micro > 0),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, currency_code)
);

create table merchants (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  name text not null,
  email text not null,
  status text not null default 'ACTIVE',
  moderation_status text not null default 'APPROVED',
  kill_switch_reason text not null default '',
  disabled_at timestamptz,
  api_version text not null default 'v2' check (api_version in ('v1', 'v2')),
  webhook_url text not null default '',
  project_url text not null default '',
  checkout_brand_name text not null default '',
  success_redirect_url text not null default '',
  fail_redirect_url text not null default '',
  finance_chat_id text not null default '',
  appeal_chat_id text not null default '',
  ip_whitelist text[] not null default '{}',
  withdrawal_address text not null default '',
  trc20_address text not null default '',
  rate_limit_per_minute integer check (rate_limit_per_minute > 0),
  payin_fee_bps integer not null default 0 check (payin_fee_bps between 0 and 10000),
  payout_fee_bps integer not null default 0 check (payout_fee_bps between 0 and 10000),
  deal_min_amount bigint check (deal_min_amount > 0),
  deal_max_amount bigint check (deal_max_amount > 0),
  daily_deal_amount_limit bigint check (daily_deal_amount_limit > 0),
  auto_withdrawal_mode text not null default 'MANUAL_ONLY',
  auto_withdrawal_limit_usdt_cents bigint not null default 0,
  webhook_max_retries integer not null default 5 check (webhook_max_retries between 1 and 20),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (deal_max_amount is null or deal_min_amount is null or deal_max_amount >= deal_min_amount)
);

-- One row per issued key pair. The pair is the unit of validity: a superseded pair keeps
-- working until grace_until, and only with its own secret (pair-scoped grace window).
create table api_keys (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  token text not null unique,
  secret_sealed text not null,
  created_at timestamptz not null default now(),
  superseded_at timestamptz,
  grace_until timestamptz
);
create unique index api_keys_one_current on api_keys (merchant_id) where superseded_at is null;

create table traders (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  name text not null,
  status text not null default 'ACTIVE',
  created_at timestamptz not null default now()
);

create table requisites (
  id uuid primary key,
  trader_id uuid not null references traders(id),
  payment_method_id uuid not null references payment_methods(id),
  requisite_type text not null,
  card_number text not null default '',
  phone_number text not null default '',
  iban text not null default '',
  holder_name text not null,
  bank_name text not null,
  min_amount bigint not null check (min_amount > 0),
  max_amount bigint not null check (max_amount >= min_amount),
  daily_limit bigint check (daily_limit > 0),
  status text not null default 'ACTIVE',
  created_at timestamptz not null default now()
);
create index requisites_by_method on requisites (payment_method_id) where status = 'ACTIVE';

-- Wallets are ledger accounts with three buckets. System wallets (owner_type 'system') stand
-- for the outside world and the platform's fee account; only they may go negative.
create table wallets (
  id uuid primary key,
  owner_type text not null check (owner_type in ('merchant', 'trader', 'system')),
  owner_id uuid,
  system_code text,
  currency text not null,
  available bigint not null default 0,
  frozen bigint not null default 0,
  pending_credits bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (owner_type = 'system' or (available >= 0 and frozen >= 0 and pending_credits >= 0)),
  check ((owner_type = 'system') = (system_code is not null and owner_id is null))
);
create unique index wallets_owner on wallets (owner_type, owner_id, currency) where owner_id is not null;
create unique index wallets_system on wallets (system_code, currency) where system_code is not null;

create table ledger_transactions (
  id uuid primary key,
  idempotency_key text not null unique,
  kind text not null,
  ref_type text not null,
  ref_id text not null,
  created_at timestamptz not null default now()
);
create index ledger_transactions_ref on ledger_transactions (ref_type, ref_id);

create table ledger_entries (
  id bigserial primary key,
  transaction_id uuid not null references ledger_transactions(id),
  wallet_id uuid not null references wallets(id),
  bucket text not null check (bucket in ('available', 'frozen', 'pending_credits')),
  amount bigint not null check (amount <> 0)
);
create index ledger_entries_tx on ledger_entries (transaction_id);
create index ledger_entries_wallet on ledger_entries (wallet_id, bucket);

-- Every ledger transaction must balance; checked at commit so entries can be inserted one by one.
create function ledger_transaction_balances() returns trigger language plpgsql as $$
declare total numeric;
begin
  select coalesce(sum(amount), 0) into total from ledger_entries where transaction_id = new.transaction_id;
  if total <> 0 then
    raise exception 'ledger transaction % does not balance (sum %)', new.transaction_id, total;
  end if;
  return null;
end $$;
create constraint trigger ledger_entries_balance after insert on ledger_entries
  deferrable initially deferred for each row execute function ledger_transaction_balances();

create table deposits (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  wallet_id uuid not null references wallets(id),
  amount bigint not null check (amount > 0),
  tx_hash text not null unique,
  status text not null default 'CONFIRMED',
  created_at timestamptz not null default now()
);

create table deals (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  merchant_id uuid not null references merchants(id),
  deal_type text not null check (deal_type in ('PAYIN', 'PAYOUT')),
  status text not null,
  idempotency_key text not null,
  amount bigint not null check (amount > 0),
  currency text not null,
  client_id text not null default '',
  payment_method_id uuid not null references payment_methods(id),
  requisite_id uuid references requisites(id),
  trader_id uuid references traders(id),
  checkout_hash text unique,
  description text not null default '',
  callback_url text not null default '',
  payer_bank text not null default '',
  is_client_commission boolean not null default false,
  target_requisite text not null default '',
  target_name text not null default '',
  target_bank text not null default '',
  requisite_details jsonb not null default '{}',
  wallet_id uuid references wallets(id),
  received_amount bigint not null default 0,
  amount_match_status text not null default '',
  amount_version bigint not null default 1,
  amount_usdt bigint not null,
  exchange_rate_micro bigint not null,
  fee_usdt bigint not null default 0,
  payment_timeout_at timestamptz,
  parent_deal_id uuid references deals(id),
  origin_appeal_id uuid unique,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (merchant_id, deal_type, idempotency_key)
);
create index deals_listing on deals (merchant_id, created_at desc, id desc);
create index deals_payout_key on deals (idempotency_key) where deal_type = 'PAYOUT';

-- Events are written here in the same transaction as the state change they describe.
create table outbox_events (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  deal_id uuid,
  event_type text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  dispatched_at timestamptz
);
create index outbox_undispatched on outbox_events (created_at) where dispatched_at is null;

-- Per-merchant request counters per calendar minute (UTC); shared by every API process.
create table rate_limit_windows (
  merchant_id uuid not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (merchant_id, window_start)
);

-- The platform's own tenant; operator-created merchants belong to it.
insert into tenants (id, name) values ('00000000-0000-4000-8000-000000000001', 'default');
