// The orders module's statements that its services and other modules call by name (the
// transitions' own updates still sit in service.ts).
import { asc, desc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import type { Province } from '../../contract/common.ts';
import type { Db } from '../../db/index.ts';
import { insertInto, ph, query, rowsOf } from '../../db/sql.ts';
import type { MailNames } from '../auth/sellers.ts';
import type { RequestContext } from '../context.ts';
import { orderItems, orderLabels, orders, orderTracking } from './tables.ts';

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

// ---- the desk's list and an order's history (GET /admin/orders, /admin/orders/:id) ----------

/** A row of the admins' list of orders: times in Unix seconds. */
export interface AdminOrderListRow {
  id: string;
  number: string;
  status: OrderRow['status'];
  buyer_id: string;
  buyer_email: string;
  seller_id: string;
  shop_name: string | null;
  province: string;
  total_amount_cents: number;
  refunded_cents: number;
  item_count: number;
  created_at: number;
}

type OrderRow = typeof orders.$inferSelect;

/** The filters of the admins' list, resolved: instants, not days; buyers' ids, not an email. */
export interface AdminOrderFilters {
  limit: number;
  /** The order after which the page starts (newest first). */
  before?: string | undefined;
  status?: string | undefined;
  province?: string | undefined;
  sellerId?: string | undefined;
  /** Placed at or after. */
  from?: Date | undefined;
  /** Placed before. */
  until?: Date | undefined;
  /** Exactly this order (its number or its id). */
  number?: string | undefined;
  id?: string | undefined;
  /** Bought by one of these (at most ORDER_SEARCH_BUYERS): each one's newest, merged. */
  buyerIds?: string[] | undefined;
}

/**
 * A page of orders, newest first (created_at, id), after `before`. Each filter is an equality or
 * a range on an index that ends with (created_at, id) (tables.ts), so the page is read in index
 * order and never sorted; with buyers, each buyer's newest are read from orders_buyer_created_idx
 * and only those (at most limit per buyer) are sorted. The buyer's email and the shop's name are
 * read for the page's rows only.
 */
export async function adminOrderRows(db: Db, f: AdminOrderFilters): Promise<AdminOrderListRow[]> {
  const where: SQL[] = [];
  // The expression is the one of orders_province_*_idx: the index answers it.
  if (f.province) where.push(sql`(${orders.shippingAddress}->>'province') = ${f.province}`);
  if (f.status) where.push(sql`${orders.status} = ${f.status}`);
  if (f.sellerId) where.push(sql`${orders.sellerId} = ${f.sellerId}`);
  if (f.from) where.push(sql`${orders.createdAt} >= ${f.from.toISOString()}::timestamptz`);
  if (f.until) where.push(sql`${orders.createdAt} < ${f.until.toISOString()}::timestamptz`);
  if (f.number) where.push(sql`${orders.number} = ${f.number}`);
  if (f.id) where.push(sql`${orders.id} = ${f.id}`);
  if (f.before) {
    where.push(
      sql`(${orders.createdAt}, ${orders.id}) < ((select c.created_at from orders c where c.id = ${f.before}), ${f.before})`,
    );
  }
  const columns = sql`${orders.id}, ${orders.number}, ${orders.status}, ${orders.buyerId}, ${orders.sellerId},
    ${orders.shippingAddress}, ${orders.totalAmountCents}, ${orders.refundedCents}, ${orders.itemCount}, ${orders.createdAt}`;
  const newest = sql`order by ${orders.createdAt} desc, ${orders.id} desc limit ${f.limit}`;
  const page = f.buyerIds
    ? sql`select o.* from unnest(array[${sql.join(
        f.buyerIds.map((id) => sql`${id}`),
        sql`, `,
      )}]::text[]) b(id)
        cross join lateral (select ${columns} from ${orders}
          where ${sql.join([sql`${orders.buyerId} = b.id`, ...where], sql` and `)} ${newest}) o
        order by o.created_at desc, o.id desc limit ${f.limit}`
    : sql`select ${columns} from ${orders} ${where.length ? sql`where ${sql.join(where, sql` and `)}` : sql``} ${newest}`;
  if (f.buyerIds?.length === 0) return [];
  return rowsOf<AdminOrderListRow>(
    db,
    sql`select o.id, o.number, o.status, o.buyer_id, u.email as buyer_email, o.seller_id,
      sp.shop_name, coalesce(o.shipping_address->>'province', '') as province,
      o.total_amount_cents, o.refunded_cents, o.item_count,
      floor(extract(epoch from o.created_at))::int as created_at
    from (${page}) o
    join users u on u.id = o.buyer_id
    left join seller_profiles sp on sp.user_id = o.seller_id
    order by o.created_at desc, o.id desc`,
  );
}

/** An order, its items, its label and its tracking: what its page shows of the order itself. */
export async function orderWithShipment(db: Db, orderId: string) {
  const [row] = await db.select().from(orders).where(eq(orders.id, orderId));
  if (!row) return undefined;
  const [items, [label], [tracking]] = await Promise.all([
    db.select().from(orderItems).where(eq(orderItems.orderId, orderId)),
    db
      .select({
        state: orderLabels.state,
        service: orderLabels.service,
        trackingPin: orderLabels.trackingPin,
        sandbox: orderLabels.sandbox,
        boughtAt: orderLabels.boughtAt,
      })
      .from(orderLabels)
      .where(eq(orderLabels.orderId, orderId)),
    db
      .select({ lastEvent: orderTracking.lastEvent, lastCheckedAt: orderTracking.lastCheckedAt })
      .from(orderTracking)
      .where(eq(orderTracking.orderId, orderId)),
  ]);
  return { row, items, label, tracking };
}

/** How many orders a buyer (or a seller) has, counted up to `max` + 1, and their newest `recent`. */
export async function ordersOfParty(
  db: Db,
  party: { buyerId: string } | { sellerId: string },
  max: number,
  recent: number,
): Promise<{ count: number; rows: AdminOrderListRow[] }> {
  const column = 'buyerId' in party ? orders.buyerId : orders.sellerId;
  const id = 'buyerId' in party ? party.buyerId : party.sellerId;
  const [counted, rows] = await Promise.all([
    rowsOf<{ n: number }>(
      db,
      sql`select count(*)::int as n from (select 1 from ${orders} where ${column} = ${id} limit ${max + 1}) x`,
    ),
    adminOrderRows(db, {
      limit: recent,
      ...('buyerId' in party ? { buyerIds: [party.buyerId] } : { sellerId: party.sellerId }),
    }),
  ]);
  return { count: counted[0]?.n ?? 0, rows };
}
