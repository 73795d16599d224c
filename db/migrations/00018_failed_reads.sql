-- Unverified reads that did not verify (issue 25): an upload or V1 dispute whose body was read
-- before its signature could be checked, and then failed (wrong signature, replay, aborted,
-- truncated). Counted in the merchant's minute beside the verified requests: the gate before an
-- unverified read looks at both (api/auth/rate-limit.ts), a verified request only at `count`.
alter table rate_limit_windows add column failed_reads integer not null default 0;
