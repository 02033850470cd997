// HTTP adapter of orders: the buyer's list and detail (list_orders, get_order), cancellation
// (cancel_order), and the seller's fulfilment. GET /sellers/me/orders lives here too: there is
// no sellers module, and its rules are the orders'.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
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
import type { OrdersDeps } from './service.ts';
import * as ordersService from './service.ts';

const tags = ['orders'];

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
