-- Issue 20: the merchant's events feed (GET /api/v1/p2p/merchant/events) and webhook signing
-- with every secret of a rotation's grace window.
--
-- feed_position: where an event stands in the feed, given by the outbox relay as it hands the
-- event on (db/queries/outbox.ts markEventsDispatched), in seq order, under the relay's advisory
-- lock. seq itself is taken at insert and a transaction may commit after a later seq is already
-- visible, so a reader resuming after seq N could miss an event that commits later with a lower
-- seq; positions are given by one relay turn at a time, each turn committed before the next
-- begins, so a reader that sees position N sees every position below it. Events relayed before
-- this migration keep their seq as position (the new ones continue above the largest).
alter table outbox_events add column feed_position bigint;
update outbox_events set feed_position = seq where dispatched_at is not null;
create unique index outbox_feed_position on outbox_events (feed_position);
create index outbox_feed_by_merchant on outbox_events (merchant_id, feed_position) where feed_position is not null;

-- The secrets that sign a webhook attempt: the current pair (api_keys_one_current) and any pair
-- still inside its grace window, read per attempt.
create index api_keys_in_grace on api_keys (merchant_id, grace_until) where superseded_at is not null;
