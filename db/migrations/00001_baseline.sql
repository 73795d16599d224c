-- The gateway's schema as the first release ships it (docs/decisions/0001-v0-baseline.md). Later
-- changes are new files after this one (00002_…), forward only.
--
-- Money is bigint minor units everywhere (USDT in cents). The app role's grants are not here:
-- db/roles.ts gives them after every migration run.

-- ---------------------------------------------------------------------------------------------
-- Tenants and their catalogue
-- ---------------------------------------------------------------------------------------------

create table tenants (
  id uuid primary key,
  name text not null,
  created_at timestamptz not null default now()
);

-- The platform's own tenant; operator-created merchants belong to it.
insert into tenants (id, name) values ('00000000-0000-4000-8000-000000000001', 'default');

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

-- ---------------------------------------------------------------------------------------------
-- Merchants, their keys and request accounting
-- ---------------------------------------------------------------------------------------------

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
  -- Request-bound signatures (v2 = HMAC over "<t>.<METHOD>.<path?query>.<raw body>"): an operator
  -- may require them of a merchant.
  signature_binding text not null default 'optional' check (signature_binding in ('optional', 'required')),
  -- A sandbox merchant's money is play money and its deals meet only the sandbox trader (the
  -- "Sandbox worlds" section below; docs/sandbox.md).
  sandbox boolean not null default false,
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
  -- New merchants start in AUTO_UP_TO_LIMIT; the API passes AUTO_WITHDRAWAL_LIMIT_USDT_CENTS (these
  -- defaults mirror its default).
  auto_withdrawal_mode text not null default 'AUTO_UP_TO_LIMIT',
  auto_withdrawal_limit_usdt_cents bigint not null default 100000,
  webhook_max_retries integer not null default 5 check (webhook_max_retries between 1 and 20),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (deal_max_amount is null or deal_min_amount is null or deal_max_amount >= deal_min_amount),
  constraint merchants_auto_withdrawal_mode check (auto_withdrawal_mode in ('AUTO_UP_TO_LIMIT', 'MANUAL_ONLY')),
  constraint merchants_auto_withdrawal_limit check (auto_withdrawal_limit_usdt_cents >= 0)
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
-- The secrets that sign a webhook attempt: the current pair and any pair still inside its grace
-- window, read per attempt.
create index api_keys_in_grace on api_keys (merchant_id, grace_until) where superseded_at is not null;

-- The replay rule (api/auth/replay.ts). A signature is accepted on any route within its window,
-- repeats included; memory is kept only for what the two exceptions need:
--   route = ''            a body-less request (empty body or {}) carried this signature: a key
--                         rotation, which is body-less too, must not reuse it;
--   route = 'POST /path'  a single-use route accepted it: a second use there is refused.
create table signature_uses (
  signature text not null,
  route text not null,
  expires_at timestamptz not null,
  primary key (signature, route)
);
create index signature_uses_expiry on signature_uses (expires_at);

-- Per-merchant request counters per calendar minute (UTC); shared by every API process.
-- failed_reads: uploads and V1 disputes whose body was read before their signature could be
-- checked and that then failed; the gate before an unverified read counts both
-- (api/auth/rate-limit.ts), a verified request only `count`.
create table rate_limit_windows (
  merchant_id uuid not null,
  window_start timestamptz not null,
  count integer not null,
  failed_reads integer not null default 0,
  primary key (merchant_id, window_start)
);

-- ---------------------------------------------------------------------------------------------
-- Traders and their requisites
-- ---------------------------------------------------------------------------------------------

create table traders (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  name text not null,
  status text not null default 'ACTIVE',
  -- The tenant's built-in sandbox trader (db/queries/sandbox.ts).
  sandbox boolean not null default false,
  created_at timestamptz not null default now()
);
create index traders_sandbox on traders (tenant_id) where sandbox;

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

-- ---------------------------------------------------------------------------------------------
-- The ledger
-- ---------------------------------------------------------------------------------------------

-- Wallets are ledger accounts with three buckets. System wallets (owner_type 'system') stand for
-- the outside world and the platform's fee account; only they may go negative. A system wallet
-- has no owner, except a sandbox merchant's own play-money account (sandbox_merchant_chain, owned
-- by the merchant): its play deposits come from it and its withdrawals go back to it, so one
-- merchant's play money is bounded by its own deposit cap.
create table wallets (
  id uuid primary key,
  owner_type text not null check (owner_type in ('merchant', 'trader', 'system')),
  owner_id uuid,
  system_code text,
  currency text not null,
  -- Set from the owner on insert (wallets_sandbox_from_owner below); a system account is sandbox
  -- when its code is (sandbox_chain, sandbox_platform_fees, sandbox_merchant_chain).
  sandbox boolean not null default false,
  available bigint not null default 0,
  frozen bigint not null default 0,
  pending_credits bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (owner_type = 'system' or (available >= 0 and frozen >= 0 and pending_credits >= 0)),
  constraint wallets_system_code check ((owner_type = 'system') = (system_code is not null)),
  constraint wallets_system_owner check (owner_type <> 'system' or (owner_id is not null) = (system_code = 'sandbox_merchant_chain'))
);
create unique index wallets_owner on wallets (owner_type, owner_id, currency) where owner_id is not null;
-- One shared account per code and currency; a merchant's own account is unique by its owner (wallets_owner).
create unique index wallets_system on wallets (system_code, currency) where system_code is not null and owner_id is null;

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

-- One chain transaction credits one wallet once: merchant deposits and trader top-ups share this
-- namespace, so a tx_hash can never be credited to both. tx_hash is canonical (64 hex, lower
-- case: domain/tron/address.ts canonicalTxHash).
create table chain_credits (
  tx_hash text primary key,
  owner_type text not null check (owner_type in ('merchant', 'trader')),
  owner_id uuid not null,
  wallet_id uuid not null references wallets(id),
  amount bigint not null check (amount > 0),
  created_at timestamptz not null default now()
);

-- ---------------------------------------------------------------------------------------------
-- Deals (PayIn and PayOut)
-- ---------------------------------------------------------------------------------------------

create table deals (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  merchant_id uuid not null references merchants(id),
  deal_type text not null check (deal_type in ('PAYIN', 'PAYOUT')),
  status text not null,
  idempotency_key text not null,
  -- The merchant's world, copied at insert (deals_sandbox_check below): listings, totals and the
  -- ledger check filter deals without a join.
  sandbox boolean not null default false,
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
  -- Fixed at creation like the exchange rate, so amount changes recompute with it.
  fee_bps integer not null default 0,
  -- A PayIn's: the trader's escrow (amount_usdt plus a client-paid fee). A PayOut's: the
  -- merchant's hold (amount_usdt at the SELL rate plus the payout fee).
  escrow_usdt bigint not null default 0,
  payment_timeout_at timestamptz,
  -- A PayOut's SLAs: UNASSIGNED expires at assign_deadline_at, a MATCHED payout whose trader has
  -- not started at transfer_deadline_at.
  assign_deadline_at timestamptz,
  transfer_deadline_at timestamptz,
  cancel_reason text not null default '',
  failure_reason text not null default '',
  -- A settlement deal: the EXPIRED parent and the appeal it settles (one per appeal).
  parent_deal_id uuid references deals(id),
  origin_appeal_id uuid unique,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- One deal per merchant, type and key. Settlement deals live outside the merchant's key
-- space: a PayIn the merchant made under `settlement:<appeal_id>` neither blocks that appeal's
-- settlement nor is answered by it.
create unique index deals_merchant_key on deals (merchant_id, deal_type, idempotency_key) where origin_appeal_id is null;
-- A PayOut key belongs to one merchant of the tenant (another merchant gets 409).
create unique index deals_payout_key_tenant on deals (tenant_id, idempotency_key) where deal_type = 'PAYOUT';
-- Keyset listings: all, by type, by status (one ordered range per (type, status), merged by the listing query).
create index deals_listing on deals (merchant_id, created_at desc, id desc);
create index deals_listing_by_type on deals (merchant_id, deal_type, created_at desc, id desc);
create index deals_listing_by_status on deals (merchant_id, deal_type, status, created_at desc, id desc);
-- Today's volume for the daily cap; a requisite's daily usage.
create index deals_daily_volume on deals (merchant_id, created_at) include (amount, status);
create index deals_requisite_day on deals (requisite_id, created_at) where requisite_id is not null;

-- Append-only record of operator amount changes.
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

-- The create fence: a create step that its workflow run has given up on never commits later.
-- A create step's transaction (a deal's or a withdrawal's) starts with claim_create(run, id):
-- it takes a lock on the id for the rest of the transaction and refuses when the run has
-- abandoned its create. A run that gives up calls abandon_create(run, id) — the same lock,
-- then the tombstone — and then looks for the row: an attempt that held the lock has committed
-- or rolled back by then (its row is adopted), and any attempt after it is refused. The run id
-- keys the tombstone: a retry with the same idempotency key is a new run and creates normally.
create table abandoned_creates (
  run_id text primary key,
  subject_id uuid not null,
  abandoned_at timestamptz not null default now()
);

-- The fence's lock on one id, held until the transaction ends.
create function lock_create_fence(p_subject uuid) returns void language sql volatile as $$
  select pg_advisory_xact_lock(hashtextextended('create:' || p_subject::text, 0));
$$;

-- volatile: the tombstone is read with a snapshot taken after the lock was granted
-- (READ COMMITTED), so a tombstone committed while this transaction waited is seen.
create function claim_create(p_run text, p_subject uuid) returns boolean language plpgsql volatile as $$
begin
  perform lock_create_fence(p_subject);
  return not exists (select 1 from abandoned_creates where run_id = p_run);
end $$;

create function abandon_create(p_run text, p_subject uuid) returns void language plpgsql volatile as $$
begin
  perform lock_create_fence(p_subject);
  insert into abandoned_creates (run_id, subject_id) values (p_run, p_subject) on conflict do nothing;
end $$;

-- Whitelist passes. Empty filters are NULL (match anything).
create table passes (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  merchant_id uuid not null references merchants(id),
  provider_id uuid references traders(id),
  amount bigint not null check (amount > 0),
  currency_id uuid references currencies(id),
  payment_method_id uuid references payment_methods(id),
  requisite_type text,
  status text not null default 'ACTIVE' check (status in ('ACTIVE', 'USED', 'EXPIRED')),
  expires_at timestamptz not null,
  -- Reserved inside the creating transaction of the deal, before its row exists: checked at commit.
  used_deal_id uuid unique references deals(id) deferrable initially deferred,
  -- When it was reserved (the clock time of the reserving statement), so a PayIn create can tell
  -- that a pass matching it was reserved after the request arrived: 409 `pass was concurrently
  -- reserved` instead of a silent cascade deal.
  used_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((status = 'USED') = (used_deal_id is not null)),
  constraint passes_used_at check ((status = 'USED') = (used_at is not null))
);
create index passes_listing on passes (merchant_id, created_at desc, id desc);
create index passes_matching on passes (merchant_id, amount, created_at) where status = 'ACTIVE';
create index passes_reserved on passes (merchant_id, amount, used_at) where status = 'USED';

-- ---------------------------------------------------------------------------------------------
-- The outbox and webhook deliveries
-- ---------------------------------------------------------------------------------------------

-- Events are written here in the same transaction as the state change they describe, keyed by a
-- deterministic id (object, event, version), so a retried activity never writes one twice.
create table outbox_events (
  id uuid primary key,
  -- The relay reads the outbox in this order (identity values grow with insertion; two events
  -- written in one transaction share created_at but not seq), so a deal's events reach each
  -- target in the order they were written.
  seq bigint generated always as identity,
  merchant_id uuid not null references merchants(id),
  deal_id uuid,
  event_type text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  dispatched_at timestamptz,
  -- Where the event stands in the merchant's feed (GET /merchant/events), given by the outbox
  -- relay as it hands the event on (db/queries/outbox.ts markEventsDispatched), in seq order,
  -- under the relay's advisory lock. seq itself is taken at insert and a transaction may commit
  -- after a later seq is already visible, so a reader resuming after seq N could miss an event
  -- that commits later with a lower seq; positions are given by one relay turn at a time, each
  -- committed before the next begins, so a reader that sees position N sees every position below.
  feed_position bigint
);
create index outbox_undispatched on outbox_events (seq) where dispatched_at is null;
create index outbox_by_deal on outbox_events (deal_id, created_at);
create unique index outbox_feed_position on outbox_events (feed_position);
create index outbox_feed_by_merchant on outbox_events (merchant_id, feed_position) where feed_position is not null;

-- Wakes the relay as soon as an event commits (it also polls, so a missed notification only delays).
create function outbox_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('outbox_events', '');
  return null;
end $$;
create trigger outbox_events_notify after insert on outbox_events for each statement execute function outbox_notify();

-- Webhook delivery: one row per (event, target) and one per attempt. A stored receiver answer is
-- at most 2048 bytes of UTF-8, cut on a character boundary by the delivery activity.
create table webhook_deliveries (
  id uuid primary key,                      -- callback_id
  merchant_id uuid not null references merchants(id),
  deal_id uuid,
  event_id uuid not null references outbox_events(id),
  event_type text not null,
  url text not null,
  status text not null default 'PENDING' check (status in ('PENDING', 'SUCCESS', 'RETRY', 'ERROR')),
  attempts integer not null default 0,
  http_status integer,
  response_body text not null default '',
  last_error text not null default '',
  last_manual_retry_at timestamptz,
  manual_retries integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (event_id, url)
);
create index webhook_deliveries_listing on webhook_deliveries (merchant_id, created_at desc, id desc);
create index webhook_deliveries_by_deal on webhook_deliveries (merchant_id, deal_id, created_at desc, id desc);

create table webhook_attempts (
  callback_id uuid not null references webhook_deliveries(id),
  attempt integer not null,
  -- Which run and step made the attempt (auto:<n> or manual:<n>): a retried activity records once.
  attempt_key text not null,
  status text not null,
  http_status integer,
  duration_ms integer not null,
  response_body text not null default '',
  error text not null default '',
  signed_at bigint not null,
  created_at timestamptz not null default now(),
  primary key (callback_id, attempt),
  unique (callback_id, attempt_key)
);

-- ---------------------------------------------------------------------------------------------
-- The wallet on chain: deposit addresses, deposits, withdrawals
-- ---------------------------------------------------------------------------------------------

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

-- Deposits: seen on chain by the watcher (PENDING until final, DROPPED when the transfer vanished
-- before it was final) or recorded by an operator (CONFIRMED at once, empty address).
create table deposits (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  wallet_id uuid not null references wallets(id),
  amount bigint not null check (amount > 0),
  tx_hash text not null unique,
  status text not null default 'CONFIRMED',
  -- The merchant's world at insert (rows_sandbox_from_merchant below).
  sandbox boolean not null default false,
  -- The receiving address ('' for an operator-recorded deposit).
  address text not null default '',
  confirmations integer not null default 0,
  -- The exact on-chain amount (6 decimals; `amount` is its whole cents) and the block time the indexer gave.
  chain_units bigint check (chain_units > 0),
  block_at timestamptz,
  confirmed_at timestamptz,
  dropped_at timestamptz,
  created_at timestamptz not null default now(),
  constraint deposits_status check (status in ('PENDING', 'CONFIRMED', 'DROPPED'))
);
create index deposits_listing on deposits (merchant_id, created_at desc, id desc);
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

create table withdrawals (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  wallet_id uuid not null references wallets(id),
  status text not null check (status in ('PENDING', 'PENDING_MANUAL', 'APPROVED', 'COMPLETED', 'CANCELLED')),
  -- The merchant's world at insert (rows_sandbox_from_merchant below): the world of every posting.
  sandbox boolean not null default false,
  auto boolean not null,
  address text not null,
  amount bigint not null check (amount > 0),
  fee bigint not null check (fee >= 0),
  net bigint not null check (net > 0 and net + fee = amount),
  -- Server-side idempotency (V2): sha256(merchant, address, amount, fee) and its generation.
  dedup_key text not null,
  dedup_generation integer not null,
  idempotency_key text not null default '',
  -- An explicit caller key (the V1 adapter's requestId): one withdrawal per key and merchant; null on V2.
  caller_key text,
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
create unique index withdrawals_caller_key on withdrawals (merchant_id, caller_key) where caller_key is not null;
create index withdrawals_listing on withdrawals (merchant_id, created_at desc, id desc);
create index withdrawals_by_status on withdrawals (status, created_at desc, id desc);
create index withdrawals_all on withdrawals (created_at desc, id desc);
create index withdrawals_live on withdrawals (wallet_id) include (amount) where status in ('PENDING', 'PENDING_MANUAL', 'APPROVED');

-- Every transaction signed for a withdrawal on TRON, committed before its first broadcast (a retry
-- rebroadcasts these bytes, never a new build). At most one may be live (SIGNED or BROADCAST): a
-- new one is built only after the chain said the last one is dead (FAILED receipt at depth, or
-- EXPIRED: not on chain while the node's head is past its expiration).
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
  -- Settled as dead (FAILED, EXPIRED) only on a verdict seen on two receipt checks: the first check
  -- that reaches it notes it here, a later one at least a poll after takes it; a check that sees
  -- otherwise (the transaction found, a receipt the solidified node does not confirm) clears it.
  -- One answer of a lagging or lying node never gets a replacement built.
  dead_verdict text not null default '' check (dead_verdict in ('', 'FAILED', 'EXPIRED')),
  dead_seen_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (withdrawal_id, attempt),
  constraint withdrawal_transactions_dead_seen check ((dead_verdict = '') = (dead_seen_at is null))
);
create unique index withdrawal_transactions_live on withdrawal_transactions (withdrawal_id) where status in ('SIGNED', 'BROADCAST');

-- The embedded simulated chain (CHAIN_ADAPTER=simulated): what "the network" has accepted, one
-- transfer per withdrawal id. It stands outside the gateway's own state, like a real chain would.
create table simulated_chain_transfers (
  withdrawal_id uuid primary key,
  tx_hash text not null unique,
  to_address text not null,
  amount bigint not null check (amount > 0),
  send_calls integer not null default 1,
  created_at timestamptz not null default now(),
  last_call_at timestamptz not null default now()
);

-- ---------------------------------------------------------------------------------------------
-- Appeals, evidence, settlements, V1 disputes, the payer's proofs
-- ---------------------------------------------------------------------------------------------

-- Evidence file metadata. The bytes live behind the FileStorage interface (api/services/file-storage.ts);
-- the embedded default keeps them in evidence_blobs below. A payer's receipt from the hosted
-- payment page is tied to its deal.
create table evidence_files (
  id uuid primary key,
  owner_type text not null check (owner_type in ('merchant', 'operator', 'payer')),
  merchant_id uuid references merchants(id),
  operator_id text,
  deal_id uuid references deals(id),
  file_name text not null default '',
  content_type text not null,
  size bigint not null check (size > 0),
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  created_at timestamptz not null default now(),
  check ((owner_type = 'merchant') = (merchant_id is not null)),
  check ((owner_type = 'operator') = (operator_id is not null)),
  constraint evidence_files_payer_deal_check check ((owner_type = 'payer') = (deal_id is not null))
);
create index evidence_files_by_merchant on evidence_files (merchant_id, created_at desc) where merchant_id is not null;

-- The Postgres storage of FileStorage: one row per file, written before its metadata row.
create table evidence_blobs (
  file_id uuid primary key,
  bytes bytea not null,
  created_at timestamptz not null default now()
);

-- One appeal per deal (a repeat appeal is 400 FAILED_PRECONDITION), backed by the unique index.
create table appeals (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  merchant_id uuid not null references merchants(id),
  deal_id uuid not null references deals(id),
  status text not null check (status in ('OPEN', 'IN_REVIEW', 'RESOLVED_MERCHANT', 'RESOLVED_TRADER', 'CLOSED', 'REOPENED')),
  reason text not null,
  file_ids uuid[] not null default '{}',
  -- The deal's status when the appeal was opened (APPEALED holds a live deal; EXPIRED is the settlement path).
  deal_status_at_open text not null,
  outcome text check (outcome in ('SATISFIED', 'REJECTED')),
  resolution_note text not null default '',
  resolved_by text,
  resolved_at timestamptz,
  -- +1 on every move: the discriminator of its outbox event.
  version integer not null default 1,
  -- The command (one API call) that made the last move: a retried activity of it answers without moving twice.
  last_command_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (deal_id)
);
create index appeals_listing on appeals (merchant_id, created_at desc, id desc);
create index appeals_listing_by_status on appeals (merchant_id, status, created_at desc, id desc);
create index appeals_queue on appeals (status, created_at desc, id desc);

create table appeal_messages (
  id uuid primary key,
  appeal_id uuid not null references appeals(id),
  seq bigserial not null,
  sender_role text not null check (sender_role in ('MERCHANT', 'ADMIN')),
  sender_id text not null,
  body text not null,
  file_ids uuid[] not null default '{}',
  created_at timestamptz not null default clock_timestamp()
);
create index appeal_messages_thread on appeal_messages (appeal_id, seq);
-- "Is this file attached to a message of one of my appeals?" (a merchant may read the arbiter's files).
create index appeal_messages_files on appeal_messages using gin (file_ids);

-- One settlement per appeal; the deal row also carries origin_appeal_id (unique).
create table appeal_settlements (
  appeal_id uuid primary key references appeals(id),
  deal_id uuid not null unique references deals(id),
  idempotency_key text not null,
  received_amount_override bigint check (received_amount_override > 0),
  reason text not null default '',
  operator_id text not null,
  created_at timestamptz not null default now()
);

-- What a V1 dispute says beyond its appeal (V1 echoes these fields back; V2 appeals have no place for them).
create table v1_disputes (
  appeal_id uuid primary key references appeals(id),
  receipt_type text not null default '',
  receipt_url text not null default '',
  description text not null default '',
  client_comment text not null default '',
  merchant_comment text not null default ''
);

-- The payer's proof of payment, sent from the hosted payment page: a receipt (an evidence file of
-- owner 'payer') and/or the last four digits of the card the payer paid with. One row per
-- submission. An anonymous payer holds only the page's link, so a deal takes a few submissions
-- and no more: each claims the next slot, and the primary key makes two concurrent submissions
-- claiming the same slot one winner (the loser reads the slots again). The bound is
-- PAYER_PROOFS_PER_DEAL of domain/state/payer-page.ts.
create table payer_proofs (
  deal_id uuid not null references deals(id),
  slot smallint not null check (slot between 1 and 3),
  file_id uuid references evidence_files(id),
  card_last4 text check (card_last4 ~ '^[0-9]{4}$'),
  created_at timestamptz not null default now(),
  primary key (deal_id, slot),
  check (file_id is not null or card_last4 is not null)
);

-- ---------------------------------------------------------------------------------------------
-- Operators: accounts, sessions, sign-in attempts, alerts, four-eyes approvals
-- ---------------------------------------------------------------------------------------------

-- An operator signs in with email + password (scrypt, domain/crypto/passwords.ts) and, when enrolled, a
-- TOTP code (its secret sealed with the secret box, like merchant secrets). Roles: docs/console.md.
create table operators (
  id uuid primary key,
  -- Stored lower-cased and trimmed (api/services/operators.ts): one account per address.
  email text not null unique check (email = lower(email) and length(email) between 3 and 254),
  password_hash text not null,
  role text not null check (role in ('arbiter', 'finance', 'support', 'admin')),
  totp_secret_sealed text,
  -- The last TOTP time step accepted for the account (sign-in, enrolment, confirmation): a code of
  -- that step or an earlier one is never accepted again.
  totp_last_step bigint,
  -- Moves on with every change of the account's credential (password, TOTP secret). A session
  -- keeps the version it was made with and works only while the account still has it, so a
  -- sign-in that checked the old password cannot outlive a password change that raced it.
  credential_version integer not null default 1,
  -- A disabled operator cannot sign in and its sessions stop working at once.
  disabled_at timestamptz,
  created_by text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- A session is named by sha256 of its random token (the cookie holds the token, the table only
-- its hash). It ends at the first of: last_seen_at + idle timeout, created_at + absolute timeout,
-- sign-out (deleted), the operator disabled, the account's credential changed.
create table operator_sessions (
  id text primary key,
  operator_id uuid not null references operators(id),
  credential_version integer not null default 1,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  ip text not null default '',
  user_agent text not null default ''
);
create index operator_sessions_by_operator on operator_sessions (operator_id);
create index operator_sessions_expiry on operator_sessions (expires_at);

-- Each sign-in attempt (and each confirmation with the password or a code), reserved before the
-- password is hashed: its row is written, under the advisory locks of its email, its address and
-- (for an unknown email) of everything, after the limits were counted, so parallel guesses count
-- one another. Rows are kept: a success ends nothing but the lockout of its email (the window
-- counts failures after the email's last success), and the history stays for investigation.
create table operator_sign_in_attempts (
  id bigserial primary key,
  at timestamptz not null default now(),
  -- HMAC of the lower-cased email under a key of the server: what was typed into the email field
  -- (sometimes a password) is not kept in clear.
  email_key text not null,
  operator_id uuid references operators(id),
  address text not null,
  -- sign_in or confirm (a password or code given to replace a TOTP secret).
  kind text not null default 'sign_in' check (kind in ('sign_in', 'confirm')),
  -- pending while the password is checked (counted as a failure meanwhile), then failed or
  -- succeeded; refused when no hash slot was free (nothing was checked: not a failure).
  outcome text not null default 'pending' check (outcome in ('pending', 'failed', 'succeeded', 'refused')),
  reason text not null default '',
  -- false for an unknown email past the global budget of decoy hashes: answered without a hash.
  hashed boolean not null default true,
  finished_at timestamptz
);
create index operator_sign_in_attempts_by_email on operator_sign_in_attempts (email_key, at);
create index operator_sign_in_attempts_by_address on operator_sign_in_attempts (address, at);
create index operator_sign_in_attempts_unknown on operator_sign_in_attempts (at) where operator_id is null and hashed;

-- Things an operator must look at: about a deal (an overdue PROCESSING payout holds the merchant's
-- money) or about a subject (a withdrawal, a deposit, the hot wallet; one open alert per (kind,
-- subject)). An operator acknowledges one ("I am on it") and may resolve it by hand; the gateway
-- resolves alerts itself when their deal or subject moves on (resolved_by stays null then).
create table operator_alerts (
  id uuid primary key,
  kind text not null,
  deal_id uuid references deals(id),
  subject text,
  message text not null,
  created_at timestamptz not null default now(),
  acknowledged_at timestamptz,
  acknowledged_by text,
  resolved_at timestamptz,
  resolved_by text,
  unique (kind, deal_id)
);
create index operator_alerts_open on operator_alerts (created_at desc) where resolved_at is null;
create unique index operator_alerts_open_subject on operator_alerts (kind, subject) where resolved_at is null and subject is not null;
-- GET /admin/alerts pages newest first on (created_at, id) (db/queries/keyset.ts).
create index operator_alerts_newest on operator_alerts (created_at desc, id desc);

-- Four-eyes (WITHDRAWAL_FOUR_EYES_ABOVE_USDT_CENTS): the approvals a PENDING_MANUAL withdrawal
-- collected. One per approver; the release needs as many distinct approvers as the rule asks.
create table withdrawal_approvals (
  withdrawal_id uuid not null references withdrawals(id),
  -- <actor_kind>:<actor_id>, so an account and a JWT subject never count as one another.
  approver text not null,
  role text not null,
  request_key text not null,
  at timestamptz not null default now(),
  primary key (withdrawal_id, approver)
);

-- ---------------------------------------------------------------------------------------------
-- The audit trail: append-only, one hash chain
-- ---------------------------------------------------------------------------------------------

-- Every operator action, written in the transaction of its effect (docs/console.md, "Audit").
-- The actor is an operator account, the operator JWT's subject, the gateway itself (system: the
-- sandbox trader's runs on a sandbox merchant's deals and appeals), or whoever tried to sign in
-- and failed (anonymous: the client address, no role).
--
-- Each row carries its place in the chain (chain_seq, 1, 2, … without a gap), the hash of the row
-- before it (prev_hash; 32 zero bytes for the first) and its own hash = sha256(prev_hash ‖ its
-- canonical content). A removed row leaves a gap or a broken link, an edited one a hash that no
-- longer matches; the ledger check walks the chain (scripts/ledger-check.ts,
-- db/queries/audit-chain.ts) and so does nothing here trust. The API and workers connect as a
-- role that may only insert into and read audit_log (db/roles.ts); the chain catches what only
-- the owner could still do.
create table audit_log (
  id bigserial primary key,
  at timestamptz not null default now(),
  actor_kind text not null check (actor_kind in ('operator_account', 'operator_jwt', 'system', 'anonymous')),
  actor_id text not null,
  role text not null,
  action text not null,
  object_type text not null,
  object_id text not null,
  before jsonb,
  after jsonb,
  -- The API's trace id (X-Trace-Id of the request and its answer).
  request_id text not null,
  -- One id per API request, server-made: a retried activity writes its row once.
  request_key text not null,
  -- Which console session (`session:<ref>`) or which operator JWT (`jwt:<ref>`) took the action: a
  -- reference derived from the credential by a one-way hash, which cannot be used to sign in. Null
  -- for system actors and failed sign-ins.
  actor_credential text,
  chain_seq bigint not null,
  prev_hash bytea not null,
  hash bytea not null,
  unique (request_key, action, object_type, object_id)
);
create index audit_log_by_object on audit_log (object_type, object_id, id desc);
create index audit_log_by_actor on audit_log (actor_id, id desc);
create index audit_log_by_action on audit_log (action, id desc);
create index audit_log_by_at on audit_log (at);
create index audit_log_by_credential on audit_log (actor_credential, id desc) where actor_credential is not null;
create unique index audit_log_chain_seq on audit_log (chain_seq);

-- Append-only: nothing may change or remove a row. The trigger holds for every role (superusers
-- included, except one that drops it — a migration, visible in the history).
create function audit_log_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only: % is not allowed', tg_op using errcode = 'insufficient_privilege';
end;
$$;
create trigger audit_log_no_update before update or delete on audit_log
  for each row execute function audit_log_append_only();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_append_only();
revoke update, delete, truncate on audit_log from public;

-- The chain's head: its row lock serialises every insert until the inserting transaction ends, so
-- concurrent inserts still form one chain (the next insert waits, then reads this one's hash).
-- Only the owner touches it, through the trigger below.
create table audit_log_head (
  one boolean primary key default true check (one),
  seq bigint not null,
  hash bytea not null
);
insert into audit_log_head (seq, hash) values (0, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea);
revoke all on audit_log_head from public;

-- The canonical content of a row: each field as <octet length>:<text>, or '-' for null, in this
-- order; `at` in UTC to the microsecond, jsonb in Postgres' own normalised text. The ledger check
-- builds the same bytes itself (db/queries/audit-chain.ts) and compares.
create function audit_log_field(v text) returns text language sql immutable as $$
  select case when v is null then '-' else octet_length(v)::text || ':' || v end
$$;
create function audit_log_content(
  p_chain_seq bigint, p_id bigint, p_at timestamptz, p_actor_kind text, p_actor_id text, p_role text, p_action text,
  p_object_type text, p_object_id text, p_before jsonb, p_after jsonb, p_request_id text, p_request_key text
) returns bytea language sql immutable as $$
  select convert_to(
    audit_log_field(p_chain_seq::text) || audit_log_field(p_id::text) ||
    audit_log_field(to_char(p_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')) ||
    audit_log_field(p_actor_kind) || audit_log_field(p_actor_id) || audit_log_field(p_role) || audit_log_field(p_action) ||
    audit_log_field(p_object_type) || audit_log_field(p_object_id) || audit_log_field(p_before::text) ||
    audit_log_field(p_after::text) || audit_log_field(p_request_id) || audit_log_field(p_request_key),
    'UTF8')
$$;

-- Links every new row, whoever inserts it. SECURITY DEFINER: the app role has no privilege on the
-- head, and what it passes for the chain columns is overwritten here.
create function audit_log_chain() returns trigger language plpgsql security definer set search_path = pg_catalog, public as $$
declare
  head audit_log_head;
begin
  select * into head from audit_log_head for update;
  -- The same request, action and object a second time writes nothing (insertAudit's
  -- `on conflict do nothing` is decided after this trigger, too late to leave no gap). Under the
  -- head's lock this look sees every row committed before, so it is exact.
  if exists (select 1 from audit_log a where a.request_key = new.request_key and a.action = new.action
             and a.object_type = new.object_type and a.object_id = new.object_id) then
    return null;
  end if;
  new.chain_seq := head.seq + 1;
  new.prev_hash := head.hash;
  new.hash := sha256(head.hash || audit_log_content(new.chain_seq, new.id, new.at, new.actor_kind, new.actor_id, new.role,
    new.action, new.object_type, new.object_id, new.before, new.after, new.request_id, new.request_key)
    -- A row with a credential hashes it after the fields of audit_log_content; a row without one
    -- hashes those fields alone (db/queries/audit-chain.ts builds the same bytes).
    || case when new.actor_credential is null then ''::bytea else convert_to(audit_log_field(new.actor_credential), 'UTF8') end);
  update audit_log_head set seq = new.chain_seq, hash = new.hash;
  return new;
end $$;
revoke all on function audit_log_chain() from public;
create trigger audit_log_chain before insert on audit_log for each row execute function audit_log_chain();

-- ---------------------------------------------------------------------------------------------
-- Sandbox worlds: sandbox and live money never meet (docs/sandbox.md, "Isolation";
-- docs/reliability.md, "Worlds"). The rules below make a cross match or a mixed posting
-- impossible whatever code runs.
-- ---------------------------------------------------------------------------------------------

-- A wallet is sandbox exactly when its owner is: a merchant's or trader's follows its owner, a
-- system account is sandbox when its code is (sandbox_chain, sandbox_platform_fees).
create function wallets_sandbox_from_owner() returns trigger language plpgsql as $$
begin
  new.sandbox := case new.owner_type
    when 'merchant' then coalesce((select sandbox from merchants where id = new.owner_id), false)
    when 'trader' then coalesce((select sandbox from traders where id = new.owner_id), false)
    else coalesce(new.system_code like 'sandbox\_%', false)
  end;
  return new;
end $$;
create trigger wallets_sandbox before insert on wallets for each row execute function wallets_sandbox_from_owner();

-- A merchant changes worlds only while it has no money history (the service refuses first, with
-- a readable error; this is the backstop), and its wallets follow it. The UPDATE of
-- merchants.sandbox holds the merchant row's lock when this AFTER trigger runs, and every write
-- that can be a merchant's first money (a deposit of any kind, a deal or withdrawal create) holds
-- a lock on that row that conflicts with it (FOR SHARE, db/queries/merchant-world.ts) until it
-- commits: so when these reads run (each with a snapshot taken after the lock was granted), every
-- such write either committed before (and is seen here) or waits for this transaction and then
-- reads the new world. A deposit row counts as history too: a PENDING chain deposit is credited
-- later from the account of the world it was recorded in.
create function merchants_sandbox_change() returns trigger language plpgsql as $$
begin
  if new.sandbox is distinct from old.sandbox then
    if exists (select 1 from deals where merchant_id = new.id)
       or exists (select 1 from withdrawals where merchant_id = new.id)
       or exists (select 1 from deposits where merchant_id = new.id)
       or exists (select 1 from ledger_entries e join wallets w on w.id = e.wallet_id
                  where w.owner_type = 'merchant' and w.owner_id = new.id) then
      raise exception 'merchant % has deals, deposits or ledger entries: sandbox cannot change', new.id using errcode = 'P0029';
    end if;
    update wallets set sandbox = new.sandbox where owner_type = 'merchant' and owner_id = new.id;
  end if;
  return new;
end $$;
create trigger merchants_sandbox after update of sandbox on merchants for each row execute function merchants_sandbox_change();

-- A deal is in its merchant's world, and its trader must be too: no live trader ever gets a
-- sandbox deal, nor the reverse (checked on insert and on every reassignment).
create function deals_sandbox_check() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    new.sandbox := (select sandbox from merchants where id = new.merchant_id);
  end if;
  if new.trader_id is not null and (select sandbox from traders where id = new.trader_id) is distinct from new.sandbox then
    raise exception 'deal % (sandbox %) cannot go to trader % of the other world', new.id, new.sandbox, new.trader_id using errcode = 'P0029';
  end if;
  return new;
end $$;
create trigger deals_sandbox before insert or update of trader_id on deals for each row execute function deals_sandbox_check();

-- A withdrawal or deposit row is in its merchant's world at insert (a merchant with money history
-- never changes worlds).
create function rows_sandbox_from_merchant() returns trigger language plpgsql as $$
begin
  new.sandbox := coalesce((select sandbox from merchants where id = new.merchant_id), false);
  return new;
end $$;
create trigger withdrawals_sandbox before insert on withdrawals for each row execute function rows_sandbox_from_merchant();
create trigger deposits_sandbox before insert on deposits for each row execute function rows_sandbox_from_merchant();

-- No ledger transaction moves money between a sandbox wallet and a live one.
create function ledger_entries_one_world() returns trigger language plpgsql as $$
begin
  if exists (
    select 1 from new_entries n join wallets w on w.id = n.wallet_id
    group by n.transaction_id having count(distinct w.sandbox) > 1
  ) then
    raise exception 'a ledger transaction mixes sandbox and live wallets' using errcode = 'P0029';
  end if;
  return null;
end $$;
create trigger ledger_entries_one_world after insert on ledger_entries
  referencing new table as new_entries for each statement execute function ledger_entries_one_world();

-- Every webhook envelope of a sandbox merchant says so (`"sandbox": true` beside event_id and
-- type), whichever step wrote the event; a live merchant's envelope is unchanged.
create function outbox_events_sandbox() returns trigger language plpgsql as $$
begin
  if (select sandbox from merchants where id = new.merchant_id) then
    new.payload := new.payload || '{"sandbox": true}'::jsonb;
  end if;
  return new;
end $$;
create trigger outbox_events_sandbox before insert on outbox_events for each row execute function outbox_events_sandbox();
