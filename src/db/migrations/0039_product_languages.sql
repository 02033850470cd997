ALTER TABLE "categories" ADD COLUMN "language" text DEFAULT 'en-CA' NOT NULL;--> statement-breakpoint
ALTER TABLE "categories" ADD COLUMN "translations" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "language" text DEFAULT 'en-CA' NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "translations" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "categories" ADD CONSTRAINT "categories_language_check" CHECK ("categories"."language" in ('en-CA', 'fr-CA'));--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_language_check" CHECK ("products"."language" in ('en-CA', 'fr-CA'));--> statement-breakpoint
CREATE OR REPLACE FUNCTION portage_fold(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT replace(replace(replace(replace(translate(t,
    'àáâãäåçèéêëìíîïñòóôõöùúûüýÿÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝŸ',
    'aaaaaaceeeeiiiinooooouuuuyyAAAAAACEEEEIIIINOOOOOUUUUYY'),
    'œ', 'oe'), 'Œ', 'OE'), 'æ', 'ae'), 'Æ', 'AE') $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION portage_products_search_doc() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  own regconfig := CASE NEW.language WHEN 'fr-CA' THEN 'french' ELSE 'english' END;
  other regconfig := CASE NEW.language WHEN 'fr-CA' THEN 'english' ELSE 'french' END;
  tr jsonb := NEW.translations -> (CASE NEW.language WHEN 'fr-CA' THEN 'en-CA' ELSE 'fr-CA' END);
  tr_title text := coalesce(tr ->> 'title', '');
  tr_keywords text := coalesce((SELECT string_agg(k, ' ') FROM jsonb_array_elements_text(
    CASE jsonb_typeof(tr -> 'keywords') WHEN 'array' THEN tr -> 'keywords' END) k), '');
BEGIN
  NEW.search_doc :=
    setweight(to_tsvector(own, portage_fold(NEW.title)), 'A') ||
    setweight(to_tsvector(own, portage_fold(portage_join_words(NEW.keywords))), 'B') ||
    setweight(to_tsvector(own, portage_fold(NEW.description)), 'C') ||
    setweight(to_tsvector(other, portage_fold(tr_title)), 'A') ||
    setweight(to_tsvector(other, portage_fold(tr_keywords)), 'B') ||
    setweight(to_tsvector(other, portage_fold(coalesce(tr ->> 'description', ''))), 'C') ||
    setweight(to_tsvector('simple', portage_fold(
      NEW.title || ' ' || portage_join_words(NEW.keywords) || ' ' || tr_title || ' ' || tr_keywords)), 'D');
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION portage_search_query(first_words text, last_word text) RETURNS tsquery
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  q tsquery;
  part tsquery;
  w text;
  f text;
  en text[];
  fr text[];
BEGIN
  FOREACH w IN ARRAY coalesce(string_to_array(nullif(first_words, ''), ' '), '{}') LOOP
    f := portage_fold(w);
    en := array(SELECT lexeme FROM unnest(to_tsvector('english', f)));
    fr := array(SELECT lexeme FROM unnest(to_tsvector('french', f)));
    CONTINUE WHEN cardinality(en) = 0 OR cardinality(fr) = 0;
    part := (SELECT string_agg(quote_literal(x), ' | ') FROM (SELECT DISTINCT unnest(en || fr) x) s)::tsquery;
    q := CASE WHEN q IS NULL THEN part ELSE q && part END;
  END LOOP;
  f := portage_fold(last_word);
  en := array(SELECT lexeme FROM unnest(to_tsvector('english', f)));
  fr := array(SELECT lexeme FROM unnest(to_tsvector('french', f)));
  part := (SELECT string_agg(quote_literal(x) || ':*', ' | ')
             FROM (SELECT DISTINCT unnest(en || fr || array[f]) x) s)::tsquery;
  RETURN CASE WHEN q IS NULL THEN part ELSE q && part END;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION portage_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.id, NEW.category_id, NEW.seller_id, NEW.price_cents, NEW.is_digital, NEW.is_perishable,
      NEW.rating, NEW.units_sold_30d, NEW.created_at, NEW.status, NEW.title, NEW.keywords, NEW.description,
      NEW.language, NEW.translations)
     IS DISTINCT FROM
     (OLD.id, OLD.category_id, OLD.seller_id, OLD.price_cents, OLD.is_digital, OLD.is_perishable,
      OLD.rating, OLD.units_sold_30d, OLD.created_at, OLD.status, OLD.title, OLD.keywords, OLD.description,
      OLD.language, OLD.translations)
  THEN
    NEW.changed_at := clock_timestamp();
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER products_search_doc ON products;--> statement-breakpoint
CREATE TRIGGER products_search_doc BEFORE INSERT OR UPDATE OF title, keywords, description, language, translations, search_doc
  ON products FOR EACH ROW EXECUTE FUNCTION portage_products_search_doc();--> statement-breakpoint
-- Every document again: words are now folded (a title's "Café" is found by "cafe").
UPDATE products SET search_doc = ''::tsvector;
