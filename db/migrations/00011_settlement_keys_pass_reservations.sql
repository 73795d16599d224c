-- Issue 17.
--
-- Settlement deals (origin_appeal_id set) live outside the merchant's idempotency key space: a
-- merchant's PayIn/PayOut keys are unique among its own (non-settlement) deals only, so a PayIn the
-- merchant created under `settlement:<appeal_id>` neither blocks that appeal's settlement nor is
-- answered by it. A settlement deal is already unique by origin_appeal_id (one per appeal).
alter table deals drop constraint deals_merchant_id_deal_type_idempotency_key_key;
create unique index deals_merchant_key on deals (merchant_id, deal_type, idempotency_key) where origin_appeal_id is null;

-- When a pass was reserved (the clock time of the reserving statement), so a PayIn create can
-- tell that a pass matching it was reserved after the request arrived: 409 `pass was concurrently
-- reserved` instead of a silent cascade deal.
alter table passes add column used_at timestamptz;
update passes set used_at = updated_at where status = 'USED';
alter table passes add constraint passes_used_at check ((status = 'USED') = (used_at is not null));
create index passes_reserved on passes (merchant_id, amount, used_at) where status = 'USED';
