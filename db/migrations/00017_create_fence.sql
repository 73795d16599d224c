-- The create fence: a create step that its workflow run has given up on never commits later.
-- A create step's transaction (a deal's or a withdrawal's) starts with claim_create(run, id):
-- it takes a lock on the id for the rest of the transaction and refuses when the run has
-- abandoned its create. A run that gives up calls abandon_create(run, id) — the same lock,
-- then the tombstone — and then looks for the row: an attempt that held the lock has committed
-- or rolled back by then (its row is adopted), and any attempt after it is refused. The run id
-- keys the tombstone: a retry with the same idempotency key is a new run and creates normally.
create table abandoned_creates (
  run_id text primary key,
  subject_id uuid not null,
  abandoned_at timestamptz not null default now()
);

-- The fence's lock on one id, held until the transaction ends.
create function lock_create_fence(p_subject uuid) returns void language sql volatile as $$
  select pg_advisory_xact_lock(hashtextextended('create:' || p_subject::text, 0));
$$;

-- volatile: the tombstone is read with a snapshot taken after the lock was granted
-- (READ COMMITTED), so a tombstone committed while this transaction waited is seen.
create function claim_create(p_run text, p_subject uuid) returns boolean language plpgsql volatile as $$
begin
  perform lock_create_fence(p_subject);
  return not exists (select 1 from abandoned_creates where run_id = p_run);
end $$;

create function abandon_create(p_run text, p_subject uuid) returns void language plpgsql volatile as $$
begin
  perform lock_create_fence(p_subject);
  insert into abandoned_creates (run_id, subject_id) values (p_run, p_subject) on conflict do nothing;
end $$;
