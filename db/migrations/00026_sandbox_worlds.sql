-- Sandbox and live money never mix (docs/reliability.md, "Worlds").
--
-- 1. Each sandbox merchant has its own play-money account: a system wallet (it may go negative)
--    with code sandbox_merchant_chain and the merchant as owner. Its play deposits come from it
--    and its withdrawals go back to it, so one merchant's play money is bounded by its own
--    deposit cap and never drives a shared account towards the bigint limit. The tenant-wide
--    sandbox_chain keeps funding the sandbox trader's liquidity only.
do $$
declare c record;
begin
  -- The unnamed check of 00001 that kept system wallets ownerless.
  for c in select conname from pg_constraint
           where conrelid = 'wallets'::regclass and contype = 'c'
             and pg_get_constraintdef(oid) like '%system_code IS NOT NULL%' and pg_get_constraintdef(oid) like '%owner_id IS NULL%'
  loop
    execute format('alter table wallets drop constraint %I', c.conname);
  end loop;
end $$;
alter table wallets add constraint wallets_system_code check ((owner_type = 'system') = (system_code is not null));
alter table wallets add constraint wallets_system_owner
  check (owner_type <> 'system' or (owner_id is not null) = (system_code = 'sandbox_merchant_chain'));
-- One shared account per code and currency; a merchant's own account is unique by its owner (wallets_owner).
drop index wallets_system;
create unique index wallets_system on wallets (system_code, currency) where system_code is not null and owner_id is null;

-- 2. The world switch's "no money history yet" test. The UPDATE of merchants.sandbox holds the
--    merchant row's lock when this AFTER trigger runs, and every write that can be a merchant's
--    first money (a deposit of any kind, a deal or withdrawal create) holds a lock on that row
--    that conflicts with it (FOR SHARE, db/queries/merchant-world.ts) until it commits: so when
--    these reads run (each with a snapshot taken after the lock was granted), every such write
--    either committed before (and is seen here) or waits for this transaction and then reads the
--    new world. A deposit row counts as history too: a PENDING chain deposit is credited later
--    from the account of the world it was recorded in.
create or replace function merchants_sandbox_change() returns trigger language plpgsql as $$
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
