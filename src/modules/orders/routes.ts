// HTTP adapter of orders: the buyer's list and detail (list_orders, get_order), cancellation
// (cancel_order), and the seller's fulfilment. GET /sellers/me/orders lives here too: there is
// no sellers module, and its rules are the orders'.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../../contract/errors.ts';
import { buyLabelAnswer } from '../../contract/labels.ts';
import {
  cancelOrderAnswer,
  cancelOrderBody,
  invoicePath,
  invoiceQuery,
  listOrdersQuery,
  orderDetail,
  orderList,
  orderParams,
  shipOrderBody,
} from '../../contract/orders.ts';
import { shipFromOf } from '../checkout/service.ts';
import type { InvoiceRenderer } from '../invoices/renderer.ts';
import { invoiceResponse, sendInvoice } from '../invoices/routes.ts';
import { invoiceOf } from '../invoices/service.ts';
import { buyLabel, labelPdf, packingSlipPdf } from './labels.ts';
import type { OrdersDeps } from './service.ts';
import * as ordersService from './service.ts';

const tags = ['orders'];

const pdfResponse = (description: string) => ({
  200: { description, content: { 'application/pdf': { schema: z.any().describe('The PDF document') } } },
  503: errorBody,
});

/** A PDF answer, downloaded under its file name. */
export function sendPdf(reply: FastifyReply, doc: { pdf: Buffer; fileName: string }) {
  return reply
    .header('content-type', 'application/pdf')
    .header('content-disposition', `attachment; filename="${doc.fileName}"`)
    .header('cache-control', 'private, no-store')
    .send(doc.pdf);
}

export function orderRoutes(deps: OrdersDeps, invoices: InvoiceRenderer) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    /** An order answer with the URL of its invoice (docs/invoices.md). */
    const withInvoice = async <O extends { id: string }>(order: Promise<O>) => {
      const o = await order;
      return { ...o, invoiceUrl: `${deps.publicBaseUrl}${invoicePath(o.id)}` };
    };

    app.get(
      '/orders',
      {
        config: { auth: ['buyer'], limit: 'orders', scope: 'orders' },
        schema: {
          tags,
          summary: 'Your orders (list_orders)',
          querystring: listOrdersQuery,
          response: { 200: orderList },
        },
      },
      async (req) => ordersService.listOrders(req.ctx, req.query, 'buyer'),
    );

    app.get(
      '/orders/:orderId',
      {
        config: { auth: 'user', limit: 'orders', scope: 'orders' },
        schema: {
          tags,
          summary: 'An order of yours, as its buyer or its seller (get_order)',
          params: orderParams,
          response: { 200: orderDetail },
        },
      },
      async (req) => withInvoice(ordersService.getOrder(req.ctx, req.params.orderId)),
    );

    app.get(
      '/orders/:orderId/invoice',
      {
        config: { auth: 'user', limit: 'orders', scope: 'orders' },
        schema: {
          tags,
          summary: "An order's invoice, a PDF with a credit note per refund (its buyer, its seller, admins)",
          description:
            'In `locale` when given, else the buyer’s saved locale (for the seller: the request’s), else ' +
            'the request’s (Accept-Language). The supplier’s legal name, address and GST/HST and QST numbers ' +
            '(the platform’s, as marketplace operator, for a tax the seller is not registered for), the ' +
            'buyer, each line, discount, shipping, each tax with its rate, the total; not the platform fee.',
          params: orderParams,
          querystring: invoiceQuery,
          response: invoiceResponse,
        },
      },
      async (req, reply) =>
        sendInvoice(reply, await invoiceOf(req.ctx, invoices, req.params.orderId, req.query.locale)),
    );

    app.post(
      '/orders/:orderId/cancel',
      {
        config: { auth: 'user', limit: 'orders', scope: 'orders' },
        schema: {
          tags,
          summary: 'Cancel an order that has not shipped, with a full refund (cancel_order)',
          params: orderParams,
          body: cancelOrderBody,
          response: { 200: cancelOrderAnswer },
        },
      },
      async (req) =>
        withInvoice(ordersService.cancelOrder(req.ctx, deps, req.params.orderId, req.body?.reason)),
    );

    app.post(
      '/orders/:orderId/ship',
      {
        config: { auth: ['seller'], limit: 'orders' },
        schema: {
          tags,
          summary: 'Mark a confirmed order shipped, with its tracking number (its seller)',
          params: orderParams,
          body: shipOrderBody,
          response: { 200: orderDetail },
        },
      },
      async (req) => withInvoice(ordersService.shipOrder(req.ctx, deps, req.params.orderId, req.body)),
    );

    app.post(
      '/orders/:orderId/label',
      {
        config: { auth: ['seller'], limit: 'orders' },
        schema: {
          tags,
          summary: 'Buy the Canada Post label of a confirmed order and mark it shipped by it (its seller)',
          description:
            'The service the buyer chose (`canada_post:DOM.EP` ships DOM.EP; any other option DOM.RP), from the ' +
            'seller’s address and shipping profile to the order’s address. The order becomes `shipped` with the ' +
            'label’s tracking number and carrier `Canada Post`, as `POST /orders/:orderId/ship` does (the buyer’s ' +
            'email, the platforms’ webhooks); a job then follows the parcel and marks it delivered. `201` with ' +
            'the label bought; asked again, `200` with the same label (one label per order); `409` while another ' +
            'request is buying it. Without carrier credentials, a sandbox label (`sandbox: true`, not postage). ' +
            '`422` when Canada Post refuses it, `503` when it cannot be reached: nothing was bought or changed.',
          params: orderParams,
          response: { 200: buyLabelAnswer, 201: buyLabelAnswer, 422: errorBody, 503: errorBody },
        },
      },
      async (req, reply) => {
        const bought = await buyLabel(req.ctx, deps, req.params.orderId);
        return reply
          .code(bought.bought ? 201 : 200)
          .send({ label: bought.label, order: await withInvoice(Promise.resolve(bought.order)) });
      },
    );

    app.get(
      '/orders/:orderId/label',
      {
        config: { auth: ['seller'], limit: 'orders' },
        schema: {
          tags,
          summary: "An order's label, a PDF to print (its seller, admins)",
          params: orderParams,
          response: pdfResponse('The label (`Content-Disposition: attachment`)'),
        },
      },
      async (req, reply) => sendPdf(reply, await labelPdf(req.ctx, deps, req.params.orderId)),
    );

    app.get(
      '/orders/:orderId/packing-slip',
      {
        config: { auth: ['seller'], limit: 'orders' },
        schema: {
          tags,
          summary: "An order's packing slip in English and French, a PDF (its seller, admins)",
          params: orderParams,
          response: pdfResponse('The packing slip (`Content-Disposition: attachment`)'),
        },
      },
      async (req, reply) => sendPdf(reply, await packingSlipPdf(req.ctx, req.params.orderId)),
    );

    app.post(
      '/orders/:orderId/deliver',
      {
        config: { auth: ['seller'], limit: 'orders' },
        schema: {
          tags,
          summary: 'Mark a shipped order delivered (its seller)',
          params: orderParams,
          response: { 200: orderDetail },
        },
      },
      async (req) => withInvoice(ordersService.deliverOrder(req.ctx, req.params.orderId)),
    );

    app.post(
      '/orders/:orderId/confirm',
      {
        config: { auth: ['seller'], limit: 'orders' },
        schema: {
          tags,
          summary: 'Confirm a pending order once its stock is there (its seller)',
          params: orderParams,
          response: { 200: orderDetail },
        },
      },
      async (req) => withInvoice(ordersService.confirmPendingOrder(req.ctx, req.params.orderId, shipFromOf)),
    );

    app.get(
      '/sellers/me/orders',
      {
        config: { auth: ['seller'], limit: 'orders' },
        schema: {
          tags,
          summary: "Your shop's orders (sellers)",
          querystring: listOrdersQuery,
          response: { 200: orderList },
        },
      },
      async (req) => ordersService.listOrders(req.ctx, req.query, 'seller'),
    );
  };
}
