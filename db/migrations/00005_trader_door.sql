-- The traders' door (docs/trader.md): a trader an operator invites signs in at the trader app with
-- its own account (party 'trader', 00004) and works only once an operator has approved it.
--
-- A trader's status: ACTIVE (matched: an operator-managed trader from its creation, an invited one
-- once approved), PENDING_APPROVAL (invited: it may sign in, set up its authenticator and its
-- requisites, and is matched to nothing until an operator approves it).
alter table traders add constraint traders_status_check check (status in ('ACTIVE', 'PENDING_APPROVAL'));
alter table traders add column approved_at timestamptz;
-- `<actor_kind>:<id>` of the operator who approved it; '' for a trader an operator created to manage itself.
alter table traders add column approved_by text not null default '';
