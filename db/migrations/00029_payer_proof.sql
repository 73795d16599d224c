-- The payer's proof of payment, sent from the hosted payment page: a receipt (an evidence file of
-- owner 'payer', tied to its deal; the same storage, sniffing and size cap as every evidence file)
-- and/or the last four digits of the card the payer paid with. The operator's deal view, the
-- merchant's deal and appeal views read them.
alter table evidence_files drop constraint evidence_files_owner_type_check;
alter table evidence_files add constraint evidence_files_owner_type_check check (owner_type in ('merchant', 'operator', 'payer'));
alter table evidence_files add column deal_id uuid references deals(id);
alter table evidence_files add constraint evidence_files_payer_deal_check check ((owner_type = 'payer') = (deal_id is not null));

-- One row per submission of the page. An anonymous payer holds only the page's link, so a deal
-- takes a few submissions and no more: each claims the next slot, and the primary key makes two
-- concurrent submissions claiming the same slot one winner (the loser reads the slots again).
-- The bound is PAYER_PROOFS_PER_DEAL of domain/payer-page.ts.
create table payer_proofs (
  deal_id uuid not null references deals(id),
  slot smallint not null check (slot between 1 and 3),
  file_id uuid references evidence_files(id),
  card_last4 text check (card_last4 ~ '^[0-9]{4}$'),
  created_at timestamptz not null default now(),
  primary key (deal_id, slot),
  check (file_id is not null or card_last4 is not null)
);
