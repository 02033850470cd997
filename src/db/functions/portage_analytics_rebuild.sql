-- Recomputes the analytics rollups from the base tables: empties the pending changes under the
-- fold's lock, then calls portage_analytics_recompute. No trigger: called by the tests
-- (test/analytics.test.ts, which compare it with the folded rollups) and bench/analytics.ts.
CREATE OR REPLACE FUNCTION portage_analytics_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('analytics:fold'));
  TRUNCATE analytics_changes;
  PERFORM portage_analytics_recompute();
END $$;
