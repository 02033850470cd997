-- Computes products.search_doc (weighted tsvector of title, keywords, description) when that text
-- is written: a trigger, not a generated column, so that stock updates do not recompute it. The
-- product's text is stemmed in its language, its translation's in the other (English or French),
-- all accents folded (portage_fold); title and keyword words of both are also kept as written (D).
-- Runs from trigger products_search_doc (BEFORE INSERT OR UPDATE OF title, keywords, description,
-- language, translations, search_doc ON products).
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
