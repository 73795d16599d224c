-- Issue 28 (the operator console): an operator acknowledges an alert ("I am on it") and resolves
-- it by hand. The gateway still resolves alerts itself when their deal or subject moves on
-- (resolved_by stays null then); the operator's moves name the actor (an account's id or the
-- operator JWT's sub) and are audited in the same transaction (audit_log).
alter table operator_alerts
  add column acknowledged_at timestamptz,
  add column acknowledged_by text,
  add column resolved_by text;

-- GET /admin/alerts pages newest first on (created_at, id) (db/queries/keyset.ts).
create index operator_alerts_newest on operator_alerts (created_at desc, id desc);
