// The cart statements every checkout and payment runs, named (parsed once per connection).
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { pipeline, query, statement } from '../../db/sql.ts';
import type { SaleProductRow } from '../catalog/service.ts';
import { cartItems, carts } from './tables.ts';

const ph = sql.placeholder;
/** lockCart without touching (a checkout's), prepared. */
const lockCartKeeping = query('cart_lock_keeping', (db, name) =>
  db
    .insert(carts)
    .values({ userId: ph('userId'), updatedAt: ph('now') })
    .onConflictDoUpdate({ target: carts.userId, set: { updatedAt: sql`${carts.updatedAt}` } })
    .returning()
    .prepare(name),
);

/** Locks (creating if needed) the buyer's cart row until the transaction ends, its stamp kept. */
export async function lockCartKeepingStamp(db: Db, userId: string, now: Date) {
  return (await lockCartKeeping(db, { userId, now }))[0]!;
}

/** The cart's lines with the catalog's sale view of each variant (null: not on sale), prepared. */
const cartLines = statement<CartLineRow>(
  'cart_lines',
  sql`select c.product_id as "productId", c.variant_id as "variantId", c.quantity, p.product
    from ${cartItems} c left join lateral portage_sale_variant(c.variant_id) as p(product) on true
    where c.user_id = ${ph('userId')}
    order by c.added_at, c.variant_id`,
);

export interface CartLineRow {
  productId: string;
  variantId: string;
  quantity: number;
  product: SaleProductRow | null;
}

/** The cart's lines in the order they were added, each with its product's sale view. */
export const cartLineRows = (db: Db, userId: string) => cartLines(db, { userId });

/** The cart row locked (its stamp kept), then its lines read under the lock: one round trip. */
export async function lockCartThenLines(db: Db, userId: string, now: Date) {
  const [cart, lines] = await pipeline({ db }, [
    function lockCart(c) {
      return lockCartKeepingStamp(c.db, userId, now);
    },
    function readLines(c) {
      return cartLineRows(c.db, userId);
    },
  ]);
  return { cart, lines };
}

const clearPurchasedStatement = statement(
  'cart_clear_purchased',
  sql`
    with bought as (
      select * from json_to_recordset(${ph('lines')}::json) as b("variantId" text, quantity int)
    ), gone as (
      delete from ${cartItems} c using bought b
      where c.user_id = ${ph('buyerId')} and c.variant_id = b."variantId" and c.quantity <= b.quantity
    ), kept as (
      update ${cartItems} c set quantity = c.quantity - b.quantity from bought b
      where c.user_id = ${ph('buyerId')} and c.variant_id = b."variantId" and c.quantity > b.quantity
    )
    update ${carts} set updated_at = ${ph('now')}::timestamptz,
      coupon_code = case when ${ph('couponCode')}::text is null then ${carts.couponCode}
        else nullif(${carts.couponCode}, ${ph('couponCode')}::text) end
    where ${carts.userId} = ${ph('buyerId')}`,
);

/**
 * Takes the bought lines (JSON) out of the cart: those bought whole go, the others keep the
 * difference; the cart row's stamp moves on and it loses `couponCode` if it holds it. Sent with
 * the transaction's next statement.
 */
export const clearPurchasedLines = (
  db: Db,
  values: { lines: string; buyerId: string; now: Date; couponCode: string | null },
) => clearPurchasedStatement.later(db, values);
