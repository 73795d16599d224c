-- Issue 17, trust.

-- 1. The replay rule (api/auth/replay.ts). A spec signature is accepted on any route within
-- its window, repeats included; memory is kept only for what the two exceptions need:
--   route = ''            a body-less request (empty body or {}) carried this signature: a key
--                         rotation, which is body-less too, must not reuse it;
--   route = 'POST /path'  a single-use route accepted it: a second use there is refused.
-- The old table bound every signature to the first route that used it, which refused
-- legitimate sequences (GET /balance then GET /deals in one second).
create table signature_uses (
  signature text not null,
  route text not null,
  expires_at timestamptz not null,
  primary key (signature, route)
);
create index signature_uses_expiry on signature_uses (expires_at);
-- Signatures still inside their window keep counting across the deploy: each as used on its
-- route, and as seen (a key rotation refuses it).
insert into signature_uses (signature, route, expires_at)
  select signature, route, expires_at from hmac_signatures where expires_at > now()
  union all
  select signature, '', expires_at from hmac_signatures where expires_at > now()
  on conflict do nothing;
drop table hmac_signatures;

-- 2. Request-bound signatures (v2 = HMAC over "<t>.<METHOD>.<path?query>.<raw body>"): a
-- merchant may be required to send them (set by an operator).
alter table merchants add column signature_binding text not null default 'optional'
  check (signature_binding in ('optional', 'required'));

-- 3. tx_hash in canonical form (64 hex, lower case), exactly as domain/tron.ts canonicalTxHash:
-- surrounding whitespace and a 0x prefix dropped, letters lowered; rows that are no transaction
-- id at all are left alone (no new input can claim them). The same chain transaction written
-- twice must never credit twice. Where the canonical form is already taken, the row stays as it
-- is (a second credit that already happened stays visible to an operator).
create function pg_temp.canonical_tx_hash(hash text) returns text language sql immutable as $$
  select case when c ~ '^[0-9a-f]{64}$' then c end
  from (select regexp_replace(lower(btrim(hash, E' \t\r\n\f\x0b')), '^0x', '') as c) x
$$;

with ranked as (
  select tx_hash, pg_temp.canonical_tx_hash(tx_hash) as canon,
         row_number() over (partition by pg_temp.canonical_tx_hash(tx_hash) order by created_at, tx_hash) as n
  from chain_credits)
update chain_credits c set tx_hash = r.canon
from ranked r
where c.tx_hash = r.tx_hash and r.canon is not null and r.tx_hash <> r.canon and r.n = 1
  and not exists (select 1 from chain_credits o where o.tx_hash = r.canon);

with ranked as (
  select id, tx_hash, pg_temp.canonical_tx_hash(tx_hash) as canon,
         row_number() over (partition by pg_temp.canonical_tx_hash(tx_hash) order by created_at, id) as n
  from deposits)
update deposits d set tx_hash = r.canon
from ranked r
where d.id = r.id and r.canon is not null and r.tx_hash <> r.canon and r.n = 1
  and not exists (select 1 from deposits o where o.tx_hash = r.canon);
