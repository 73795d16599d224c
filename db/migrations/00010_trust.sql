-- Issue 17, trust.

-- 1. The replay rule (api/auth/replay.ts). A spec signature is accepted on any route within
-- its window, repeats included; memory is kept only for what the two exceptions need:
--   route = ''            a body-less request (empty body or {}) carried this signature: a key
--                         rotation, which is body-less too, must not reuse it;
--   route = 'POST /path'  a single-use route accepted it: a second use there is refused.
-- The old table bound every signature to the first route that used it, which refused
-- legitimate sequences (GET /balance then GET /deals in one second).
drop table if exists hmac_signatures;
create table signature_uses (
  signature text not null,
  route text not null,
  expires_at timestamptz not null,
  primary key (signature, route)
);
create index signature_uses_expiry on signature_uses (expires_at);

-- 2. Request-bound signatures (v2 = HMAC over "<t>.<METHOD>.<path?query>.<raw body>"): a
-- merchant may be required to send them (set by an operator).
alter table merchants add column signature_binding text not null default 'optional'
  check (signature_binding in ('optional', 'required'));

-- 3. tx_hash in canonical form (64 hex, lower case, no spaces): the same chain transaction
-- written twice must never credit twice. Rows whose canonical form is already taken are left
-- as they are (a second credit that already happened stays visible to an operator).
with ranked as (
  select tx_hash, lower(btrim(tx_hash)) as canon,
         row_number() over (partition by lower(btrim(tx_hash)) order by created_at, tx_hash) as n
  from chain_credits)
update chain_credits c set tx_hash = r.canon
from ranked r
where c.tx_hash = r.tx_hash and r.tx_hash <> r.canon and r.n = 1
  and not exists (select 1 from chain_credits o where o.tx_hash = r.canon);

with ranked as (
  select id, tx_hash, lower(btrim(tx_hash)) as canon,
         row_number() over (partition by lower(btrim(tx_hash)) order by created_at, id) as n
  from deposits)
update deposits d set tx_hash = r.canon
from ranked r
where d.id = r.id and r.tx_hash <> r.canon and r.n = 1
  and not exists (select 1 from deposits o where o.tx_hash = r.canon);
