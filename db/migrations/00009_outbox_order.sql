-- Issue 12: a deal's events reach each target in the order they were written. The relay reads
-- the outbox by this sequence (identity values grow with insertion; two events written in one
-- transaction share created_at but not seq) and hands them to the deal's delivery stream.
alter table outbox_events add column seq bigint generated always as identity;
drop index if exists outbox_undispatched;
create index outbox_undispatched on outbox_events (seq) where dispatched_at is null;
