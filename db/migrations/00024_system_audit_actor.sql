-- Issue 29 (sandbox merchants): the sandbox arbiter reviews, writes in, resolves, closes and
-- reopens a sandbox merchant's appeals through the operator's own paths, and those paths audit
-- every move in its transaction. Its rows name a system actor (actor_kind 'system', actor_id
-- 'sandbox-arbiter', role 'arbiter'), never an operator account or JWT subject.
alter table audit_log drop constraint audit_log_actor_kind_check;
alter table audit_log add constraint audit_log_actor_kind_check
  check (actor_kind in ('operator_account', 'operator_jwt', 'system'));
