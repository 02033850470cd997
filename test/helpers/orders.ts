// Helpers for the order lifecycle, race and crash tests: the database effects a test checks after
// talking HTTP (stock, reserved units, orders, outbox rows, payment events, refunds), a fixed
// clock, and a buyer who has paid for a cart.
import { readdir } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { products } from '../../src/modules/catalog/tables.ts';
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

/** The product's stock and live reserved units, as stored. */
export async function stockOf(database: TestDatabase, productId: string) {
  const [row] = await database.db
    .select({ stock: products.stockQuantity, reserved: products.reservedQuantity })
    .from(products)
    .where(eq(products.id, productId));
  if (!row) throw new Error(`no product ${productId}`);
  return row;
}

/** Live reservation rows of a product (neither released nor committed), summed. */
export async function liveReservedUnits(database: TestDatabase, productId: string): Promise<number> {
  const [row] = await database.db
    .select({ n: sql<number>`coalesce(sum(${reservations.quantity}), 0)::int` })
    .from(reservations)
    .where(
      sql`${reservations.productId} = ${productId} and ${reservations.releasedAt} is null and ${reservations.committedAt} is null`,
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

/** A seller, a product of theirs, a buyer who paid for `quantity` of it: answers all of it. */
export async function paidOrder(
  t: TestApp,
  opts: { seller?: SignedIn; product?: Product; buyer?: SignedIn; quantity?: number; stock?: number } = {},
) {
  const s = opts.seller ?? (await seller(t.api));
  const p = opts.product ?? (await product(t.api, s, { priceCents: 2000, stockQuantity: opts.stock ?? 10 }));
  const b = opts.buyer ?? (await buyer(t.api));
  await addToCart(t.api, b, p.id, opts.quantity ?? 1);
  const session = await openCheckout(t.api, b, ON_ADDRESS);
  const orderIds = await payOk(t.api, session.sessionId);
  expect(orderIds).toHaveLength(1);
  return { seller: s, product: p, buyer: b, session, orderId: orderIds[0]! };
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
