-- Paired bank devices and the bank notifications they forward (docs/bank-notifications.md): a
-- trader's phone that reads its bank's notifications holds its own Ed25519 key pair and signs every
-- message; a parsed credit on one of the device's requisites matches at most one live PayIn (the
-- one-live-PayIn-per-requisite-and-amount rule of 00010) and confirms it through the deal's workflow.

-- ---------------------------------------------------------------------------------------------
-- Devices
-- ---------------------------------------------------------------------------------------------

-- Statuses: PAIRING (the trader asked for a pairing code; nothing signs for it yet), ACTIVE (paired:
-- its public key verifies its messages), REVOKED (for good: its key verifies nothing, its requisites
-- are unbound). A pairing code is one-time: its hash is cleared by the pairing that uses it.
create table bank_devices (
  id uuid primary key,
  trader_id uuid not null references traders(id),
  name text not null check (length(name) between 1 and 80),
  status text not null default 'PAIRING' check (status in ('PAIRING', 'ACTIVE', 'REVOKED')),
  pairing_code_hash bytea unique,
  pairing_expires_at timestamptz not null,
  -- The device's Ed25519 public key (32 bytes), set by its pairing.
  public_key bytea check (public_key is null or length(public_key) = 32),
  -- The highest sequence number of a message the device signed: each message must carry a higher one.
  last_sequence bigint not null default 0 check (last_sequence >= 0),
  app_version text not null default '',
  heartbeat_at timestamptz,
  -- Set when its heartbeat fell silent (the sweep), cleared by its next heartbeat: its requisites get no deals meanwhile.
  silent_since timestamptz,
  -- The sandbox's virtual bank device (activities/virtual-device.ts): its key is derived, not held by a phone.
  virtual boolean not null default false,
  paired_at timestamptz,
  revoked_at timestamptz,
  revoked_by text not null default '',
  created_at timestamptz not null default now(),
  check (status <> 'PAIRING' or public_key is null),
  check (status <> 'ACTIVE' or public_key is not null)
);
create index bank_devices_of_trader on bank_devices (trader_id, created_at);
create index bank_devices_heartbeat on bank_devices (heartbeat_at) where status = 'ACTIVE' and silent_since is null;

-- The device whose bank notifications confirm the requisite's PayIns (one device per requisite).
alter table requisites add column device_id uuid references bank_devices(id);
create index requisites_of_device on requisites (device_id) where device_id is not null;

-- ---------------------------------------------------------------------------------------------
-- Notifications
-- ---------------------------------------------------------------------------------------------

-- Statuses: RECEIVED (stored, its workflow not yet through), MATCHED (a credit that matched exactly
-- one live PayIn: the deal was confirmed with its amount), UNMATCHED (a credit that matched no deal,
-- or one the deal refused: an operator looks), UNPARSED (nothing parsed: kept for review),
-- IGNORED (parsed, not a credit: a debit, a code, an ad), ATTACHED (an operator gave it to a deal),
-- DISMISSED (an operator closed it with a reason).
create table bank_notifications (
  id uuid primary key,
  device_id uuid not null references bank_devices(id),
  trader_id uuid not null references traders(id),
  -- sha-256 of (device, sender, received time, text): the same notification sent twice is one row.
  hash bytea not null unique,
  sequence bigint not null,
  sender text not null,
  received_at timestamptz not null,
  -- The notification's text, sealed under the card-data key ring (db/queries/bank-notifications.ts).
  text_sealed text not null,
  parser text not null default '',
  parser_version integer not null default 0,
  amount bigint check (amount is null or amount > 0),
  currency text,
  -- The payer's name as the bank wrote it, sealed; the card tail in clear (4 digits, as requisites keep theirs).
  payer_name_sealed text,
  card_tail text not null default '',
  status text not null default 'RECEIVED' check (status in ('RECEIVED', 'MATCHED', 'UNMATCHED', 'UNPARSED', 'IGNORED', 'ATTACHED', 'DISMISSED')),
  -- Why it is UNMATCHED (no_live_deal, ambiguous, deal_refused, already_matched, no_requisite), in a word.
  reason text not null default '',
  deal_id uuid references deals(id),
  -- The device's requisite it matched on (or the device's only one of the currency).
  requisite_id uuid references requisites(id),
  resolved_by text not null default '',
  resolved_at timestamptz,
  resolution_note text not null default '',
  created_at timestamptz not null default now(),
  matched_at timestamptz,
  unique (device_id, sequence)
);
-- A deal is confirmed by one notification at most: a second credit for it is a duplicate payment for an operator.
create unique index bank_notifications_one_per_deal on bank_notifications (deal_id) where status in ('MATCHED', 'ATTACHED');
-- The operators' queue, oldest first.
create index bank_notifications_queue on bank_notifications (created_at) where status in ('UNMATCHED', 'UNPARSED');
-- Rows whose workflow has not finished (the sweep restarts them).
create index bank_notifications_received on bank_notifications (created_at) where status = 'RECEIVED';
create index bank_notifications_of_device on bank_notifications (device_id, created_at);
create index bank_notifications_of_deal on bank_notifications (deal_id) where deal_id is not null;

-- ---------------------------------------------------------------------------------------------
-- The audit trail: a bank device as an actor (its confirmation of a deal)
-- ---------------------------------------------------------------------------------------------

alter table audit_log drop constraint audit_log_actor_kind_check;
alter table audit_log add constraint audit_log_actor_kind_check
  check (actor_kind in ('operator_account', 'operator_jwt', 'merchant_account', 'merchant_jwt', 'trader_account', 'bank_device', 'system', 'anonymous'));
