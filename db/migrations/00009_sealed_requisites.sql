-- ---------------------------------------------------------------------------------------------
-- Card, phone and IBAN numbers sealed at rest
-- ---------------------------------------------------------------------------------------------

-- A requisite's number and a PayOut's recipient (its number and requisite_details) are stored
-- sealed by the application (db/queries/requisite-secrets.ts: AES-256-GCM under a key id, bound
-- to the row and column), never in clear. Beside them the row keeps what search and display
-- need: the last four digits (the tails, now written by the application, no longer derived from
-- a clear column) and a masked form ("•••• 1234").
--
-- The database cannot seal (the key never reaches it), so the clear columns are dropped here:
-- before the first release no data is carried. A development database's older rows keep their
-- tails and masks and lose their numbers (the seed's demo requisites are sealed again by the seed).

alter table requisites
  add column card_sealed text,
  add column phone_sealed text,
  add column iban_sealed text,
  add column number_masked text not null default '';
alter table requisites alter column card_tail drop expression;
alter table requisites alter column phone_tail drop expression;
update requisites set number_masked = '•••• ' || right(regexp_replace(v, '[^0-9A-Za-z]', '', 'g'), 4)
from (select id as rid, coalesce(nullif(card_number, ''), nullif(phone_number, ''), nullif(iban, '')) as v from requisites) s
where requisites.id = s.rid and s.v is not null;
alter table requisites drop column card_number, drop column phone_number, drop column iban;

alter table deals
  add column target_sealed text,
  add column target_masked text not null default '',
  add column requisite_details_sealed text;
alter table deals alter column target_tail drop expression;
update deals set target_masked = '•••• ' || right(regexp_replace(target_requisite, '[^0-9A-Za-z]', '', 'g'), 4) where target_requisite <> '';
alter table deals drop column target_requisite, drop column requisite_details;
