// The orders module's statements that its services and other modules call by name (the
// transitions' own updates still sit in service.ts).
import { asc, desc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import type { Province } from '../../contract/common.ts';
import type { Db } from '../../db/index.ts';
import { insertInto, ph, query } from '../../db/sql.ts';
import type { MailNames } from '../auth/sellers.ts';
import type { RequestContext } from '../context.ts';
import { orderItems, orders } from './tables.ts';

export type MailItem = { name: string; quantity: number; unitPriceCents: number; position: number };

const orderForMailStatement = query('orders_for_mail', (db, name) =>
  db
    .select({
      ...getTableColumns(orders),
      items: sql<
        MailItem[]
      >`(select coalesce(json_agg(json_build_object('name', i.name, 'quantity', i.quantity,
        'unitPriceCents', i.unit_price_cents, 'position', i.position) order by i.position), '[]')
        from ${orderItems} i where i.order_id = ${orders.id})`,
      mailNames: sql<MailNames>`(select n from portage_mail_names(${orders}.buyer_id, array[${orders}.seller_id]) as n)`,
    })
    .from(orders)
    .where(sql`${orders.id} = ${ph('orderId')}`)
    .prepare(name),
);

/** An order as its emails show it, in one statement: its row, its items, its buyer's and shop's names. */
export async function orderForMail(ctx: RequestContext, orderId: string) {
  const [row] = await orderForMailStatement(ctx.db, { orderId });
  return row;
}

/** The province an order ships to: what decides the language of its emails (mail/locale.ts). */
export async function shippingProvinceOf(ctx: RequestContext, orderId: string): Promise<string | undefined> {
  const [row] = await ctx.db
    .select({ province: sql<string>`${orders.shippingAddress}->>'province'` })
    .from(orders)
    .where(eq(orders.id, orderId));
  return row?.province ?? undefined;
}

/** An order's number (what its emails name it by); the id when the order is gone. */
export async function orderNumberOf(ctx: RequestContext, orderId: string): Promise<string> {
  const [row] = await ctx.db.select({ number: orders.number }).from(orders).where(eq(orders.id, orderId));
  return row?.number ?? orderId;
}

export async function orderIdsOfCheckout(ctx: RequestContext, checkoutId: string): Promise<string[]> {
  const rows = await ctx.db
    .select({ id: orders.id })
    .from(orders)
    .where(eq(orders.checkoutId, checkoutId))
    .orderBy(asc(orders.sellerId));
  return rows.map((r) => r.id);
}

/** A checkout's orders as a person names them (id and number), sellers in order. */
export async function numberedOrdersOfCheckout(
  ctx: RequestContext,
  checkoutId: string,
): Promise<Array<{ id: string; number: string }>> {
  return ctx.db
    .select({ id: orders.id, number: orders.number })
    .from(orders)
    .where(eq(orders.checkoutId, checkoutId))
    .orderBy(asc(orders.sellerId));
}

/**
 * Every order of one checkout (named by the checkout, or by one of its orders) with its items,
 * by seller, in one statement: what a protocol adapter shows as the one order its session became.
 * Named by the checkout, the statement is sent at the call (it may be a `pipeline` step).
 */
export function ordersOfOneCheckout(ctx: RequestContext, of: { checkoutId: string } | { orderId: string }) {
  return 'checkoutId' in of ? ordersOfCheckout(ctx.db, of) : ordersOfOrdersCheckout(ctx.db, of);
}

const ordersOfCheckoutWhere = (db: Db, checkout: SQL) =>
  db
    .select({
      ...getTableColumns(orders),
      items: sql<
        AdapterOrderItem[]
      >`(select coalesce(json_agg(json_build_object('productId', i.product_id, 'variantId', i.variant_id,
        'name', i.name, 'quantity', i.quantity, 'unitPriceCents', i.unit_price_cents) order by i.position), '[]')
        from ${orderItems} i where i.order_id = ${orders.id})`,
    })
    .from(orders)
    .where(sql`${orders.checkoutId} = ${checkout}`)
    // Code-point order, whatever the database's collation: as ordersWrittenIn sorts them.
    .orderBy(sql`${orders.sellerId} collate "C"`);
const ordersOfCheckout = query('orders_of_checkout', (db, name) =>
  ordersOfCheckoutWhere(db, sql`${ph('checkoutId')}`).prepare(name),
);
const ordersOfOrdersCheckout = query('orders_of_orders_checkout', (db, name) =>
  ordersOfCheckoutWhere(
    db,
    sql`(select ${orders.checkoutId} from ${orders} where ${orders.id} = ${ph('orderId')})`,
  ).prepare(name),
);

/** The province of the buyer's last order's address (the cart estimates tax for it). */
export async function lastShippingProvince(
  ctx: RequestContext,
  buyerId: string,
): Promise<Province | undefined> {
  const [row] = await ctx.db
    .select({ province: sql<string>`${orders.shippingAddress}->>'province'` })
    .from(orders)
    .where(eq(orders.buyerId, buyerId))
    .orderBy(desc(orders.createdAt))
    .limit(1);
  return row?.province as Province | undefined;
}

/** An order item as a protocol adapter shows it. */
export interface AdapterOrderItem {
  productId: string;
  /** What was sold: the item id platforms know. */
  variantId: string;
  name: string;
  quantity: number;
  unitPriceCents: number;
}

const insertOrders = insertInto('orders_insert', orders);
const insertItems = insertInto('order_items_insert', orderItems);

/**
 * A payment's orders and their items, one insert each, sent with the transaction's next
 * statement or its commit: nothing reads them back (the answer is built from the same values).
 */
export async function writeOrdersLater(
  tx: RequestContext,
  rows: Array<typeof orders.$inferInsert>,
  items: Array<typeof orderItems.$inferInsert>,
): Promise<void> {
  await insertOrders.later(tx.db, rows);
  await insertItems.later(tx.db, items);
}

/** What the ledger needs of orders (modules/ledger): their money, seller, checkout and the seller's province. */
export interface OrderMoney {
  id: string;
  number: string;
  sellerId: string;
  checkoutId: string;
  paymentIntentId: string;
  status: string;
  totalAmountCents: number;
  platformFeeCents: number;
  createdAt: Date;
  deliveredAt: Date | null;
  /** The province the seller's shop is in (seller_profiles), null when unknown. */
  sellerProvince: string | null;
}

export async function moneyOfOrders(
  ctx: RequestContext,
  of: { orderIds: string[] } | { checkoutId: string } | { paymentIntentId: string },
): Promise<OrderMoney[]> {
  const where =
    'orderIds' in of
      ? of.orderIds.length === 0
        ? sql`false`
        : inArray(orders.id, of.orderIds)
      : 'checkoutId' in of
        ? sql`${orders.checkoutId} = ${of.checkoutId}`
        : sql`${orders.paymentIntentId} = ${of.paymentIntentId}`;
  return ctx.db
    .select({
      id: orders.id,
      number: orders.number,
      sellerId: orders.sellerId,
      checkoutId: orders.checkoutId,
      paymentIntentId: orders.paymentIntentId,
      status: orders.status,
      totalAmountCents: orders.totalAmountCents,
      platformFeeCents: orders.platformFeeCents,
      createdAt: orders.createdAt,
      deliveredAt: orders.deliveredAt,
      sellerProvince: sql<
        string | null
      >`(select p from portage_seller_province(${orders.sellerId}) p limit 1)`,
    })
    .from(orders)
    .where(where)
    .orderBy(asc(orders.createdAt), asc(orders.id));
}
