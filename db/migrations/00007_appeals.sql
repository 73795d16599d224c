-- Disputes: evidence files, appeals and their messages, settlements of expired deals; whitelist passes.

-- Evidence file metadata. The bytes live behind the FileStorage interface (api/services/file-storage.ts);
-- the embedded default keeps them in evidence_blobs below.
create table evidence_files (
  id uuid primary key,
  owner_type text not null check (owner_type in ('merchant', 'operator')),
  merchant_id uuid references merchants(id),
  operator_id text,
  file_name text not null default '',
  content_type text not null,
  size bigint not null check (size > 0),
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  created_at timestamptz not null default now(),
  check ((owner_type = 'merchant') = (merchant_id is not null)),
  check ((owner_type = 'operator') = (operator_id is not null))
);
create index evidence_files_by_merchant on evidence_files (merchant_id, created_at desc) where merchant_id is not null;

-- The Postgres storage of FileStorage: one row per file, written before its metadata row.
create table evidence_blobs (
  file_id uuid primary key,
  bytes bytea not null,
  created_at timestamptz not null default now()
);

-- One appeal per deal (spec 4.5: a repeat appeal is 400 FAILED_PRECONDITION), backed by the unique index.
create table appeals (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  merchant_id uuid not null references merchants(id),
  deal_id uuid not null references deals(id),
  status text not null check (status in ('OPEN', 'IN_REVIEW', 'RESOLVED_MERCHANT', 'RESOLVED_TRADER', 'CLOSED', 'REOPENED')),
  reason text not null,
  file_ids uuid[] not null default '{}',
  -- The deal's status when the appeal was opened (APPEALED holds a live deal; EXPIRED is the settlement path).
  deal_status_at_open text not null,
  outcome text check (outcome in ('SATISFIED', 'REJECTED')),
  resolution_note text not null default '',
  resolved_by text,
  resolved_at timestamptz,
  -- +1 on every move: the discriminator of its outbox event.
  version integer not null default 1,
  -- The command (one API call) that made the last move: a retried activity of it answers without moving twice.
  last_command_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (deal_id)
);
create index appeals_listing on appeals (merchant_id, created_at desc, id desc);
create index appeals_listing_by_status on appeals (merchant_id, status, created_at desc, id desc);
create index appeals_queue on appeals (status, created_at desc, id desc);

create table appeal_messages (
  id uuid primary key,
  appeal_id uuid not null references appeals(id),
  seq bigserial not null,
  sender_role text not null check (sender_role in ('MERCHANT', 'ADMIN')),
  sender_id text not null,
  body text not null,
  file_ids uuid[] not null default '{}',
  created_at timestamptz not null default clock_timestamp()
);
create index appeal_messages_thread on appeal_messages (appeal_id, seq);
-- "Is this file attached to a message of one of my appeals?" (a merchant may read the arbiter's files).
create index appeal_messages_files on appeal_messages using gin (file_ids);

-- One settlement per appeal (spec 2.9); the deal row also carries origin_appeal_id (unique).
create table appeal_settlements (
  appeal_id uuid primary key references appeals(id),
  deal_id uuid not null unique references deals(id),
  idempotency_key text not null,
  received_amount_override bigint check (received_amount_override > 0),
  reason text not null default '',
  operator_id text not null,
  created_at timestamptz not null default now()
);

-- Whitelist passes (spec 2.6, 3.4, 4.6). Empty filters are NULL (match anything).
create table passes (
  id uuid primary key,
  tenant_id uuid not null references tenants(id),
  merchant_id uuid not null references merchants(id),
  provider_id uuid references traders(id),
  amount bigint not null check (amount > 0),
  currency_id uuid references currencies(id),
  payment_method_id uuid references payment_methods(id),
  requisite_type text,
  status text not null default 'ACTIVE' check (status in ('ACTIVE', 'USED', 'EXPIRED')),
  expires_at timestamptz not null,
  -- Reserved inside the creating transaction of the deal, before its row exists: checked at commit.
  used_deal_id uuid unique references deals(id) deferrable initially deferred,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((status = 'USED') = (used_deal_id is not null))
);
create index passes_listing on passes (merchant_id, created_at desc, id desc);
create index passes_matching on passes (merchant_id, amount, created_at) where status = 'ACTIVE';
