-- One account model for every party (docs/cabinet.md, "Accounts"): the operator console's
-- accounts, sessions, sign-in attempts and invitations become every party's — operators, the
-- people of a merchant (its members) and, next, traders. An account has a party and, for a
-- merchant member, its merchant; the party decides which roles it may hold, which door signs it
-- in (the console, the cabinet, the trader app) and which cookie carries its session. Sign-in,
-- lockout, TOTP, sessions, CSRF, invitations and the audit trail are the same code for all.
--
-- The operator tables are renamed in place (their rows, ids, indexes and the foreign keys that
-- point at them stay): 00001 and 00003 are left as they were.

-- ---------------------------------------------------------------------------------------------
-- Accounts
-- ---------------------------------------------------------------------------------------------

alter table operators rename to accounts;
alter index operators_pkey rename to accounts_pkey;
alter index operators_by_email rename to accounts_by_email;
alter table accounts rename constraint operators_email_check to accounts_email_check;

-- Whose account it is. No default: every insert names its party.
alter table accounts add column party text not null default 'operator';
alter table accounts alter column party drop default;
alter table accounts add column merchant_id uuid references merchants(id);
alter table accounts add column trader_id uuid references traders(id);
-- A member an owner removed: kept (its id stays in the audit trail, its attempts and
-- invitations), never signed in again, not listed; its email may be invited again.
alter table accounts add column removed_at timestamptz;

-- The roles of each party (domain/roles.ts): an operator's, a merchant member's, a trader's.
alter table accounts drop constraint operators_role_check;
alter table accounts add constraint accounts_party_role check (
  (party = 'operator' and merchant_id is null and trader_id is null and role in ('arbiter', 'finance', 'support', 'admin'))
  or (party = 'merchant' and merchant_id is not null and trader_id is null and role in ('owner', 'developer', 'finance', 'support'))
  or (party = 'trader' and trader_id is not null and merchant_id is null and role in ('trader'))
);
alter table accounts add constraint accounts_removed_disabled check (removed_at is null or disabled_at is not null);

-- One live account per email and party: a person signs in at a door by email alone. (A member of
-- two merchants uses two addresses; a removed member's email is free again.)
alter table accounts drop constraint operators_email_key;
create unique index accounts_email_live on accounts (party, email) where removed_at is null;
-- A merchant's team, oldest first.
create index accounts_of_merchant on accounts (merchant_id, created_at, id) where merchant_id is not null;
create index accounts_of_trader on accounts (trader_id) where trader_id is not null;

-- ---------------------------------------------------------------------------------------------
-- Sessions and sign-in attempts
-- ---------------------------------------------------------------------------------------------

alter table operator_sessions rename to account_sessions;
alter table account_sessions rename column operator_id to account_id;
alter index operator_sessions_pkey rename to account_sessions_pkey;
alter index operator_sessions_by_operator rename to account_sessions_by_account;
alter index operator_sessions_expiry rename to account_sessions_expiry;
alter table account_sessions rename constraint operator_sessions_operator_id_fkey to account_sessions_account_id_fkey;

alter table operator_sign_in_attempts rename to sign_in_attempts;
alter table sign_in_attempts rename column operator_id to account_id;
alter index operator_sign_in_attempts_pkey rename to sign_in_attempts_pkey;
alter index operator_sign_in_attempts_by_email rename to sign_in_attempts_by_email;
alter index operator_sign_in_attempts_by_address rename to sign_in_attempts_by_address;
alter index operator_sign_in_attempts_unknown rename to sign_in_attempts_unknown;
alter sequence operator_sign_in_attempts_id_seq rename to sign_in_attempts_id_seq;
alter table sign_in_attempts rename constraint operator_sign_in_attempts_operator_id_fkey to sign_in_attempts_account_id_fkey;
alter table sign_in_attempts rename constraint operator_sign_in_attempts_kind_check to sign_in_attempts_kind_check;
alter table sign_in_attempts rename constraint operator_sign_in_attempts_outcome_check to sign_in_attempts_outcome_check;
-- The door the attempt came through. Its email_key is an HMAC of the party and the email (an
-- operator's of the email alone, as before), so one door's failures never lock another's account
-- of the same address; the per-address limit and the decoy budget count every door together.
alter table sign_in_attempts add column party text not null default 'operator' check (party in ('operator', 'merchant', 'trader'));
alter table sign_in_attempts alter column party drop default;

-- ---------------------------------------------------------------------------------------------
-- Invitations
-- ---------------------------------------------------------------------------------------------

alter table operator_invitations rename to account_invitations;
alter table account_invitations rename column operator_id to account_id;
alter index operator_invitations_pkey rename to account_invitations_pkey;
alter index operator_invitations_token_hash_key rename to account_invitations_token_hash_key;
alter index operator_invitations_newest rename to account_invitations_newest;
alter table account_invitations rename constraint operator_invitations_email_check to account_invitations_email_check;
alter table account_invitations rename constraint operator_invitations_check to account_invitations_accepted_check;
alter table account_invitations rename constraint operator_invitations_operator_id_fkey to account_invitations_account_id_fkey;

alter table account_invitations add column party text not null default 'operator';
alter table account_invitations alter column party drop default;
alter table account_invitations add column merchant_id uuid references merchants(id);
alter table account_invitations add column trader_id uuid references traders(id);
alter table account_invitations drop constraint operator_invitations_role_check;
alter table account_invitations add constraint account_invitations_party_role check (
  (party = 'operator' and merchant_id is null and trader_id is null and role in ('arbiter', 'finance', 'support', 'admin'))
  or (party = 'merchant' and merchant_id is not null and trader_id is null and role in ('owner', 'developer', 'finance', 'support'))
  or (party = 'trader' and trader_id is not null and merchant_id is null and role in ('trader'))
);
-- One live invitation per email at each inviter (the operators; one merchant; one trader): a new
-- one withdraws the inviter's earlier one, never another merchant's.
drop index operator_invitations_live;
create unique index account_invitations_live on account_invitations (party, email, merchant_id, trader_id) nulls not distinct
  where accepted_at is null and revoked_at is null;
create index account_invitations_of_merchant on account_invitations (merchant_id, created_at desc) where merchant_id is not null;

-- ---------------------------------------------------------------------------------------------
-- The audit trail: the new actors
-- ---------------------------------------------------------------------------------------------

-- merchant_account: a member's cabinet session; merchant_jwt: the spec's cabinet JWT (its sub);
-- trader_account: a trader's session (the trader app). Told apart from operators by the kind.
alter table audit_log drop constraint audit_log_actor_kind_check;
alter table audit_log add constraint audit_log_actor_kind_check
  check (actor_kind in ('operator_account', 'operator_jwt', 'merchant_account', 'merchant_jwt', 'trader_account', 'system', 'anonymous'));
