// An order's invoice as a PDF (docs/invoices.md), for its buyer, its seller or an admin: the
// invoice and a credit note per refund, drawn by pdf.ts. Each document (the invoice with the credit
// notes issued so far, in one language) is drawn once, off the event loop (renderer.ts), stored in
// `invoice_documents` and served from there: an issued invoice does not change, so neither does
// its file. A refund issues a credit note, and so the document's next edition.
import { and, eq, lt } from 'drizzle-orm';
import { notFound } from '../../contract/errors.ts';
import { BASE_LOCALE, isLocale, type Locale, t } from '../../contract/i18n.ts';
import { invoicePartiesOf } from '../auth/sellers.ts';
import { findUser } from '../auth/users.ts';
import { caller, type RequestContext } from '../context.ts';
import { getOrder } from '../orders/service.ts';
import { succeededRefundsOf } from '../payments/refunds.ts';
import type { InvoiceLinks } from './links.ts';
import type { Collected, Invoice, TaxLine } from './pdf.ts';
import type { InvoiceRenderer } from './renderer.ts';
import { invoiceDocuments, issuedInvoices, type StoredParties } from './tables.ts';

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
  const issued = await issuedOf(ctx, order, buyer?.name ?? '');
  const fileName = t(locale, 'invoice.fileName', { number: issued.number });

  const edition = { orderId: order.id, locale, creditNotes: refunds.length };
  const [stored] = await ctx.db
    .select({ pdf: invoiceDocuments.pdf })
    .from(invoiceDocuments)
    .where(documentIs(edition));
  if (stored) return { pdf: stored.pdf, fileName, locale };

  const sample = renderer.samples && issued.parties.platform === null;
  const key = `${order.id} ${locale} ${refunds.length}`;
  const invoice = composeInvoice(order, locale, issued, refunds, sample);
  const pdf = await renderer.render(key, invoice, ctx.now());
  return { pdf: await store(ctx, edition, issued.parties, pdf), fileName, locale };
}

/**
 * Issues the invoices of a payment's orders, in the payment's transaction: each order's number is
 * its invoice's, and whom it names (the seller, the platform as marketplace operator, the buyer)
 * is fixed now, as they are at payment. Nothing changed later reaches an issued invoice.
 */
export async function issueInvoices(
  ctx: RequestContext,
  paid: Array<{ id: string; number: string; sellerId: string }>,
  buyerName: string,
): Promise<void> {
  if (paid.length === 0) return;
  const { sellers, platform } = await invoicePartiesOf(
    ctx,
    paid.map((o) => o.sellerId),
  );
  await ctx.db.insert(issuedInvoices).values(
    paid.map((o) => ({
      orderId: o.id,
      number: o.number,
      parties: { seller: sellers.get(o.sellerId)!, platform, buyerName },
      issuedAt: ctx.now(),
    })),
  );
}

interface Issued {
  number: string;
  parties: StoredParties;
}

/**
 * The order's invoice as issued at payment. Every order paid since invoices are issued at payment
 * has one, and the migration gave one to every order before; an order without one (written
 * outside the purchase flow) is issued at its first invoice, as things are then.
 */
async function issuedOf(ctx: RequestContext, order: Order, buyerName: string): Promise<Issued> {
  const [row] = await ctx.db
    .select({ number: issuedInvoices.number, parties: issuedInvoices.parties })
    .from(issuedInvoices)
    .where(eq(issuedInvoices.orderId, order.id));
  if (row) return row;
  const { sellers, platform } = await invoicePartiesOf(ctx, [order.sellerId]);
  const issued = {
    number: order.number,
    parties: { seller: sellers.get(order.sellerId)!, platform, buyerName },
  };
  const [inserted] = await ctx.db
    .insert(issuedInvoices)
    .values({ orderId: order.id, ...issued, issuedAt: ctx.now() })
    .onConflictDoNothing()
    .returning({ number: issuedInvoices.number, parties: issuedInvoices.parties });
  return inserted ?? (await issuedOf(ctx, order, buyerName));
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

/** What the invoice of an order says, in `locale`, as issued, with a credit note per refund. */
function composeInvoice(
  order: Order,
  locale: Locale,
  { number, parties }: Issued,
  refunds: Refund[],
  sample: boolean,
): Invoice {
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
  const whole = refunds.length === 1 && refunds[0]?.amountCents === order.totalAmountCents;

  return {
    locale,
    number,
    orderNumber: order.number,
    sample,
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
    sellerDiscountCents: order.sellerDiscountCents,
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
