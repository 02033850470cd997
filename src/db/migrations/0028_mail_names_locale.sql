-- Written by `npm run db:functions -- portage_mail_names` from src/db/functions/ (see the README there).
-- To change one of these functions again, edit its file and run that command: never edit this
-- migration once it has been applied.
-- What an order email of a paid checkout needs of people, as the JSON of the auth module's
-- MailNames: the buyer's email, name and saved locale (null when the account is gone) and each seller's shop
-- name (its account name without a shop). The auth module's tables, read by others inside one
-- statement through this function: checkout/service.ts sessionByIdLocked (a paid checkout's
-- session, read anyway). LANGUAGE sql, STABLE, not STRICT, a set: inlined in the caller's FROM.
CREATE OR REPLACE FUNCTION portage_mail_names(buyer_id text, seller_ids text[]) RETURNS SETOF json
  LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'buyer', (SELECT json_build_object('email', u.email, 'name', u.name, 'locale', u.locale) FROM users u WHERE u.id = buyer_id),
    'shops', (SELECT coalesce(json_object_agg(u.id, coalesce(sp.shop_name, u.name)), '{}'::json)
      FROM users u LEFT JOIN seller_profiles sp ON sp.user_id = u.id WHERE u.id = ANY (seller_ids)))
$$;
