-- Written by `npm run db:functions -- portage_analytics_returns portage_analytics_fold portage_analytics_recompute` from src/db/functions/ (see the README there).
-- To change one of these functions again, edit its file and run that command: never edit this
-- migration once it has been applied.
-- Appends a 'return' row to analytics_changes when a return becomes refunded: its units come off
-- the items sold and off its products' units and revenue (the order's refund has already taken its
-- money off revenue, through portage_analytics_orders). Runs from trigger returns_analytics (AFTER
-- UPDATE OF status ON returns, each row, WHEN it became refunded). A refunded return's order was
-- delivered, so it is never cancelled after: its units are never taken off twice.
CREATE OR REPLACE FUNCTION portage_analytics_returns() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_changes (kind, ref, day, buyer_id, seller_id, items)
    SELECT 'return', NEW.id, portage_analytics_day(o.created_at), o.buyer_id, o.seller_id,
        -(SELECT coalesce(sum((i->>'quantity')::int), 0) FROM jsonb_array_elements(NEW.items) i)
      FROM orders o WHERE o.id = NEW.order_id AND o.status <> 'cancelled';
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Adds up to p_limit pending analytics_changes (the oldest) to the rollups and deletes them, in one
-- transaction under one lock; answers how many. Called by the analytics service (foldAnalytics in
-- src/modules/analytics/service.ts: before every read, and by the analytics job).
CREATE OR REPLACE FUNCTION portage_analytics_fold(p_limit int, p_wait boolean DEFAULT true) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  batch analytics_changes[];
  k record;
  -- The buyers' days' changes to the totals: day rows holding only their customer counts.
  customer_days analytics_totals[] := '{}';
BEGIN
  IF p_wait THEN
    PERFORM pg_advisory_xact_lock(hashtext('analytics:fold'));
  ELSIF NOT pg_try_advisory_xact_lock(hashtext('analytics:fold')) THEN
    RETURN 0;
  END IF;
  WITH taken AS (
    DELETE FROM analytics_changes
      WHERE seq IN (SELECT seq FROM analytics_changes ORDER BY seq LIMIT p_limit)
      RETURNING analytics_changes AS ch
  )
  SELECT array_agg(ch ORDER BY (ch).seq) INTO batch FROM taken;
  IF batch IS NULL THEN RETURN 0; END IF;

  -- Buyers' days: each (scope, buyer, day) once, by its net change.
  FOR k IN
    SELECT s.scope, b.buyer_id, b.day, s.shard, sum(b.orders)::int AS delta
      FROM unnest(batch) b
      CROSS JOIN LATERAL (VALUES ('*'::text, hashtext(b.buyer_id) & 15), (b.seller_id, 0)) AS s(scope, shard)
      WHERE b.kind = 'order'
      GROUP BY s.scope, b.buyer_id, b.day, s.shard
      HAVING sum(b.orders) <> 0
      ORDER BY s.scope COLLATE "C", b.buyer_id COLLATE "C", b.day
  LOOP
    customer_days := customer_days || ARRAY(
      SELECT ROW(k.scope, 'day', d.on_day, k.shard, 0, 0, 0, d.d_customers, d.d_new, d.d_continued, 0, 0)::analytics_totals
        FROM portage_analytics_customer_change(k.scope, k.buyer_id, k.day, k.delta) d);
  END LOOP;

  INSERT INTO analytics_totals AS t (scope, grain, start, shard, orders, revenue_cents, items,
      customers, new_customers, continued_customers, sessions_created, sessions_paid)
    SELECT x.scope, g.grain, CASE g.grain WHEN 'day' THEN x.day ELSE portage_analytics_month(x.day) END, x.shard,
        sum(x.orders), sum(x.revenue), sum(x.items), sum(x.customers), sum(x.new_customers),
        sum(x.continued), sum(x.created), sum(x.paid)
      FROM (
        SELECT s.scope, b.day, s.shard, b.orders::int AS orders, b.revenue_cents AS revenue, b.items,
            0 AS customers, 0 AS new_customers, 0 AS continued, 0 AS created, 0 AS paid
          FROM unnest(batch) b
          CROSS JOIN LATERAL (VALUES ('*'::text, hashtext(b.buyer_id) & 15), (b.seller_id, 0)) AS s(scope, shard)
          WHERE b.kind IN ('order', 'refund', 'return')
        UNION ALL
        SELECT s.scope, b.day, s.shard, 0, 0, 0, 0, 0, 0, b.sessions_created, b.sessions_paid
          FROM unnest(batch) b
          JOIN checkout_sessions cs ON cs.id = b.ref
          CROSS JOIN LATERAL (
            SELECT '*' AS scope, hashtext(b.buyer_id) & 15 AS shard
            UNION
            SELECT p->>'sellerId', 0 FROM jsonb_array_elements(cs.parcels) p
          ) s
          WHERE b.kind = 'session'
        UNION ALL
        SELECT c.scope, c.start, c.shard, 0, 0, 0, c.customers, c.new_customers, c.continued_customers, 0, 0
          FROM unnest(customer_days) c
      ) x
      CROSS JOIN (VALUES ('day'), ('month')) AS g(grain)
      GROUP BY 1, 2, 3, 4
      HAVING (sum(x.orders), sum(x.revenue), sum(x.items), sum(x.customers), sum(x.new_customers),
          sum(x.continued), sum(x.created), sum(x.paid)) <> (0, 0, 0, 0, 0, 0, 0, 0)
      ORDER BY x.scope COLLATE "C", g.grain, 3, x.shard
  ON CONFLICT (scope, grain, start, shard) DO UPDATE SET
    orders = t.orders + EXCLUDED.orders,
    revenue_cents = t.revenue_cents + EXCLUDED.revenue_cents,
    items = t.items + EXCLUDED.items,
    customers = t.customers + EXCLUDED.customers,
    new_customers = t.new_customers + EXCLUDED.new_customers,
    continued_customers = t.continued_customers + EXCLUDED.continued_customers,
    sessions_created = t.sessions_created + EXCLUDED.sessions_created,
    sessions_paid = t.sessions_paid + EXCLUDED.sessions_paid;

  -- Products: an order's items, counted with its sign, less a refunded return's items, read once
  -- for days and months.
  WITH sold AS (
    SELECT product_id, day, seller_id, sum(units) AS units, sum(revenue) AS revenue
      FROM (
        SELECT i.product_id, b.day, b.seller_id, b.orders * i.quantity AS units,
            b.orders * i.quantity::bigint * i.unit_price_cents AS revenue
          FROM unnest(batch) b JOIN order_items i ON i.order_id = b.ref
          WHERE b.kind = 'order'
        UNION ALL
        SELECT i->>'productId', b.day, b.seller_id, -(i->>'quantity')::int,
            -(i->>'quantity')::bigint * (i->>'unitPriceCents')::int
          FROM unnest(batch) b JOIN returns r ON r.id = b.ref
          CROSS JOIN LATERAL jsonb_array_elements(r.items) i
          WHERE b.kind = 'return'
      ) x
      GROUP BY 1, 2, 3
  ), days AS (
    INSERT INTO analytics_product_days AS t (product_id, day, seller_id, units, revenue_cents)
      SELECT product_id, day, seller_id, units, revenue FROM sold ORDER BY 1, 2
    ON CONFLICT (product_id, day) DO UPDATE
      SET units = t.units + EXCLUDED.units, revenue_cents = t.revenue_cents + EXCLUDED.revenue_cents
  )
  INSERT INTO analytics_product_months AS t (product_id, month, seller_id, units, revenue_cents)
    SELECT product_id, portage_analytics_month(day), seller_id, sum(units), sum(revenue)
      FROM sold GROUP BY 1, 2, 3 ORDER BY 1, 2
  ON CONFLICT (product_id, month) DO UPDATE
    SET units = t.units + EXCLUDED.units, revenue_cents = t.revenue_cents + EXCLUDED.revenue_cents;
  RETURN array_length(batch, 1);
END $$;
--> statement-breakpoint
-- Empties the analytics rollups and recomputes them from orders, order_items and checkout_sessions.
-- Called only by portage_analytics_rebuild, which takes the fold's lock first (this was
-- portage_analytics_rebuild's body until migration 0019 renamed it).
CREATE OR REPLACE FUNCTION portage_analytics_recompute() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE analytics_totals, analytics_product_days, analytics_product_months, analytics_customer_days;
  INSERT INTO analytics_customer_days (scope, buyer_id, day, orders, prev_day)
    SELECT scope, buyer_id, day, n, lag(day) OVER (PARTITION BY scope, buyer_id ORDER BY day)
      FROM (
        SELECT s.scope, o.buyer_id, portage_analytics_day(o.created_at) AS day, count(*)::int AS n
          FROM orders o CROSS JOIN LATERAL (VALUES ('*'), (o.seller_id)) AS s(scope)
          WHERE o.status <> 'cancelled'
          GROUP BY 1, 2, 3
      ) x;
  INSERT INTO analytics_totals (scope, grain, start, shard, orders, revenue_cents, items, customers,
      new_customers, continued_customers, sessions_created, sessions_paid)
    SELECT scope, 'day', day, shard, sum(orders), sum(revenue), sum(items), sum(customers),
        sum(new_customers), sum(continued), sum(created), sum(paid)
      FROM (
        SELECT s.scope, portage_analytics_day(o.created_at) AS day,
            CASE WHEN s.scope = '*' THEN hashtext(o.buyer_id) & 15 ELSE 0 END AS shard,
            1 AS orders, (o.total_amount_cents - o.refunded_cents)::bigint AS revenue, o.item_count AS items,
            0 AS customers, 0 AS new_customers, 0 AS continued, 0 AS created, 0 AS paid
          FROM orders o CROSS JOIN LATERAL (VALUES ('*'), (o.seller_id)) AS s(scope)
          WHERE o.status <> 'cancelled'
        UNION ALL
        SELECT s.scope, portage_analytics_day(o.created_at),
            CASE WHEN s.scope = '*' THEN hashtext(o.buyer_id) & 15 ELSE 0 END,
            0, 0, -(i->>'quantity')::int, 0, 0, 0, 0, 0
          FROM returns r JOIN orders o ON o.id = r.order_id
          CROSS JOIN LATERAL jsonb_array_elements(r.items) i
          CROSS JOIN LATERAL (VALUES ('*'), (o.seller_id)) AS s(scope)
          WHERE r.status = 'refunded' AND o.status <> 'cancelled'
        UNION ALL
        SELECT scope, day, CASE WHEN scope = '*' THEN hashtext(buyer_id) & 15 ELSE 0 END,
            0, 0, 0, 1, (prev_day IS NULL)::int, 0, 0, 0
          FROM analytics_customer_days
        UNION ALL
        SELECT scope, prev_day, CASE WHEN scope = '*' THEN hashtext(buyer_id) & 15 ELSE 0 END,
            0, 0, 0, 0, 0, 1, 0, 0
          FROM analytics_customer_days WHERE prev_day IS NOT NULL
        UNION ALL
        SELECT s.scope, portage_analytics_day(cs.created_at), s.shard, 0, 0, 0, 0, 0, 0, 1,
            (cs.status = 'complete')::int
          FROM checkout_sessions cs CROSS JOIN LATERAL (
            SELECT '*' AS scope, hashtext(cs.buyer_id) & 15 AS shard
            UNION
            SELECT p->>'sellerId', 0 FROM jsonb_array_elements(cs.parcels) p
          ) s
      ) x
      GROUP BY scope, day, shard;
  INSERT INTO analytics_totals (scope, grain, start, shard, orders, revenue_cents, items, customers,
      new_customers, continued_customers, sessions_created, sessions_paid)
    SELECT scope, 'month', portage_analytics_month(start), shard, sum(orders), sum(revenue_cents),
        sum(items), sum(customers), sum(new_customers), sum(continued_customers),
        sum(sessions_created), sum(sessions_paid)
      FROM analytics_totals WHERE grain = 'day'
      GROUP BY scope, portage_analytics_month(start), shard;
  INSERT INTO analytics_product_days (product_id, day, seller_id, units, revenue_cents)
    SELECT product_id, day, seller_id, sum(units), sum(revenue)
      FROM (
        SELECT i.product_id, portage_analytics_day(o.created_at) AS day, o.seller_id,
            i.quantity AS units, i.quantity::bigint * i.unit_price_cents AS revenue
          FROM order_items i JOIN orders o ON o.id = i.order_id
          WHERE o.status <> 'cancelled'
        UNION ALL
        SELECT i->>'productId', portage_analytics_day(o.created_at), o.seller_id,
            -(i->>'quantity')::int, -(i->>'quantity')::bigint * (i->>'unitPriceCents')::int
          FROM returns r JOIN orders o ON o.id = r.order_id
          CROSS JOIN LATERAL jsonb_array_elements(r.items) i
          WHERE r.status = 'refunded' AND o.status <> 'cancelled'
      ) x
      GROUP BY 1, 2, 3;
  INSERT INTO analytics_product_months (product_id, month, seller_id, units, revenue_cents)
    SELECT product_id, portage_analytics_month(day), seller_id, sum(units), sum(revenue_cents)
      FROM analytics_product_days
      GROUP BY 1, 2, 3;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS returns_analytics ON returns;
--> statement-breakpoint
CREATE TRIGGER returns_analytics AFTER UPDATE OF status ON returns
  FOR EACH ROW WHEN (NEW.status = 'refunded' AND OLD.status <> 'refunded')
  EXECUTE FUNCTION portage_analytics_returns();
--> statement-breakpoint
-- The returns refunded before this migration: their units come off at the next fold.
INSERT INTO analytics_changes (kind, ref, day, buyer_id, seller_id, items)
  SELECT 'return', r.id, portage_analytics_day(o.created_at), o.buyer_id, o.seller_id,
      -(SELECT coalesce(sum((i->>'quantity')::int), 0) FROM jsonb_array_elements(r.items) i)
    FROM returns r JOIN orders o ON o.id = r.order_id
    WHERE r.status = 'refunded' AND o.status <> 'cancelled'
    ORDER BY r.refunded_at, r.id;
