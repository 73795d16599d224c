-- A withdrawal's TRON transaction is settled as dead (FAILED, EXPIRED) only on a verdict seen on
-- two receipt checks (issue 25): the first check that reaches it notes it here, a later one at
-- least a poll after takes it; a check that sees otherwise (the transaction found, a receipt the
-- solidified node does not confirm) clears it. One answer of a lagging or lying node never gets a
-- replacement built.
alter table withdrawal_transactions add column dead_verdict text not null default '' check (dead_verdict in ('', 'FAILED', 'EXPIRED'));
alter table withdrawal_transactions add column dead_seen_at timestamptz;
alter table withdrawal_transactions add constraint withdrawal_transactions_dead_seen check ((dead_verdict = '') = (dead_seen_at is null));
