-- Keeps review_count, rating_sum and rating of products and seller_profiles (published reviews
-- only) in the review change's own transaction: never stale, never recomputed on read.
-- Runs from trigger reviews_aggregates (AFTER INSERT OR UPDATE OR DELETE ON reviews, each row).
CREATE OR REPLACE FUNCTION portage_review_aggregates() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d_count int;
  d_sum int;
  pid text;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.published THEN
    d_count := -1; d_sum := -OLD.rating; pid := OLD.product_id;
    UPDATE products SET review_count = review_count + d_count, rating_sum = rating_sum + d_sum,
      rating = CASE WHEN review_count + d_count > 0 THEN round((rating_sum + d_sum)::numeric / (review_count + d_count), 2) ELSE 0 END
      WHERE id = pid;
    UPDATE seller_profiles s SET review_count = s.review_count + d_count, rating_sum = s.rating_sum + d_sum,
      rating = CASE WHEN s.review_count + d_count > 0 THEN round((s.rating_sum + d_sum)::numeric / (s.review_count + d_count), 2) ELSE 0 END
      FROM products p WHERE p.id = pid AND s.user_id = p.seller_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.published THEN
    d_count := 1; d_sum := NEW.rating; pid := NEW.product_id;
    UPDATE products SET review_count = review_count + d_count, rating_sum = rating_sum + d_sum,
      rating = round((rating_sum + d_sum)::numeric / (review_count + d_count), 2)
      WHERE id = pid;
    UPDATE seller_profiles s SET review_count = s.review_count + d_count, rating_sum = s.rating_sum + d_sum,
      rating = round((s.rating_sum + d_sum)::numeric / (s.review_count + d_count), 2)
      FROM products p WHERE p.id = pid AND s.user_id = p.seller_id;
  END IF;
  RETURN NULL;
END $$;
