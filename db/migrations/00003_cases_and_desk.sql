-- Cases and the desk (docs/console.md, "Cases", "Invitations", "The desk's notifications"):
-- an appeal's response deadline and assignee, operator attachments on an appeal, operator
-- invitations, the last sign-in of each account, and the desk's events (new work for operators).

-- ---------------------------------------------------------------------------------------------
-- Appeals: a deadline and an assignee
-- ---------------------------------------------------------------------------------------------

-- When an operator must have answered the appeal: set when it is opened (and again when it is
-- reopened) to now + APPEAL_RESPONSE_SLA_SECONDS by the step that writes it. The default covers a
-- row written by a build that does not set it yet (a rolling deploy): the SLA's default, a day.
alter table appeals add column respond_by timestamptz;
update appeals set respond_by = created_at + interval '1 day';
alter table appeals alter column respond_by set default now() + interval '1 day';
alter table appeals alter column respond_by set not null;

-- The operator account working on the appeal (none: the queue's). Set and cleared by the
-- assign, unassign and take routes, each audited; not a move of the appeal's state.
alter table appeals add column assignee_id uuid references operators(id);
alter table appeals add column assigned_at timestamptz;

-- The oldest-first queue and the overdue count read the waiting appeals by deadline and age.
create index appeals_waiting_by_deadline on appeals (respond_by) where status in ('OPEN', 'IN_REVIEW', 'REOPENED');
create index appeals_queue_oldest on appeals (created_at, id);
create index appeals_by_assignee on appeals (assignee_id, created_at, id) where assignee_id is not null;

-- Files an operator attached to the appeal (uploaded with POST /admin/files): the case's own
-- papers, for operators only — the merchant sees an operator's file only in a message to it.
create table appeal_attachments (
  appeal_id uuid not null references appeals(id),
  file_id uuid not null references evidence_files(id),
  note text not null default '',
  attached_by text not null,
  created_at timestamptz not null default now(),
  primary key (appeal_id, file_id)
);

-- ---------------------------------------------------------------------------------------------
-- Operators: invitations, the last sign-in, an authenticator that must be set up
-- ---------------------------------------------------------------------------------------------

-- Where and when the account last signed in (the sign-in's transaction writes both).
alter table operators add column last_sign_in_at timestamptz;
alter table operators add column last_sign_in_address text not null default '';
-- An account that must set up an authenticator before anything else (an invited one): its
-- session may only read itself, set up TOTP and sign out until totp_secret_sealed is set.
alter table operators add column totp_required boolean not null default false;

-- An admin invites an email with a role; the link carries a random token (the table keeps its
-- sha256). Accepting it once, before expires_at, creates the account with the password the
-- invitee sets. A new invitation of the same email revokes the live one.
create table operator_invitations (
  id uuid primary key,
  token_hash text not null unique,
  email text not null check (email = lower(email) and length(email) between 3 and 254),
  role text not null check (role in ('arbiter', 'finance', 'support', 'admin')),
  invited_by text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  operator_id uuid references operators(id),
  revoked_at timestamptz,
  check ((accepted_at is null) = (operator_id is null))
);
create unique index operator_invitations_live on operator_invitations (email) where accepted_at is null and revoked_at is null;
create index operator_invitations_newest on operator_invitations (created_at desc);

-- ---------------------------------------------------------------------------------------------
-- The desk's events: new work for operators
-- ---------------------------------------------------------------------------------------------

-- One row per new piece of live work: an appeal opened or reopened, a withdrawal waiting for
-- approval, an alert raised. Written by the triggers below in the transaction that made the
-- work, whichever code path made it, so none is missed and none is written twice. The console's
-- notifications read it; the desk hook relay (workers/desk-relay.ts) hands each to a delivery
-- workflow and stamps dispatched_at. A sandbox merchant's work is play money: no row.
create table desk_events (
  id bigserial primary key,
  kind text not null check (kind in ('appeal.opened', 'appeal.reopened', 'withdrawal.waiting', 'alert.raised')),
  object_type text not null check (object_type in ('appeal', 'withdrawal', 'alert')),
  object_id uuid not null,
  merchant_id uuid,
  -- What the notification says: the amount, the reason, the alert's message (no secrets).
  summary jsonb not null default '{}',
  created_at timestamptz not null default now(),
  dispatched_at timestamptz,
  -- The hook's delivery: attempts made, the last answer, when it arrived (null: not delivered).
  attempts integer not null default 0,
  last_status integer,
  last_error text not null default '',
  delivered_at timestamptz
);
create index desk_events_undispatched on desk_events (id) where dispatched_at is null;

create function desk_events_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('desk_events', '');
  return null;
end $$;
create trigger desk_events_notify after insert on desk_events for each statement execute function desk_events_notify();

create function desk_event_of_appeal() returns trigger language plpgsql as $$
declare
  live boolean;
begin
  if tg_op = 'UPDATE' and not (new.status = 'REOPENED' and old.status <> 'REOPENED') then
    return null;
  end if;
  select not d.sandbox into live from deals d where d.id = new.deal_id;
  if coalesce(live, false) then
    insert into desk_events (kind, object_type, object_id, merchant_id, summary)
    values (case when tg_op = 'INSERT' then 'appeal.opened' else 'appeal.reopened' end, 'appeal', new.id, new.merchant_id,
            jsonb_build_object('deal_id', new.deal_id, 'reason', left(new.reason, 500), 'respond_by', new.respond_by));
  end if;
  return null;
end $$;
create trigger appeals_desk_event after insert or update of status on appeals for each row execute function desk_event_of_appeal();

create function desk_event_of_withdrawal() returns trigger language plpgsql as $$
begin
  if new.status <> 'PENDING_MANUAL' or new.sandbox or (tg_op = 'UPDATE' and old.status = 'PENDING_MANUAL') then
    return null;
  end if;
  insert into desk_events (kind, object_type, object_id, merchant_id, summary)
  values ('withdrawal.waiting', 'withdrawal', new.id, new.merchant_id,
          jsonb_build_object('amount', new.amount::text, 'currency', 'USDT', 'address', new.address));
  return null;
end $$;
create trigger withdrawals_desk_event after insert or update of status on withdrawals for each row execute function desk_event_of_withdrawal();

create function desk_event_of_alert() returns trigger language plpgsql as $$
declare
  deal_merchant uuid;
  sandbox boolean := false;
begin
  if new.deal_id is not null then
    select d.merchant_id, d.sandbox into deal_merchant, sandbox from deals d where d.id = new.deal_id;
  end if;
  if coalesce(sandbox, false) then
    return null;
  end if;
  insert into desk_events (kind, object_type, object_id, merchant_id, summary)
  values ('alert.raised', 'alert', new.id, deal_merchant,
          jsonb_build_object('alert_kind', new.kind, 'message', left(new.message, 500), 'deal_id', new.deal_id, 'subject', new.subject));
  return null;
end $$;
create trigger operator_alerts_desk_event after insert on operator_alerts for each row execute function desk_event_of_alert();
