// Returns (request_return; docs/api.md "Returns"; docs/decisions.md "Returns"):
// a delivered order's buyer asks, within the return window; its seller (or an admin)
// approves or rejects; approval writes a refund intent with the decision, sends it after commit,
// and the return becomes `refunded` when the provider confirms. Orders are read, locked and
// refunded only through the orders service.
// Its length is one lifecycle's rules (request, decide, refund, read); split, they would share every helper.
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, lt } from 'drizzle-orm';
import type { z } from 'zod';
import { isoSecond, isRecordId, newId, toUnix } from '../../contract/common.ts';
import { conflict, forbidden, invalid, notFound, problem } from '../../contract/errors.ts';
import { BASE_LOCALE, formatMoney, type Locale, t } from '../../contract/i18n.ts';
import type {
  listReturnsQuery,
  listSellerReturnsQuery,
  ReturnRequest,
  requestReturnApiBody,
} from '../../contract/returns.ts';
import { recordAdminAction } from '../audit/service.ts';
import { type AuthUser, caller, inTransaction, type RequestContext } from '../context.ts';
import { type EventOf, publish } from '../events.ts';
import { restock as restockLines } from '../inventory/service.ts';
import {
  lockOrderForReturn,
  markRefundRequested,
  type ReturnableOrder,
  requestReturnRefund,
  returnRefundAmount,
} from '../orders/for-returns.ts';
import type { OrdersDeps } from '../orders/service.ts';
import { refundedCentsOf, sendRefund } from '../payments/refunds.ts';
import { addBusinessDays, torontoDate } from '../pricing/dates.ts';
import { returnMachine } from './states.ts';
import { type ReturnedItem, returns } from './tables.ts';

export interface ReturnsDeps extends OrdersDeps {
  /** A delivered order may be returned until this many days after delivery (RETURN_WINDOW_DAYS). */
  returnWindowDays: number;
}

type ReturnRow = typeof returns.$inferSelect;

/** A return in these blocks another of its order (the partial unique index of returns). */
const OPEN = ['pending', 'awaiting_parcel', 'received', 'approved'] as const;
/** A return in these took its units: they are not returned again. */
const TAKEN = ['awaiting_parcel', 'received', 'approved', 'refunded'] as const;

// ---- the window and the money ----------------------------------------------------------------

/**
 * The last moment a return of an order delivered at `deliveredAt` is accepted: exactly
 * `days` × 24 hours later. At that second the window is still open; one second after, closed.
 */
export function returnWindowClosesAt(deliveredAt: Date, days: number): Date {
  return new Date(deliveredAt.getTime() + days * 86_400_000);
}

/** A return of the buyer's own order, with the order lines (`lines[].id`, variant ids) it took. */
export type OwnReturn = ReturnRequest;

/** Whether one more return of an order may be asked now, as requestReturn would judge it. */
export type ReturnOffer<I> =
  | { kind: 'none' }
  | { kind: 'closed'; closesAt: Date }
  | { kind: 'open'; items: Array<I & { left: number }> };

/**
 * What the order page offers of returns: nothing while the order is not delivered, a return is
 * open, it is refunded in full or every unit went back; else the lines with units left (by
 * variant: one variant of a product going back leaves its others on offer) and how many, while
 * the window is open, or when it closed. `asked` is the order's returns (returnsOfOwnOrder).
 */
export function returnOfferOf<I extends { variantId: string; quantity: number }>(
  order: {
    status: string;
    deliveredAt: number | null;
    refundedCents: number;
    totalAmountCents: number;
    items: I[];
  },
  asked: readonly Pick<OwnReturn, 'status' | 'lines'>[],
  now: Date,
  windowDays: number,
): ReturnOffer<I> {
  if (order.status !== 'delivered' || order.deliveredAt === null) return { kind: 'none' };
  if (asked.some((r) => (OPEN as readonly string[]).includes(r.status))) return { kind: 'none' };
  if (order.refundedCents >= order.totalAmountCents) return { kind: 'none' };
  // What earlier returns took of each line (a rejected one took nothing); a line all taken is gone.
  const taken = new Map<string, number>();
  for (const r of asked.filter((r) => r.status !== 'rejected')) {
    for (const l of r.lines) taken.set(l.id, (taken.get(l.id) ?? 0) + l.quantity);
  }
  const items = order.items
    .map((i) => ({ ...i, left: i.quantity - (taken.get(i.variantId) ?? 0) }))
    .filter((i) => i.left > 0);
  if (items.length === 0) return { kind: 'none' };
  const closesAt = returnWindowClosesAt(new Date(order.deliveredAt * 1000), windowDays);
  return now <= closesAt ? { kind: 'open', items } : { kind: 'closed', closesAt };
}

/** a × b / c rounded half-up, exactly (BigInt: a × b may pass 2^53). c > 0, all >= 0. */
function mulDivHalfUp(a: number, b: number, c: number): number {
  const n = BigInt(a) * BigInt(b);
  const d = BigInt(c);
  return Number((2n * n + d) / (2n * d));
}

/**
 * The returned items' share of what was paid, to the cent, in integer arithmetic, for a return
 * of some lines (a return that completes the order gives back what is left of its total). With
 * s = the returned units' subtotal, and the order's subtotal S, discount D, shipping H and tax T
 * (tax was charged on S − D + H):
 *     paid for the items  p = round(s × (S − D) / S)
 *     their tax           x = round(T × p / (S − D + H))
 *     estimate            p + x          (shipping is not refunded)
 * each rounded half-up to the cent. The caller caps it by what is left unrefunded on the order.
 */
export function returnEstimateCents(
  order: Pick<ReturnableOrder, 'subtotalCents' | 'discountCents' | 'shippingCostCents' | 'taxAmountCents'>,
  returnedSubtotalCents: number,
): number {
  const S = order.subtotalCents;
  const itemsPaid = order.subtotalCents - order.discountCents;
  if (S <= 0 || itemsPaid <= 0) return 0;
  const paid = mulDivHalfUp(returnedSubtotalCents, itemsPaid, S);
  const taxable = itemsPaid + order.shippingCostCents;
  const tax = taxable > 0 ? mulDivHalfUp(order.taxAmountCents, paid, taxable) : 0;
  return paid + tax;
}

// ---- the answer ------------------------------------------------------------------------------

/** What the return's state means to the buyer, in their language (the request_return tool's `message`). */
function messageOf(locale: Locale, row: ReturnRow): string {
  const key = {
    pending: 'tool.return.pending',
    awaiting_parcel: 'tool.return.awaitingParcel',
    received: 'tool.return.received',
    approved: 'tool.return.approved',
    rejected: 'tool.return.rejected',
    refunded: 'tool.return.refunded',
  } as const;
  return t(locale, key[row.status], {
    amount: formatMoney(locale, row.refundAmountCents ?? row.estimatedRefundCents),
  });
}

function toAnswer(locale: Locale, row: ReturnRow, orderRefundedCents: number): ReturnRequest {
  return {
    return_id: row.id,
    order_id: row.orderId,
    status: row.status,
    reason: row.reason,
    created_at: toUnix(row.createdAt),
    window_closes_at: toUnix(row.windowClosesAt),
    estimated_refund_amount_cents: row.estimatedRefundCents,
    message: messageOf(locale, row),
    description: row.description,
    items: row.items.map((i) => i.productId),
    whole_order: row.wholeOrder,
    buyer_id: row.buyerId,
    seller_id: row.sellerId,
    refund_amount_cents: row.refundAmountCents,
    order_refunded_cents: orderRefundedCents,
    note: row.note,
    instructions: row.instructions,
    lines: row.items.map((i) => ({
      id: lineOf(i),
      product_id: i.productId,
      name: i.name,
      quantity: i.quantity,
    })),
    restocked: row.restocked,
    decided_at: row.decidedAt ? toUnix(row.decidedAt) : null,
    received_at: row.receivedAt ? toUnix(row.receivedAt) : null,
    escalated_at: row.escalatedAt ? toUnix(row.escalatedAt) : null,
    refunded_at: row.refundedAt ? toUnix(row.refundedAt) : null,
  };
}

/** Returns answered with what their orders have refunded (one read for the lot). */
async function answers(ctx: RequestContext, rows: ReturnRow[]): Promise<ReturnRequest[]> {
  const refunded = await refundedCentsOf(ctx, [...new Set(rows.map((r) => r.orderId))]);
  return rows.map((r) => toAnswer(ctx.locale ?? BASE_LOCALE, r, refunded.get(r.orderId) ?? 0));
}

const answer = async (ctx: RequestContext, row: ReturnRow) => (await answers(ctx, [row]))[0]!;

/** The order line a returned item is of: its variant (a return made before variants: the product's own id). */
const lineOf = (item: ReturnedItem) => item.variantId ?? item.productId;

/**
 * Units of each line of an order already returned: in a return that took them (a pending one
 * blocks any new request; a rejected one returned nothing).
 */
async function returnedUnits(
  ctx: RequestContext,
  orderId: string,
): Promise<Map<string, { units: number; returnId: string }>> {
  const decided = await ctx.db
    .select({ id: returns.id, items: returns.items })
    .from(returns)
    .where(and(eq(returns.orderId, orderId), inArray(returns.status, [...TAKEN])));
  const units = new Map<string, { units: number; returnId: string }>();
  for (const r of decided) {
    for (const item of r.items) {
      const before = units.get(lineOf(item));
      units.set(lineOf(item), { units: (before?.units ?? 0) + item.quantity, returnId: r.id });
    }
  }
  return units;
}

// ---- requesting ------------------------------------------------------------------------------

/**
 * The units asked of lines (`quantities`, by an id in `items` naming one line of the order), each
 * at least 1 and at most what is left of the line; anything else is 400 under `quantities.<id>`.
 */
function unitsAsked<L extends { productId: string; variantId: string }>(
  quantities: Record<string, number> | undefined,
  items: readonly string[],
  lines: readonly L[],
  left: (line: L) => number,
): Map<string, number> {
  const asked = new Map<string, number>();
  for (const [id, units] of Object.entries(quantities ?? {})) {
    const of = lines.filter((l) => l.productId === id || l.variantId === id);
    if (!items.includes(id) || of.length !== 1) {
      throw invalid('error.returns.quantityOfLine', { id }, [
        problem(`quantities.${id}`, 'validation.quantityOfOneLine'),
      ]);
    }
    const line = of[0]!;
    if (units > left(line)) {
      throw invalid('error.returns.quantityTooMany', { id, left: left(line) }, [
        problem(`quantities.${id}`, 'validation.atMost', { n: left(line) }),
      ]);
    }
    asked.set(line.variantId, units);
  }
  return asked;
}

/** POST /returns (request_return): by the order's buyer, for a delivered order within its window. */
export async function requestReturn(
  ctx: RequestContext,
  deps: ReturnsDeps,
  body: z.infer<typeof requestReturnApiBody>,
): Promise<ReturnRequest> {
  const me = caller(ctx);
  const row = await inTransaction(ctx, async (tx) => {
    // The order's lock makes requests for one order take turns; the partial unique index
    // (one open return per order) holds even without it.
    const order = await lockOrderForReturn(tx, body.order_id, me.id);
    if (order.status !== 'delivered' || !order.deliveredAt) {
      // Why, by its status: not shipped yet (cancel it instead), shipped, or cancelled.
      throw conflict('error.returns.notDelivered', { orderId: order.id, status: order.status });
    }
    const closesAt = returnWindowClosesAt(order.deliveredAt, deps.returnWindowDays);
    if (tx.now().getTime() > closesAt.getTime()) {
      throw conflict('error.returns.windowClosed', {
        orderId: order.id,
        closedAt: isoSecond(closesAt),
        days: deps.returnWindowDays,
      });
    }
    // A named id is a product's (every line of it) or a variant's (its line).
    const linesNamed = (id: string) => order.items.filter((i) => i.productId === id || i.variantId === id);
    const foreign = (body.items ?? []).filter((id) => linesNamed(id).length === 0);
    if (foreign.length) {
      throw invalid('error.returns.notProducts', { orderId: order.id, ids: foreign.join(', ') }, [
        problem('items', 'validation.productsOfOrder', { orderId: order.id }),
      ]);
    }
    const [open] = await tx.db
      .select({ id: returns.id, status: returns.status })
      .from(returns)
      .where(and(eq(returns.orderId, order.id), inArray(returns.status, [...OPEN])));
    if (open) {
      throw conflict(open.status === 'pending' ? 'error.returns.openPending' : 'error.returns.openApproved', {
        orderId: order.id,
        returnId: open.id,
      });
    }
    if (order.unrefundedCents <= 0) throw conflict('error.returns.refundedInFull', { orderId: order.id });
    // Each unit is returned (and refunded) at most once: what earlier returns took is left out,
    // and naming a line they took whole is 409.
    const before = await returnedUnits(tx, order.id);
    const left = (i: (typeof order.items)[number]) => i.quantity - (before.get(i.variantId)?.units ?? 0);
    const named = body.items
      ? order.items.filter((i) => body.items!.some((id) => id === i.productId || id === i.variantId))
      : order.items;
    // A line gone whole is refused when named by its variant's id, or when every line of a named
    // product is gone; a product's id takes what is left of its other lines.
    const gone = (body.items ?? []).flatMap((id) => {
      const of = linesNamed(id);
      const spent = of.filter((i) => left(i) <= 0);
      return spent.length === of.length || of.some((i) => i.variantId === id && i.productId !== id)
        ? spent
        : [];
    });
    if (gone.length) {
      // The list is worded in the caller's language (the message around it is worded when it leaves).
      const locale = tx.locale ?? BASE_LOCALE;
      const items = gone
        .map((i) =>
          t(locale, 'error.returns.returnedItem', {
            name: i.name,
            productId: i.variantId,
            returnId: before.get(i.variantId)!.returnId,
          }),
        )
        .join(', ');
      throw conflict('error.returns.alreadyReturned', { items, orderId: order.id });
    }
    // Fewer units than are left of a line: named by an id of that one line, at most what is left.
    const asked = unitsAsked(body.quantities, body.items ?? [], order.items, left);
    const returned = named
      .filter((i) => left(i) > 0)
      .map((i) => ({ ...i, quantity: asked.get(i.variantId) ?? left(i) }));
    if (returned.length === 0) {
      throw conflict('error.returns.allReturned', { orderId: order.id });
    }
    // A return that completes the order (every unit returned with it, at once or after earlier
    // returns) gives back what is left of the order's total, shipping included: returning in
    // steps refunds what returning at once would.
    const wholeOrder = order.items.every(
      (i) => left(i) <= 0 || returned.some((r) => r.variantId === i.variantId && r.quantity >= left(i)),
    );
    const subtotal = returned.reduce((sum, i) => sum + i.quantity * i.unitPriceCents, 0);
    const estimate = wholeOrder
      ? order.unrefundedCents
      : Math.min(returnEstimateCents(order, subtotal), order.unrefundedCents);
    const items: ReturnedItem[] = returned.map((i) => ({
      productId: i.productId,
      variantId: i.variantId,
      name: i.name,
      quantity: i.quantity,
      unitPriceCents: i.unitPriceCents,
    }));
    const [created] = await tx.db
      .insert(returns)
      .values({
        id: newId('returns'),
        orderId: order.id,
        buyerId: order.buyerId,
        sellerId: order.sellerId,
        status: 'pending',
        reason: body.reason,
        description: body.description || null,
        items,
        wholeOrder,
        estimatedRefundCents: estimate,
        createdAt: tx.now(),
        windowClosesAt: closesAt,
      })
      .onConflictDoNothing()
      .returning();
    if (!created) throw conflict('error.returns.openRace', { orderId: order.id });
    await markRefundRequested(tx, order.id);
    // The seller's email links the return's page in the console.
    await publish(
      tx,
      { type: 'return.requested', returnId: created.id, orderId: order.id },
      { publicBaseUrl: deps.publicBaseUrl },
    );
    return created;
  });
  return answer(ctx, row);
}

// ---- reading ---------------------------------------------------------------------------------

/** The return if the caller may see it: its buyer, the order's seller, or an admin. Otherwise 404. */
async function visibleReturn(ctx: RequestContext, me: AuthUser, returnId: string): Promise<ReturnRow> {
  if (!isRecordId('returns', returnId)) throw notFound('error.returns.notFound', { returnId });
  const [row] = await ctx.db.select().from(returns).where(eq(returns.id, returnId));
  if (!row || (row.buyerId !== me.id && row.sellerId !== me.id && me.role !== 'admin')) {
    throw notFound('error.returns.notFound', { returnId });
  }
  return row;
}

/** GET /returns/:id: its buyer, its seller or an admin. */
export async function getReturn(ctx: RequestContext, returnId: string): Promise<ReturnRequest> {
  return answer(ctx, await visibleReturn(ctx, caller(ctx), returnId));
}

/** GET /returns (the buyer's own) or GET /sellers/me/returns (the seller's orders'), newest first. */
export async function listReturns(
  ctx: RequestContext,
  q: z.infer<typeof listReturnsQuery> & Partial<z.infer<typeof listSellerReturnsQuery>>,
  as: 'buyer' | 'seller',
) {
  const me = caller(ctx);
  const mine = as === 'buyer' ? eq(returns.buyerId, me.id) : eq(returns.sellerId, me.id);
  const where = q.status ? and(mine, eq(returns.status, q.status)) : mine;
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(returns)
      .where(where)
      .orderBy(desc(returns.createdAt), desc(returns.id))
      .limit(q.limit)
      .offset(q.offset),
    ctx.db.select({ n: count() }).from(returns).where(where),
  ]);
  return { returns: await answers(ctx, rows), total: total?.n ?? 0, limit: q.limit, offset: q.offset };
}

/** The caller's returns of their own order `orderId`, newest first (the order page); none for anyone else's. */
export async function returnsOfOwnOrder(ctx: RequestContext, orderId: string): Promise<OwnReturn[]> {
  const rows = await ctx.db
    .select()
    .from(returns)
    .where(and(eq(returns.orderId, orderId), eq(returns.buyerId, caller(ctx).id)))
    .orderBy(desc(returns.createdAt), desc(returns.id))
    .limit(100);
  return answers(ctx, rows);
}

// ---- deciding --------------------------------------------------------------------------------

/**
 * A return the caller may decide: its order's seller or an admin. Its buyer is 403 (they see it
 * but cannot decide it); anyone else 404 (another seller's return does not exist for them).
 */
async function decidableReturn(ctx: RequestContext, me: AuthUser, returnId: string): Promise<ReturnRow> {
  const row = await visibleReturn(ctx, me, returnId);
  if (row.sellerId !== me.id && me.role !== 'admin') {
    throw forbidden('error.returns.decideForbidden');
  }
  return row;
}

/** Moves a pending return to its decision (transition), its decider and time recorded. */
async function decide(
  tx: RequestContext,
  me: AuthUser,
  returnId: string,
  decision: 'approve' | 'askForParcel' | 'reject',
  note: string | null,
  more: Partial<Pick<ReturnRow, 'instructions'>> = {},
): Promise<ReturnRow> {
  const row = await decidableReturn(tx, me, returnId);
  return transition(tx, row, decision, { note, decidedAt: tx.now(), decidedBy: me.id, ...more });
}

/**
 * Applies a person's transition to a return with one conditional update (`where status in
 * from`), after taking the order's lock (the lock order of every return change: order, then
 * return). Two racing changes: one applies, the other is 409 naming the state it found.
 */
async function transition(
  tx: RequestContext,
  row: ReturnRow,
  name: 'approve' | 'askForParcel' | 'reject' | 'receive',
  set: Partial<ReturnRow>,
): Promise<ReturnRow> {
  await lockOrderForReturn(tx, row.orderId);
  const [updated] = await tx.db
    .update(returns)
    // A step taken ends its lateness: escalated again only if the next step is late too.
    .set({ ...set, status: returnMachine.to(name), escalatedAt: null })
    .where(and(eq(returns.id, row.id), returnMachine.where(name, returns.status)))
    .returning();
  if (!updated) {
    const [now] = await tx.db.select({ status: returns.status }).from(returns).where(eq(returns.id, row.id));
    const status = now?.status ?? row.status;
    if (name === 'receive') {
      const refused = returnMachine.refusal('receive', status);
      throw conflict(refused.key, refused.values);
    }
    throw conflict('error.returns.notPending', { returnId: row.id, status });
  }
  return updated;
}

/**
 * POST /returns/:id/approve: approves and, in the same transaction, writes the refund intent of
 * min(estimate, what is left unrefunded) linked to the return (at most one per return); after
 * commit the refund is sent. The answer is the return as it then stands: `refunded` when the
 * provider confirmed at once, `approved` while the refunds job retries.
 */
export async function approveReturn(
  ctx: RequestContext,
  deps: ReturnsDeps,
  returnId: string,
  note: string | undefined,
  instructions?: string,
): Promise<ReturnRequest> {
  const me = caller(ctx);
  const refundId = await inTransaction(ctx, async (tx) => {
    if (instructions) {
      // Sent back first: the refund waits for the parcel (receiveReturn).
      const asked = await decide(tx, me, returnId, 'askForParcel', note || null, { instructions });
      await publish(tx, { type: 'return.approved', returnId, orderId: asked.orderId });
      await recordDecision(tx, returnId, 'pending', 'askForParcel');
      return undefined;
    }
    const approved = await decide(tx, me, returnId, 'approve', note || null);
    // The decision (its email, a subscriber's, says how much), then the money it moves.
    const refund = await refundFor(tx, approved, {
      type: 'return.approved',
      returnId,
      orderId: approved.orderId,
    });
    await recordDecision(tx, returnId, 'pending', 'approve');
    return refund;
  });
  deps.nudge('mail');
  if (refundId) await sendRefund(ctx, deps, refundId);
  return getReturn(ctx, returnId);
}

/**
 * An admin's decision of a return (an escalated one), recorded as it ended in its transaction:
 * its state, and what it refunds and puts back on sale.
 */
async function recordDecision(tx: RequestContext, returnId: string, from: ReturnRow['status'], name: string) {
  if (tx.user?.role !== 'admin') return;
  const [after] = await tx.db.select().from(returns).where(eq(returns.id, returnId));
  await recordAdminAction(tx, {
    action: `return.${name}`,
    subject: returnId,
    before: { status: from },
    after: {
      status: after?.status,
      note: after?.note,
      instructions: after?.instructions,
      restocked: after?.restocked,
      refundAmountCents: after?.refundAmountCents,
      refundId: after?.refundId,
    },
  });
}

/**
 * In the decision's transaction: the refund of min(estimate, what is left unrefunded) linked to
 * the return, after `event` (its email says how much); nothing left to refund closes the return
 * at once. Answers the refund's id to send after commit.
 */
async function refundFor(
  tx: RequestContext,
  row: ReturnRow,
  event: EventOf<'return.approved' | 'return.received'>,
) {
  const { order, amountCents } = await returnRefundAmount(tx, {
    orderId: row.orderId,
    maxCents: row.estimatedRefundCents,
  });
  // Nothing left to refund (refunded otherwise in the meantime): the return closes at once.
  const nothingLeft = amountCents === 0;
  await tx.db
    .update(returns)
    .set({
      refundAmountCents: amountCents,
      ...(nothingLeft ? { status: returnMachine.to('refund'), refundedAt: tx.now() } : {}),
    })
    .where(eq(returns.id, row.id));
  await publish(tx, event);
  if (nothingLeft) return undefined;
  const refundId = await requestReturnRefund(tx, { order, amountCents, returnId: row.id });
  await tx.db.update(returns).set({ refundId }).where(eq(returns.id, row.id));
  return refundId;
}

/**
 * POST /returns/:id/receive {restock}: the seller has the parcel of a return awaiting it. In one
 * transaction (order, return, then variants locked in id order): the return is received, the units
 * chosen go back in stock (at most those returned, by line), and its refund is written; after
 * commit the refund is sent. Two racing receipts: one applies, the other is 409.
 */
export async function receiveReturn(
  ctx: RequestContext,
  deps: ReturnsDeps,
  returnId: string,
  restock: Record<string, number>,
): Promise<ReturnRequest> {
  const me = caller(ctx);
  const refundId = await inTransaction(ctx, async (tx) => {
    const row = await decidableReturn(tx, me, returnId);
    const lines = new Map(row.items.map((i) => [lineOf(i), i.quantity]));
    for (const [id, units] of Object.entries(restock)) {
      const returned = lines.get(id);
      if (returned === undefined) {
        throw invalid('error.returns.restockNotReturned', { id }, [
          problem(`restock.${id}`, 'validation.returnedLine'),
        ]);
      }
      if (units > returned) {
        throw invalid('error.returns.restockTooMany', { id, n: returned }, [
          problem(`restock.${id}`, 'validation.atMost', { n: returned }),
        ]);
      }
    }
    const kept = Object.fromEntries([...lines.keys()].map((id) => [id, restock[id] ?? 0]));
    const received = await transition(tx, row, 'receive', { receivedAt: tx.now(), restocked: kept });
    await restockLines(
      tx,
      Object.entries(kept)
        .filter(([, n]) => n > 0)
        .map(([variantId, quantity]) => ({ variantId, quantity })),
    );
    const refund = await refundFor(tx, received, {
      type: 'return.received',
      returnId,
      orderId: received.orderId,
    });
    await recordDecision(tx, returnId, row.status, 'receive');
    return refund;
  });
  deps.nudge('mail');
  if (refundId) await sendRefund(ctx, deps, refundId);
  return getReturn(ctx, returnId);
}

/** POST /returns/:id/reject {note}: the buyer is told why; a new return may follow. */
export async function rejectReturn(
  ctx: RequestContext,
  deps: ReturnsDeps,
  returnId: string,
  note: string,
): Promise<ReturnRequest> {
  const me = caller(ctx);
  const row = await inTransaction(ctx, async (tx) => {
    const rejected = await decide(tx, me, returnId, 'reject', note);
    await recordDecision(tx, returnId, 'pending', 'reject');
    await publish(tx, { type: 'return.rejected', returnId, orderId: rejected.orderId });
    return rejected;
  });
  deps.nudge('mail');
  return answer(ctx, row);
}

/**
 * A return's refund succeeded (refund.succeeded, in its transaction): the approved return
 * becomes refunded, and the buyer is told. A refunded return does not restock.
 */
export async function markReturnRefunded(
  ctx: RequestContext,
  event: EventOf<'refund.succeeded'>,
): Promise<void> {
  if (!event.returnId) return;
  const [row] = await ctx.db
    .update(returns)
    .set({ status: returnMachine.to('refund'), refundedAt: ctx.now() })
    .where(and(eq(returns.id, event.returnId), returnMachine.where('refund', returns.status)))
    .returning();
  if (!row) return;
  await publish(ctx, { type: 'return.refunded', returnId: row.id, orderId: row.orderId });
}

// ---- escalation ------------------------------------------------------------------------------

/** A parcel asked back and not received this many business days after the decision goes to the admins. */
export const PARCEL_BUSINESS_DAYS = 15;

/**
 * The escalation job's pass: the returns still pending at the end of `businessDays` business days
 * (Monday to Friday, in Toronto) after the day they were asked, and those awaiting a parcel
 * PARCEL_BUSINESS_DAYS after the seller asked for it, are marked escalated (the desk's queue), up
 * to `limit` of each a pass. Answers how many.
 */
export async function escalateLateReturns(
  ctx: RequestContext,
  businessDays: number,
  limit: number,
): Promise<number> {
  const now = ctx.now();
  const today = torontoDate(now);
  const late: string[] = [];
  for (const [status, since, days] of [
    ['pending', returns.createdAt, businessDays],
    ['awaiting_parcel', returns.decidedAt, PARCEL_BUSINESS_DAYS],
  ] as const) {
    // Business days are at least calendar days: older than that many days is the candidates' bound.
    const candidates = await ctx.db
      .select({ id: returns.id, at: since })
      .from(returns)
      .where(
        and(
          eq(returns.status, status),
          isNull(returns.escalatedAt),
          lt(since, new Date(now.getTime() - days * 86_400_000)),
        ),
      )
      .orderBy(asc(since))
      .limit(limit);
    for (const r of candidates) if (r.at && today > addBusinessDays(torontoDate(r.at), days)) late.push(r.id);
  }
  if (late.length === 0) return 0;
  const marked = await ctx.db
    .update(returns)
    .set({ escalatedAt: now })
    .where(
      and(
        inArray(returns.id, late),
        inArray(returns.status, ['pending', 'awaiting_parcel']),
        isNull(returns.escalatedAt),
      ),
    )
    .returning({ id: returns.id });
  if (marked.length) ctx.log.warn({ returns: marked.map((r) => r.id) }, 'returns escalated to the admins');
  return marked.length;
}

/** GET /admin/returns/escalated: returns escalated and still undecided or awaiting their parcel, oldest first. */
export async function escalatedReturns(ctx: RequestContext, q: z.infer<typeof listReturnsQuery>) {
  const where = and(inArray(returns.status, ['pending', 'awaiting_parcel']), isNotNull(returns.escalatedAt));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(returns)
      .where(where)
      .orderBy(asc(returns.createdAt), asc(returns.id))
      .limit(q.limit)
      .offset(q.offset),
    ctx.db.select({ n: count() }).from(returns).where(where),
  ]);
  return { returns: await answers(ctx, rows), total: total?.n ?? 0, limit: q.limit, offset: q.offset };
}
