// The purchase flow's own statements (the rest of its SQL is the modules' it orchestrates).
import { eq } from 'drizzle-orm';
import type { RequestContext } from '../context.ts';
import { refunds } from '../payments/tables.ts';

/** A refund's reason and payment (a payment refunded whole when it made no order). */
export async function refundReasonOf(ctx: RequestContext, refundId: string) {
  const [row] = await ctx.db
    .select({ reason: refunds.reason, paymentIntentId: refunds.paymentIntentId })
    .from(refunds)
    .where(eq(refunds.id, refundId));
  return row;
}
