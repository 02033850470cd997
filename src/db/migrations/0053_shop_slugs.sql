-- Every shop gets its slug: those open now, oldest first (one statement each, so each sees the
-- slugs given before it), and every shop that opens from now on (the trigger).
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT user_id, shop_name FROM seller_profiles WHERE slug IS NULL ORDER BY created_at, user_id LOOP
    UPDATE seller_profiles SET slug = portage_shop_slug(r.shop_name) WHERE user_id = r.user_id;
  END LOOP;
END
$$;
--> statement-breakpoint
ALTER TABLE "seller_profiles" ALTER COLUMN "slug" SET NOT NULL;
--> statement-breakpoint
CREATE TRIGGER seller_profiles_slug BEFORE INSERT ON seller_profiles
  FOR EACH ROW EXECUTE FUNCTION portage_seller_profiles_slug();
