-- The trader as a party of appeals on its deals (docs/trader.md, "Disputes"): the trader of the
-- appealed deal answers the merchant's statement with its own statement and evidence files
-- before a deadline; the arbiter sees both parties.

-- ---------------------------------------------------------------------------------------------
-- Appeals: the trader's deadline and its answer
-- ---------------------------------------------------------------------------------------------

-- When the trader must have answered: set by the open step to the opening +
-- APPEAL_TRADER_RESPONSE_SECONDS. Past it the trader's answers are refused (409) and the arbiter
-- sees a missed answer. The default covers a row written by a build that does not set it yet
-- (a rolling deploy): the setting's default, a day.
alter table appeals add column trader_respond_by timestamptz;
update appeals set trader_respond_by = created_at + interval '1 day';
alter table appeals alter column trader_respond_by set default now() + interval '1 day';
alter table appeals alter column trader_respond_by set not null;

-- The trader's first answer (a statement or an evidence file), written by the answer step with
-- its message; null while the trader has not answered.
alter table appeals add column trader_responded_at timestamptz;

-- ---------------------------------------------------------------------------------------------
-- Messages: the trader's statements
-- ---------------------------------------------------------------------------------------------

-- TRADER messages are the trader's side of the thread: the arbiter reads them, the merchant's
-- thread leaves them out (a merchant sees MERCHANT and ADMIN messages, as before).
alter table appeal_messages drop constraint appeal_messages_sender_role_check;
alter table appeal_messages add constraint appeal_messages_sender_role_check check (sender_role in ('MERCHANT', 'ADMIN', 'TRADER'));

-- ---------------------------------------------------------------------------------------------
-- Evidence files: a trader's uploads
-- ---------------------------------------------------------------------------------------------

alter table evidence_files add column trader_id uuid references traders(id);
alter table evidence_files drop constraint evidence_files_owner_type_check;
alter table evidence_files add constraint evidence_files_owner_type_check check (owner_type in ('merchant', 'operator', 'payer', 'trader'));
alter table evidence_files add constraint evidence_files_trader_check check ((owner_type = 'trader') = (trader_id is not null));
