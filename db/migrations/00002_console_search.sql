-- The operator console's search box (GET /api/v1/p2p/admin/search, db/queries/search.ts): what the
-- search looks objects up by, each behind an index.

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
