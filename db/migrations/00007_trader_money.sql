-- ---------------------------------------------------------------------------------------------
-- The trader's money: its TRC-20 deposit address and deposits, its withdrawals, its security
-- deposit and minimum working balance (db/queries/trader-money.ts).
-- ---------------------------------------------------------------------------------------------

-- A deposit address, a deposit and a withdrawal belong to a merchant or to a trader, never both.
alter table deposit_addresses alter column merchant_id drop not null;
alter table deposit_addresses add column trader_id uuid references traders(id);
alter table deposit_addresses add constraint deposit_addresses_one_owner check ((merchant_id is null) <> (trader_id is null));
-- A trader has one deposit address for good (no rotation).
create unique index deposit_addresses_trader on deposit_addresses (trader_id) where trader_id is not null;

alter table deposits alter column merchant_id drop not null;
alter table deposits add column trader_id uuid references traders(id);
alter table deposits add constraint deposits_one_owner check ((merchant_id is null) <> (trader_id is null));
create index deposits_trader_listing on deposits (trader_id, created_at desc, id desc) where trader_id is not null;

alter table withdrawals alter column merchant_id drop not null;
alter table withdrawals add column trader_id uuid references traders(id);
alter table withdrawals add constraint withdrawals_one_owner check ((merchant_id is null) <> (trader_id is null));
-- The server-side idempotency key of a trader's withdrawal, as (merchant_id, dedup_key, dedup_generation) is a merchant's.
create unique index withdrawals_trader_key on withdrawals (trader_id, dedup_key, dedup_generation) where trader_id is not null;
create index withdrawals_trader_listing on withdrawals (trader_id, created_at desc, id desc) where trader_id is not null;

-- A withdrawal or deposit row is in its owner's world at insert: its merchant's, or its trader's.
create or replace function rows_sandbox_from_merchant() returns trigger language plpgsql as $$
begin
  new.sandbox := coalesce((select sandbox from merchants where id = new.merchant_id), (select sandbox from traders where id = new.trader_id), false);
  return new;
end $$;

-- The security deposit an operator asks of the trader, what of it is held (frozen on the trader's
-- USDT wallet) now, and the available balance below which the trader leaves the matching pool.
-- security_moves numbers the hold and release postings (trader:<id>:security:<n>).
alter table traders add column security_deposit bigint not null default 0 check (security_deposit >= 0);
alter table traders add column security_deposit_held bigint not null default 0 check (security_deposit_held >= 0);
alter table traders add column security_deposit_released_at timestamptz;
alter table traders add column min_working_balance bigint not null default 0 check (min_working_balance >= 0);
alter table traders add column security_moves integer not null default 0;
