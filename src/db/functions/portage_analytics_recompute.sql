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
