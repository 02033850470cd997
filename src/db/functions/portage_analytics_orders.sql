-- Appends analytics_changes rows for an order update the rollups count: a refund, a cancellation, a
-- change of day, buyer or seller. Runs from trigger orders_analytics (AFTER UPDATE OF status,
-- refunded_cents, total_amount_cents, created_at, buyer_id, seller_id ON orders, each row, WHEN one changed).
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
