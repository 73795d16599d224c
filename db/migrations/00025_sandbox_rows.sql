-- Issue 29: a sandbox merchant's withdrawals and deposits say so in every listing row
-- (`"sandbox": true`, as its deals do), and operator totals can leave play money out without a
-- join. Like deals.sandbox, the flag is the merchant's at insert (a merchant with money history
-- never changes worlds; a deposit recorded before a change follows it).
alter table withdrawals add column sandbox boolean not null default false;
alter table deposits add column sandbox boolean not null default false;
update withdrawals w set sandbox = true from merchants m where m.id = w.merchant_id and m.sandbox;
update deposits d set sandbox = true from merchants m where m.id = d.merchant_id and m.sandbox;

create function rows_sandbox_from_merchant() returns trigger language plpgsql as $$
begin
  new.sandbox := coalesce((select sandbox from merchants where id = new.merchant_id), false);
  return new;
end $$;
create trigger withdrawals_sandbox before insert on withdrawals for each row execute function rows_sandbox_from_merchant();
create trigger deposits_sandbox before insert on deposits for each row execute function rows_sandbox_from_merchant();

create or replace function merchants_sandbox_change() returns trigger language plpgsql as $$
begin
  if new.sandbox is distinct from old.sandbox then
    if exists (select 1 from deals where merchant_id = new.id)
       or exists (select 1 from withdrawals where merchant_id = new.id)
       or exists (select 1 from ledger_entries e join wallets w on w.id = e.wallet_id
                  where w.owner_type = 'merchant' and w.owner_id = new.id) then
      raise exception 'merchant % has deals or ledger entries: sandbox cannot change', new.id using errcode = 'P0029';
    end if;
    update wallets set sandbox = new.sandbox where owner_type = 'merchant' and owner_id = new.id;
    update deposits set sandbox = new.sandbox where merchant_id = new.id;
  end if;
  return new;
end $$;
