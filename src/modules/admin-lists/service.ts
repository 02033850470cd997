// The admins' lists of orders and users, and an order's and a user's history (docs/api.md
// "Orders and users for admins"): what the desk's pages and GET /admin/orders, /admin/users show.
// Only searches an index answers are offered (docs/decisions.md "Issue 43: desk lists"): an order's number
// or id, an email's beginning, a name's beginning; each filter is an index's equality or range.
import { isRecordId, toUnix } from '../../contract/common.ts';
import {
  type AdminOrderAnswer,
  type AdminOrderRow,
  type AdminOrdersQuery,
  type AdminUserAnswer,
  type AdminUserRow,
  type AdminUsersQuery,
  HISTORY_COUNT_MAX,
  HISTORY_RECENT,
  type HistoryEntry,
  ORDER_NUMBER,
  ORDER_SEARCH_BUYERS,
} from '../../contract/desk.ts';
import { forbidden, notFound } from '../../contract/errors.ts';
import { actionsOn } from '../audit/service.ts';
import {
  type AdminUserListRow,
  adminUserRows,
  readInIndexOrder,
  shopOfUser,
  userIdsByEmailPrefix,
} from '../auth/queries.ts';
import { findUser } from '../auth/users.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import {
  type AdminOrderFilters,
  type AdminOrderListRow,
  adminOrderRows,
  ordersOfParty,
  orderWithShipment,
} from '../orders/queries.ts';
import { toDetail } from '../orders/service.ts';
import { paymentEventsOf, refundsOfOrder } from '../payments/queries.ts';
import { torontoInstant } from '../pricing/dates.ts';
import { returnsOfBuyer, returnsOfOrder } from '../returns/queries.ts';
import { reviewsOfBuyer } from '../reviews/queries.ts';

function adminOnly(ctx: RequestContext) {
  const me = caller(ctx);
  if (me.role !== 'admin') throw forbidden('error.auth.roleNeeded', { n: 1, first: 'admin', role: me.role });
}

/** The instant a Toronto day (YYYY-MM-DD) begins. */
const dayStart = (day: string) => new Date(torontoInstant(Date.parse(`${day}T00:00:00Z`)));
/** The instant the Toronto day after `day` begins. */
const dayAfter = (day: string) => new Date(torontoInstant(Date.parse(`${day}T00:00:00Z`) + 86_400_000));

const orderRowOf = (r: AdminOrderListRow): AdminOrderRow => ({
  id: r.id,
  number: r.number,
  status: r.status,
  buyerId: r.buyer_id,
  buyerEmail: r.buyer_email,
  sellerId: r.seller_id,
  shopName: r.shop_name,
  province: r.province,
  totalAmountCents: r.total_amount_cents,
  refundedCents: r.refunded_cents,
  itemCount: r.item_count,
  createdAt: r.created_at,
});

/**
 * GET /admin/orders: a page of orders, newest first. `q` is an order's number or id (that order,
 * if it passes the filters), else an email's beginning: the orders of the first
 * ORDER_SEARCH_BUYERS accounts by email (`broad` when more matched).
 */
export async function adminOrders(ctx: RequestContext, q: AdminOrdersQuery) {
  adminOnly(ctx);
  const f: AdminOrderFilters = {
    limit: q.limit + 1,
    before: q.before,
    status: q.status,
    province: q.province,
    sellerId: q.shop,
    ...(q.from ? { from: dayStart(q.from) } : {}),
    ...(q.to ? { until: dayAfter(q.to) } : {}),
  };
  let broad = false;
  const search = q.q?.toLowerCase();
  if (search) {
    if (ORDER_NUMBER.test(search)) f.number = search;
    else if (isRecordId('orders', q.q ?? '')) f.id = q.q;
    else {
      const ids = await userIdsByEmailPrefix(ctx.db, search, ORDER_SEARCH_BUYERS + 1);
      broad = ids.length > ORDER_SEARCH_BUYERS;
      f.buyerIds = ids.slice(0, ORDER_SEARCH_BUYERS);
    }
  }
  const rows = await adminOrderRows(ctx.db, f);
  const page = rows.slice(0, q.limit);
  return {
    orders: page.map(orderRowOf),
    nextBefore: rows.length > q.limit ? (page.at(-1)?.id ?? null) : null,
    broad,
  };
}

const unix = (d: Date | null | undefined) => (d ? toUnix(d) : null);

/** GET /admin/orders/:id: the order, its buyer and shop, its refunds and returns, and its history, oldest first. */
export async function adminOrder(ctx: RequestContext, orderId: string): Promise<AdminOrderAnswer> {
  adminOnly(ctx);
  const found = isRecordId('orders', orderId) ? await orderWithShipment(ctx.db, orderId) : undefined;
  if (!found) throw notFound('error.orders.notFound', { id: orderId });
  const { row, items, label } = found;
  // One round trip for everything the order names; the admins' actions on its returns (rare) after.
  const [buyer, shop, payment, refunds, returns, onOrder] = await Promise.all([
    findUser(ctx, row.buyerId),
    shopOfUser(ctx.db, row.sellerId),
    paymentEventsOf(ctx.db, row.paymentIntentId),
    refundsOfOrder(ctx.db, row.id),
    returnsOfOrder(ctx.db, row.id),
    actionsOn(ctx, [row.id], 100),
  ]);
  const onReturns = returns.length
    ? await actionsOn(
        ctx,
        returns.map((r) => r.id),
        100,
      )
    : [];
  const actions = [...onOrder, ...onReturns];
  const history: HistoryEntry[] = [];
  const add = (
    at: Date | null | undefined,
    event: HistoryEntry['event'],
    detail: string | null,
    ref = null as string | null,
  ) => {
    if (at) history.push({ at: toUnix(at), event, detail, ref });
  };
  add(row.createdAt, 'order.placed', row.number);
  for (const e of payment) add(e.receivedAt, 'payment.event', e.type, e.eventId);
  add(row.confirmedAt, 'order.confirmed', null);
  add(row.shippedAt, 'order.shipped', [row.carrier, row.trackingNumber].filter(Boolean).join(' ') || null);
  add(row.deliveredAt, 'order.delivered', null);
  add(row.cancelledAt, 'order.cancelled', row.cancelReason);
  if (label?.boughtAt) add(label.boughtAt, 'label.bought', [label.service, label.trackingPin].join(' '));
  for (const r of refunds) {
    add(r.createdAt, 'refund.requested', String(r.amountCents), r.id);
    if (r.status !== 'requested') add(r.completedAt, `refund.${r.status}`, String(r.amountCents), r.id);
  }
  for (const r of returns) {
    add(r.createdAt, 'return.requested', r.reason, r.id);
    add(r.escalatedAt, 'return.escalated', null, r.id);
    // Who decided (the seller, an admin); what they decided is the return's status in `returns`.
    add(r.decidedAt, 'return.decided', r.decidedBy, r.id);
    add(r.receivedAt, 'return.received', null, r.id);
    add(
      r.refundedAt,
      'return.refunded',
      r.refundAmountCents === null ? null : String(r.refundAmountCents),
      r.id,
    );
  }
  for (const a of actions) {
    history.push({
      at: a.createdAt,
      event: 'admin.action',
      detail: `${a.action} ${a.actorEmail}`,
      ref: String(a.id),
    });
  }
  // Oldest first; the same second keeps the order of the order's life written above.
  const stable = history.map((h, i) => ({ h, i })).sort((a, b) => a.h.at - b.h.at || a.i - b.i);
  return {
    order: toDetail(row, items),
    buyer: { id: row.buyerId, email: buyer?.email ?? '', name: buyer?.name ?? '' },
    shop: { id: row.sellerId, name: shop?.name ?? null },
    refunds: refunds.map((r) => ({
      id: r.id,
      amountCents: r.amountCents,
      reason: r.reason,
      status: r.status,
      returnId: r.returnId,
      createdAt: toUnix(r.createdAt),
      completedAt: unix(r.completedAt),
    })),
    returns: returns.map((r) => ({
      id: r.id,
      status: r.status,
      reason: r.reason,
      refundAmountCents: r.refundAmountCents,
      createdAt: toUnix(r.createdAt),
    })),
    history: stable.map((x) => x.h),
  };
}

const userRowOf = (r: AdminUserListRow): AdminUserRow => ({
  id: r.id,
  email: r.email,
  name: r.name,
  role: r.role,
  emailVerified: r.email_verified,
  createdAt: r.created_at,
  suspendedAt: r.suspended_at,
});

/**
 * GET /admin/users: a page of users. `q` with `@` is an email's beginning (listed in email
 * order), without it a name's beginning (in name order); no `q`: newest first.
 */
export async function adminUsers(ctx: RequestContext, q: AdminUsersQuery) {
  adminOnly(ctx);
  const search = q.q?.toLowerCase();
  const filters = {
    limit: q.limit + 1,
    before: q.before,
    role: q.role,
    suspended: q.suspended,
    ...(search ? (search.includes('@') ? { email: search } : { name: search }) : {}),
  };
  const rows = await inTransaction(ctx, async (tx) => {
    if (search && !search.includes('@')) await readInIndexOrder(tx.db);
    return adminUserRows(tx.db, filters);
  });
  const page = rows.slice(0, q.limit);
  return {
    users: page.map(userRowOf),
    nextBefore: rows.length > q.limit ? (page.at(-1)?.id ?? null) : null,
  };
}

const counted = <R, T>(c: { count: number; rows: R[] }, of: (r: R) => T) => ({
  count: Math.min(c.count, HISTORY_COUNT_MAX),
  more: c.count > HISTORY_COUNT_MAX,
  recent: c.rows.map(of),
});

/** GET /admin/users/:id: the user, their shop, orders (bought and sold), returns, reviews, and the admins' actions on them. */
export async function adminUser(ctx: RequestContext, userId: string): Promise<AdminUserAnswer> {
  adminOnly(ctx);
  const user = isRecordId('users', userId) ? await findUser(ctx, userId) : undefined;
  if (!user) throw notFound('error.auth.userNotFound', { id: userId });
  // One round trip: a buyer's sales are an index probe finding none.
  const [shop, bought, sold, returns, reviews, actions] = await Promise.all([
    shopOfUser(ctx.db, user.id),
    ordersOfParty(ctx.db, { buyerId: user.id }, HISTORY_COUNT_MAX, HISTORY_RECENT),
    ordersOfParty(ctx.db, { sellerId: user.id }, HISTORY_COUNT_MAX, HISTORY_RECENT),
    returnsOfBuyer(ctx.db, user.id, HISTORY_COUNT_MAX, HISTORY_RECENT),
    reviewsOfBuyer(ctx.db, user.id, HISTORY_COUNT_MAX, HISTORY_RECENT),
    actionsOn(ctx, [user.id], HISTORY_RECENT),
  ]);
  return {
    user: {
      id: user.id,
      email: user.email,
      name: user.name,
      role: user.role,
      emailVerified: user.emailVerified,
      createdAt: toUnix(user.createdAt),
      suspendedAt: unix(user.suspendedAt),
      locale: user.locale,
    },
    shop: shop ? { ...shop, createdAt: toUnix(shop.createdAt) } : null,
    orders: counted(bought, orderRowOf),
    sales: shop ? counted(sold, orderRowOf) : null,
    returns: counted(returns, (r) => ({
      id: r.id,
      orderId: r.orderId,
      status: r.status,
      reason: r.reason,
      createdAt: toUnix(r.createdAt),
    })),
    reviews: counted(reviews, (r) => ({
      id: r.id,
      productId: r.productId,
      rating: r.rating,
      title: r.title,
      status: r.published
        ? ('published' as const)
        : r.rejectedAt
          ? ('rejected' as const)
          : ('pending' as const),
      createdAt: toUnix(r.createdAt),
    })),
    adminActions: actions.map((a) => ({
      id: a.id,
      actorEmail: a.actorEmail,
      action: a.action,
      before: a.before,
      after: a.after,
      createdAt: a.createdAt,
    })),
  };
}
