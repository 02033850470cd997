// The buyer's email about a return's decision, written to the outbox in the caller's
// transaction (docs/decisions.md "Mail"): one per cause, `return-<kind>:<return id>`, in the
// buyer's language (mail/locale.ts: their preference, else French for an order shipped to Quebec).

import type { Locale } from '../../contract/i18n.ts';
import { findUser } from '../auth/users.ts';
import type { RequestContext } from '../context.ts';
import { mailLocale } from '../mail/locale.ts';
import { enqueueMail } from '../mail/outbox.ts';
import type { ReturnMailData } from '../mail/return-templates.ts';
import type { RenderedMail } from '../mail/templates.ts';
import { orderNumberOf, shippingProvinceOf } from '../orders/for-returns.ts';
import type { returns } from './tables.ts';

type ReturnRow = typeof returns.$inferSelect;

export async function mailBuyer(
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
