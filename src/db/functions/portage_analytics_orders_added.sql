-- Appends an 'order' row to analytics_changes for each inserted (paid) order that is not cancelled,
-- in the inserting transaction. Runs from trigger orders_analytics_added (AFTER INSERT ON orders, each statement).
CREATE OR REPLACE FUNCTION portage_analytics_orders_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_changes (kind, ref, day, buyer_id, seller_id, orders, revenue_cents, items)
    SELECT 'order', id, portage_analytics_day(created_at), buyer_id, seller_id, 1,
        total_amount_cents - refunded_cents, item_count
      FROM added_orders WHERE status <> 'cancelled';
  RETURN NULL;
END $$;
