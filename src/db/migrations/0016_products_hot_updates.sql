ALTER TABLE "products" ALTER COLUMN "search_doc" DROP EXPRESSION;--> statement-breakpoint
ALTER TABLE "products" ALTER COLUMN "search_doc" SET DEFAULT ''::tsvector;--> statement-breakpoint
-- hand-written (checkout speed, issue 8)
-- A checkout's reservation and its payment update a product's stock_quantity and
-- reserved_quantity, nothing else. Three things made each of those updates cost as much as an
-- edit of the product: the search document was a generated column (PostgreSQL recomputes stored
-- generated columns at every update), changed_at was set at every stock change (an indexed
-- column changed: no HOT update, so a new entry in each of the eight indexes, the GIN one
-- included), and full pages left no room for a HOT update. Now:
-- * the search document is computed by a trigger when the text it is made of is written;
-- * changed_at is set only when a column the search index reads changes (search/index-sync.ts,
--   COLUMNS: a column added there must be added here);
-- * pages keep 15% free for updates (new pages; existing ones as they are rewritten).
CREATE OR REPLACE FUNCTION portage_products_search_doc() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_doc :=
    setweight(to_tsvector('english', NEW.title), 'A') ||
    setweight(to_tsvector('english', portage_join_words(NEW.keywords)), 'B') ||
    setweight(to_tsvector('english', NEW.description), 'C') ||
    setweight(to_tsvector('simple', NEW.title || ' ' || portage_join_words(NEW.keywords)), 'D');
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER products_search_doc BEFORE INSERT OR UPDATE OF title, keywords, description, search_doc
  ON products FOR EACH ROW EXECUTE FUNCTION portage_products_search_doc();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION portage_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.id, NEW.category_id, NEW.seller_id, NEW.price_cents, NEW.is_digital, NEW.is_perishable,
      NEW.rating, NEW.units_sold_30d, NEW.created_at, NEW.status, NEW.title, NEW.keywords, NEW.description)
     IS DISTINCT FROM
     (OLD.id, OLD.category_id, OLD.seller_id, OLD.price_cents, OLD.is_digital, OLD.is_perishable,
      OLD.rating, OLD.units_sold_30d, OLD.created_at, OLD.status, OLD.title, OLD.keywords, OLD.description)
  THEN
    NEW.changed_at := clock_timestamp();
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
ALTER TABLE "products" SET (fillfactor = 85);
