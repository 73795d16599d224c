-- The operator console's search box (GET /api/v1/p2p/admin/search, db/queries/search.ts) and its
-- audit log's "who": what the search looks objects up by, each behind an index, and the credential
-- (console session or token) an audited action was taken with.

-- ---------------------------------------------------------------------------------------------
-- Card and phone tails
-- ---------------------------------------------------------------------------------------------

-- The last four digits of a requisite's card or phone number, kept beside it: a search by tail
-- reads an index of tails, and no index holds a whole card or phone number.
create function digits_tail(v text) returns text language sql immutable as $$
  select case when length(d) >= 4 then right(d, 4) end from (select regexp_replace(v, '[^0-9]', '', 'g') as d) s
$$;

alter table requisites
  add column card_tail text generated always as (digits_tail(card_number)) stored,
  add column phone_tail text generated always as (digits_tail(phone_number)) stored;
create index requisites_by_card_tail on requisites (card_tail) where card_tail is not null;
create index requisites_by_phone_tail on requisites (phone_tail) where phone_tail is not null;

-- A PayOut's recipient (target_requisite: the card or phone the trader pays to), by its tail.
alter table deals add column target_tail text generated always as (digits_tail(target_requisite)) stored;
create index deals_by_target_tail on deals (target_tail, created_at desc) where target_tail is not null;

-- The card the payer said they paid with (the payment page keeps only its last four digits).
create index payer_proofs_by_card on payer_proofs (card_last4, deal_id) where card_last4 is not null;

-- ---------------------------------------------------------------------------------------------
-- Amounts, client ids, addresses, transaction ids
-- ---------------------------------------------------------------------------------------------

create index deals_by_amount on deals (amount, created_at desc);
create index deals_by_client on deals (client_id, created_at desc) where client_id <> '';
-- Every merchant's deals newest first (the operator's deal list without a merchant filter).
create index deals_all on deals (created_at desc, id desc);
create index withdrawals_by_amount on withdrawals (amount, created_at desc);
create index withdrawals_by_address on withdrawals (address, created_at desc);
create index withdrawals_by_tx_hash on withdrawals (tx_hash) where tx_hash <> '';

-- ---------------------------------------------------------------------------------------------
-- Names and emails, by their start, case-insensitive
-- ---------------------------------------------------------------------------------------------

-- In the "C" collation the order is the code points', so a prefix is one range of the index
-- whatever the database's own collation.
create index merchants_by_name on merchants ((lower(name) collate "C"));
create index merchants_by_email on merchants ((lower(email) collate "C"));
create index traders_by_name on traders ((lower(name) collate "C"));
create index operators_by_email on operators ((email collate "C"));

-- ---------------------------------------------------------------------------------------------
-- The audit trail: the credential of the action
-- ---------------------------------------------------------------------------------------------

-- Which console session (`session:<ref>`) or which operator JWT (`jwt:<ref>`) took the action: a
-- reference derived from the credential by a one-way hash, which cannot be used to sign in. Empty
-- (null) for system actors, failed sign-ins and rows written before this column.
alter table audit_log add column actor_credential text;
create index audit_log_by_credential on audit_log (actor_credential, id desc) where actor_credential is not null;

-- The chain covers the credential from now on: a row that has one hashes it after the fields of
-- audit_log_content; a row without one (null) hashes exactly what it did before, so every
-- existing link still verifies (db/queries/audit-chain.ts builds the same bytes).
create or replace function audit_log_chain() returns trigger language plpgsql security definer set search_path = pg_catalog, public as $$
declare
  head audit_log_head;
begin
  select * into head from audit_log_head for update;
  -- The same request, action and object a second time writes nothing (insertAudit's
  -- `on conflict do nothing` is decided after this trigger, too late to leave no gap). Under the
  -- head's lock this look sees every row committed before, so it is exact.
  if exists (select 1 from audit_log a where a.request_key = new.request_key and a.action = new.action
             and a.object_type = new.object_type and a.object_id = new.object_id) then
    return null;
  end if;
  new.chain_seq := head.seq + 1;
  new.prev_hash := head.hash;
  new.hash := sha256(head.hash || audit_log_content(new.chain_seq, new.id, new.at, new.actor_kind, new.actor_id, new.role,
    new.action, new.object_type, new.object_id, new.before, new.after, new.request_id, new.request_key)
    || case when new.actor_credential is null then ''::bytea else convert_to(audit_log_field(new.actor_credential), 'UTF8') end);
  update audit_log_head set seq = new.chain_seq, hash = new.hash;
  return new;
end $$;
revoke all on function audit_log_chain() from public;
