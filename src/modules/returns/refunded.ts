// The one thing the orders module asks of returns: when the provider confirms a return's refund,
// the return becomes `refunded` in the transaction that records the refund's success, and the
// buyer is told. (A file of its own: service.ts imports the orders service, and this is imported
// by it; a refunded return does not restock, ../shared/design/decisions.md "The 14th tool".)
import { and, eq } from 'drizzle-orm';
import type { RequestContext } from '../context.ts';
import { returnRefundedEmail } from '../mail/return-templates.ts';
import { mailBuyer } from './mail.ts';
import { returns } from './tables.ts';

/** Marks an approved return refunded and writes the buyer's email; answers whether it did. */
export async function markReturnRefunded(
  ctx: RequestContext,
  returnId: string,
  refundCents: number,
): Promise<boolean> {
  const [row] = await ctx.db
    .update(returns)
    .set({ status: 'refunded', refundedAt: ctx.now() })
    .where(and(eq(returns.id, returnId), eq(returns.status, 'approved')))
    .returning();
  if (!row) return false;
  await mailBuyer(ctx, row, 'refunded', (data) => returnRefundedEmail({ ...data, refundCents }));
  return true;
}
