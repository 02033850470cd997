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
