// Helpers for the order lifecycle, race and crash tests: the database effects a test checks after
// talking HTTP (stock, reserved units, orders, outbox rows, payment events, refunds), a fixed
// clock, and orders and returns in each state (paid, shipped, delivered, cancelled; a return
// requested, refunded, rejected), made through the API as their buyers and sellers make them.
import { readdir } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { productVariants } from '../../src/modules/catalog/tables.ts';
import { checkoutSessions } from '../../src/modules/checkout/tables.ts';
import { couponRedemptions } from '../../src/modules/coupons/tables.ts';
import { reservations } from '../../src/modules/inventory/tables.ts';
import { outbox } from '../../src/modules/mail/tables.ts';
import { orderItems, orders } from '../../src/modules/orders/tables.ts';
import { paymentEvents, refunds } from '../../src/modules/payments/tables.ts';
import type { Api, SignedIn, TestApp } from './app.ts';
import { buyer, type Product, product, seller } from './builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk } from './checkout.ts';
import type { TestDatabase } from './db.ts';

/** Stops the test app's clock at `iso` (a whole second): later `advance` calls move it from there. */
export function setClock(t: TestApp, iso: string) {
  t.clock.freeze();
  t.clock.offsetMs += Date.parse(iso) - t.clock.now().getTime();
}

/** Signs in again (after the clock moved past the access token's life); answers the user with a fresh token. */
export async function signIn(api: Api, who: SignedIn): Promise<SignedIn> {
  const res = await api.post('/auth/login', { email: who.email, password: who.password });
  if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
  return { ...who, token: res.body.token };
}

/** A variant's stock and live reserved units, as stored (a product sold one way: its id is its variant's). */
export async function stockOf(database: TestDatabase, variantId: string) {
  const [row] = await database.db
    .select({ stock: productVariants.stockQuantity, reserved: productVariants.reservedQuantity })
    .from(productVariants)
    .where(eq(productVariants.id, variantId));
  if (!row) throw new Error(`no variant ${variantId}`);
  return row;
}

/** Live reservation rows of a variant (neither released nor committed), summed. */
export async function liveReservedUnits(database: TestDatabase, variantId: string): Promise<number> {
  const [row] = await database.db
    .select({ n: sql<number>`coalesce(sum(${reservations.quantity}), 0)::int` })
    .from(reservations)
    .where(
      sql`${reservations.variantId} = ${variantId} and ${reservations.releasedAt} is null and ${reservations.committedAt} is null`,
    );
  return Number(row?.n ?? 0);
}

export const ordersOfCheckout = (database: TestDatabase, checkoutId: string) =>
  database.db.select().from(orders).where(eq(orders.checkoutId, checkoutId)).orderBy(orders.sellerId);

export const ordersOfBuyer = (database: TestDatabase, buyerId: string) =>
  database.db.select().from(orders).where(eq(orders.buyerId, buyerId)).orderBy(orders.createdAt);

/** Units of a product in orders that hold them (confirmed, shipped or delivered). */
export async function soldUnits(database: TestDatabase, productId: string): Promise<number> {
  const [row] = await database.db
    .select({ n: sql<number>`coalesce(sum(${orderItems.quantity}), 0)::int` })
    .from(orderItems)
    .innerJoin(orders, eq(orders.id, orderItems.orderId))
    .where(
      sql`${orderItems.productId} = ${productId} and ${orders.status} in ('confirmed', 'shipped', 'delivered')`,
    );
  return Number(row?.n ?? 0);
}

export async function countOrders(database: TestDatabase): Promise<number> {
  const [row] = await database.db.select({ n: sql<number>`count(*)::int` }).from(orders);
  return Number(row?.n ?? 0);
}

/** Outbox rows whose dedupe key starts with `prefix` (e.g. `order-paid:<checkout>`, `refund:`). */
export const outboxRows = (database: TestDatabase, prefix: string) =>
  database.db
    .select()
    .from(outbox)
    .where(sql`${outbox.dedupeKey} like ${`${prefix.replace(/[\\%_]/g, '\\$&')}%`}`)
    .orderBy(outbox.dedupeKey);

export const paymentEventRows = (database: TestDatabase, checkoutId: string) =>
  database.db.select().from(paymentEvents).where(eq(paymentEvents.checkoutId, checkoutId));

export const refundRows = (database: TestDatabase, orderId: string) =>
  database.db.select().from(refunds).where(eq(refunds.orderId, orderId));

export const redemptionsOf = (database: TestDatabase, code: string) =>
  database.db.select().from(couponRedemptions).where(eq(couponRedemptions.code, code.toUpperCase()));

export async function sessionRow(database: TestDatabase, checkoutId: string) {
  const [row] = await database.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, checkoutId));
  return row;
}

/** The .eml files the instance wrote (no SMTP_URL): `$DATA_DIR/mail/*.eml`. */
export async function emlFiles(t: TestApp): Promise<string[]> {
  const dir = path.join(t.config.dataDir, 'mail');
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.eml'));
}

/** Units of products sold beyond their stock: stock below zero, or more reserved than in stock. */
export async function oversoldUnits(database: TestDatabase, productId: string): Promise<number> {
  const { stock, reserved } = await stockOf(database, productId);
  return Math.max(0, -stock) + Math.max(0, reserved - Math.max(stock, 0));
}

// ---- orders in each state, through the API -------------------------------------------------

/** Who and what an order is made of: new ones (a seller, a $20.00 product, a buyer) unless given. */
export interface OrderOptions {
  seller?: SignedIn;
  product?: Product;
  buyer?: SignedIn;
  /** Units bought (1 unless told). */
  quantity?: number;
  /** Stock of the new product (10 unless told). */
  stock?: number;
  /** Fields of the new product, over the $20.00 price and the stock (e.g. `{ title, priceCents }`). */
  fields?: Record<string, unknown>;
}

/** A seller, a product of theirs, and a buyer with `quantity` of it in the cart: answers all three. */
export async function filledCart(t: TestApp, opts: OrderOptions = {}) {
  const s = opts.seller ?? (await seller(t.api));
  const p =
    opts.product ??
    (await product(t.api, s, { priceCents: 2000, stockQuantity: opts.stock ?? 10, ...opts.fields }));
  const b = opts.buyer ?? (await buyer(t.api));
  await addToCart(t.api, b, p.id, opts.quantity ?? 1);
  return { seller: s, product: p, buyer: b };
}

/** filledCart, checked out (Ontario) and paid in the sandbox: answers its fields, the session and the order id. */
export async function paidOrder(t: TestApp, opts: OrderOptions = {}) {
  const cart = await filledCart(t, opts);
  const session = await openCheckout(t.api, cart.buyer, ON_ADDRESS);
  const orderIds = await payOk(t.api, session.sessionId);
  expect(orderIds).toHaveLength(1);
  return { ...cart, session, orderId: orderIds[0]! };
}

export type PaidOrder = Awaited<ReturnType<typeof paidOrder>>;

/** The order's number as people read it (`2026-000123`), as its buyer or seller `who` gets it. */
export async function orderNumber(t: TestApp, who: SignedIn, orderId: string): Promise<string> {
  const res = await t.api.as(who).get(`/orders/${encodeURIComponent(orderId)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.number as string;
}

/**
 * One seller's products, each bought `quantity` times by one buyer (with a coupon code when
 * given) and paid: answers the seller, the buyer, the products in the order of `lines`, the
 * session and the order.
 */
export async function paidOrderOf(
  t: TestApp,
  lines: Array<{ priceCents: number; quantity: number }>,
  opts: { coupon?: string } = {},
) {
  const s = await seller(t.api);
  const b = await buyer(t.api);
  const products: Product[] = [];
  for (const line of lines) {
    const p = await product(t.api, s, { priceCents: line.priceCents, stockQuantity: 10 });
    await addToCart(t.api, b, p.id, line.quantity);
    products.push(p);
  }
  if (opts.coupon) expect((await t.api.as(b).post('/cart/coupon', { code: opts.coupon })).status).toBe(200);
  const session = await openCheckout(t.api, b, ON_ADDRESS);
  const orderIds = await payOk(t.api, session.sessionId);
  expect(orderIds).toHaveLength(1);
  return { seller: s, buyer: b, products, session, orderId: orderIds[0]! };
}

/** A parcel's tracking, as a seller gives it when shipping. */
export const PARCEL = { trackingNumber: '1Z 999', carrier: 'Canada Post' };

/** Ships a confirmed order as its seller; answers the order as shipped. */
export async function ship(t: TestApp, s: SignedIn, orderId: string, parcel = PARCEL) {
  const res = await t.api.as(s).post(`/orders/${orderId}/ship`, parcel);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Marks a shipped order delivered as its seller; answers the order as delivered. */
export async function deliver(t: TestApp, s: SignedIn, orderId: string) {
  const res = await t.api.as(s).post(`/orders/${orderId}/deliver`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Cancels an order as `who` (a reason when given); answers the order as cancelled. */
export async function cancel(t: TestApp, who: SignedIn, orderId: string, reason?: string) {
  const res = await t.api.as(who).post(`/orders/${orderId}/cancel`, reason === undefined ? {} : { reason });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** A paid order (paidOrder) its seller shipped: answers paidOrder's fields and `order`, as shipped. */
export async function shippedOrder(t: TestApp, opts: OrderOptions & { parcel?: typeof PARCEL } = {}) {
  const paid = await paidOrder(t, opts);
  return { ...paid, order: await ship(t, paid.seller, paid.orderId, opts.parcel) };
}

/** A paid order its seller shipped and delivered: answers paidOrder's fields and `order`, as delivered. */
export async function deliveredOrder(t: TestApp, opts: OrderOptions & { parcel?: typeof PARCEL } = {}) {
  const shipped = await shippedOrder(t, opts);
  return { ...shipped, order: await deliver(t, shipped.seller, shipped.orderId) };
}

/** paidOrderOf, shipped and delivered: answers its fields and `order`, as delivered. */
export async function deliveredOrderOf(
  t: TestApp,
  lines: Array<{ priceCents: number; quantity: number }>,
  opts: { coupon?: string } = {},
) {
  const paid = await paidOrderOf(t, lines, opts);
  await ship(t, paid.seller, paid.orderId);
  return { ...paid, order: await deliver(t, paid.seller, paid.orderId) };
}

/**
 * A paid order cancelled by its buyer (or its seller, `by: 'seller'`), refunded in full:
 * answers paidOrder's fields and `order`, as the cancellation answered it.
 */
export async function cancelledOrder(
  t: TestApp,
  opts: OrderOptions & { by?: 'buyer' | 'seller'; reason?: string } = {},
) {
  const paid = await paidOrder(t, opts);
  const who = opts.by === 'seller' ? paid.seller : paid.buyer;
  return { ...paid, order: await cancel(t, who, paid.orderId, opts.reason) };
}

// ---- returns in each state ------------------------------------------------------------------

/** What the buyer asks for: the whole order for `damaged` unless told. */
export interface ReturnOptions {
  reason?: 'damaged' | 'wrong_item' | 'not_as_described' | 'other';
  items?: string[];
  description?: string;
}

/**
 * A delivered order (deliveredOrder) whose buyer requested a return: answers deliveredOrder's
 * fields, `returnId`, and `return`, the return as requested (pending).
 */
export async function requestedReturn(t: TestApp, opts: OrderOptions & ReturnOptions = {}) {
  const delivered = await deliveredOrder(t, opts);
  const res = await t.api.as(delivered.buyer).post('/returns', {
    order_id: delivered.orderId,
    reason: opts.reason ?? 'damaged',
    ...(opts.items ? { items: opts.items } : {}),
    ...(opts.description ? { description: opts.description } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...delivered, returnId: res.body.return_id as string, return: res.body };
}

/**
 * A requested return its seller (or `by`, an admin) approved. With the sandbox provider the
 * refund is sent at once, so the return is refunded: answers requestedReturn's fields, `return`
 * as the approval answered it.
 */
export async function refundedReturn(
  t: TestApp,
  opts: OrderOptions & ReturnOptions & { by?: SignedIn; note?: string } = {},
) {
  const requested = await requestedReturn(t, opts);
  const res = await t.api
    .as(opts.by ?? requested.seller)
    .post(`/returns/${requested.returnId}/approve`, opts.note === undefined ? {} : { note: opts.note });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status).toBe('refunded');
  return { ...requested, return: res.body };
}

/** A requested return its seller rejected with `note`: answers requestedReturn's fields, `return` as rejected. */
export async function rejectedReturn(
  t: TestApp,
  opts: OrderOptions & ReturnOptions & { note?: string } = {},
) {
  const requested = await requestedReturn(t, opts);
  const res = await t.api
    .as(requested.seller)
    .post(`/returns/${requested.returnId}/reject`, { note: opts.note ?? 'Outside the policy' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...requested, return: res.body };
}

/**
 * A slow network in front of a local HTTP server (the fake Stripe): requests matching `slow`
 * wait `delayMs` before they are passed on. Answers the proxy's base URL and a close function.
 */
export async function slowProxy(
  target: string,
  delayMs: number,
  slow: (method: string, url: string) => boolean,
): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target);
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (slow(req.method ?? 'GET', req.url ?? '/')) await new Promise((r) => setTimeout(r, delayMs));
    const headers = { ...req.headers, host: to.host };
    const upstream = httpRequest(
      { hostname: to.hostname, port: to.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    upstream.end(Buffer.concat(chunks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
