-- Webhook delivery: one row per (event, target) and one per attempt.
create table webhook_deliveries (
  id uuid primary key,                      -- callback_id
  merchant_id uuid not null references merchants(id),
  deal_id uuid,
  event_id uuid not null references outbox_events(id),
  event_type text not null,
  url text not null,
  status text not null default 'PENDING' check (status in ('PENDING', 'SUCCESS', 'RETRY', 'ERROR')),
  attempts integer not null default 0,
  http_status integer,
  response_body text not null default '',
  last_error text not null default '',
  last_manual_retry_at timestamptz,
  manual_retries integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (event_id, url)
);
create index webhook_deliveries_listing on webhook_deliveries (merchant_id, created_at desc, id desc);
create index webhook_deliveries_by_deal on webhook_deliveries (merchant_id, deal_id, created_at desc, id desc);

create table webhook_attempts (
  callback_id uuid not null references webhook_deliveries(id),
  attempt integer not null,
  -- Which run and step made the attempt (auto:<n> or manual:<n>): a retried activity records once.
  attempt_key text not null,
  status text not null,
  http_status integer,
  duration_ms integer not null,
  response_body text not null default '',
  error text not null default '',
  signed_at bigint not null,
  created_at timestamptz not null default now(),
  primary key (callback_id, attempt),
  unique (callback_id, attempt_key)
);

-- Wakes the relay as soon as an event commits (it also polls, so a missed notification only delays).
create function outbox_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('outbox_events', '');
  return null;
end $$;
create trigger outbox_events_notify after insert on outbox_events for each statement execute function outbox_notify();
