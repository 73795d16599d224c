-- Issue 21: webhook deliveries go through one stream per merchant endpoint instead of one per
-- (deal, target). Deliveries made before belong to per-deal streams: while a deal still has one
-- of those unfinished, the relay hands the deal's later events to that same stream, so a deal's
-- events never overtake each other across the upgrade. (A constant default is stored in the
-- catalog: existing rows read true without a rewrite; new rows get false.)
alter table webhook_deliveries add column per_deal_stream boolean not null default true;
alter table webhook_deliveries alter column per_deal_stream set default false;
create index webhook_deliveries_on_deal_streams on webhook_deliveries (deal_id) where per_deal_stream and status in ('PENDING', 'RETRY');
