-- Folds accents (é -> e, œ -> oe) for search, so that "erable" and "érable" are one word: the
-- search document (portage_products_search_doc) and the query's words (portage_search_query,
-- src/modules/search/queries.ts stemsOfWords) are folded alike before stemming. translate(),
-- not the unaccent extension, which the embedded database (PGlite) does not ship.
CREATE OR REPLACE FUNCTION portage_fold(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT replace(replace(replace(replace(translate(t,
    'àáâãäåçèéêëìíîïñòóôõöùúûüýÿÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝŸ',
    'aaaaaaceeeeiiiinooooouuuuyyAAAAAACEEEEIIIINOOOOOUUUUYY'),
    'œ', 'oe'), 'Œ', 'OE'), 'æ', 'ae'), 'Æ', 'AE') $$;
