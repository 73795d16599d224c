-- Issue 26: the per-deal delivery streams are gone (every delivery goes through its merchant
-- endpoint's stream, migration 00016), and with them the column that kept a deal on its old
-- stream and the index that served that check.
drop index webhook_deliveries_on_deal_streams;
alter table webhook_deliveries drop column per_deal_stream;
