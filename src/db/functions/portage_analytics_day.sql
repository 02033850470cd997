-- The analytics day of a moment: its calendar date in America/Toronto. IMMUTABLE SQL, called by the
-- analytics trigger functions, portage_analytics_recompute and bench/analytics.ts.
CREATE OR REPLACE FUNCTION portage_analytics_day(ts timestamptz) RETURNS date
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (ts AT TIME ZONE 'America/Toronto')::date $$;
