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
