// A buyer's orders as pages: the list, a purchase's page (where the agent platforms' order links
// lead), an order's page and its forms (cancel, a return, a review), its invoice, and the
// returns. Each form calls the service the API calls, which checks whose order it is.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AppError, notFound } from '../../contract/errors.ts';
import { type Locale, type MessageKey, type MessageValues, t } from '../../contract/i18n.ts';
import { sendMessageBody } from '../../contract/order-messages.ts';
import { listOrdersQuery } from '../../contract/orders.ts';
import { requestReturnApiBody } from '../../contract/returns.ts';
import { submitReviewBody } from '../../contract/reviews.ts';
import * as conversations from '../../modules/conversations/service.ts';
import { sendInvoice } from '../../modules/invoices/routes.ts';
import { invoiceOf } from '../../modules/invoices/service.ts';
import * as orders from '../../modules/orders/service.ts';
import { orderMachine } from '../../modules/orders/states.ts';
import { trackingUrl } from '../../modules/orders/tracking.ts';
import * as returns from '../../modules/returns/service.ts';
import { ownReviewsOf, submitReview } from '../../modules/reviews/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { type FormError, formErrorOf, readForm, sendHtml, shownRefusal } from '../layout.ts';
import { type OrderForm, orderPage, ordersPage, purchasePage, returnsPage } from './order-views.ts';

const PAGE_SIZE = 20;

/**
 * A refusal of the order page's forms in a person's words: the API's texts name records by id
 * ("order orders:…"), which the page already shows by what they are.
 */
function orderRefusal(l: Locale, err: AppError): FormError {
  const key = err.text.key;
  const said = (k: MessageKey, values?: MessageValues) => ({ message: t(l, k, values), fields: {} });
  if (key === 'error.reviews.alreadyReviewed') return said('web.review.already');
  if (
    key === 'error.returns.openPending' ||
    key === 'error.returns.openApproved' ||
    key === 'error.returns.openRace'
  ) {
    return said('web.return.open');
  }
  if (key === 'error.returns.allReturned') return said('web.return.allReturned');
  if (key === 'error.returns.alreadyReturned') return said('web.return.someReturned');
  if (key === 'error.returns.refundedInFull') return said('web.return.refundedInFull');
  return formErrorOf(l, err);
}

/** What `?done=` after a form says on the order page. */
const DONE = new Map<string | undefined, MessageKey>([
  ['cancelled', 'web.order.cancelled'],
  ['return', 'web.return.sent'],
  ['message', 'web.messages.sent'],
  ['review-published', 'web.review.published'],
  ['review-held', 'web.review.held'],
]);

type OrderBody = Record<string, string | string[]>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export function orderPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;

  /** The order's page: the buyer's own order (another's is 404), with what they may still do. */
  const orderAnswer = async (
    req: FastifyRequest,
    v: View,
    id: string,
    o: { error?: FormError; form?: OrderForm; done?: string; typed?: string } = {},
  ) => {
    const order = await orders.getOwnOrder(req.ctx, id);
    const { messages } = await conversations.messagesOf(req.ctx, order.id);
    const delivered = order.status === 'delivered';
    const [asked, reviewed] = delivered
      ? await Promise.all([
          returns.returnsOfOwnOrder(req.ctx, order.id),
          ownReviewsOf(
            req.ctx,
            order.items.map((i) => i.productId),
          ),
        ])
      : [[], []];
    return orderPage(v, {
      order,
      trackUrl: order.trackingNumber ? trackingUrl(order.carrier, order.trackingNumber) : undefined,
      canCancel: (orderMachine.transitions.cancel.from as readonly string[]).includes(order.status),
      asked,
      offer: returns.returnOfferOf(order, asked, req.ctx.now(), deps.returnWindowDays),
      reviews: new Map(reviewed.map((r) => [r.product_id, r])),
      messages,
      ...o,
    });
  };

  app.get<{ Querystring: Record<string, string> }>('/account/orders', pageRoute, async (req, reply) => {
    signedIn(req, ['buyer']);
    const v = viewOf(req, reply, s);
    const pageNo = Math.max(1, Math.min(1000, Number.parseInt(req.query.page ?? '1', 10) || 1));
    const list = await orders.listOrders(
      req.ctx,
      listOrdersQuery.parse({ limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE }),
      'buyer',
    );
    return sendHtml(reply, ordersPage(v, list.orders, pageNo, list.total > pageNo * PAGE_SIZE));
  });

  // A purchase's page: where the order links given to agent platforms lead (ACP's and UCP's
  // permalink_url). A person signed out is sent to sign in and brought back here.
  app.get<{ Params: { checkoutId: string } }>(
    '/account/purchases/:checkoutId',
    pageRoute,
    async (req, reply) => {
      signedIn(req, ['buyer']);
      const v = viewOf(req, reply, s);
      const bought = await orders.ordersOfPurchase(req.ctx, req.params.checkoutId);
      if (bought.length === 0) throw notFound('error.orders.purchaseNotFound');
      if (bought.length === 1) return seeOther(reply, `/account/orders/${encodeURIComponent(bought[0]!.id)}`);
      return sendHtml(reply, purchasePage(v, bought));
    },
  );

  app.get<{ Params: { orderId: string } }>('/account/orders/:orderId', pageRoute, async (req, reply) => {
    signedIn(req, ['buyer']);
    const v = viewOf(req, reply, s);
    const done = DONE.get((req.query as { done?: string }).done);
    return sendHtml(
      reply,
      await orderAnswer(req, v, req.params.orderId, { done: done ? t(v.p.locale, done) : undefined }),
    );
  });

  app.get<{ Params: { orderId: string } }>(
    '/account/orders/:orderId/invoice',
    pageRoute,
    async (req, reply) => {
      signedIn(req);
      const l = viewOf(req, reply, s).p.locale;
      reply.header('content-security-policy', "default-src 'none'");
      return sendInvoice(reply, await invoiceOf(req.ctx, deps.invoices, req.params.orderId, l));
    },
  );

  /** A form of the order page: done, back to the page saying so; refused, the page with the refusal in its form. */
  const orderAction = <R>(
    path: string,
    act: (req: FastifyRequest<{ Params: { orderId: string }; Body: OrderBody }>) => Promise<R>,
    done: (result: R) => string,
    limit: 'orders' | 'returns' | 'reviews' | 'messages',
    formOf: (body: OrderBody) => OrderForm,
  ) =>
    app.post<{ Params: { orderId: string }; Body: OrderBody }>(
      `/account/orders/:orderId/${path}`,
      { config: { auth: 'public', limit }, schema: { hide: true } },
      async (req, reply) => {
        signedIn(req, ['buyer']);
        let result: R;
        try {
          result = await act(req);
        } catch (err) {
          if (!shownRefusal(err)) throw err;
          const v = viewOf(req, reply, s);
          return sendHtml(
            reply,
            await orderAnswer(req, v, req.params.orderId, {
              error: orderRefusal(v.p.locale, err),
              form: formOf(req.body ?? {}),
              ...(path === 'messages' ? { typed: (one(req.body?.body) ?? '').slice(0, 2000) } : {}),
            }),
            err.statusCode,
          );
        }
        return seeOther(
          reply,
          `/account/orders/${encodeURIComponent(req.params.orderId)}?done=${done(result)}`,
        );
      },
    );

  orderAction(
    'messages',
    (req) =>
      conversations.sendMessage(
        req.ctx,
        deps.commerce,
        req.params.orderId,
        readForm(sendMessageBody, { body: one(req.body.body) ?? '' }).body,
      ),
    () => 'message',
    'messages',
    () => 'message',
  );
  orderAction(
    'cancel',
    (req) =>
      orders.cancelOrder(req.ctx, deps.commerce, req.params.orderId, one(req.body.reason) || undefined),
    () => 'cancelled',
    'orders',
    () => 'cancel',
  );
  orderAction(
    'return',
    (req) => {
      const checked = req.body.items === undefined ? [] : ([] as string[]).concat(req.body.items);
      const description = one(req.body.description)?.trim();
      // Units asked of a line (its number field): of the lines ticked, or of the one line offered
      // (`line`); nothing ticked of several is the whole order.
      const typed = Object.entries(req.body)
        .filter(([k]) => k.startsWith('quantity.'))
        .map(([k, v]) => [k.slice('quantity.'.length), Number(one(v))] as const);
      const single = one(req.body.line);
      const items = checked.length ? checked : single ? [single] : [];
      const quantities = Object.fromEntries(typed.filter(([id]) => items.includes(id)));
      return returns.requestReturn(
        req.ctx,
        { ...deps.commerce, returnWindowDays: deps.returnWindowDays },
        readForm(requestReturnApiBody, {
          order_id: req.params.orderId,
          reason: one(req.body.reason),
          ...(description ? { description } : {}),
          ...(items.length ? { items } : {}),
          ...(Object.keys(quantities).length ? { quantities } : {}),
        }),
      );
    },
    () => 'return',
    'returns',
    () => 'return',
  );
  orderAction(
    'review',
    (req) =>
      submitReview(
        req.ctx,
        readForm(submitReviewBody, {
          product_id: one(req.body.product_id),
          rating: Number(one(req.body.rating)),
          title: one(req.body.title) ?? '',
          comment: one(req.body.comment) ?? '',
          order_id: req.params.orderId,
        }),
      ),
    (review) => (review.published ? 'review-published' : 'review-held'),
    'reviews',
    (body) => `review:${one(body.product_id) ?? ''}`,
  );

  // ---- returns -----------------------------------------------------------------------------

  app.get('/account/returns', pageRoute, async (req, reply) => {
    signedIn(req, ['buyer']);
    const v = viewOf(req, reply, s);
    const list = await returns.listReturns(req.ctx, { limit: 50, offset: 0 }, 'buyer');
    return sendHtml(reply, returnsPage(v, list.returns));
  });
}
