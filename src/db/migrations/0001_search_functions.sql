-- array_to_string is only STABLE; a generated column needs an IMMUTABLE expression.
CREATE OR REPLACE FUNCTION portage_join_words(words text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT coalesce(array_to_string(words, ' '), '') $$;
