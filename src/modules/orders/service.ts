// Orders: created from a paid checkout in exactly one function (createFromCheckout), one per
// seller, in the transaction that records the payment; then moved only by the transitions of
// states.ts. Refunds are intents written with the change that causes them, sent to the provider
// after commit and retried by a job (README "Orders"; ../shared/design/decisions.md,
// "Checkout, payment, orders" and "The 14th tool"). The returns module reads, locks and refunds
// orders only through the functions of "returns" below; a return's refund, once the provider
// confirms it, marks the return refunded in the same transaction (returns/refunded.ts).
import { and, asc, count, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { isRecordId, newId, type Province, randomKey, toUnix } from '../../contract/common.ts';
import { conflict, forbidden, notFound } from '../../contract/errors.ts';
import type { listOrdersQuery, OrderStatus, orderDetail, orderListItem } from '../../contract/orders.ts';
import { insertInto } from '../../db/sql.ts';
import { shopNames } from '../auth/sellers.ts';
import { findUser } from '../auth/users.ts';
import { clearPurchased } from '../cart/service.ts';
import { completeSession, expireCheckout, lockSessionForPayment, shipFromOf } from '../checkout/service.ts';
import type { StoredAddress } from '../checkout/tables.ts';
import { type AuthUser, caller, inTransaction, type RequestContext } from '../context.ts';
import { couponLimitReached, redeemCoupon } from '../coupons/service.ts';
import { commitParcel, commitParcels, lockProducts, restock } from '../inventory/service.ts';
import { enqueueMail } from '../mail/outbox.ts';
import {
  type OrderMailOrder,
  orderCancelledEmail,
  orderPaidEmail,
  orderRefundedEmail,
  orderShippedEmail,
  paymentRefundedEmail,
} from '../mail/templates.ts';
import { type PaymentProvider, ProviderError } from '../payments/provider.ts';
import { refunds } from '../payments/tables.ts';
import { markReturnRefunded } from '../returns/refunded.ts';
import { type Actor, refusal, TRANSITIONS, type TransitionName } from './states.ts';
import { orderItems, orders } from './tables.ts';

export interface OrdersDeps {
  provider: PaymentProvider;
  publicBaseUrl: string;
  platformFeeBps: number;
  /** Wakes a background job now (the mail just written, a refund to retry). */
  nudge(job: 'mail' | 'refunds'): void;
}

type OrderRow = typeof orders.$inferSelect;
type ItemRow = typeof orderItems.$inferSelect;
type Detail = z.infer<typeof orderDetail>;

/** Pending orders are cancelled and refunded after this long (README "Order states"). */
const PENDING_MAX_AGE_SECONDS = 48 * 3600;

// ---- money and dates -------------------------------------------------------------------------

/** bps of an amount, rounded half-up to the cent (integer math only). */
export const feeOf = (amountCents: number, bps: number) => Math.floor((amountCents * bps + 5_000) / 10_000);

const TERRITORIES = new Set(['YT', 'NT', 'NU']);

/** Today's date in Toronto as YYYY-MM-DD (made once: making a formatter costs more than using it). */
const TORONTO_DAY = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Toronto',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The day (YYYY-MM-DD, America/Toronto) `businessDays` working days after `from`. */
function addBusinessDays(from: Date, businessDays: number): string {
  const today = TORONTO_DAY.format(from);
  const day = new Date(`${today}T12:00:00Z`);
  let left = businessDays;
  while (left > 0) {
    day.setUTCDate(day.getUTCDate() + 1);
    const weekday = day.getUTCDay();
    if (weekday !== 0 && weekday !== 6) left--;
  }
  return day.toISOString().slice(0, 10);
}

/**
 * The last days answered, by minute and count of days: a day in Toronto starts on a whole
 * minute, so one minute has one answer, and every payment of that minute shares it (the date's
 * formatting in its time zone was about 1% of the service's CPU per payment). Bounded.
 */
const deliveryDays = new Map<string, string>();

/** Confirmation date plus 3 business days within a province, 7 to another, 12 to the territories. */
export function estimatedDelivery(from: Date, origin: string, destination: string): string {
  const days = TERRITORIES.has(destination) ? 12 : origin === destination ? 3 : 7;
  const key = `${Math.floor(from.getTime() / 60_000)}:${days}`;
  let day = deliveryDays.get(key);
  if (day === undefined) {
    if (deliveryDays.size >= 16) deliveryDays.clear();
    day = addBusinessDays(from, days);
    deliveryDays.set(key, day);
  }
  return day;
}

// ---- creation: the one place -----------------------------------------------------------------

export type PaymentOutcome =
  | { outcome: 'created'; orderIds: string[] }
  /** Paid before: its orders; a second, different payment is refunded (the refund's id). */
  | { outcome: 'already'; orderIds: string[]; refundId?: string }
  /** No order: paid another amount than quoted, for a session that had ended, or past its coupon's limit; the payment refunded. */
  | { outcome: 'refused'; refundId: string | undefined }
  | { outcome: 'unknown_checkout' };

/** A checkout's session locked for its payment (undefined: no such checkout). */
export type LockedSession = Awaited<ReturnType<typeof lockSessionForPayment>>;

/** The orders of a payment, and their items (built once; see db/prepared.ts). */
const insertOrders = insertInto('orders_insert', orders);
const insertItems = insertInto('order_items_insert', orderItems);

/**
 * Turns a paid checkout into its orders: one per seller, `confirmed` with the units taken from
 * the reservation (or `pending` when they cannot be taken any more), the coupon's use counted,
 * what was bought taken out of the cart, the session completed and the order email written to
 * the outbox, all in ctx's transaction. A checkout already paid answers its orders and changes
 * nothing, whatever event reported it; `(checkout_id, seller_id)` is unique besides.
 */
export async function createFromCheckout(
  ctx: RequestContext,
  deps: OrdersDeps,
  payment: { checkoutId: string; paymentIntentId: string; amountCents: number },
  /** The session, when the caller locked it already (lockSessionForPayment, in ctx's transaction). */
  locked?: { session: LockedSession },
): Promise<PaymentOutcome> {
  return inTransaction(ctx, async (tx) => {
    const session = locked ? locked.session : await lockSessionForPayment(tx, payment.checkoutId);
    if (!session) return { outcome: 'unknown_checkout' };
    if (session.status === 'complete') {
      const orderIds = await orderIdsOfCheckout(tx, session.id);
      if (session.paymentIntentId === payment.paymentIntentId || payment.amountCents <= 0) {
        return { outcome: 'already', orderIds };
      }
      // Another payment for a checkout already paid (paid twice, in two tabs): refunded whole,
      // once (the event id is recorded in this same transaction).
      tx.log.warn(
        { checkoutId: session.id, paid: session.paymentIntentId, again: payment.paymentIntentId },
        'a second payment for a checkout already paid: refunded',
      );
      const refundId = await requestRefund(
        tx,
        { id: session.id, paymentIntentId: payment.paymentIntentId },
        payment.amountCents,
        'duplicate_payment',
      );
      return { outcome: 'already', orderIds, refundId };
    }
    if (session.status !== 'ready_for_payment') {
      // A payment for a session that had ended (replaced by a newer checkout, or expired): its
      // stock and coupon went back, so it makes no order. The session keeps its status; the
      // whole payment is refunded, once per payment, and the buyer told.
      tx.log.warn(
        { checkoutId: session.id, status: session.status, paymentIntentId: payment.paymentIntentId },
        'a payment for a checkout that had ended: no order, refunded',
      );
      return { outcome: 'refused', refundId: await refundWhole(tx, session, payment, 'checkout_closed') };
    }
    if (session.couponCode && (await couponLimitReached(tx, session.couponCode, session.buyerId))) {
      // Counted again here, under the coupon's lock, where the redemption is written: a use
      // that would pass a limit makes no order, and the payment goes back.
      tx.log.warn(
        { checkoutId: session.id, coupon: session.couponCode },
        'a payment whose coupon reached its limit meanwhile: no order, refunded',
      );
      await expireCheckout(tx, session.id);
      return { outcome: 'refused', refundId: await refundWhole(tx, session, payment, 'coupon_used_up') };
    }
    if (payment.amountCents !== session.totalCents) {
      // The provider charged something else than the quote the orders would record: no order;
      // the session ends (its stock goes back) and what was paid is refunded.
      tx.log.error(
        { checkoutId: session.id, quoted: session.totalCents, paid: payment.amountCents },
        'the amount paid differs from the quote: no order, the payment is refunded',
      );
      await expireCheckout(tx, session.id);
      const refundId =
        payment.amountCents > 0
          ? await requestRefund(
              tx,
              { id: session.id, paymentIntentId: payment.paymentIntentId },
              payment.amountCents,
              'amount_mismatch',
            )
          : undefined;
      return { outcome: 'refused', refundId };
    }
    const now = tx.now();
    const { phone: _phone, ...address } = session.address as StoredAddress;
    await lockProducts(
      tx,
      session.parcels.flatMap((p) => p.items.map((i) => i.productId)),
    );
    // Each parcel's units first (in parcel order, the products locked above), then all the
    // orders in one insert and all their items in another.
    const committed = await commitParcels(
      tx,
      session.id,
      session.parcels.map((p) => p.items.map((i) => ({ productId: i.productId, quantity: i.quantity }))),
    );
    const ids = session.parcels.map(() => newId('orders'));
    const rows = session.parcels.map((parcel, n) => ({
      id: ids[n]!,
      checkoutId: session.id,
      buyerId: session.buyerId,
      sellerId: parcel.sellerId,
      status: committed[n] ? ('confirmed' as const) : ('pending' as const),
      subtotalCents: parcel.subtotalCents,
      discountCents: parcel.discountCents,
      shippingCostCents: parcel.shippingCostCents,
      taxAmountCents: parcel.taxAmountCents,
      taxLines: parcel.taxLines,
      platformFeeCents: feeOf(parcel.subtotalCents - parcel.discountCents, deps.platformFeeBps),
      totalAmountCents: parcel.totalCents,
      shippingAddress: address,
      paymentIntentId: payment.paymentIntentId,
      stockCommitted: committed[n]!,
      itemCount: parcel.items.reduce((k, i) => k + i.quantity, 0),
      estimatedDelivery: estimatedDelivery(now, parcel.originProvince, address.province),
      createdAt: now,
      confirmedAt: committed[n] ? now : null,
    }));
    const items = session.parcels.map((parcel, n) =>
      parcel.items.map((item, position) => ({
        orderId: ids[n]!,
        productId: item.productId,
        name: item.name,
        quantity: item.quantity,
        unitPriceCents: item.unitPriceCents,
        imageUrl: item.imageUrl,
        position,
      })),
    );
    // What is written here is not read back (the rows are those above): these statements, and
    // the ones below, go out with the commit (db/batching-client.ts).
    await insertOrders.later(tx.db, rows);
    await insertItems.later(tx.db, items.flat());
    const created = rows.map((row, n) => ({ ...row, trackingNumber: null, carrier: null, items: items[n]! }));
    // Nothing of the session is held any more: each parcel's reservations were committed, or
    // released when its stock could not be taken.
    if (session.couponCode) await redeemCoupon(tx, session.couponCode, session.buyerId, created[0]!.id);
    await clearPurchased(
      tx,
      session.buyerId,
      session.parcels.flatMap((p) => p.items),
      session.couponCode,
    );
    await completeSession(tx, session.id, payment.paymentIntentId);

    // The names were read with the session (lockSessionForPayment).
    const buyer = session.mailNames.buyer;
    if (buyer) {
      const mailOrders = await mailOrdersOf(tx, created, new Map(Object.entries(session.mailNames.shops)));
      await enqueueMail(tx, {
        dedupeKey: `order-paid:${session.id}`,
        kind: 'order-paid',
        to: buyer.email,
        ...orderPaidEmail({
          buyerName: buyer.name,
          orders: mailOrders,
          totalCents: session.totalCents,
        }),
      });
    }
    return { outcome: 'created', orderIds: created.map((o) => o.id) };
  });
}

/**
 * The refund of a whole payment that made no order (its checkout had ended, or its coupon was
 * used up), with the buyer's email saying so; written once per payment (the session is locked).
 */
async function refundWhole(
  tx: RequestContext,
  session: NonNullable<LockedSession>,
  payment: { paymentIntentId: string; amountCents: number },
  reason: 'checkout_closed' | 'coupon_used_up',
): Promise<string | undefined> {
  if (payment.amountCents <= 0) return undefined;
  const [before] = await tx.db
    .select({ id: refunds.id })
    .from(refunds)
    .where(and(eq(refunds.orderId, session.id), eq(refunds.paymentIntentId, payment.paymentIntentId)));
  if (before) return undefined;
  const refundId = await requestRefund(
    tx,
    { id: session.id, paymentIntentId: payment.paymentIntentId },
    payment.amountCents,
    reason,
  );
  const buyer = session.mailNames.buyer;
  if (buyer) {
    await enqueueMail(tx, {
      dedupeKey: `payment-refunded:${payment.paymentIntentId}`,
      kind: 'payment-refunded',
      to: buyer.email,
      ...paymentRefundedEmail({ buyerName: buyer.name, amountCents: payment.amountCents, reason }),
    });
  }
  return refundId;
}

/** What an order's email shows of it. */
type MailedOrder = Pick<
  OrderRow,
  | 'id'
  | 'sellerId'
  | 'subtotalCents'
  | 'discountCents'
  | 'shippingCostCents'
  | 'taxLines'
  | 'taxAmountCents'
  | 'totalAmountCents'
  | 'estimatedDelivery'
  | 'trackingNumber'
  | 'carrier'
  | 'shippingAddress'
> & { items: Array<Pick<ItemRow, 'name' | 'quantity' | 'unitPriceCents' | 'position'>> };

async function mailOrdersOf(
  ctx: RequestContext,
  list: MailedOrder[],
  /** The sellers' shop names, when already read. */
  shops?: Map<string, string>,
): Promise<OrderMailOrder[]> {
  const names =
    shops ??
    (await shopNames(
      ctx,
      list.map((o) => o.sellerId),
    ));
  return list.map((o) => ({
    id: o.id,
    sellerName: names.get(o.sellerId) ?? 'Portage seller',
    items: [...o.items]
      .sort((a, b) => a.position - b.position)
      .map((i) => ({ name: i.name, quantity: i.quantity, unitPriceCents: i.unitPriceCents })),
    subtotalCents: o.subtotalCents,
    discountCents: o.discountCents,
    shippingCostCents: o.shippingCostCents,
    taxLines: o.taxLines,
    taxAmountCents: o.taxAmountCents,
    totalAmountCents: o.totalAmountCents,
    estimatedDelivery: o.estimatedDelivery,
    trackingNumber: o.trackingNumber,
    carrier: o.carrier,
    shippingAddress: o.shippingAddress,
  }));
}

// ---- reading ---------------------------------------------------------------------------------

export async function orderIdsOfCheckout(ctx: RequestContext, checkoutId: string): Promise<string[]> {
  const rows = await ctx.db
    .select({ id: orders.id })
    .from(orders)
    .where(eq(orders.checkoutId, checkoutId))
    .orderBy(asc(orders.sellerId));
  return rows.map((r) => r.id);
}

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

/** An order's items as sold, in the order of the cart. */
function soldItems(items: ItemRow[]) {
  return [...items]
    .sort((a, b) => a.position - b.position)
    .map((i) => ({
      productId: i.productId,
      name: i.name,
      quantity: i.quantity,
      unitPriceCents: i.unitPriceCents,
      imageUrl: i.imageUrl,
    }));
}

function toDetail(row: OrderRow, items: ItemRow[]): Detail {
  return {
    id: row.id,
    buyerId: row.buyerId,
    sellerId: row.sellerId,
    status: row.status,
    items: soldItems(items),
    subtotalCents: row.subtotalCents,
    taxAmountCents: row.taxAmountCents,
    shippingCostCents: row.shippingCostCents,
    discountCents: row.discountCents,
    platformFeeCents: row.platformFeeCents,
    totalAmountCents: row.totalAmountCents,
    shippingAddress: row.shippingAddress as Detail['shippingAddress'],
    trackingNumber: row.trackingNumber,
    createdAt: toUnix(row.createdAt),
    confirmedAt: row.confirmedAt ? toUnix(row.confirmedAt) : null,
    shippedAt: row.shippedAt ? toUnix(row.shippedAt) : null,
    deliveredAt: row.deliveredAt ? toUnix(row.deliveredAt) : null,
    paymentIntentId: row.paymentIntentId,
    refundRequested: row.refundRequested,
    taxLines: row.taxLines,
    carrier: row.carrier,
    cancelledAt: row.cancelledAt ? toUnix(row.cancelledAt) : null,
    refundedCents: row.refundedCents,
    estimatedDelivery: row.estimatedDelivery,
    itemCount: row.itemCount,
  };
}

const toListItem = (row: OrderRow): z.infer<typeof orderListItem> => ({
  id: row.id,
  buyerId: row.buyerId,
  status: row.status,
  totalAmountCents: row.totalAmountCents,
  createdAt: toUnix(row.createdAt),
  confirmedAt: row.confirmedAt ? toUnix(row.confirmedAt) : null,
  itemCount: row.itemCount,
  estimatedDelivery: row.estimatedDelivery,
  sellerId: row.sellerId,
});

/** GET /orders (list_orders) for the buyer, or GET /sellers/me/orders for the seller. */
export async function listOrders(
  ctx: RequestContext,
  q: z.infer<typeof listOrdersQuery>,
  as: 'buyer' | 'seller',
) {
  const me = caller(ctx);
  const mine = as === 'buyer' ? eq(orders.buyerId, me.id) : eq(orders.sellerId, me.id);
  const where = q.status ? and(mine, eq(orders.status, q.status)) : mine;
  const order =
    q.sort === 'oldest' ? [asc(orders.createdAt), asc(orders.id)] : [desc(orders.createdAt), desc(orders.id)];
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(orders)
      .where(where)
      .orderBy(...order)
      .limit(q.limit)
      .offset(q.offset),
    ctx.db.select({ n: count() }).from(orders).where(where),
  ]);
  return { orders: rows.map(toListItem), total: total?.n ?? 0, limit: q.limit, offset: q.offset };
}

/** The order if the caller may see it: its buyer, its seller, or an admin. Otherwise 404. */
async function visibleOrder(ctx: RequestContext, me: AuthUser, orderId: string, lock = false) {
  if (!isRecordId('orders', orderId)) throw notFound(`Order ${orderId} not found`);
  const query = ctx.db.select().from(orders).where(eq(orders.id, orderId));
  const [row] = lock ? await query.for('update') : await query;
  if (!row || (row.buyerId !== me.id && row.sellerId !== me.id && me.role !== 'admin')) {
    throw notFound(`Order ${orderId} not found`);
  }
  return row;
}

async function itemsOf(ctx: RequestContext, orderId: string) {
  return ctx.db.select().from(orderItems).where(eq(orderItems.orderId, orderId));
}

export async function getOrder(ctx: RequestContext, orderId: string): Promise<Detail> {
  const row = await visibleOrder(ctx, caller(ctx), orderId);
  return toDetail(row, await itemsOf(ctx, orderId));
}

// ---- transitions -----------------------------------------------------------------------------

function actorOf(me: AuthUser, row: OrderRow): Actor {
  if (me.role === 'admin') return 'admin';
  if (row.sellerId === me.id) return 'seller';
  return 'buyer';
}

/**
 * Applies a transition as one conditional update (`where status in from`): answers the updated
 * row, or throws 409 naming why, 403 when this caller may not make it.
 */
async function transition(
  ctx: RequestContext,
  row: OrderRow,
  name: TransitionName,
  actor: Actor,
  set: Partial<typeof orders.$inferInsert>,
): Promise<OrderRow> {
  const t = TRANSITIONS[name];
  if (!(t.by as readonly Actor[]).includes(actor)) {
    throw forbidden(`Only the order's ${t.by.filter((a) => a !== 'system').join(' or ')} can do this`);
  }
  const [updated] = await ctx.db
    .update(orders)
    .set({ ...set, status: t.to })
    .where(and(eq(orders.id, row.id), inArray(orders.status, [...t.from] as OrderStatus[])))
    .returning();
  if (!updated) {
    const [now] = await ctx.db.select({ status: orders.status }).from(orders).where(eq(orders.id, row.id));
    throw conflict(refusal(name, now?.status ?? row.status));
  }
  return updated;
}

async function buyerMail(
  ctx: RequestContext,
  row: OrderRow,
  items: ItemRow[],
  dedupeKey: string,
  build: (buyerName: string, order: OrderMailOrder) => { subject: string; text: string; html: string },
) {
  const buyer = await findUser(ctx, row.buyerId);
  if (!buyer) return;
  const [order] = await mailOrdersOf(ctx, [{ ...row, items }]);
  await enqueueMail(ctx, {
    dedupeKey,
    kind: dedupeKey.split(':')[0]!,
    to: buyer.email,
    ...build(buyer.name, order!),
  });
}

/** POST /orders/:id/ship: the seller sends it, with a tracking number. */
export async function shipOrder(
  ctx: RequestContext,
  deps: OrdersDeps,
  orderId: string,
  input: { trackingNumber: string; carrier: string },
): Promise<Detail> {
  const me = caller(ctx);
  const detail = await inTransaction(ctx, async (tx) => {
    const row = await visibleOrder(tx, me, orderId);
    const updated = await transition(tx, row, 'ship', actorOf(me, row), {
      trackingNumber: input.trackingNumber,
      carrier: input.carrier,
      shippedAt: tx.now(),
    });
    const items = await itemsOf(tx, orderId);
    await buyerMail(tx, updated, items, `order-shipped:${orderId}`, (buyerName, order) =>
      orderShippedEmail({ buyerName, order }),
    );
    return toDetail(updated, items);
  });
  deps.nudge('mail');
  return detail;
}

/** POST /orders/:id/deliver. */
export async function deliverOrder(ctx: RequestContext, orderId: string): Promise<Detail> {
  const me = caller(ctx);
  return inTransaction(ctx, async (tx) => {
    const row = await visibleOrder(tx, me, orderId);
    const updated = await transition(tx, row, 'deliver', actorOf(me, row), { deliveredAt: tx.now() });
    return toDetail(updated, await itemsOf(tx, orderId));
  });
}

/**
 * POST /orders/:id/confirm: the seller of a `pending` order has the stock after all; its units
 * leave the stock now (409 when they still are not there).
 */
export async function confirmPendingOrder(ctx: RequestContext, orderId: string): Promise<Detail> {
  const me = caller(ctx);
  return inTransaction(ctx, async (tx) => {
    const row = await visibleOrder(tx, me, orderId, true);
    const items = await itemsOf(tx, orderId);
    if (row.status === 'pending') {
      await lockProducts(
        tx,
        items.map((i) => i.productId),
      );
      const taken = await commitParcel(
        tx,
        null,
        items.map((i) => ({ productId: i.productId, quantity: i.quantity })),
      );
      if (!taken) throw conflict('Not enough stock to confirm this order yet: restock the products first');
    }
    const now = tx.now();
    // From where the parcel ships (the seller's province when it was sold) to where it goes.
    const destination = (row.shippingAddress as { province: string }).province;
    const origin = (await shipFromOf(tx, row.checkoutId, row.sellerId)) ?? destination;
    const updated = await transition(tx, row, 'confirm', actorOf(me, row), {
      stockCommitted: true,
      confirmedAt: now,
      estimatedDelivery: estimatedDelivery(now, origin, destination),
    });
    return toDetail(updated, items);
  });
}

/**
 * Cancels an order that has not shipped (cancel_order; a pending order left 48 hours): its units
 * go back to stock in the same transaction if they had left it, and a full refund of what is not
 * yet refunded is written as an intent, then sent to the provider after commit.
 */
export async function cancelOrder(
  ctx: RequestContext,
  deps: OrdersDeps,
  orderId: string,
  reason: string | undefined,
  asActor?: 'system',
): Promise<Detail & { refund_amount_cents: number }> {
  const result = await inTransaction(ctx, async (tx) => {
    let row: OrderRow;
    let actor: Actor;
    if (asActor === 'system') {
      // Another instance cancelling it holds the row: skip it (the job's claim).
      [row] = (await tx.db
        .select()
        .from(orders)
        .where(eq(orders.id, orderId))
        .for('update', { skipLocked: true })) as [OrderRow];
      if (!row) throw conflict(`Order ${orderId} is being changed elsewhere`);
      actor = 'system';
    } else {
      const me = caller(ctx);
      row = await visibleOrder(tx, me, orderId, true);
      actor = actorOf(me, row);
    }
    const items = await itemsOf(tx, orderId);
    const name: TransitionName = actor === 'system' ? 'expirePending' : 'cancel';
    const now = tx.now();
    const updated = await transition(tx, row, name, actor, {
      cancelledAt: now,
      cancelReason: reason ?? (actor === 'system' ? 'Not confirmed by the seller within 48 hours' : null),
      refundRequested: true,
    });
    if (row.stockCommitted) {
      await lockProducts(
        tx,
        items.map((i) => i.productId),
      );
      await restock(
        tx,
        items.map((i) => ({ productId: i.productId, quantity: i.quantity })),
      );
    }
    const amount = updated.totalAmountCents - updated.refundedCents;
    let refundId: string | undefined;
    if (amount > 0) {
      refundId = await requestRefund(tx, updated, amount, 'cancelled');
    }
    await buyerMail(tx, updated, items, `order-cancelled:${orderId}`, (buyerName, order) =>
      orderCancelledEmail({ buyerName, order, reason: updated.cancelReason ?? '', refundCents: amount }),
    );
    return { detail: toDetail(updated, items), amount, refundId };
  });
  deps.nudge('mail');
  if (result.refundId) await sendRefund(ctx, deps, result.refundId);
  return { ...result.detail, refund_amount_cents: result.amount };
}

// ---- refunds ---------------------------------------------------------------------------------

/** Writes a refund intent in ctx's transaction; answers its id (also the provider's idempotency key). */
async function requestRefund(
  ctx: RequestContext,
  /** The order refunded (or the checkout, for a payment that made no order) and its payment. */
  row: Pick<OrderRow, 'id' | 'paymentIntentId'>,
  amountCents: number,
  reason: string,
  /** The return whose approval asks for it (refunds.return_id is unique: one refund per return). */
  returnId?: string,
): Promise<string> {
  const id = `refund_${randomKey(12)}`;
  await ctx.db.insert(refunds).values({
    id,
    orderId: row.id,
    paymentIntentId: row.paymentIntentId,
    amountCents,
    reason,
    returnId: returnId ?? null,
    nextAttemptAt: ctx.now(),
    createdAt: ctx.now(),
  });
  return id;
}

// ---- returns: the returns module reads and refunds orders only through these ----------------

export interface ReturnableOrder {
  id: string;
  buyerId: string;
  sellerId: string;
  status: OrderStatus;
  deliveredAt: Date | null;
  subtotalCents: number;
  discountCents: number;
  shippingCostCents: number;
  taxAmountCents: number;
  totalAmountCents: number;
  items: Array<{ productId: string; name: string; quantity: number; unitPriceCents: number }>;
  /** The total less the refunds requested or made (a failed refund gave nothing back). */
  unrefundedCents: number;
}

/** What is left to refund of an order: its total less refunds requested or succeeded, not failed. */
/** What each order has refunded or has a refund on the way for (requested or made), in cents. */
export async function refundedCentsOf(ctx: RequestContext, orderIds: string[]): Promise<Map<string, number>> {
  if (orderIds.length === 0) return new Map();
  const rows = await ctx.db
    .select({ orderId: refunds.orderId, cents: sql<number>`sum(${refunds.amountCents})::int` })
    .from(refunds)
    .where(and(inArray(refunds.orderId, orderIds), inArray(refunds.status, ['requested', 'succeeded'])))
    .groupBy(refunds.orderId);
  return new Map(rows.map((r) => [r.orderId, Number(r.cents)]));
}

async function unrefundedCentsOf(ctx: RequestContext, row: OrderRow): Promise<number> {
  const [sum] = await ctx.db
    .select({ cents: sql<number>`coalesce(sum(${refunds.amountCents}), 0)::int` })
    .from(refunds)
    .where(and(eq(refunds.orderId, row.id), inArray(refunds.status, ['requested', 'succeeded'])));
  return Math.max(0, row.totalAmountCents - Number(sum?.cents ?? 0));
}

/**
 * The order a return is about, locked (FOR UPDATE) in ctx's transaction: its returns and refunds
 * change one at a time. Every path that changes a return takes this lock first, then the
 * return's row (one lock order, no deadlock). With `buyerId`, another buyer's order is 404.
 */
export async function lockOrderForReturn(
  ctx: RequestContext,
  orderId: string,
  buyerId?: string,
): Promise<ReturnableOrder> {
  if (!isRecordId('orders', orderId)) throw notFound(`Order ${orderId} not found`);
  const [row] = await ctx.db.select().from(orders).where(eq(orders.id, orderId)).for('update');
  if (!row || (buyerId !== undefined && row.buyerId !== buyerId))
    throw notFound(`Order ${orderId} not found`);
  const items = await itemsOf(ctx, orderId);
  return {
    id: row.id,
    buyerId: row.buyerId,
    sellerId: row.sellerId,
    status: row.status,
    deliveredAt: row.deliveredAt,
    subtotalCents: row.subtotalCents,
    discountCents: row.discountCents,
    shippingCostCents: row.shippingCostCents,
    taxAmountCents: row.taxAmountCents,
    totalAmountCents: row.totalAmountCents,
    items: soldItems(items).map(({ imageUrl: _, ...item }) => item),
    unrefundedCents: await unrefundedCentsOf(ctx, row),
  };
}

/** A return was requested: the order says so (`refundRequested`), in ctx's transaction. */
export async function markRefundRequested(ctx: RequestContext, orderId: string): Promise<void> {
  await ctx.db.update(orders).set({ refundRequested: true }).where(eq(orders.id, orderId));
}

/**
 * Writes the refund of an approved return as an intent in ctx's transaction (the caller holds the
 * order's lock, lockOrderForReturn): at most `maxCents`, and never more than is left unrefunded
 * (refunds requested or made count). Answers the amount and the refund's id (none when nothing
 * is left); the caller sends it with sendRefund after commit.
 */
export async function requestReturnRefund(
  ctx: RequestContext,
  input: { orderId: string; returnId: string; maxCents: number },
): Promise<{ refundId: string | undefined; amountCents: number }> {
  const [row] = await ctx.db.select().from(orders).where(eq(orders.id, input.orderId));
  if (!row) throw notFound(`Order ${input.orderId} not found`);
  const amountCents = Math.min(input.maxCents, await unrefundedCentsOf(ctx, row));
  if (amountCents <= 0) return { refundId: undefined, amountCents: 0 };
  const refundId = await requestRefund(ctx, row, amountCents, 'return', input.returnId);
  return { refundId, amountCents };
}

/**
 * Waits before the next try of a refund: 1 min, 5 min, 30 min, 2 h, 6 h, 10 h (about 19 hours in
 * all). Then it is `failed` for an operator: every try uses the same idempotency key, and Stripe
 * remembers a key for 24 hours only, so a later try could refund twice.
 */
const REFUND_BACKOFF_SECONDS = [60, 300, 1800, 7200, 21_600, 36_000];
const MAX_REFUND_ATTEMPTS = REFUND_BACKOFF_SECONDS.length + 1;

/**
 * Sends one refund to the provider: claimed first by moving its next attempt forward (so two
 * instances never send it at once), then sent outside any transaction with the refund's id as
 * the idempotency key, then recorded: the order's refunded amount and the buyer's email.
 */
export async function sendRefund(ctx: RequestContext, deps: OrdersDeps, refundId: string): Promise<boolean> {
  const now = ctx.now();
  const [claimed] = await ctx.db
    .update(refunds)
    .set({
      attempts: sql`${refunds.attempts} + 1`,
      nextAttemptAt: sql`${now}::timestamptz + make_interval(secs => (array[${sql.raw(
        REFUND_BACKOFF_SECONDS.join(','),
      )}])[least(${refunds.attempts} + 1, ${REFUND_BACKOFF_SECONDS.length})])`,
    })
    .where(and(eq(refunds.id, refundId), eq(refunds.status, 'requested'), lte(refunds.nextAttemptAt, now)))
    .returning();
  if (!claimed) return false;
  try {
    const done = await deps.provider.refund({
      paymentIntentId: claimed.paymentIntentId,
      amountCents: claimed.amountCents,
      idempotencyKey: claimed.id,
    });
    await inTransaction(ctx, async (tx) => {
      const [marked] = await tx.db
        .update(refunds)
        .set({ status: 'succeeded', providerRefundId: done.refundId, completedAt: tx.now(), lastError: null })
        .where(and(eq(refunds.id, claimed.id), eq(refunds.status, 'requested')))
        .returning();
      if (!marked) return;
      const [row] = await tx.db
        .update(orders)
        .set({ refundedCents: sql`${orders.refundedCents} + ${claimed.amountCents}` })
        .where(eq(orders.id, claimed.orderId))
        .returning();
      // A return's refund: the return becomes `refunded` with it, and its own email tells the buyer.
      if (claimed.returnId && (await markReturnRefunded(tx, claimed.returnId, claimed.amountCents))) return;
      if (row) {
        await buyerMail(tx, row, await itemsOf(tx, row.id), `refund:${claimed.id}`, (buyerName, order) =>
          orderRefundedEmail({ buyerName, order, refundCents: claimed.amountCents }),
        );
      }
    });
    deps.nudge('mail');
    return true;
  } catch (err) {
    const message = err instanceof ProviderError ? err.message : 'unexpected error';
    const giveUp =
      (err instanceof ProviderError && !err.retryable) || claimed.attempts >= MAX_REFUND_ATTEMPTS;
    ctx.log.error({ refundId: claimed.id, err: message, giveUp }, 'refund not sent');
    await ctx.db
      .update(refunds)
      .set({ lastError: message.slice(0, 500), ...(giveUp ? { status: 'failed' as const } : {}) })
      .where(eq(refunds.id, claimed.id));
    return false;
  }
}

/** The refunds job's pass: sends the due refunds (at most `limit`). */
export async function sendDueRefunds(ctx: RequestContext, deps: OrdersDeps, limit: number): Promise<number> {
  const due = await ctx.db
    .select({ id: refunds.id })
    .from(refunds)
    .where(and(eq(refunds.status, 'requested'), lte(refunds.nextAttemptAt, ctx.now())))
    .orderBy(refunds.nextAttemptAt)
    .limit(limit);
  for (const r of due) await sendRefund(ctx, deps, r.id);
  return due.length;
}

/** The pending-orders job's pass: cancels (and refunds) pending orders older than 48 hours. */
export async function cancelStalePendingOrders(
  ctx: RequestContext,
  deps: OrdersDeps,
  limit: number,
): Promise<number> {
  const before = new Date(ctx.now().getTime() - PENDING_MAX_AGE_SECONDS * 1000);
  const due = await ctx.db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.status, 'pending'), lte(orders.createdAt, before)))
    .orderBy(orders.createdAt)
    .limit(limit);
  for (const o of due) {
    try {
      await cancelOrder(ctx, deps, o.id, undefined, 'system');
    } catch (err) {
      // Another instance (or the seller) got there first: the conditional update said 409.
      if (!(err instanceof Error && 'code' in err && err.code === 'CONFLICT')) throw err;
    }
  }
  return due.length;
}
