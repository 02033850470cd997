-- Appends a 'session' row to analytics_changes when a checkout session opens or becomes (un)paid.
-- Runs from triggers checkout_sessions_analytics (AFTER INSERT ON checkout_sessions) and
-- checkout_sessions_analytics_paid (AFTER UPDATE OF status, WHEN complete changes), each row.
CREATE OR REPLACE FUNCTION portage_analytics_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_changes (kind, ref, day, buyer_id, sessions_created, sessions_paid)
    VALUES ('session', NEW.id, portage_analytics_day(NEW.created_at), NEW.buyer_id, (TG_OP = 'INSERT')::int,
      (NEW.status = 'complete')::int - (TG_OP = 'UPDATE' AND OLD.status = 'complete')::int);
  RETURN NULL;
END $$;
