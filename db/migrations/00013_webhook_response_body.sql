-- Issue 17: a stored receiver answer is at most 2048 bytes of UTF-8 (spec 2.10), cut on a character
-- boundary. Before, a multi-byte answer was cut inside a character and stored as up to 2050 bytes
-- ending in U+FFFD; such rows lose their last characters until they fit (new rows are written
-- within the limit by the delivery activity).
create function pg_temp.cut_utf8(s text, max_bytes int) returns text language sql immutable as $$
  select case when octet_length(s) <= max_bytes then s else (
    select left(s, n) from generate_series(least(char_length(s), max_bytes), 0, -1) as n
    where octet_length(left(s, n)) <= max_bytes limit 1)
  end
$$;
update webhook_deliveries set response_body = pg_temp.cut_utf8(response_body, 2048) where octet_length(response_body) > 2048;
update webhook_attempts set response_body = pg_temp.cut_utf8(response_body, 2048) where octet_length(response_body) > 2048;
