// The seller's console's orders and returns: the orders to ship and the recent ones, an order's
// page and its steps (confirm one waiting for stock, ship with a tracking number, mark delivered),
// its invoice, and the returns to decide. Each handler reads its form, calls the services the
// API's routes call (their ownership checks: another shop's order is 404), and chooses the answer.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { t } from '../../contract/i18n.ts';
import { sendMessageBody } from '../../contract/order-messages.ts';
import { listOrdersQuery, orderStatus, shipOrderBody } from '../../contract/orders.ts';
import {
  askForParcelBody,
  receiveReturnBody,
  rejectReturnBody,
  returnStatus,
} from '../../contract/returns.ts';
import { parcelRecipient } from '../../modules/addresses/service.ts';
import { shipFromOf } from '../../modules/checkout/service.ts';
import * as conversations from '../../modules/conversations/service.ts';
import { sendInvoice } from '../../modules/invoices/routes.ts';
import { invoiceOf } from '../../modules/invoices/service.ts';
import { buyLabel, labelPdf, labelStateOf, packingSlipPdf } from '../../modules/orders/labels.ts';
import { sendPdf } from '../../modules/orders/routes.ts';
import * as orders from '../../modules/orders/service.ts';
import * as returns from '../../modules/returns/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, readForm, sendHtml } from '../layout.ts';
import { type Body, doneOf, one, PAGE_SIZE, pageNoOf } from './form.ts';
import { ordersView, orderView, returnsView } from './order-views.ts';
import { orderPath } from './views.ts';

const SELLERS = ['seller'] as const;
/** The most rows of a section that waits for the seller (orders to ship, returns to decide). */
const WAITING = 50;
const ORDER_DONE = ['shipped', 'delivered', 'confirmed', 'message'] as const;
const receiveForm = receiveReturnBody.unwrap().unwrap();

const RETURN_DONE = ['approved', 'rejected', 'asked', 'received'] as const;

export function consoleOrderPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const postRoute = (limit: 'orders' | 'returns' | 'messages') =>
    ({ config: { auth: 'public', limit }, schema: { hide: true } }) as const;
  const returnsDeps = { ...deps.commerce, returnWindowDays: deps.returnWindowDays };

  /** An order of the caller's shop (any, for an admin); one they bought, or another shop's, is 404 here. */
  const shopOrder = (req: FastifyRequest, id: string) => {
    signedIn(req, SELLERS);
    return orders.getShopOrder(req.ctx, id);
  };

  // ---- orders ------------------------------------------------------------------------------

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/orders',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      const status = orderStatus.safeParse(req.query.status).data;
      const pageNo = pageNoOf(req.query.page);
      const list = await orders.listOrders(
        req.ctx,
        listOrdersQuery.parse({ status, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE }),
        'seller',
      );
      const toShip = status
        ? undefined
        : await orders.listOrders(
            req.ctx,
            listOrdersQuery.parse({ status: 'confirmed', limit: WAITING, sort: 'oldest' }),
            'seller',
          );
      const done = doneOf(ORDER_DONE, req.query.done);
      return sendHtml(
        reply,
        ordersView(v, {
          status,
          toShip: toShip?.orders,
          orders: list.orders,
          pageNo,
          more: list.total > pageNo * PAGE_SIZE,
          done: done && t(v.p.locale, 'web.console.order.done', { done }),
        }),
      );
    },
  );

  /** An order's page, with the parcel's recipient (the order's address, as the seller ships it). */
  const orderPage = async (
    req: FastifyRequest,
    v: View,
    id: string,
    o: { error?: FormError; typed?: Body; done?: string; message?: { error: FormError; typed: string } } = {},
  ) => {
    const order = await shopOrder(req, id);
    const [recipient, label, { messages }] = await Promise.all([
      parcelRecipient(req.ctx, order.id, order.sellerId),
      labelStateOf(req.ctx, deps.commerce, order.id),
      conversations.messagesOf(req.ctx, order.id),
    ]);
    return orderView(v, order, recipient, label, { ...o, messages });
  };

  // The order's conversation with its buyer (POST /orders/:id/messages); a refusal under the form.
  app.post<{ Params: { orderId: string }; Body: Body }>(
    '/console/orders/:orderId/messages',
    postRoute('messages'),
    async (req, reply) => {
      const id = req.params.orderId;
      await shopOrder(req, id);
      const typed = one(req.body?.body).slice(0, 2000);
      try {
        await conversations.sendMessage(
          req.ctx,
          deps.commerce,
          id,
          readForm(sendMessageBody, { body: typed }).body,
        );
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) =>
          orderPage(req, v, id, { message: { error, typed } }),
        );
      }
      return seeOther(reply, `${orderPath(id)}?done=message#messages`);
    },
  );

  app.get<{ Params: { orderId: string }; Querystring: Record<string, string | undefined> }>(
    '/console/orders/:orderId',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      const done = doneOf(ORDER_DONE, req.query.done);
      return sendHtml(
        reply,
        await orderPage(req, v, req.params.orderId, {
          done: done && t(v.p.locale, 'web.console.order.done', { done }),
        }),
      );
    },
  );

  app.get<{ Params: { orderId: string } }>(
    '/console/orders/:orderId/invoice',
    pageRoute,
    async (req, reply) => {
      await shopOrder(req, req.params.orderId);
      const l = viewOf(req, reply, s).p.locale;
      reply.header('content-security-policy', "default-src 'none'");
      return sendInvoice(reply, await invoiceOf(req.ctx, deps.invoices, req.params.orderId, l));
    },
  );

  // The label and the packing slip, as the API serves them (its seller, an admin; 404 otherwise).
  app.get<{ Params: { orderId: string } }>(
    '/console/orders/:orderId/label',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      reply.header('content-security-policy', "default-src 'none'");
      return sendPdf(reply, await labelPdf(req.ctx, deps.commerce, req.params.orderId));
    },
  );
  app.get<{ Params: { orderId: string } }>(
    '/console/orders/:orderId/packing-slip',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      reply.header('content-security-policy', "default-src 'none'");
      return sendPdf(reply, await packingSlipPdf(req.ctx, req.params.orderId));
    },
  );

  /** A step of an order (POST /orders/:id/ship, /deliver, /confirm, /label); a refusal shows on the order's page. */
  const orderAction = (
    path: string,
    act: (req: FastifyRequest<{ Params: { orderId: string }; Body: Body }>) => Promise<unknown>,
    done: (typeof ORDER_DONE)[number],
  ) =>
    app.post<{ Params: { orderId: string }; Body: Body }>(
      `/console/orders/:orderId/${path}`,
      postRoute('orders'),
      async (req, reply) => {
        const id = req.params.orderId;
        await shopOrder(req, id);
        try {
          await act(req);
        } catch (err) {
          return answerRefusal(req, reply, s, err, (v, error) =>
            orderPage(req, v, id, { error, typed: req.body }),
          );
        }
        const back = one(req.body?.from) === 'list' ? '/console/orders' : orderPath(id);
        return seeOther(reply, `${back}?done=${done}`);
      },
    );

  orderAction(
    'ship',
    (req) =>
      orders.shipOrder(
        req.ctx,
        deps.commerce,
        req.params.orderId,
        readForm(shipOrderBody, {
          carrier: one(req.body.carrier),
          trackingNumber: one(req.body.trackingNumber),
        }),
      ),
    'shipped',
  );
  orderAction('label', (req) => buyLabel(req.ctx, deps.commerce, req.params.orderId), 'shipped');
  orderAction('deliver', (req) => orders.deliverOrder(req.ctx, req.params.orderId), 'delivered');
  orderAction(
    'confirm',
    (req) => orders.confirmPendingOrder(req.ctx, req.params.orderId, shipFromOf),
    'confirmed',
  );

  // ---- returns -----------------------------------------------------------------------------

  const returnsPage = async (
    req: FastifyRequest,
    v: View,
    o: { error?: FormError; refused?: string; done?: string } = {},
  ) => {
    const query = req.query as Record<string, string | undefined>;
    const status = returnStatus.safeParse(query.status).data;
    const pageNo = pageNoOf(query.page);
    const waiting = await returns.listReturns(
      req.ctx,
      { status: 'pending', limit: WAITING, offset: 0 },
      'seller',
    );
    const awaiting = await returns.listReturns(
      req.ctx,
      { status: 'awaiting_parcel', limit: WAITING, offset: 0 },
      'seller',
    );
    const list = await returns.listReturns(
      req.ctx,
      { status, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE },
      'seller',
    );
    return returnsView(v, {
      ...o,
      waiting: waiting.returns,
      awaiting: awaiting.returns,
      returns: list.returns,
      status,
      pageNo,
      more: list.total > pageNo * PAGE_SIZE,
    });
  };

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/returns',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      const done = doneOf(RETURN_DONE, req.query.done);
      return sendHtml(
        reply,
        await returnsPage(req, v, { done: done && t(v.p.locale, 'web.console.return.done', { done }) }),
      );
    },
  );

  /** A decision on a return (POST /returns/:id/approve, /reject, /receive); a refusal shows on the returns' page. */
  const decision = (
    path: 'approve' | 'ask' | 'reject' | 'receive',
    act: (req: FastifyRequest<{ Params: { returnId: string }; Body: Body }>) => Promise<unknown>,
    done: (typeof RETURN_DONE)[number],
  ) =>
    app.post<{ Params: { returnId: string }; Body: Body }>(
      `/console/returns/:returnId/${path}`,
      postRoute('returns'),
      async (req, reply) => {
        signedIn(req, SELLERS);
        try {
          await act(req);
        } catch (err) {
          return answerRefusal(req, reply, s, err, (v, error) =>
            returnsPage(req, v, { error, refused: req.params.returnId }),
          );
        }
        return seeOther(reply, `/console/returns?done=${done}`);
      },
    );

  decision(
    'approve',
    (req) => returns.approveReturn(req.ctx, returnsDeps, req.params.returnId, undefined),
    'approved',
  );
  decision(
    'ask',
    (req) =>
      returns.approveReturn(
        req.ctx,
        returnsDeps,
        req.params.returnId,
        undefined,
        readForm(askForParcelBody, { instructions: one(req.body.instructions) }).instructions,
      ),
    'asked',
  );
  decision(
    'receive',
    (req) =>
      returns.receiveReturn(
        req.ctx,
        returnsDeps,
        req.params.returnId,
        readForm(receiveForm, {
          restock: Object.fromEntries(
            Object.entries(req.body)
              // `restock.<row>.<line id>`: the line's id after the row's number.
              .filter(([k]) => /^restock\.\d+\./.test(k))
              .map(([k, v]) => [k.replace(/^restock\.\d+\./, ''), Number(one(v))]),
          ),
        }).restock,
      ),
    'received',
  );
  decision(
    'reject',
    (req) =>
      returns.rejectReturn(
        req.ctx,
        returnsDeps,
        req.params.returnId,
        readForm(rejectReturnBody, { note: one(req.body.note) }).note,
      ),
    'rejected',
  );
}
