-- Operator sign-in that holds under parallel guesses and floods, TOTP codes used once, sessions
-- bound to the credential they were made with (docs/console.md, "Sign-in: limits, floods, codes").

-- Every change of an account's credential (password, TOTP secret) moves credential_version on. A
-- session keeps the version it was made with and works only while the account still has it, so a
-- sign-in that checked the old password cannot outlive a password change that raced it.
alter table operators add column credential_version integer not null default 1;
-- The last TOTP time step accepted for the account (sign-in, enrolment, confirmation): a code of
-- that step or an earlier one is never accepted again.
alter table operators add column totp_last_step bigint;
alter table operator_sessions add column credential_version integer not null default 1;

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

-- The failure counter it replaces: erased on every success, and checked before the hash but
-- written after it. Its rows were hashes of (email, address) and only fed the lockout window.
drop table operator_sign_in_failures;

-- A failed sign-in is audited with the account it named; its actor is whoever tried (the client
-- address, no role): not an operator, not the gateway.
alter table audit_log drop constraint audit_log_actor_kind_check;
alter table audit_log add constraint audit_log_actor_kind_check
  check (actor_kind in ('operator_account', 'operator_jwt', 'system', 'anonymous'));

do $$
begin
  if exists (select 1 from pg_roles where rolname = 'gateway_app') then
    execute 'grant select, insert, update on operator_sign_in_attempts to gateway_app';
    execute 'grant usage on sequence operator_sign_in_attempts_id_seq to gateway_app';
  end if;
end;
$$;
