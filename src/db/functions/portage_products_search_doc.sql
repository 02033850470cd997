-- Computes products.search_doc (weighted tsvector of title, keywords, description) when that text
-- is written: a trigger, not a generated column, so that stock updates do not recompute it.
-- Runs from trigger products_search_doc (BEFORE INSERT OR UPDATE OF title, keywords, description, search_doc ON products).
CREATE OR REPLACE FUNCTION portage_products_search_doc() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_doc :=
    setweight(to_tsvector('english', NEW.title), 'A') ||
    setweight(to_tsvector('english', portage_join_words(NEW.keywords)), 'B') ||
    setweight(to_tsvector('english', NEW.description), 'C') ||
    setweight(to_tsvector('simple', NEW.title || ' ' || portage_join_words(NEW.keywords)), 'D');
  RETURN NEW;
END $$;
