-- The audit trail as one hash chain. Each row carries its place in the chain (chain_seq, 1, 2, …
-- without a gap), the hash of the row before it (prev_hash; 32 zero bytes for the first) and its
-- own hash = sha256(prev_hash ‖ its canonical content). A removed row leaves a gap or a broken
-- link, an edited one a hash that no longer matches; the ledger check walks the chain
-- (scripts/ledger-check.ts, db/queries/audit-chain.ts) and so does nothing here trust.
--
-- The API and workers connect as a role that may only insert into and read audit_log
-- (db/roles.ts); the chain catches what only the owner could still do.

alter table audit_log add column chain_seq bigint, add column prev_hash bytea, add column hash bytea;

-- The chain's head: its row lock serialises every insert until the inserting transaction ends, so
-- concurrent inserts still form one chain (the next insert waits, then reads this one's hash).
-- Only the owner touches it, through the trigger below.
create table audit_log_head (
  one boolean primary key default true check (one),
  seq bigint not null,
  hash bytea not null
);

-- The canonical content of a row: each field as <octet length>:<text>, or '-' for null, in this
-- order; `at` in UTC to the microsecond, jsonb in Postgres' own normalised text. The ledger check
-- builds the same bytes itself (db/queries/audit-chain.ts) and compares.
create function audit_log_field(v text) returns text language sql immutable as $$
  select case when v is null then '-' else octet_length(v)::text || ':' || v end
$$;
create function audit_log_content(
  p_chain_seq bigint, p_id bigint, p_at timestamptz, p_actor_kind text, p_actor_id text, p_role text, p_action text,
  p_object_type text, p_object_id text, p_before jsonb, p_after jsonb, p_request_id text, p_request_key text
) returns bytea language sql immutable as $$
  select convert_to(
    audit_log_field(p_chain_seq::text) || audit_log_field(p_id::text) ||
    audit_log_field(to_char(p_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')) ||
    audit_log_field(p_actor_kind) || audit_log_field(p_actor_id) || audit_log_field(p_role) || audit_log_field(p_action) ||
    audit_log_field(p_object_type) || audit_log_field(p_object_id) || audit_log_field(p_before::text) ||
    audit_log_field(p_after::text) || audit_log_field(p_request_id) || audit_log_field(p_request_key),
    'UTF8')
$$;

-- Rows written before the chain: linked in id order, once, by the owner (the append-only trigger
-- is off for this statement only; the migration is the one place that may).
alter table audit_log disable trigger audit_log_no_update;
do $$
declare
  r audit_log;
  seq bigint := 0;
  prev bytea := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
begin
  for r in select * from audit_log order by id loop
    seq := seq + 1;
    update audit_log set chain_seq = seq, prev_hash = prev,
      hash = sha256(prev || audit_log_content(seq, r.id, r.at, r.actor_kind, r.actor_id, r.role, r.action,
        r.object_type, r.object_id, r.before, r.after, r.request_id, r.request_key))
    where id = r.id
    returning hash into prev;
  end loop;
  insert into audit_log_head (seq, hash) values (seq, prev);
end $$;
alter table audit_log enable trigger audit_log_no_update;

alter table audit_log alter column chain_seq set not null, alter column prev_hash set not null, alter column hash set not null;
create unique index audit_log_chain_seq on audit_log (chain_seq);

-- Links every new row, whoever inserts it. SECURITY DEFINER: the app role has no privilege on the
-- head, and what it passes for the chain columns is overwritten here.
create function audit_log_chain() returns trigger language plpgsql security definer set search_path = pg_catalog, public as $$
declare
  head audit_log_head;
begin
  select * into head from audit_log_head for update;
  -- The same request, action and object a second time writes nothing (insertAudit's
  -- `on conflict do nothing` is decided after this trigger, too late to leave no gap). Under the
  -- head's lock this look sees every row committed before, so it is exact.
  if exists (select 1 from audit_log a where a.request_key = new.request_key and a.action = new.action
             and a.object_type = new.object_type and a.object_id = new.object_id) then
    return null;
  end if;
  new.chain_seq := head.seq + 1;
  new.prev_hash := head.hash;
  new.hash := sha256(head.hash || audit_log_content(new.chain_seq, new.id, new.at, new.actor_kind, new.actor_id, new.role,
    new.action, new.object_type, new.object_id, new.before, new.after, new.request_id, new.request_key));
  update audit_log_head set seq = new.chain_seq, hash = new.hash;
  return new;
end $$;
revoke all on function audit_log_chain() from public;
create trigger audit_log_chain before insert on audit_log for each row execute function audit_log_chain();

revoke all on audit_log_head from public;
