-- Written by `npm run db:functions -- portage_shop_slug portage_seller_profiles_slug` from src/db/functions/ (see the README there).
-- To change one of these functions again, edit its file and run that command: never edit this
-- migration once it has been applied.
-- A new shop's address (/shops/<slug>): its name in lower case, accents dropped, every run of
-- other characters one hyphen, at most 60 characters ("Érablière du Lac" -> "erabliere-du-lac");
-- "shop" for a name with no letter or digit; "-2", "-3"... after a slug taken. Two shops opening
-- with the same name at once wait for each other (a transaction lock on the slug's stem).
-- Called by portage_seller_profiles_slug (the trigger seller_profiles_slug) and migration 0053.
CREATE OR REPLACE FUNCTION portage_shop_slug(shop_name text) RETURNS text
  LANGUAGE plpgsql AS $$
DECLARE
  stem text;
  candidate text;
  n int := 1;
BEGIN
  stem := left(trim(both '-' from regexp_replace(
    translate(lower(shop_name), 'àâäáãåçéèêëíìîïñóòôöõúùûüýÿ', 'aaaaaaceeeeiiiinooooouuuuyy'),
    '[^a-z0-9]+', '-', 'g')), 60);
  stem := trim(both '-' from stem);
  IF stem = '' THEN
    stem := 'shop';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('portage_shop_slug:' || stem));
  candidate := stem;
  WHILE EXISTS (SELECT 1 FROM seller_profiles WHERE slug = candidate) LOOP
    n := n + 1;
    candidate := stem || '-' || n;
  END LOOP;
  RETURN candidate;
END
$$;
--> statement-breakpoint
-- Gives a shop opening without a slug its slug (portage_shop_slug of its name): every way a shop
-- opens (the API, the command line, the seed) gets one. Run by the trigger seller_profiles_slug
-- (BEFORE INSERT on seller_profiles, migration 0053).
CREATE OR REPLACE FUNCTION portage_seller_profiles_slug() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.slug IS NULL THEN
    NEW.slug := portage_shop_slug(NEW.shop_name);
  END IF;
  RETURN NEW;
END
$$;
