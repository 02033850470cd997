// Messages between an order's buyer and its seller (docs/api.md "Messages"): either side writes to
// the other about the order, through Portage (neither sees the other's address); the other side is
// told by email (the seller: as a notification, as they chose), in their language, in the
// transaction that keeps the message. No link is sent (the reviews' rule); an order holds at most
// MAX_MESSAGES_PER_ORDER.
import { and, asc, count, eq } from 'drizzle-orm';
import { newId, toUnix } from '../../contract/common.ts';
import { conflict, forbidden, invalid, problem } from '../../contract/errors.ts';
import { MAX_MESSAGES_PER_ORDER } from '../../contract/order-messages.ts';
import { findUser } from '../auth/users.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { mailLocale } from '../mail/locale.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { type NoticeMail, notifySellers } from '../notifications/service.ts';
import { orderParties } from '../orders/service.ts';
import { containsLink } from '../reviews/links.ts';
import { orderMessageEmail } from './mail.ts';
import { orderMessages } from './tables.ts';

type MessageRow = typeof orderMessages.$inferSelect;

const answerOf = (me: string) => (row: MessageRow) => ({
  id: row.id,
  order_id: row.orderId,
  from: row.side,
  mine: row.senderId === me,
  body: row.body,
  created_at: toUnix(row.createdAt),
});

/** GET /orders/:id/messages: the order's messages, oldest first, to its buyer, its seller or an admin. */
export async function messagesOf(ctx: RequestContext, orderId: string) {
  const me = caller(ctx);
  const order = await orderParties(ctx, orderId);
  const rows = await ctx.db
    .select()
    .from(orderMessages)
    .where(eq(orderMessages.orderId, order.id))
    .orderBy(asc(orderMessages.createdAt), asc(orderMessages.id))
    .limit(MAX_MESSAGES_PER_ORDER);
  return { messages: rows.map(answerOf(me.id)) };
}

/**
 * POST /orders/:id/messages {body}: by the order's buyer or its seller (an admin reads only: 403).
 * A body with a link is 400; past MAX_MESSAGES_PER_ORDER, 409. The other side is told in the same
 * transaction.
 */
export async function sendMessage(
  ctx: RequestContext,
  deps: { publicBaseUrl: string },
  orderId: string,
  body: string,
) {
  const me = caller(ctx);
  const order = await orderParties(ctx, orderId);
  const side = me.id === order.buyerId ? 'buyer' : me.id === order.sellerId ? 'seller' : undefined;
  if (!side) throw forbidden('error.messages.partiesOnly');
  if (containsLink(body)) {
    throw invalid('error.messages.link', {}, [problem('body', 'validation.messageLink')]);
  }
  const row = await inTransaction(ctx, async (tx) => {
    // The order's lock: two messages at once count one after the other (the cap holds).
    await orderParties(tx, order.id, { lock: true });
    const [written] = await tx.db
      .select({ n: count() })
      .from(orderMessages)
      .where(eq(orderMessages.orderId, order.id));
    if ((written?.n ?? 0) >= MAX_MESSAGES_PER_ORDER) {
      throw conflict('error.messages.tooMany', { max: MAX_MESSAGES_PER_ORDER });
    }
    const [saved] = await tx.db
      .insert(orderMessages)
      .values({ id: newId('messages'), orderId: order.id, senderId: me.id, side, body, createdAt: tx.now() })
      .returning();
    if (side === 'buyer') {
      // The seller: a notification (inbox and email, as they chose), its email the message's.
      await notifySellers(tx, [
        {
          sellerId: order.sellerId,
          kind: 'order_message',
          subjectId: saved!.id,
          facts: { orderId: order.id, orderNumber: order.number },
        },
      ]);
    } else {
      const buyer = await findUser(tx, order.buyerId);
      if (buyer) {
        const locale = mailLocale(tx, buyer, { shippingProvince: order.shippingProvince });
        await enqueueMail(tx, {
          dedupeKey: `order-message:${saved!.id}`,
          kind: 'order-message',
          to: buyer.email,
          ...orderMessageEmail(
            {
              name: buyer.name,
              from: 'seller',
              orderNumber: order.number,
              body,
              url: `${deps.publicBaseUrl}/account/orders/${encodeURIComponent(order.id)}#messages`,
            },
            locale,
          ),
        });
      }
    }
    return saved!;
  });
  return answerOf(me.id)(row);
}

/** The seller's notification email of a buyer's message (the notices job): the message itself. */
export const orderMessageMail: NoticeMail = async (ctx, seller, notice, locale, publicBaseUrl) => {
  const [row] = await ctx.db
    .select()
    .from(orderMessages)
    .where(and(eq(orderMessages.id, notice.subjectId), eq(orderMessages.side, 'buyer')));
  if (!row) return;
  await enqueueMail(ctx, {
    dedupeKey: `order-message:${row.id}`,
    kind: 'order-message',
    to: seller.email,
    ...orderMessageEmail(
      {
        name: seller.name,
        from: 'buyer',
        orderNumber: String(notice.facts.orderNumber),
        body: row.body,
        url: `${publicBaseUrl}/console/orders/${encodeURIComponent(row.orderId)}#messages`,
      },
      locale,
    ),
  });
};
