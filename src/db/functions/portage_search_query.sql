-- The full-text query of searched words, in both languages: each word but the last must match
-- one of its English or French stems (a word that is a stopword in either language is dropped);
-- the last is a prefix of one of them or of the word as written. Words are folded (portage_fold)
-- as the search document is. The in-memory index builds the same terms from the same stems
-- (src/modules/search/service.ts toTerms): keep them in step. Called by the SQL search engine
-- and GET /products?search= (src/modules/catalog/text-query.ts tsQueryOf).
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
