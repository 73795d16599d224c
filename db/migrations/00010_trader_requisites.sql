-- Requisites a trader manages itself, their limits, one live PayIn per requisite and amount, and
-- the trader's presence (online, heartbeat, working hours). The matcher (db/queries/matching.ts)
-- reads all of it inside the claim transaction.

-- ---------------------------------------------------------------------------------------------
-- Requisites: approval and limits
-- ---------------------------------------------------------------------------------------------

-- Statuses: PENDING_APPROVAL (a trader added it or changed its payment details; an operator
-- approves before its first use), ACTIVE (matched), PAUSED (the trader paused it), REJECTED
-- (an operator refused it, with a reason), ARCHIVED (retired for good). Only ACTIVE is matched.
alter table requisites add constraint requisites_status check (status in ('PENDING_APPROVAL', 'ACTIVE', 'PAUSED', 'REJECTED', 'ARCHIVED'));
-- Limits, each absent (null) when not set. Volumes in minor units of the method's currency.
alter table requisites add column daily_count_limit integer check (daily_count_limit > 0);
alter table requisites add column monthly_limit bigint check (monthly_limit > 0);
alter table requisites add column max_live_deals integer check (max_live_deals > 0);
alter table requisites add column cooldown_seconds integer not null default 0 check (cooldown_seconds >= 0 and cooldown_seconds <= 86400);
-- Who added it: 'operator' (approved at once, as before) or 'trader' (approved by an operator).
alter table requisites add column added_by text not null default 'operator' check (added_by in ('operator', 'trader'));
alter table requisites add column rejection_reason text not null default '';
alter table requisites add column reviewed_at timestamptz;
alter table requisites add column updated_at timestamptz not null default now();
create index requisites_of_trader on requisites (trader_id, created_at);
create index requisites_pending on requisites (created_at) where status = 'PENDING_APPROVAL';
-- The limits count a requisite's deals by creation time (its UTC day and month).
create index deals_by_requisite on deals (requisite_id, created_at) where requisite_id is not null;

-- ---------------------------------------------------------------------------------------------
-- One live PayIn per requisite and amount
-- ---------------------------------------------------------------------------------------------

-- A trader who receives two payments of one amount on one card cannot tell which payer paid
-- which deal. The rule holds for the requisites of traders with an account (the trader app):
-- operator-managed traders and the sandbox trader take concurrent deals of one amount as before
-- (the demo traders carry hundreds of them in tests and benches). A settlement deal is the
-- operator's booking of an appeal's outcome, never a payment to wait for: it is left out too.
alter table deals add column amount_guard boolean not null default false;

create function deals_amount_guard() returns trigger language plpgsql as $$
begin
  new.amount_guard := new.deal_type = 'PAYIN' and new.requisite_id is not null and new.parent_deal_id is null
    and exists (select 1 from accounts a where a.trader_id = new.trader_id and a.party = 'trader');
  return new;
end $$;
create trigger deals_amount_guard before insert on deals for each row execute function deals_amount_guard();

-- Live: every PayIn status a deal may still leave (domain/state/payin.ts, PAYIN_TERMINAL).
create unique index deals_requisite_live_amount on deals (requisite_id, amount)
  where amount_guard and status in ('INITIALIZED', 'ESCROW_LOCKED', 'PAYMENT_NOTIFIED', 'PAYMENT_VERIFIED', 'APPEALED', 'REFUND_PENDING', 'SOFT_DISPUTED');
-- The matcher's probe (db/queries/matching.ts) names the live statuses as a parameter, which the
-- planner cannot match to the unique index's predicate: this one it can, and it holds no deal of
-- an operator-managed requisite, so the probe costs nothing on the create path for those.
create index deals_guarded_amount on deals (requisite_id, amount) where amount_guard;

-- ---------------------------------------------------------------------------------------------
-- Presence
-- ---------------------------------------------------------------------------------------------

-- A trader with an account is matched only while online with a fresh heartbeat and within its
-- working hours (when set). An operator-managed trader (no account) counts as always present.
alter table traders add column online boolean not null default false;
alter table traders add column heartbeat_at timestamptz;
alter table traders add column online_at timestamptz;
-- Why and when it went offline: 'manual' (the trader's toggle) or 'heartbeat_lost' (paused
-- automatically after its app fell silent).
alter table traders add column offline_reason text not null default '' check (offline_reason in ('', 'manual', 'heartbeat_lost'));
alter table traders add column offline_at timestamptz;
-- Working hours in the trader's IANA time zone; from > to spans midnight. All three or none.
alter table traders add column work_timezone text;
alter table traders add column work_from time;
alter table traders add column work_to time;
alter table traders add constraint traders_working_hours check ((work_timezone is null) = (work_from is null) and (work_from is null) = (work_to is null));
create index traders_online on traders (heartbeat_at) where online;
