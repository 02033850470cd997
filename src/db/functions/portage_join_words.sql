-- Joins a text[] with spaces ('' for NULL): an IMMUTABLE array_to_string (which is only STABLE),
-- so that the search document's expression may use it. Called by portage_products_search_doc
-- (trigger products_search_doc on products); test/search-index.test.ts rebuilds documents with it.
CREATE OR REPLACE FUNCTION portage_join_words(words text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT coalesce(array_to_string(words, ' '), '') $$;
