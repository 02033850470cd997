// Orders after they exist: reading them, and moving them only by the transitions of states.ts
// (each publishes its event). They are created in one place, purchase/flow.ts; their refunds are
// payments/refunds.ts; the returns module reaches them only through for-returns.ts
// (docs/api.md "Orders", "Refunds"; docs/decisions.md "Orders").
import { and, asc, count, desc, eq, gt, lte, or, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { isRecordId, toUnix } from '../../contract/common.ts';
import { conflict, forbidden, notFound } from '../../contract/errors.ts';
import type { listOrdersQuery, orderDetail, orderListItem } from '../../contract/orders.ts';
import { recordAdminAction } from '../audit/service.ts';
import { type AuthUser, caller, inTransaction, type RequestContext } from '../context.ts';
import { type EventOf, type Links, publish } from '../events.ts';
import { commitParcel, lockVariants, restock } from '../inventory/service.ts';
import type { InvoiceLinks } from '../invoices/links.ts';
import { type RefundDeps, requestRefund, sendRefund } from '../payments/refunds.ts';
import { addBusinessDays, estimatedDelivery, torontoDate } from '../pricing/dates.ts';
import type { LabelDeps } from '../shipping/labels.ts';
import type { AdapterOrderItem } from './create.ts';
import { UNCONFIRMED_REASON } from './mail.ts';
import { type Actor, orderMachine, type TransitionName } from './states.ts';
import { orderItems, orderLabels, orders, orderTracking } from './tables.ts';
import { isCanadaPost } from './tracking.ts';

export interface OrdersDeps extends RefundDeps {
  publicBaseUrl: string;
  platformFeeBps: number;
  /** Signed links to invoices, for the paid email (invoices/links.ts). */
  invoiceLinks?: InvoiceLinks;
  /** Labels and tracking (labels.ts): Canada Post with credentials, else the sandbox. */
  labels?: LabelDeps;
  /** A dispute's fee when the provider does not say (DISPUTE_FEE_CENTS). */
  disputeFeeCents?: number;
}

export type OrderRow = typeof orders.$inferSelect;
type ItemRow = typeof orderItems.$inferSelect;
/** The API's detail; its lines also carry what was sold (the answer's schema keeps the interface's fields). */
type Detail = Omit<z.infer<typeof orderDetail>, 'items'> & { items: ReturnType<typeof soldItems> };

/** Pending orders are cancelled and refunded after this long (docs/api.md "Order states"). */
const PENDING_MAX_AGE_SECONDS = 48 * 3600;

export { ordersWrittenIn } from './create.ts';
// The reads other modules make of orders (their statements are queries.ts).
export {
  lastShippingProvince,
  moneyOfOrders,
  numberedOrdersOfCheckout,
  type OrderMoney,
  orderIdsOfCheckout,
  orderNumberOf,
  ordersOfOneCheckout,
  shippingProvinceOf,
} from './queries.ts';
export type { AdapterOrderItem };

// ---- reading ---------------------------------------------------------------------------------

/** An order's items as sold, in the order of the cart. */
export function soldItems(items: ItemRow[]) {
  return [...items]
    .sort((a, b) => a.position - b.position)
    .map((i) => ({
      productId: i.productId,
      variantId: i.variantId,
      variantTitle: i.variantTitle,
      sku: i.sku,
      name: i.name,
      quantity: i.quantity,
      unitPriceCents: i.unitPriceCents,
      imageUrl: i.imageUrl,
    }));
}

/** An order as its detail answers it (without the invoice's link, which the caller adds). */
export function toDetail(row: OrderRow, items: ItemRow[]): Detail {
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
    sellerDiscountCents: row.sellerDiscountCents,
    platformDiscountCents: row.platformDiscountCents,
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
    number: row.number,
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
  number: row.number,
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

/**
 * The caller's orders of one purchase (a checkout: one order per seller), as listOrders answers
 * them, sellers in order; none when the checkout is not the caller's or made no order.
 */
export async function ordersOfPurchase(ctx: RequestContext, checkoutId: string) {
  const me = caller(ctx);
  if (!isRecordId('checkouts', checkoutId)) return [];
  const rows = await ctx.db
    .select()
    .from(orders)
    .where(and(eq(orders.checkoutId, checkoutId), eq(orders.buyerId, me.id)))
    .orderBy(asc(orders.sellerId));
  return rows.map(toListItem);
}

/** The order if the caller may see it: its buyer, its seller, or an admin. Otherwise 404. */
async function visibleOrder(ctx: RequestContext, me: AuthUser, orderId: string, lock = false) {
  if (!isRecordId('orders', orderId)) throw notFound('error.orders.notFound', { id: orderId });
  const query = ctx.db.select().from(orders).where(eq(orders.id, orderId));
  const [row] = lock ? await query.for('update') : await query;
  if (!row || (row.buyerId !== me.id && row.sellerId !== me.id && me.role !== 'admin')) {
    throw notFound('error.orders.notFound', { id: orderId });
  }
  return row;
}

/**
 * Who an order is between, for the caller who may see it (its buyer, its seller, an admin;
 * anyone else 404): what a conversation about it needs. `lock`: the order's row, in ctx's
 * transaction (two messages at once take turns).
 */
export async function orderParties(ctx: RequestContext, orderId: string, opts: { lock?: boolean } = {}) {
  const row = await visibleOrder(ctx, caller(ctx), orderId, opts.lock);
  const address = row.shippingAddress as { province?: string } | null;
  return {
    id: row.id,
    number: row.number,
    buyerId: row.buyerId,
    sellerId: row.sellerId,
    shippingProvince: address?.province ?? null,
  };
}

export async function itemsOf(ctx: RequestContext, orderId: string) {
  return ctx.db.select().from(orderItems).where(eq(orderItems.orderId, orderId));
}

export async function getOrder(ctx: RequestContext, orderId: string): Promise<Detail> {
  const row = await visibleOrder(ctx, caller(ctx), orderId);
  return toDetail(row, await itemsOf(ctx, orderId));
}

/** The order if the caller is its buyer (the account's order page); anyone else's is 404. */
export async function getOwnOrder(ctx: RequestContext, orderId: string): Promise<Detail> {
  const me = caller(ctx);
  const row = await visibleOrder(ctx, me, orderId);
  if (row.buyerId !== me.id) throw notFound('error.orders.notFound', { id: orderId });
  return toDetail(row, await itemsOf(ctx, orderId));
}

/** An order of the caller's shop (any, for an admin); one they bought, or another shop's, is 404. */
export async function getShopOrder(ctx: RequestContext, orderId: string): Promise<Detail> {
  const me = caller(ctx);
  const order = await getOrder(ctx, orderId);
  if (order.sellerId !== me.id && me.role !== 'admin')
    throw notFound('error.orders.notFound', { id: orderId });
  return order;
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
  /** Where the emails its event's subscribers write link to. */
  links: Links = {},
): Promise<OrderRow> {
  if (!orderMachine.allows(name, actor)) {
    const by = orderMachine.transitions[name].by?.filter((a) => a !== 'system') ?? [];
    throw forbidden('error.orders.notAllowed', { who: WHO[by.join(' or ')] ?? by.join(' or ') });
  }
  const [updated] = await ctx.db
    .update(orders)
    .set({ ...set, status: orderMachine.to(name) })
    .where(and(eq(orders.id, row.id), orderMachine.where(name, orders.status)))
    .returning();
  if (!updated) {
    const [now] = await ctx.db.select({ status: orders.status }).from(orders).where(eq(orders.id, row.id));
    const refused = orderMachine.refusal(name, now?.status ?? row.status);
    throw conflict(refused.key, refused.values);
  }
  if (actor === 'admin') {
    await recordAdminAction(ctx, {
      action: `order.${name}`,
      subject: row.id,
      before: { status: row.status },
      after: { status: updated.status },
    });
  }
  await publish(
    ctx,
    {
      type: `order.${orderMachine.to(name)}` as
        | 'order.confirmed'
        | 'order.shipped'
        | 'order.delivered'
        | 'order.cancelled',
      orderId: updated.id,
      checkoutId: updated.checkoutId,
      buyerId: updated.buyerId,
      sellerId: updated.sellerId,
    },
    links,
  );
  return updated;
}

/** Who may make a transition, as the 403 names them (select keys of error.orders.notAllowed). */
const WHO: Record<string, string> = {
  'seller or admin': 'sellerOrAdmin',
  'buyer or seller or admin': 'buyerSellerOrAdmin',
};

/** POST /orders/:id/ship: the seller sends it, with a tracking number. */
export async function shipOrder(
  ctx: RequestContext,
  deps: OrdersDeps,
  orderId: string,
  input: { trackingNumber: string; carrier: string },
): Promise<Detail> {
  const me = caller(ctx);
  const detail = await inTransaction(ctx, async (tx) => {
    const row = await visibleOrder(tx, me, orderId, true);
    // An order whose label is being bought (or was) ships by that label (labels.ts).
    if (row.status === 'confirmed' && (await labelHolds(tx, orderId)))
      throw conflict('error.labels.shipsByLabel');
    const shipped = await shipRow(tx, deps, me, row, input);
    // A Canada Post parcel mailed by hand is followed too, when there are credentials to ask with.
    const labels = deps.labels;
    if (row.status === 'confirmed' && labels && !labels.carrier.sandbox && isCanadaPost(input.carrier)) {
      await tx.db
        .insert(orderTracking)
        .values({
          orderId,
          pin: input.trackingNumber,
          sandbox: false,
          nextCheckAt: new Date(tx.now().getTime() + labels.recheckMs),
        })
        .onConflictDoNothing();
    }
    return toDetail(shipped, await itemsOf(tx, orderId));
  });
  deps.nudge('mail');
  return detail;
}

/**
 * The ship transition of `row` by `me`, in `tx`: the order's tracking number and carrier, its
 * event (the buyer's email and the platforms' webhooks are its subscribers). A label bought
 * (labels.ts) ships through here too.
 */
export async function shipRow(
  tx: RequestContext,
  deps: Pick<OrdersDeps, 'publicBaseUrl'>,
  me: AuthUser,
  row: OrderRow,
  input: { trackingNumber: string; carrier: string },
): Promise<OrderRow> {
  // Its subscribers write the buyer's email (orders/mail.ts).
  return transition(
    tx,
    row,
    'ship',
    actorOf(me, row),
    { trackingNumber: input.trackingNumber, carrier: input.carrier, shippedAt: tx.now() },
    { publicBaseUrl: deps.publicBaseUrl },
  );
}

/** How long a label's purchase may take before its claim no longer holds the order (labels.ts). */
export const LABEL_CLAIM_SECONDS = 120;

/**
 * Whether the order has a label bought, one being bought (a claim younger than
 * LABEL_CLAIM_SECONDS) or one that may have been bought (`uncertain`): it is then neither shipped by
 * hand nor cancelled, so that a label is never paid for an order that went another way.
 */
export async function labelHolds(tx: RequestContext, orderId: string): Promise<boolean> {
  const since = new Date(tx.now().getTime() - LABEL_CLAIM_SECONDS * 1000);
  const [held] = await tx.db
    .select({ orderId: orderLabels.orderId })
    .from(orderLabels)
    .where(
      and(
        eq(orderLabels.orderId, orderId),
        or(
          eq(orderLabels.state, 'bought'),
          // Maybe bought: held until a purchase settles it (docs/shipping.md "Labels").
          eq(orderLabels.state, 'uncertain'),
          gt(orderLabels.claimedAt, since),
        ),
      ),
    );
  return held !== undefined;
}

/** POST /orders/:id/deliver. */
export async function deliverOrder(ctx: RequestContext, orderId: string): Promise<Detail> {
  const me = caller(ctx);
  return inTransaction(ctx, async (tx) => {
    const row = await visibleOrder(tx, me, orderId);
    const updated = await deliverRow(tx, row, actorOf(me, row));
    return toDetail(updated, await itemsOf(tx, orderId));
  });
}

/**
 * The deliver transition of `row`: a person's "mark delivered", or the tracking job's when the
 * carrier says so (actor `system`); the same event either way, so the same webhooks.
 */
export async function deliverRow(tx: RequestContext, row: OrderRow, actor: Actor): Promise<OrderRow> {
  // The carrier's word ends the following of the parcel (labels.ts).
  await tx.db.delete(orderTracking).where(eq(orderTracking.orderId, row.id));
  return transition(tx, row, 'deliver', actor, { deliveredAt: tx.now() });
}

/** An order's row as stored, or undefined (the label and tracking services read it so). */
export async function orderRow(ctx: RequestContext, orderId: string, lock = false) {
  if (!isRecordId('orders', orderId)) return undefined;
  const query = ctx.db.select().from(orders).where(eq(orders.id, orderId));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/** The order's detail as the API answers it. */
export async function detailOf(ctx: RequestContext, row: OrderRow): Promise<Detail> {
  return toDetail(row, await itemsOf(ctx, row.id));
}

/**
 * POST /orders/:id/confirm: the seller of a `pending` order has the stock after all; its units
 * leave the stock now (409 when they still are not there).
 */
export async function confirmPendingOrder(
  ctx: RequestContext,
  orderId: string,
  /** The checkout module's reading of where a seller's parcel ships from (it imports this module). */
  shipFromOf: (
    ctx: RequestContext,
    checkoutId: string,
    sellerId: string,
  ) => Promise<{ province: string; businessDays: number | undefined } | undefined>,
): Promise<Detail> {
  const me = caller(ctx);
  return inTransaction(ctx, async (tx) => {
    const row = await visibleOrder(tx, me, orderId, true);
    const items = await itemsOf(tx, orderId);
    if (row.status === 'pending') {
      await lockVariants(
        tx,
        items.map((i) => i.variantId),
      );
      const taken = await commitParcel(
        tx,
        null,
        items.map((i) => ({ variantId: i.variantId, quantity: i.quantity })),
      );
      if (!taken) throw conflict('error.orders.notEnoughStock');
    }
    const now = tx.now();
    // From where the parcel ships (the seller's province when it was sold) to where it goes.
    const destination = (row.shippingAddress as { province: string }).province;
    const shipFrom = await shipFromOf(tx, row.checkoutId, row.sellerId);
    // The chosen option's business days count from the confirmation, as they did from checkout.
    const days = shipFrom?.businessDays;
    const updated = await transition(tx, row, 'confirm', actorOf(me, row), {
      stockCommitted: true,
      confirmedAt: now,
      estimatedDelivery:
        days === undefined
          ? estimatedDelivery(now, shipFrom?.province ?? destination, destination)
          : addBusinessDays(torontoDate(now), days),
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
      if (!row) throw conflict('error.orders.beingChanged', { orderId });
      actor = 'system';
    } else {
      const me = caller(ctx);
      row = await visibleOrder(tx, me, orderId, true);
      actor = actorOf(me, row);
      // Its label is being bought: cancelling now would leave a label paid for nothing (labels.ts).
      if (row.status === 'confirmed' && (await labelHolds(tx, orderId)))
        throw conflict('error.labels.cannotCancel');
    }
    const items = await itemsOf(tx, orderId);
    const name: TransitionName = actor === 'system' ? 'expirePending' : 'cancel';
    const now = tx.now();
    // The service's own reason is stored in the base locale and written to the buyer in theirs.
    const unconfirmed = reason === undefined && actor === 'system';
    // Its subscribers write the buyer's email (orders/mail.ts).
    const updated = await transition(
      tx,
      row,
      name,
      actor,
      {
        cancelledAt: now,
        cancelReason: reason ?? (unconfirmed ? UNCONFIRMED_REASON : null),
        refundRequested: true,
      },
      { publicBaseUrl: deps.publicBaseUrl },
    );
    if (row.stockCommitted) {
      await lockVariants(
        tx,
        items.map((i) => i.variantId),
      );
      await restock(
        tx,
        items.map((i) => ({ variantId: i.variantId, quantity: i.quantity })),
      );
    }
    const amount = updated.totalAmountCents - updated.refundedCents;
    let refundId: string | undefined;
    if (amount > 0) {
      refundId = await requestRefund(tx, updated, amount, 'cancelled');
    }
    return { detail: toDetail(updated, items), amount, refundId };
  });
  deps.nudge('mail');
  if (result.refundId) await sendRefund(ctx, deps, result.refundId);
  return { ...result.detail, refund_amount_cents: result.amount };
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

/**
 * A refund succeeded (refund.succeeded, in its transaction): the order's refunded amount grows
 * (the buyer's email is orders/mail.ts mailOrderRefunded).
 */
export async function recordRefundOnOrder(
  ctx: RequestContext,
  event: EventOf<'refund.succeeded'>,
): Promise<void> {
  await ctx.db
    .update(orders)
    .set({ refundedCents: sql`${orders.refundedCents} + ${event.amountCents}` })
    .where(eq(orders.id, event.orderId));
}
