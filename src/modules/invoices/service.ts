// An order's invoice as a PDF (docs/invoices.md), for its buyer, its seller or an admin: what it
// says is read here, for the caller; pdf.ts draws it (the invoice, then a credit note page per
// refund), in the renderer's worker threads (renderer.ts), off the event loop.
import { notFound } from '../../contract/errors.ts';
import { BASE_LOCALE, isLocale, type Locale, t } from '../../contract/i18n.ts';
import { invoiceParties } from '../auth/sellers.ts';
import { findUser } from '../auth/users.ts';
import { caller, type RequestContext } from '../context.ts';
import { getOrder } from '../orders/service.ts';
import { succeededRefundsOf } from '../payments/refunds.ts';
import type { InvoiceLinks } from './links.ts';
import type { Collected, Invoice, TaxLine } from './pdf.ts';
import type { InvoiceRenderer } from './renderer.ts';

/**
 * GET /orders/:id/invoice: the order's invoice for its buyer, its seller or an admin (anyone else:
 * 404, as for the order). In `requested`, else the buyer's saved locale (the seller's request:
 * the request's own), else the request's.
 */
export async function invoiceOf(
  ctx: RequestContext,
  renderer: InvoiceRenderer,
  orderId: string,
  requested?: Locale,
): Promise<{ pdf: Buffer; fileName: string; locale: Locale }> {
  const invoice = await readInvoice(ctx, orderId, requested);
  const key = `${invoice.orderId} ${invoice.locale} ${invoice.creditNotes.length}`;
  const pdf = await renderer.render(key, invoice, ctx.now());
  return {
    pdf,
    fileName: t(invoice.locale, 'invoice.fileName', { number: invoice.number }),
    locale: invoice.locale,
  };
}

/**
 * GET /invoices/:token: the invoice a signed link names, for its order's buyer (404 for a
 * forged, altered or expired link). The link speaks for that buyer, for that one order.
 */
export async function invoiceByLink(
  ctx: RequestContext,
  renderer: InvoiceRenderer,
  links: InvoiceLinks,
  token: string,
  requested?: Locale,
): ReturnType<typeof invoiceOf> {
  const linked = links.orderOf(token, ctx.now());
  if (!linked) throw notFound('error.invoices.linkInvalid');
  const asBuyer = { ...ctx, user: { id: linked.buyerId, email: '', role: 'buyer' as const } };
  return invoiceOf(asBuyer, renderer, linked.orderId, requested);
}

/** What the invoice of an order says, read for the caller (404 when the order is not theirs). */
export async function readInvoice(
  ctx: RequestContext,
  orderId: string,
  requested?: Locale,
): Promise<Invoice> {
  const order = await getOrder(ctx, orderId);
  const me = caller(ctx);
  const [buyer, parties, refunds] = await Promise.all([
    findUser(ctx, order.buyerId),
    invoiceParties(ctx, order.sellerId),
    succeededRefundsOf(ctx, order.id),
  ]);
  const sellerAsking = me.id === order.sellerId && me.id !== order.buyerId;
  const saved = isLocale(buyer?.locale) ? buyer.locale : undefined;
  const locale = requested ?? (sellerAsking ? undefined : saved) ?? ctx.locale ?? BASE_LOCALE;

  const taxLines = order.taxLines as TaxLine[];
  const charges = {
    gstHst: taxLines.some((l) => l.name === 'GST' || l.name === 'HST'),
    qst: taxLines.some((l) => l.name === 'QST'),
  };
  const { seller, platform } = parties;
  // Canada's and Québec's marketplace rules: the operator collects a tax its supplier is not registered for.
  const byOperator = {
    gstHst: charges.gstHst && !seller.gstHstNumber && platform !== null,
    qst: charges.qst && !seller.qstNumber && platform !== null,
  };
  const collects: Collected | null =
    byOperator.gstHst && byOperator.qst
      ? 'both'
      : byOperator.gstHst
        ? 'gstHst'
        : byOperator.qst
          ? 'qst'
          : null;
  const number = order.id.slice(order.id.indexOf(':') + 1);
  const whole = refunds.length === 1 && refunds[0]?.amountCents === order.totalAmountCents;

  return {
    locale,
    number,
    orderId: order.id,
    date: new Date(order.createdAt * 1000),
    supplier: seller,
    supplierUnregistered: [
      ...(charges.gstHst && !seller.gstHstNumber && !byOperator.gstHst ? (['gstHst'] as const) : []),
      ...(charges.qst && !seller.qstNumber && !byOperator.qst ? (['qst'] as const) : []),
    ],
    operator: collects && platform ? { party: platform, collects } : null,
    buyer: { name: buyer?.name ?? '', ...order.shippingAddress },
    lines: order.items.map((i) => ({
      name: i.name,
      quantity: i.quantity,
      unitPriceCents: i.unitPriceCents,
      amountCents: i.quantity * i.unitPriceCents,
    })),
    subtotalCents: order.subtotalCents,
    discountCents: order.discountCents,
    shippingCostCents: order.shippingCostCents,
    taxLines,
    totalCents: order.totalAmountCents,
    creditNotes: refunds.map((r, i) => ({
      number: `${number}-R${i + 1}`,
      date: r.completedAt ?? r.createdAt,
      reason: r.reason,
      amountCents: r.amountCents,
      taxLines: whole ? taxLines : null,
    })),
  };
}
