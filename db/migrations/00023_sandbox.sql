-- Issue 29: sandbox merchants. A sandbox merchant's deals are matched only to the built-in
-- sandbox trader (db/queries/sandbox.ts), its USDT is play money in wallets marked sandbox, and
-- the two worlds never meet: the rules below make a cross match or a mixed posting impossible
-- whatever code runs (docs/sandbox.md, "Isolation").

alter table merchants add column sandbox boolean not null default false;
alter table traders add column sandbox boolean not null default false;
alter table wallets add column sandbox boolean not null default false;
-- The merchant's flag copied at insert (the trigger below): listings, totals and the ledger check
-- filter deals without a join.
alter table deals add column sandbox boolean not null default false;

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
-- a readable error; this is the backstop), and its wallets follow it.
create function merchants_sandbox_change() returns trigger language plpgsql as $$
begin
  if new.sandbox is distinct from old.sandbox then
    if exists (select 1 from deals where merchant_id = new.id)
       or exists (select 1 from withdrawals where merchant_id = new.id)
       or exists (select 1 from ledger_entries e join wallets w on w.id = e.wallet_id
                  where w.owner_type = 'merchant' and w.owner_id = new.id) then
      raise exception 'merchant % has deals or ledger entries: sandbox cannot change', new.id using errcode = 'P0029';
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

create index traders_sandbox on traders (tenant_id) where sandbox;
