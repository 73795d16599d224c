-- Placeholder on branch i35-deploy only: number 00027 is another branch's migration, merged from
-- there (postgres-shift refuses gaps). Delete this file when that migration arrives.
select 1;
