-- The first day of a date's month: the analytics rollups' month key. IMMUTABLE SQL, called by
-- portage_analytics_fold and portage_analytics_recompute.
CREATE OR REPLACE FUNCTION portage_analytics_month(d date) RETURNS date
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT d - (extract(day FROM d)::int - 1) $$;
