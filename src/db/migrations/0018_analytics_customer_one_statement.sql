-- hand-written (checkout speed, issue 8)
-- A buyer's order counted on a day (+1) was three statements when the day was new to the buyer
-- (the usual case: an update finding no row, a read of the neighbouring days, an insert), for
-- the platform and again for the seller, in every payment. Now it is one upsert: the day added
-- with its link to the buyer's previous day, or its count raised, and the next day read with it
-- (a day inserted before a later one). Everything else is as in 0013: the same rows, changed in
-- the same order, under the same per-buyer lock; the -1 path is unchanged.
CREATE OR REPLACE FUNCTION portage_analytics_customer(
  p_scope text, p_buyer text, p_day date, p_delta int, p_shard int,
  OUT customers int, OUT new_customers int
) LANGUAGE plpgsql AS $$
DECLARE
  n int;
  prev date;
  nxt date;
  added boolean;
BEGIN
  customers := 0;
  new_customers := 0;
  -- The chain is read, then written: one change at a time per buyer and scope.
  PERFORM pg_advisory_xact_lock(hashtext('analytics:' || p_scope), hashtext(p_buyer));
  IF p_delta > 0 THEN
    -- xmax is 0 on a row this statement inserted, set on one it updated (the conflict's path).
    WITH around AS (
      SELECT max(day) FILTER (WHERE day < p_day) AS before_day, min(day) FILTER (WHERE day > p_day) AS after_day
        FROM analytics_customer_days WHERE scope = p_scope AND buyer_id = p_buyer
    )
    INSERT INTO analytics_customer_days AS c (scope, buyer_id, day, orders, prev_day)
      SELECT p_scope, p_buyer, p_day, p_delta, around.before_day FROM around
    ON CONFLICT (scope, buyer_id, day) DO UPDATE SET orders = c.orders + EXCLUDED.orders
    RETURNING c.xmax = 0, c.prev_day, (SELECT around.after_day FROM around) INTO added, prev, nxt;
    IF NOT added THEN RETURN; END IF;
    customers := 1;
    IF prev IS NULL THEN
      new_customers := 1;
    ELSE
      PERFORM portage_analytics_add(p_scope, prev, p_shard, 0, 0, 0, 0, 0, 1, 0, 0);
    END IF;
    IF nxt IS NOT NULL THEN
      -- A day inserted before a later one (an order placed at the same moment, committed later).
      UPDATE analytics_customer_days SET prev_day = p_day
        WHERE scope = p_scope AND buyer_id = p_buyer AND day = nxt;
      IF prev IS NULL THEN
        PERFORM portage_analytics_add(p_scope, nxt, p_shard, 0, 0, 0, 0, -1, 0, 0, 0);
      ELSE
        PERFORM portage_analytics_add(p_scope, prev, p_shard, 0, 0, 0, 0, 0, -1, 0, 0);
      END IF;
      PERFORM portage_analytics_add(p_scope, p_day, p_shard, 0, 0, 0, 0, 0, 1, 0, 0);
    END IF;
  ELSE
    UPDATE analytics_customer_days SET orders = orders + p_delta
      WHERE scope = p_scope AND buyer_id = p_buyer AND day = p_day
      RETURNING orders, prev_day INTO n, prev;
    IF n IS NULL OR n > 0 THEN RETURN; END IF;
    DELETE FROM analytics_customer_days WHERE scope = p_scope AND buyer_id = p_buyer AND day = p_day;
    customers := -1;
    IF prev IS NULL THEN
      new_customers := -1;
    ELSE
      PERFORM portage_analytics_add(p_scope, prev, p_shard, 0, 0, 0, 0, 0, -1, 0, 0);
    END IF;
    SELECT min(day) INTO nxt FROM analytics_customer_days
      WHERE scope = p_scope AND buyer_id = p_buyer AND day > p_day;
    IF nxt IS NOT NULL THEN
      UPDATE analytics_customer_days SET prev_day = prev
        WHERE scope = p_scope AND buyer_id = p_buyer AND day = nxt;
      PERFORM portage_analytics_add(p_scope, p_day, p_shard, 0, 0, 0, 0, 0, -1, 0, 0);
      IF prev IS NULL THEN
        PERFORM portage_analytics_add(p_scope, nxt, p_shard, 0, 0, 0, 0, 1, 0, 0, 0);
      ELSE
        PERFORM portage_analytics_add(p_scope, prev, p_shard, 0, 0, 0, 0, 0, 1, 0, 0);
      END IF;
    END IF;
  END IF;
END $$;
