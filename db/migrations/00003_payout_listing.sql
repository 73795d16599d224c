-- PayOut, merchant limits, listing.

-- For a PayOut, escrow_usdt is the merchant's hold (amount_usdt at the SELL rate plus the payout fee).
alter table deals add column assign_deadline_at timestamptz;
alter table deals add column failure_reason text not null default '';

-- Keyset listing by type; the (merchant_id, created_at desc, id desc) index serves the rest.
create index deals_listing_by_type on deals (merchant_id, deal_type, created_at desc, id desc);
-- Today's volume for the daily cap.
create index deals_daily_volume on deals (merchant_id, created_at) include (amount, status);

-- A PayOut idempotency key belongs to one merchant of the tenant (spec 4.8: another merchant gets 409).
drop index deals_payout_key;
create unique index deals_payout_key_tenant on deals (tenant_id, idempotency_key) where deal_type = 'PAYOUT';

-- Status filters: one ordered range per (type, status), merged by the listing query.
create index deals_listing_by_status on deals (merchant_id, deal_type, status, created_at desc, id desc);
