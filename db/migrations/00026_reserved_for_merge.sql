-- Placeholder on branch i35-deploy only: number 00026 belongs to another part of issue 35 and is
-- merged from its branch (postgres-shift refuses gaps). Delete this file when that migration arrives.
select 1;
