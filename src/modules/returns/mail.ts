// The return emails, written to the outbox in the caller's transaction (docs/decisions.md
// "Mail"): one per cause, `return-<kind>:<return id>`. The seller's when a buyer asks, in the
// seller's language; the buyer's about each decision, in the buyer's (mail/locale.ts: their
// preference, else French for an order shipped to Quebec).

import { eq } from 'drizzle-orm';
import type { Locale } from '../../contract/i18n.ts';
import { findUser } from '../auth/users.ts';
import type { RequestContext } from '../context.ts';
import type { EventOf } from '../events.ts';
import { mailLocale } from '../mail/locale.ts';
import { enqueueMail } from '../mail/outbox.ts';
import {
  type ReturnMailData,
  returnApprovedEmail,
  returnRefundedEmail,
  returnRejectedEmail,
  returnRequestedEmail,
} from '../mail/return-templates.ts';
import type { RenderedMail } from '../mail/templates.ts';
import { type NoticeMail, noticeLink, notifySellers } from '../notifications/service.ts';
import { orderNumberOf, shippingProvinceOf } from '../orders/for-returns.ts';
import { returns } from './tables.ts';

type ReturnRow = typeof returns.$inferSelect;

/** A subscriber of return.requested: the seller's notification (its email: returnRequestedMail). */
export async function notifyReturnRequested(
  ctx: RequestContext,
  event: EventOf<'return.requested'>,
): Promise<void> {
  const [row] = await ctx.db.select().from(returns).where(eq(returns.id, event.returnId));
  if (!row) return;
  await notifySellers(ctx, [
    {
      sellerId: row.sellerId,
      kind: 'return_requested',
      subjectId: row.id,
      facts: {
        orderId: row.orderId,
        orderNumber: await orderNumberOf(ctx, row.orderId),
        estimatedRefundCents: row.estimatedRefundCents,
      },
    },
  ]);
}

/**
 * The return request's own email (the notices job): the items, the reason, the buyer's words,
 * the estimated refund and the return's page; never the buyer's name or address.
 */
export const returnRequestedMail: NoticeMail = async (ctx, seller, notice, locale, publicBaseUrl) => {
  const [row] = await ctx.db.select().from(returns).where(eq(returns.id, notice.subjectId));
  if (!row) return;
  await enqueueMail(ctx, {
    dedupeKey: `return-requested:${row.id}`,
    kind: 'return-requested',
    to: seller.email,
    ...returnRequestedEmail(
      {
        sellerName: seller.name,
        returnId: row.id,
        orderNumber: String(notice.facts.orderNumber),
        items: row.items.map((i) => ({ name: i.name, quantity: i.quantity })),
        wholeOrder: row.wholeOrder,
        reason: row.reason,
        description: row.description,
        estimatedRefundCents: row.estimatedRefundCents,
        url: `${publicBaseUrl}${noticeLink('return_requested', row.id, notice.facts)}`,
      },
      locale,
    ),
  });
};

/** The buyer's email of a return's decision or refund (a subscriber of return.*): the return as it now stands. */
export async function mailReturnDecided(
  ctx: RequestContext,
  event: EventOf<'return.approved' | 'return.rejected' | 'return.refunded'>,
): Promise<void> {
  const [row] = await ctx.db.select().from(returns).where(eq(returns.id, event.returnId));
  if (!row) return;
  const refundCents = row.refundAmountCents ?? 0;
  if (event.type === 'return.approved') {
    // Sent back first: what the receipt will refund, and how to send it.
    await mailBuyer(ctx, row, 'approved', (data, locale) =>
      returnApprovedEmail(
        row.instructions
          ? { ...data, refundCents: row.estimatedRefundCents, note: row.note, instructions: row.instructions }
          : { ...data, refundCents, note: row.note },
        locale,
      ),
    );
  } else if (event.type === 'return.rejected') {
    await mailBuyer(ctx, row, 'rejected', (data, locale) =>
      returnRejectedEmail({ ...data, note: row.note ?? '' }, locale),
    );
  } else {
    await mailBuyer(ctx, row, 'refunded', (data, locale) =>
      returnRefundedEmail({ ...data, refundCents }, locale),
    );
  }
}

async function mailBuyer(
  ctx: RequestContext,
  row: ReturnRow,
  kind: 'approved' | 'rejected' | 'refunded',
  build: (data: ReturnMailData, locale: Locale) => RenderedMail,
): Promise<void> {
  const buyer = await findUser(ctx, row.buyerId);
  if (!buyer) return;
  const locale = mailLocale(ctx, buyer, {
    shippingProvince: buyer.locale ? undefined : await shippingProvinceOf(ctx, row.orderId),
  });
  await enqueueMail(ctx, {
    dedupeKey: `return-${kind}:${row.id}`,
    kind: `return-${kind}`,
    to: buyer.email,
    ...build(
      {
        buyerName: buyer.name,
        returnId: row.id,
        orderNumber: await orderNumberOf(ctx, row.orderId),
        items: row.items.map((i) => ({ name: i.name, quantity: i.quantity })),
        wholeOrder: row.wholeOrder,
      },
      locale,
    ),
  });
}
