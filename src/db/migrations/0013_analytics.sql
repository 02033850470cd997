CREATE TABLE "analytics_customer_days" (
	"scope" text NOT NULL,
	"buyer_id" text NOT NULL,
	"day" date NOT NULL,
	"orders" integer NOT NULL,
	"prev_day" date,
	CONSTRAINT "analytics_customer_days_scope_buyer_id_day_pk" PRIMARY KEY("scope","buyer_id","day")
);
--> statement-breakpoint
CREATE TABLE "analytics_product_days" (
	"product_id" text NOT NULL,
	"day" date NOT NULL,
	"seller_id" text NOT NULL,
	"units" integer DEFAULT 0 NOT NULL,
	"revenue_cents" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_product_days_product_id_day_pk" PRIMARY KEY("product_id","day")
);
--> statement-breakpoint
CREATE TABLE "analytics_product_months" (
	"product_id" text NOT NULL,
	"month" date NOT NULL,
	"seller_id" text NOT NULL,
	"units" integer DEFAULT 0 NOT NULL,
	"revenue_cents" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_product_months_product_id_month_pk" PRIMARY KEY("product_id","month")
);
--> statement-breakpoint
CREATE TABLE "analytics_totals" (
	"scope" text NOT NULL,
	"grain" text NOT NULL,
	"start" date NOT NULL,
	"shard" smallint NOT NULL,
	"orders" integer DEFAULT 0 NOT NULL,
	"revenue_cents" bigint DEFAULT 0 NOT NULL,
	"items" integer DEFAULT 0 NOT NULL,
	"customers" integer DEFAULT 0 NOT NULL,
	"new_customers" integer DEFAULT 0 NOT NULL,
	"continued_customers" integer DEFAULT 0 NOT NULL,
	"sessions_created" integer DEFAULT 0 NOT NULL,
	"sessions_paid" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_totals_scope_grain_start_shard_pk" PRIMARY KEY("scope","grain","start","shard")
);
--> statement-breakpoint
CREATE INDEX "analytics_customer_days_platform_day_idx" ON "analytics_customer_days" USING btree ("day","prev_day") WHERE "analytics_customer_days"."scope" = '*';--> statement-breakpoint
CREATE INDEX "analytics_product_months_rank_idx" ON "analytics_product_months" USING btree ("month","revenue_cents" desc);--> statement-breakpoint
CREATE INDEX "analytics_product_months_seller_rank_idx" ON "analytics_product_months" USING btree ("seller_id","month","revenue_cents" desc);--> statement-breakpoint
CREATE INDEX "analytics_totals_grain_start_idx" ON "analytics_totals" USING btree ("grain","start");--> statement-breakpoint
-- hand-written (analytics)
-- The analytics rollups are kept by the database, in the same transaction as the change they
-- count: a paid order (insert), its items, a cancellation (status), a refund (refunded_cents),
-- a checkout session opened or paid. They are exact: portage_analytics_rebuild() recomputes them
-- from the base tables (and backfills them below); the tests compare the two. A day is the
-- calendar day in America/Toronto of the order's created_at (the moment it was paid).
CREATE OR REPLACE FUNCTION portage_analytics_day(ts timestamptz) RETURNS date
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (ts AT TIME ZONE 'America/Toronto')::date $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION portage_analytics_month(d date) RETURNS date
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT d - (extract(day FROM d)::int - 1) $$;
--> statement-breakpoint
-- Adds to a scope's totals of a day and of its month (two rows, in one statement). PL/pgSQL,
-- not SQL: its statement's plan is kept for the session (a SQL function is planned at each call).
CREATE OR REPLACE FUNCTION portage_analytics_add(
  p_scope text, p_day date, p_shard int,
  p_orders int, p_revenue bigint, p_items int,
  p_customers int, p_new int, p_continued int, p_created int, p_paid int
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_totals AS t (scope, grain, start, shard, orders, revenue_cents, items,
      customers, new_customers, continued_customers, sessions_created, sessions_paid)
    VALUES
      (p_scope, 'day', p_day, p_shard, p_orders, p_revenue, p_items, p_customers, p_new, p_continued,
        p_created, p_paid),
      (p_scope, 'month', p_day - (extract(day FROM p_day)::int - 1), p_shard, p_orders, p_revenue, p_items,
        p_customers, p_new, p_continued, p_created, p_paid)
  ON CONFLICT (scope, grain, start, shard) DO UPDATE SET
    orders = t.orders + EXCLUDED.orders,
    revenue_cents = t.revenue_cents + EXCLUDED.revenue_cents,
    items = t.items + EXCLUDED.items,
    customers = t.customers + EXCLUDED.customers,
    new_customers = t.new_customers + EXCLUDED.new_customers,
    continued_customers = t.continued_customers + EXCLUDED.continued_customers,
    sessions_created = t.sessions_created + EXCLUDED.sessions_created,
    sessions_paid = t.sessions_paid + EXCLUDED.sessions_paid;
END $$;
--> statement-breakpoint
-- A buyer's counted orders on a day, in a scope, changed by p_delta (+1 or -1). Keeps the chain
-- of the buyer's days (each row links to the buyer's previous day) and the continued counters
-- of the days it links from; answers what changes on p_day itself (a customer; a new one),
-- which the caller adds with the order's own figures.
CREATE OR REPLACE FUNCTION portage_analytics_customer(
  p_scope text, p_buyer text, p_day date, p_delta int, p_shard int,
  OUT customers int, OUT new_customers int
) LANGUAGE plpgsql AS $$
DECLARE
  n int;
  prev date;
  nxt date;
BEGIN
  customers := 0;
  new_customers := 0;
  -- The chain is read, then written: one change at a time per buyer and scope.
  PERFORM pg_advisory_xact_lock(hashtext('analytics:' || p_scope), hashtext(p_buyer));
  IF p_delta > 0 THEN
    UPDATE analytics_customer_days SET orders = orders + p_delta
      WHERE scope = p_scope AND buyer_id = p_buyer AND day = p_day;
    IF FOUND THEN RETURN; END IF;
    SELECT max(day) FILTER (WHERE day < p_day), min(day) FILTER (WHERE day > p_day) INTO prev, nxt
      FROM analytics_customer_days WHERE scope = p_scope AND buyer_id = p_buyer;
    INSERT INTO analytics_customer_days (scope, buyer_id, day, orders, prev_day)
      VALUES (p_scope, p_buyer, p_day, p_delta, prev);
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
--> statement-breakpoint
-- An order counted (+1) or no longer counted (-1): its figures, its buyer's day, its items.
CREATE OR REPLACE FUNCTION portage_analytics_order(o orders, p_sign int, p_items boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  d date := portage_analytics_day(o.created_at);
  sh int := hashtext(o.buyer_id) & 15;
  revenue bigint := p_sign * (o.total_amount_cents - o.refunded_cents)::bigint;
  c record;
BEGIN
  c := portage_analytics_customer('*', o.buyer_id, d, p_sign, sh);
  PERFORM portage_analytics_add('*', d, sh, p_sign, revenue, p_sign * o.item_count,
    c.customers, c.new_customers, 0, 0, 0);
  c := portage_analytics_customer(o.seller_id, o.buyer_id, d, p_sign, 0);
  PERFORM portage_analytics_add(o.seller_id, d, 0, p_sign, revenue, p_sign * o.item_count,
    c.customers, c.new_customers, 0, 0, 0);
  -- Its items (none yet while the order is being created: their own trigger counts them then).
  IF NOT p_items THEN RETURN; END IF;
  INSERT INTO analytics_product_days AS t (product_id, day, seller_id, units, revenue_cents)
    SELECT i.product_id, d, o.seller_id, p_sign * i.quantity, p_sign * i.quantity::bigint * i.unit_price_cents
      FROM order_items i WHERE i.order_id = o.id ORDER BY i.product_id
  ON CONFLICT (product_id, day) DO UPDATE
    SET units = t.units + EXCLUDED.units, revenue_cents = t.revenue_cents + EXCLUDED.revenue_cents;
  INSERT INTO analytics_product_months AS t (product_id, month, seller_id, units, revenue_cents)
    SELECT i.product_id, portage_analytics_month(d), o.seller_id, p_sign * i.quantity,
        p_sign * i.quantity::bigint * i.unit_price_cents
      FROM order_items i WHERE i.order_id = o.id ORDER BY i.product_id
  ON CONFLICT (product_id, month) DO UPDATE
    SET units = t.units + EXCLUDED.units, revenue_cents = t.revenue_cents + EXCLUDED.revenue_cents;
END $$;
--> statement-breakpoint
-- Counted orders are those not cancelled; an order exists only once paid.
CREATE OR REPLACE FUNCTION portage_analytics_orders() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was boolean := TG_OP = 'UPDATE' AND OLD.status <> 'cancelled';
  counted boolean := NEW.status <> 'cancelled';
BEGIN
  IF TG_OP = 'UPDATE' AND was = counted AND OLD.created_at = NEW.created_at
     AND OLD.buyer_id = NEW.buyer_id AND OLD.seller_id = NEW.seller_id THEN
    -- The same order, still counted or still not: only a refund can change its revenue.
    IF counted AND (OLD.total_amount_cents - OLD.refunded_cents) <> (NEW.total_amount_cents - NEW.refunded_cents) THEN
      PERFORM portage_analytics_add(s.scope, portage_analytics_day(NEW.created_at), s.shard, 0,
          ((NEW.total_amount_cents - NEW.refunded_cents) - (OLD.total_amount_cents - OLD.refunded_cents))::bigint,
          0, 0, 0, 0, 0, 0)
        FROM (VALUES ('*', hashtext(NEW.buyer_id) & 15), (NEW.seller_id, 0)) AS s(scope, shard);
    END IF;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    -- Cancelling takes the products' locks before the rollups' rows, in the order checkout
    -- takes them (inventory's lockProducts), so that the two never wait on each other.
    PERFORM 1 FROM products WHERE id IN (SELECT product_id FROM order_items WHERE order_id = NEW.id)
      ORDER BY id FOR NO KEY UPDATE;
  END IF;
  IF was THEN PERFORM portage_analytics_order(OLD, -1, true); END IF;
  IF counted THEN PERFORM portage_analytics_order(NEW, 1, TG_OP = 'UPDATE'); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER orders_analytics AFTER INSERT OR UPDATE OF status, refunded_cents, total_amount_cents,
    created_at, buyer_id, seller_id ON orders
  FOR EACH ROW EXECUTE FUNCTION portage_analytics_orders();
--> statement-breakpoint
-- Items inserted with their order (one statement per order): counted if the order is.
CREATE OR REPLACE FUNCTION portage_analytics_order_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_product_days AS t (product_id, day, seller_id, units, revenue_cents)
    SELECT i.product_id, portage_analytics_day(o.created_at), o.seller_id, sum(i.quantity),
        sum(i.quantity::bigint * i.unit_price_cents)
      FROM new_items i JOIN orders o ON o.id = i.order_id
      WHERE o.status <> 'cancelled'
      GROUP BY 1, 2, 3 ORDER BY 1, 2
  ON CONFLICT (product_id, day) DO UPDATE
    SET units = t.units + EXCLUDED.units, revenue_cents = t.revenue_cents + EXCLUDED.revenue_cents;
  INSERT INTO analytics_product_months AS t (product_id, month, seller_id, units, revenue_cents)
    SELECT i.product_id, portage_analytics_month(portage_analytics_day(o.created_at)), o.seller_id,
        sum(i.quantity), sum(i.quantity::bigint * i.unit_price_cents)
      FROM new_items i JOIN orders o ON o.id = i.order_id
      WHERE o.status <> 'cancelled'
      GROUP BY 1, 2, 3 ORDER BY 1, 2
  ON CONFLICT (product_id, month) DO UPDATE
    SET units = t.units + EXCLUDED.units, revenue_cents = t.revenue_cents + EXCLUDED.revenue_cents;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER order_items_analytics AFTER INSERT ON order_items
  REFERENCING NEW TABLE AS new_items
  FOR EACH STATEMENT EXECUTE FUNCTION portage_analytics_order_items();
--> statement-breakpoint
-- Sessions, counted on the day they were created: created, and (once complete) paid. A seller's
-- are the sessions holding their products.
CREATE OR REPLACE FUNCTION portage_analytics_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  created int := 0;
  paid int;
BEGIN
  IF TG_OP = 'INSERT' THEN
    created := 1;
    paid := (NEW.status = 'complete')::int;
  ELSE
    paid := (NEW.status = 'complete')::int - (OLD.status = 'complete')::int;
    IF paid = 0 THEN RETURN NULL; END IF;
  END IF;
  PERFORM portage_analytics_add(s.scope, portage_analytics_day(NEW.created_at), s.shard, 0, 0, 0, 0, 0, 0,
      created, paid)
    FROM (
      SELECT '*' AS scope, hashtext(NEW.buyer_id) & 15 AS shard, 0 AS rank
      UNION
      SELECT p->>'sellerId', 0, 1 FROM jsonb_array_elements(NEW.parcels) p
    ) s
    ORDER BY s.rank, s.scope COLLATE "C";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER checkout_sessions_analytics AFTER INSERT OR UPDATE OF status ON checkout_sessions
  FOR EACH ROW EXECUTE FUNCTION portage_analytics_sessions();
--> statement-breakpoint
-- Recomputes every rollup from the base tables (the backfill below; the tests' check).
CREATE OR REPLACE FUNCTION portage_analytics_rebuild() RETURNS void LANGUAGE plpgsql AS $$
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
    SELECT i.product_id, portage_analytics_day(o.created_at), o.seller_id, sum(i.quantity),
        sum(i.quantity::bigint * i.unit_price_cents)
      FROM order_items i JOIN orders o ON o.id = i.order_id
      WHERE o.status <> 'cancelled'
      GROUP BY 1, 2, 3;
  INSERT INTO analytics_product_months (product_id, month, seller_id, units, revenue_cents)
    SELECT product_id, portage_analytics_month(day), seller_id, sum(units), sum(revenue_cents)
      FROM analytics_product_days
      GROUP BY 1, 2, 3;
END $$;
--> statement-breakpoint
SELECT portage_analytics_rebuild();
