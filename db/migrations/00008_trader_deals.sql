-- The trader's own moves on its deals (the trader app): a PayOut's proof of transfer, and a PayIn
-- the trader reports as not received.

-- A completed PayOut's proof: the bank's reference of the transfer and the file (a receipt or a
-- screenshot) the trader uploaded. The merchant sees both on the deal and in its webhooks.
alter table deals add column payout_bank_reference text not null default '';
alter table deals add column payout_proof_file_id uuid references evidence_files(id);

-- A PayIn the trader says it did not receive: when and why. The deal itself does not move (no
-- state of the PayIn table means "not received"): it waits for its expiry, an appeal or an
-- operator, and the report raises an operator alert.
alter table deals add column not_received_at timestamptz;
alter table deals add column not_received_reason text not null default '';

-- A trader's payout proof is a trader's upload (evidence_files.trader_id) tied to the deal, so the
-- deal's merchant may read it as it reads a payer's receipt: deal_id is set for a payer's receipt
-- always, for a trader's upload when it is a payout's proof, and never for the others.
alter table evidence_files drop constraint evidence_files_payer_deal_check;
alter table evidence_files add constraint evidence_files_payer_deal_check check (
  case owner_type when 'payer' then deal_id is not null when 'trader' then true else deal_id is null end);

-- The trader's queue reads its deals, live first.
create index deals_of_trader on deals (trader_id, created_at desc) where trader_id is not null;
-- What a trader may take: the UNASSIGNED payouts.
create index deals_unassigned_payouts on deals (payment_method_id, created_at) where status = 'UNASSIGNED';
