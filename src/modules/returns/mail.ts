// The buyer's email about a return's decision, written to the outbox in the caller's
// transaction (docs/decisions.md "Mail"): one per cause, `return-<kind>:<return id>`, in the
// buyer's language (mail/locale.ts: their preference, else French for an order shipped to Quebec).

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
} from '../mail/return-templates.ts';
import type { RenderedMail } from '../mail/templates.ts';
import { orderNumberOf, shippingProvinceOf } from '../orders/for-returns.ts';
import { returns } from './tables.ts';

type ReturnRow = typeof returns.$inferSelect;

/** The buyer's email of a return's decision or refund (a subscriber of return.*): the return as it now stands. */
export async function mailReturnDecided(
  ctx: RequestContext,
  event: EventOf<'return.approved' | 'return.rejected' | 'return.refunded'>,
): Promise<void> {
  const [row] = await ctx.db.select().from(returns).where(eq(returns.id, event.returnId));
  if (!row) return;
  const refundCents = row.refundAmountCents ?? 0;
  if (event.type === 'return.approved') {
    await mailBuyer(ctx, row, 'approved', (data, locale) =>
      returnApprovedEmail({ ...data, refundCents, note: row.note }, locale),
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
