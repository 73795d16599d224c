-- Issue 28 (the operator console), items 2 and 4: operator accounts and their sessions, the
-- append-only audit trail, and four-eyes approvals of large withdrawals.

-- An operator signs in with email + password (scrypt, domain/passwords.ts) and, when enrolled, a
-- TOTP code (its secret sealed with the secret box, like merchant secrets). Roles: docs/console.md.
create table operators (
  id uuid primary key,
  -- Stored lower-cased and trimmed (api/services/operators.ts): one account per address.
  email text not null unique check (email = lower(email) and length(email) between 3 and 254),
  password_hash text not null,
  role text not null check (role in ('arbiter', 'finance', 'support', 'admin')),
  totp_secret_sealed text,
  -- A disabled operator cannot sign in and its sessions stop working at once.
  disabled_at timestamptz,
  created_by text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- A session is named by sha256 of its random token (the cookie holds the token, the table only
-- its hash). It ends at the first of: last_seen_at + idle timeout, created_at + absolute timeout,
-- sign-out (deleted), the operator disabled.
create table operator_sessions (
  id text primary key,
  operator_id uuid not null references operators(id),
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  ip text not null default '',
  user_agent text not null default ''
);
create index operator_sessions_by_operator on operator_sessions (operator_id);
create index operator_sessions_expiry on operator_sessions (expires_at);

-- Failed sign-ins per (email, client address): too many within the window are refused (429)
-- before the password is even checked.
create table operator_sign_in_failures (
  key text not null,
  at timestamptz not null default now()
);
create index operator_sign_in_failures_by_key on operator_sign_in_failures (key, at);

-- Every operator action, written in the transaction of its effect (docs/console.md, "Audit").
create table audit_log (
  id bigserial primary key,
  at timestamptz not null default now(),
  actor_kind text not null check (actor_kind in ('operator_account', 'operator_jwt')),
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
  unique (request_key, action, object_type, object_id)
);
create index audit_log_by_object on audit_log (object_type, object_id, id desc);
create index audit_log_by_actor on audit_log (actor_id, id desc);
create index audit_log_by_action on audit_log (action, id desc);
create index audit_log_by_at on audit_log (at);

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
-- A deployment that runs the API as its own role (not the table owner) names it gateway_app:
-- it may read and append, never change. (Absent in development and tests: the owner runs it.)
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'gateway_app') then
    execute 'grant select, insert on audit_log to gateway_app';
    execute 'grant usage on sequence audit_log_id_seq to gateway_app';
    execute 'revoke update, delete, truncate on audit_log from gateway_app';
  end if;
end;
$$;

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
