CREATE TABLE "analytics_changes" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "analytics_changes_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"ref" text NOT NULL,
	"day" date NOT NULL,
	"buyer_id" text NOT NULL,
	"seller_id" text,
	"orders" smallint DEFAULT 0 NOT NULL,
	"revenue_cents" bigint DEFAULT 0 NOT NULL,
	"items" integer DEFAULT 0 NOT NULL,
	"sessions_created" smallint DEFAULT 0 NOT NULL,
	"sessions_paid" smallint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- hand-written (checkout speed, issue 8)
-- The rollups were written in the transaction of each change they count: a payment upserted
-- the platform's and its sellers' day and month rows three times (session opened, orders, session
-- paid), its buyer's days twice and its products' rows, a third of PostgreSQL's time per payment,
-- on rows every payment shares. Now a change is one row appended to analytics_changes, and
-- portage_analytics_fold() adds a batch of them to the rollups: every hot row once per batch. The
-- rollups hold exactly what they held (the tests compare them with portage_analytics_rebuild());
-- they are current once folded, and every read folds first.

-- A buyer's counted orders on a day, in a scope, changed by p_delta (not 0). Keeps the chain of
-- the buyer's days as portage_analytics_customer did (0013, 0018), and answers the totals'
-- changes (customers, new and continued, per day) instead of writing them. Only the fold calls it,
-- one fold at a time: no lock of its own.
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
--> statement-breakpoint
-- Adds up to p_limit pending changes (the oldest) to the rollups and deletes them; answers how
-- many. One fold at a time (a transaction lock): with p_wait it waits for another fold to end (a
-- read), without it answers 0 at once (the job's pass). Each rollup row is written once per fold,
-- in key order. An order's items and a session's sellers are read here (they never change).
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
          WHERE b.kind IN ('order', 'refund')
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

  -- Products: an order's items, counted with its sign, read once for days and months.
  WITH sold AS (
    SELECT i.product_id, b.day, b.seller_id, sum(b.orders * i.quantity) AS units,
        sum(b.orders * i.quantity::bigint * i.unit_price_cents) AS revenue
      FROM unnest(batch) b JOIN order_items i ON i.order_id = b.ref
      WHERE b.kind = 'order'
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
-- Orders paid (inserted), counted unless cancelled: one insert per statement.
CREATE OR REPLACE FUNCTION portage_analytics_orders_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_changes (kind, ref, day, buyer_id, seller_id, orders, revenue_cents, items)
    SELECT 'order', id, portage_analytics_day(created_at), buyer_id, seller_id, 1,
        total_amount_cents - refunded_cents, item_count
      FROM added_orders WHERE status <> 'cancelled';
  RETURN NULL;
END $$;
--> statement-breakpoint
-- An order changed in what the rollups count: a refund changes its revenue; a cancellation (or a
-- change of its day, buyer or seller) takes it out as it was and counts it again as it is.
CREATE OR REPLACE FUNCTION portage_analytics_orders() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was boolean := OLD.status <> 'cancelled';
  counted boolean := NEW.status <> 'cancelled';
BEGIN
  IF was = counted AND OLD.created_at = NEW.created_at AND OLD.buyer_id = NEW.buyer_id
     AND OLD.seller_id = NEW.seller_id THEN
    IF counted AND (OLD.total_amount_cents - OLD.refunded_cents) <> (NEW.total_amount_cents - NEW.refunded_cents) THEN
      INSERT INTO analytics_changes (kind, ref, day, buyer_id, seller_id, revenue_cents)
        VALUES ('refund', NEW.id, portage_analytics_day(NEW.created_at), NEW.buyer_id, NEW.seller_id,
          (NEW.total_amount_cents - NEW.refunded_cents) - (OLD.total_amount_cents - OLD.refunded_cents));
    END IF;
    RETURN NULL;
  END IF;
  IF was THEN
    INSERT INTO analytics_changes (kind, ref, day, buyer_id, seller_id, orders, revenue_cents, items)
      VALUES ('order', OLD.id, portage_analytics_day(OLD.created_at), OLD.buyer_id, OLD.seller_id, -1,
        -(OLD.total_amount_cents - OLD.refunded_cents)::bigint, -OLD.item_count);
  END IF;
  IF counted THEN
    INSERT INTO analytics_changes (kind, ref, day, buyer_id, seller_id, orders, revenue_cents, items)
      VALUES ('order', NEW.id, portage_analytics_day(NEW.created_at), NEW.buyer_id, NEW.seller_id, 1,
        NEW.total_amount_cents - NEW.refunded_cents, NEW.item_count);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS orders_analytics ON orders;
--> statement-breakpoint
CREATE TRIGGER orders_analytics_added AFTER INSERT ON orders
  REFERENCING NEW TABLE AS added_orders
  FOR EACH STATEMENT EXECUTE FUNCTION portage_analytics_orders_added();
--> statement-breakpoint
-- Only an update that changes what is counted calls the function (shipping does not).
CREATE TRIGGER orders_analytics AFTER UPDATE OF status, refunded_cents, total_amount_cents, created_at,
    buyer_id, seller_id ON orders
  FOR EACH ROW WHEN (
    (OLD.status = 'cancelled') IS DISTINCT FROM (NEW.status = 'cancelled')
    OR OLD.refunded_cents IS DISTINCT FROM NEW.refunded_cents
    OR OLD.total_amount_cents IS DISTINCT FROM NEW.total_amount_cents
    OR OLD.created_at IS DISTINCT FROM NEW.created_at
    OR OLD.buyer_id IS DISTINCT FROM NEW.buyer_id
    OR OLD.seller_id IS DISTINCT FROM NEW.seller_id)
  EXECUTE FUNCTION portage_analytics_orders();
--> statement-breakpoint
-- An order's items are read by the fold.
DROP TRIGGER IF EXISTS order_items_analytics ON order_items;
--> statement-breakpoint
DROP FUNCTION IF EXISTS portage_analytics_order_items();
--> statement-breakpoint
DROP FUNCTION IF EXISTS portage_analytics_order(orders, int, boolean);
--> statement-breakpoint
DROP FUNCTION IF EXISTS portage_analytics_customer(text, text, date, int, int);
--> statement-breakpoint
DROP FUNCTION IF EXISTS portage_analytics_add(text, date, int, int, bigint, int, int, int, int, int, int);
--> statement-breakpoint
-- Sessions, counted on the day they were created: opened, and paid (once complete).
CREATE OR REPLACE FUNCTION portage_analytics_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_changes (kind, ref, day, buyer_id, sessions_created, sessions_paid)
    VALUES ('session', NEW.id, portage_analytics_day(NEW.created_at), NEW.buyer_id, (TG_OP = 'INSERT')::int,
      (NEW.status = 'complete')::int - (TG_OP = 'UPDATE' AND OLD.status = 'complete')::int);
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS checkout_sessions_analytics ON checkout_sessions;
--> statement-breakpoint
CREATE TRIGGER checkout_sessions_analytics AFTER INSERT ON checkout_sessions
  FOR EACH ROW EXECUTE FUNCTION portage_analytics_sessions();
--> statement-breakpoint
CREATE TRIGGER checkout_sessions_analytics_paid AFTER UPDATE OF status ON checkout_sessions
  FOR EACH ROW WHEN ((OLD.status = 'complete') IS DISTINCT FROM (NEW.status = 'complete'))
  EXECUTE FUNCTION portage_analytics_sessions();
--> statement-breakpoint
-- The rebuild recomputes from the base tables (0013's body, renamed), after emptying the pending
-- changes: its TRUNCATE waits for every transaction that wrote one, and the base tables it then
-- reads hold them. It runs alone with the fold.
ALTER FUNCTION portage_analytics_rebuild() RENAME TO portage_analytics_recompute;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION portage_analytics_rebuild() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('analytics:fold'));
  TRUNCATE analytics_changes;
  PERFORM portage_analytics_recompute();
END $$;
