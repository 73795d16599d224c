-- Issue 17: V1 withdrawals are keyed by (merchant, requestId). A withdrawal made with an explicit
-- caller key (the V1 adapter's requestId) carries it here; V2 withdrawals (server-side key from
-- merchant, address, amount and fee, spec 4.2) leave it null. One withdrawal per key and merchant.
alter table withdrawals add column caller_key text;

-- Withdrawals the V1 adapter made before: their requestId was stored as idempotency_key and a
-- repeat answered the newest withdrawal under it. That one keeps answering the requestId.
update withdrawals w set caller_key = w.idempotency_key
from (
  select distinct on (w2.merchant_id, w2.idempotency_key) w2.id
  from withdrawals w2 join merchants m on m.id = w2.merchant_id
  where m.api_version = 'v1' and w2.idempotency_key <> ''
  order by w2.merchant_id, w2.idempotency_key, w2.created_at desc, w2.id desc
) newest
where w.id = newest.id;

create unique index withdrawals_caller_key on withdrawals (merchant_id, caller_key) where caller_key is not null;
