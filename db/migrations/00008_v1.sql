-- The V1 adapter (issue 11): what a V1 dispute says beyond its appeal (spec 4.9 echoes these
-- fields back; V2 appeals have no place for them).
create table v1_disputes (
  appeal_id uuid primary key references appeals(id),
  receipt_type text not null default '',
  receipt_url text not null default '',
  description text not null default '',
  client_comment text not null default '',
  merchant_comment text not null default ''
);
