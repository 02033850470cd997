-- A new shop's address (/shops/<slug>): its name in lower case, accents dropped, every run of
-- other characters one hyphen, at most 60 characters ("Érablière du Lac" -> "erabliere-du-lac");
-- "shop" for a name with no letter or digit; "-2", "-3"... after a slug taken. Two shops opening
-- at once wait for each other (one transaction lock for every slug: "maple" and "maple-2"
-- opening together cannot both take "maple-2"); shops open rarely.
-- Called by portage_seller_profiles_slug (the trigger seller_profiles_slug) and migration 0053.
CREATE OR REPLACE FUNCTION portage_shop_slug(shop_name text) RETURNS text
  LANGUAGE plpgsql AS $$
DECLARE
  stem text;
  candidate text;
  n int := 1;
BEGIN
  stem := left(trim(both '-' from regexp_replace(
    translate(replace(replace(lower(shop_name), 'œ', 'oe'), 'æ', 'ae'), 'àâäáãåçéèêëíìîïñóòôöõúùûüýÿ', 'aaaaaaceeeeiiiinooooouuuuyy'),
    '[^a-z0-9]+', '-', 'g')), 60);
  stem := trim(both '-' from stem);
  IF stem = '' THEN
    stem := 'shop';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('portage_shop_slug'));
  candidate := stem;
  WHILE EXISTS (SELECT 1 FROM seller_profiles WHERE slug = candidate) LOOP
    n := n + 1;
    candidate := stem || '-' || n;
  END LOOP;
  RETURN candidate;
END
$$;
