-- A buyer's counted orders on a day, in a scope, changed by p_delta: keeps the chain of the buyer's
-- days (analytics_customer_days) and answers the day rows' changes to customers, new and continued.
-- Called only by portage_analytics_fold (one fold at a time: no lock of its own).
CREATE OR REPLACE FUNCTION portage_analytics_customer_change(p_scope text, p_buyer text, p_day date, p_delta int)
RETURNS TABLE (on_day date, d_customers int, d_new int, d_continued int) LANGUAGE plpgsql AS $$
DECLARE
  n int;
  prev date;
  nxt date;
  added boolean;
BEGIN
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
    RETURN QUERY VALUES (p_day, 1, (prev IS NULL)::int, 0);
    IF prev IS NOT NULL THEN RETURN QUERY VALUES (prev, 0, 0, 1); END IF;
    IF nxt IS NOT NULL THEN
      -- A day inserted before a later one (an order placed earlier, folded later).
      UPDATE analytics_customer_days SET prev_day = p_day
        WHERE scope = p_scope AND buyer_id = p_buyer AND day = nxt;
      IF prev IS NULL THEN
        RETURN QUERY VALUES (nxt, 0, -1, 0);
      ELSE
        RETURN QUERY VALUES (prev, 0, 0, -1);
      END IF;
      RETURN QUERY VALUES (p_day, 0, 0, 1);
    END IF;
  ELSE
    UPDATE analytics_customer_days SET orders = orders + p_delta
      WHERE scope = p_scope AND buyer_id = p_buyer AND day = p_day
      RETURNING orders, prev_day INTO n, prev;
    IF n IS NULL OR n > 0 THEN RETURN; END IF;
    DELETE FROM analytics_customer_days WHERE scope = p_scope AND buyer_id = p_buyer AND day = p_day;
    RETURN QUERY VALUES (p_day, -1, -(prev IS NULL)::int, 0);
    IF prev IS NOT NULL THEN RETURN QUERY VALUES (prev, 0, 0, -1); END IF;
    SELECT min(day) INTO nxt FROM analytics_customer_days
      WHERE scope = p_scope AND buyer_id = p_buyer AND day > p_day;
    IF nxt IS NOT NULL THEN
      UPDATE analytics_customer_days SET prev_day = prev
        WHERE scope = p_scope AND buyer_id = p_buyer AND day = nxt;
      RETURN QUERY VALUES (p_day, 0, 0, -1);
      IF prev IS NULL THEN
        RETURN QUERY VALUES (nxt, 0, 1, 0);
      ELSE
        RETURN QUERY VALUES (prev, 0, 0, 1);
      END IF;
    END IF;
  END IF;
END $$;
