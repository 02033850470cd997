// An order's invoice as a PDF (docs/invoices.md), for its buyer, its seller or an admin: the
// invoice and a credit note per refund, drawn by pdf.ts. Each document (the invoice with the credit
// notes issued so far, in one language) is drawn once, off the event loop (renderer.ts), stored in
// `invoice_documents` and served from there: an issued invoice does not change, so neither does
// its file. A refund issues a credit note, and so the document's next edition.
import { and, eq, lt } from 'drizzle-orm';
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
import { invoiceDocuments, type StoredParties } from './tables.ts';

type Order = Awaited<ReturnType<typeof getOrder>>;
type Refund = Awaited<ReturnType<typeof succeededRefundsOf>>[number];

/**
 * GET /orders/:id/invoice: the order's invoice for its buyer, its seller or an admin (anyone else:
 * 404, as for the order). In `requested`, else the buyer's saved locale (the seller's request:
 * the request's own), else the request's. Served as stored; drawn and stored the first time.
 */
export async function invoiceOf(
  ctx: RequestContext,
  renderer: InvoiceRenderer,
  orderId: string,
  requested?: Locale,
): Promise<{ pdf: Buffer; fileName: string; locale: Locale }> {
  const order = await getOrder(ctx, orderId);
  const me = caller(ctx);
  const [buyer, refunds] = await Promise.all([
    findUser(ctx, order.buyerId),
    succeededRefundsOf(ctx, order.id),
  ]);
  const sellerAsking = me.id === order.sellerId && me.id !== order.buyerId;
  const saved = isLocale(buyer?.locale) ? buyer.locale : undefined;
  const locale = requested ?? (sellerAsking ? undefined : saved) ?? ctx.locale ?? BASE_LOCALE;
  const fileName = t(locale, 'invoice.fileName', { number: numberOf(order) });

  const edition = { orderId: order.id, locale, creditNotes: refunds.length };
  const [stored] = await ctx.db
    .select({ pdf: invoiceDocuments.pdf })
    .from(invoiceDocuments)
    .where(documentIs(edition));
  if (stored) return { pdf: stored.pdf, fileName, locale };

  const parties = (await partiesOf(ctx, order.id)) ?? {
    ...(await invoiceParties(ctx, order.sellerId)),
    buyerName: buyer?.name ?? '',
  };
  const key = `${order.id} ${locale} ${refunds.length}`;
  const pdf = await renderer.render(key, composeInvoice(order, locale, parties, refunds), ctx.now());
  return { pdf: await store(ctx, edition, parties, pdf), fileName, locale };
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

interface Edition {
  orderId: string;
  locale: Locale;
  creditNotes: number;
}

const documentIs = (e: Edition) =>
  and(
    eq(invoiceDocuments.orderId, e.orderId),
    eq(invoiceDocuments.locale, e.locale),
    eq(invoiceDocuments.creditNotes, e.creditNotes),
  );

/** Whom the order's documents already name, when one is stored (every one names the same). */
async function partiesOf(ctx: RequestContext, orderId: string): Promise<StoredParties | undefined> {
  const [row] = await ctx.db
    .select({ parties: invoiceDocuments.parties })
    .from(invoiceDocuments)
    .where(eq(invoiceDocuments.orderId, orderId))
    .limit(1);
  return row?.parties;
}

/**
 * Keeps a drawn document, once however many instances drew it at the same time (the first stored
 * wins and is what everyone serves), and drops the edition it replaces: an order keeps one
 * document per language.
 */
async function store(ctx: RequestContext, e: Edition, parties: StoredParties, pdf: Buffer): Promise<Buffer> {
  const [inserted] = await ctx.db
    .insert(invoiceDocuments)
    .values({ ...e, parties, pdf, createdAt: ctx.now() })
    .onConflictDoNothing()
    .returning({ orderId: invoiceDocuments.orderId });
  if (e.creditNotes > 0) {
    await ctx.db
      .delete(invoiceDocuments)
      .where(
        and(
          eq(invoiceDocuments.orderId, e.orderId),
          eq(invoiceDocuments.locale, e.locale),
          lt(invoiceDocuments.creditNotes, e.creditNotes),
        ),
      );
  }
  if (inserted) return pdf;
  const [first] = await ctx.db
    .select({ pdf: invoiceDocuments.pdf })
    .from(invoiceDocuments)
    .where(documentIs(e));
  return first?.pdf ?? pdf;
}

const numberOf = (order: Order) => order.id.slice(order.id.indexOf(':') + 1);

/** What the invoice of an order says, in `locale`, naming `parties`, with a credit note per refund. */
function composeInvoice(order: Order, locale: Locale, parties: StoredParties, refunds: Refund[]): Invoice {
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
  const number = numberOf(order);
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
    buyer: { name: parties.buyerName, ...order.shippingAddress },
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
