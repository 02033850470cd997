// Step "reserve": one open checkout per buyer and source (a new one ends the others and gives
// back their stock), then the lines' units reserved until the hold's end, refused
// ('out_of_stock', 409) naming what is short.
import { conflict } from '../../../contract/errors.ts';
import { text } from '../../../contract/i18n.ts';
import type { RequestContext } from '../../context.ts';
import { lockVariants, reserve } from '../../inventory/service.ts';
import { endSession } from '../end-session.ts';
import type { SessionRow } from '../queries.ts';
import { CheckoutRefusal, listOf } from '../refusal.ts';

interface Line {
  variantId: string;
  title: string;
  quantity: number;
}

/**
 * Ends the buyer's open checkouts this one replaces. The variants of both are locked first, all
 * in id order (then released and reserved).
 */
export async function supersedeOpen(tx: RequestContext, open: SessionRow[], lines: Line[]): Promise<void> {
  if (open.length === 0) return;
  await lockVariants(tx, [
    ...lines.map((l) => l.variantId),
    ...open.flatMap((s) => s.parcels.flatMap((p) => p.items.map((i) => i.variantId ?? i.productId))),
  ]);
  for (const s of open) await endSession(tx, s.id);
}

/** Reserves every line's units for checkout `checkoutId` until `expiresAt`; throws CheckoutRefusal when short. */
export async function reserveLines(
  tx: RequestContext,
  checkoutId: string,
  lines: Line[],
  expiresAt: Date,
): Promise<void> {
  const refused = await reserve(
    tx,
    checkoutId,
    lines.map((l) => ({ variantId: l.variantId, quantity: l.quantity })),
    expiresAt,
  );
  if (refused.length === 0) return;
  const problems = refused.map(({ variantId, quantity, left }) => {
    const title = lines.find((l) => l.variantId === variantId)?.title ?? variantId;
    return left === 0
      ? text('error.checkout.soldOut', { title, id: variantId })
      : text('error.checkout.onlyLeft', { left, title, id: variantId, quantity });
  });
  throw new CheckoutRefusal(
    'out_of_stock',
    conflict('error.checkout.outOfStock', { problems: listOf(problems, 'period') }),
    refused.map((r) => r.variantId),
  );
}
