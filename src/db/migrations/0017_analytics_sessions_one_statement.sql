-- hand-written (checkout speed, issue 8)
-- A checkout session opened, then paid, adds to the day's and the month's totals of the
-- platform (the buyer's shard) and of each seller whose products it holds. That was one call
-- of portage_analytics_add per scope, each an upsert of two rows: one PL/pgSQL call and one
-- statement per scope, twice per payment. Now one upsert writes all of them, in the same order
-- as before (the platform first, then sellers by id, the day before the month), so that the
-- rows are still locked in one order by every writer and no two transactions wait on each other.
CREATE OR REPLACE FUNCTION portage_analytics_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  created int := 0;
  paid int;
  d date;
BEGIN
  IF TG_OP = 'INSERT' THEN
    created := 1;
    paid := (NEW.status = 'complete')::int;
  ELSE
    paid := (NEW.status = 'complete')::int - (OLD.status = 'complete')::int;
    IF paid = 0 THEN RETURN NULL; END IF;
  END IF;
  d := portage_analytics_day(NEW.created_at);
  INSERT INTO analytics_totals AS t (scope, grain, start, shard, sessions_created, sessions_paid)
    SELECT s.scope, g.grain, CASE g.grain WHEN 'day' THEN d ELSE portage_analytics_month(d) END,
        s.shard, created, paid
      FROM (
        SELECT '*' AS scope, hashtext(NEW.buyer_id) & 15 AS shard, 0 AS rank
        UNION
        SELECT p->>'sellerId', 0, 1 FROM jsonb_array_elements(NEW.parcels) p
      ) s
      CROSS JOIN (VALUES ('day'), ('month')) AS g(grain)
      ORDER BY s.rank, s.scope COLLATE "C", g.grain
  ON CONFLICT (scope, grain, start, shard) DO UPDATE SET
    sessions_created = t.sessions_created + EXCLUDED.sessions_created,
    sessions_paid = t.sessions_paid + EXCLUDED.sessions_paid;
  RETURN NULL;
END $$;
