// Invoices (docs/invoices.md): real purchases through the HTTP app, the PDF fetched as its buyer,
// seller or an admin, its text extracted with unpdf (PDF.js) and read as a person would: the
// supplier's numbers, the buyer, each tax line with its rate, totals that add up, and a credit
// note page per refund; in French and in English.

import { extractText } from 'unpdf';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatMoney, type Locale } from '../src/contract/i18n.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import {
  admin,
  buyer,
  coupon,
  expectError,
  PLATFORM_TAX_PROFILE,
  product,
  seller,
  uniqueEmail,
} from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk, QC_ADDRESS } from './helpers/checkout.ts';
import { cancelledOrder, deliver, outboxRows, refundedReturn, ship } from './helpers/orders.ts';

const { t, database } = useTestApp();

const SELLER_IDENTITY = {
  legalName: 'Érablière Côté-Nord inc.',
  street: '45 rue des Érables',
  city: 'Québec',
  postalCode: 'G1R 4P5',
  gstHstNumber: '123456782RT0001',
  qstNumber: '1234567892TQ0001',
};

const PLATFORM = PLATFORM_TAX_PROFILE;

interface Pdf {
  status: number;
  headers: Record<string, unknown>;
  /** Each page's text, spaces of every kind (fr-CA's narrow no-break ones) as plain spaces. */
  pages: string[];
  text: string;
}

/** GET the invoice as `who`: the raw bytes (inject, not the JSON helper), then their text. */
async function invoice(
  who: SignedIn,
  orderId: string,
  query = '',
  headers: Record<string, string> = {},
): Promise<Pdf & { body?: unknown }> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/orders/${encodeURIComponent(orderId)}/invoice${query}`,
    headers: { authorization: `Bearer ${who.token}`, ...headers },
  });
  if (res.statusCode !== 200) {
    return { status: res.statusCode, body: res.json(), headers: res.headers, pages: [], text: '' };
  }
  const bytes = Uint8Array.from(res.rawPayload);
  expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
  const { text } = await extractText(bytes, { mergePages: false });
  const pages = text.map((p) => p.replace(/[\s\u00a0\u202f]+/g, ' '));
  return { status: 200, headers: res.headers, pages, text: pages.join('\n') };
}

const money = (locale: Locale, cents: number) => formatMoney(locale, cents).replace(/[\u00a0\u202f]/g, ' ');

/** The amount printed right after `label` (the first one when the label repeats), in cents. */
function amountAfter(text: string, label: string, locale: Locale): number {
  const at = text.indexOf(label);
  expect(at, `"${label}" in:\n${text}`).toBeGreaterThanOrEqual(0);
  const rest = text.slice(at + label.length);
  const m = locale === 'fr-CA' ? /^\s*(-?[\d ]+,\d\d) \$/.exec(rest) : /^\s*(-?)\$([\d,]+\.\d\d)/.exec(rest);
  expect(m, `an amount after "${label}" in: ${rest.slice(0, 60)}`).not.toBeNull();
  if (locale === 'fr-CA') return Math.round(Number(m![1]!.replace(/ /g, '').replace(',', '.')) * 100);
  return Math.round(Number(`${m![1]}${m![2]!.replace(/,/g, '')}`) * 100);
}

/** A seller (in `province`) with the invoice identity given, and a product of theirs. */
async function sellerWith(identity: Record<string, unknown>, province = 'QC', priceCents = 4250) {
  const s = await seller(t.api, province);
  if (Object.keys(identity).length) {
    const res = await t.api.as(s).patch('/me/seller', identity);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const p = await product(t.api, s, { priceCents, title: `Sirop d’érable « ambré » ${Math.random()}` });
  return { seller: s, product: p };
}

/** A buyer named `name` who buys `quantity` of `productId`, shipped to `address`: the order id. */
async function purchase(
  b: SignedIn,
  productId: string,
  quantity: number,
  address: typeof ON_ADDRESS,
  couponCode?: string,
) {
  await addToCart(t.api, b, productId, quantity);
  if (couponCode) expect((await t.api.as(b).post('/cart/coupon', { code: couponCode })).status).toBe(200);
  const [orderId] = await payOk(t.api, (await openCheckout(t.api, b, address)).sessionId);
  return orderId!;
}

async function namedBuyer(name: string): Promise<SignedIn> {
  const email = uniqueEmail('invoice');
  const password = 'correct horse battery';
  const res = await t.api.post('/auth/register', { email, password, name });
  expect(res.status).toBe(201);
  return { id: res.body.user.id, email, password, token: res.body.token };
}

let platformAdmin: SignedIn;
beforeAll(async () => {
  platformAdmin = await admin(t.api, database);
  expect((await t.api.as(platformAdmin).put('/admin/tax-profile', PLATFORM)).status).toBe(200);
});

describe('a Quebec buyer', () => {
  let orderId: string;
  let order: Record<string, number> & { number: string };
  let b: SignedIn;
  let s: SignedIn;
  let pdf: Pdf;

  beforeAll(async () => {
    const made = await sellerWith(SELLER_IDENTITY, 'QC');
    s = made.seller;
    b = await namedBuyer('Léa Gagnon-Bélanger');
    expect((await t.api.as(b).patch('/me', { locale: 'fr-CA' })).status).toBe(200);
    const c = await coupon(t.api, platformAdmin, { discountPercent: 10, expirationDate: '2030-12-31' });
    orderId = await purchase(b, made.product.id, 2, QC_ADDRESS, c.code);
    const res = await t.api.as(b).get(`/orders/${orderId}`);
    order = res.body;
    expect(res.body.invoiceUrl).toBe(`http://portage.test/orders/${encodeURIComponent(orderId)}/invoice`);
    pdf = await invoice(b, orderId);
  });

  it('gets a French PDF to download, named in French', () => {
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const key = order.number;
    expect(key).toMatch(/^\d{4}-\d{6}$/);
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="facture-${key}.pdf"`);
    expect(pdf.headers['content-language']).toBe('fr-CA');
    expect(pdf.pages).toHaveLength(1);
    expect(pdf.text).toContain('Facture');
    expect(pdf.text).toContain(`Numéro de facture ${key}`);
    expect(pdf.text).not.toMatch(/Invoice|Subtotal|Shipping|Discount|registration/);
  });

  it('names the seller with its accents, address and both registration numbers, and the buyer', () => {
    expect(pdf.text).toContain('Érablière Côté-Nord inc.');
    expect(pdf.text).toContain('45 rue des Érables');
    expect(pdf.text).toContain('Québec QC G1R 4P5');
    expect(pdf.text).toContain('Nº d’inscription à la TPS/TVH : 123456782RT0001');
    expect(pdf.text).toContain('Nº d’inscription à la taxe de vente du Québec (TVQ) : 1234567892TQ0001');
    expect(pdf.text).toContain('Léa Gagnon-Bélanger');
    expect(pdf.text).toContain('1000 Rue Sherbrooke O');
    expect(pdf.text).toContain('Montréal QC H3A 3G4');
    expect(pdf.text).toContain('Sirop d’érable « ambré »');
    // The seller is registered: no marketplace operator takes its place.
    expect(pdf.text).not.toContain('Portage Marketplace Inc.');
  });

  it('shows the TPS and TVQ lines with their rates, and totals that add up to the order', () => {
    const fr = 'fr-CA';
    const subtotal = amountAfter(pdf.text, 'Sous-total', fr);
    const discount = amountAfter(pdf.text, 'Rabais', fr);
    const shipping = amountAfter(pdf.text, 'Livraison', fr);
    const tps = amountAfter(pdf.text, 'TPS 5 %', fr);
    const tvq = amountAfter(pdf.text, 'TVQ 9,975 %', fr);
    const total = amountAfter(pdf.text, 'Total', fr);
    expect(subtotal).toBe(8500);
    expect(discount).toBe(-850);
    expect(subtotal + discount + shipping + tps + tvq).toBe(total);
    expect({ subtotal, discount: -discount, shipping, tax: tps + tvq, total }).toEqual({
      subtotal: order.subtotalCents,
      discount: order.discountCents,
      shipping: order.shippingCostCents,
      tax: order.taxAmountCents,
      total: order.totalAmountCents,
    });
    // Each line: quantity, unit price, amount.
    expect(pdf.text).toContain(`2 ${money(fr, 4250)} ${money(fr, 8500)}`);
    // The platform's fee is not the buyer's business.
    expect(pdf.text).not.toContain(money(fr, order.platformFeeCents as number));
  });

  it('switches language with ?locale=, and defaults to the request for the seller asking', async () => {
    const en = await invoice(b, orderId, '?locale=en-CA');
    expect(en.headers['content-disposition']).toMatch(/filename="invoice-/);
    expect(en.text).toContain('GST 5%');
    expect(en.text).toContain('QST 9.975%');
    expect(en.text).toContain('QST registration no.: 1234567892TQ0001');
    // The seller's own request speaks the request's language, not the buyer's preference.
    const bySeller = await invoice(s, orderId);
    expect(bySeller.status).toBe(200);
    expect(bySeller.text).toContain('Invoice');
    const bySellerFr = await invoice(s, orderId, '', { 'accept-language': 'fr-CA' });
    expect(bySellerFr.text).toContain('Facture');
  });

  it('is 404 to another buyer and to another seller, and served to an admin', async () => {
    const other = await buyer(t.api);
    const res = await invoice(other, orderId);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', statusCode: 404 });
    expect((await invoice(await seller(t.api), orderId)).status).toBe(404);
    expect((await invoice(platformAdmin, orderId)).status).toBe(200);
    expectError(await t.api.get(`/orders/${orderId}/invoice`), 'AUTH_ERROR', 401);
    expect((await t.api.as(b).get(`/orders/${orderId}/invoice?locale=de-DE`)).body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'locale', message: 'doit être l’une des valeurs en-CA, fr-CA' }],
    });
  });
});

describe('the link in the paid email', () => {
  it('downloads the invoice without signing in; a forged, altered or expired link is 404', async () => {
    const made = await sellerWith(SELLER_IDENTITY, 'QC');
    const b = await namedBuyer('Émile Tremblay');
    await addToCart(t.api, b, made.product.id, 1);
    const session = await openCheckout(t.api, b, QC_ADDRESS);
    const [orderId] = await payOk(t.api, session.sessionId);
    const [mail] = await outboxRows(database, `order-paid:${session.sessionId}`);
    // A Quebec buyer with no saved language: the email, and so its link, are French.
    const url = new URL(
      /https?:\/\/\S+\/invoices\/[^\s"<]+/.exec(mail!.textBody)![0]!.replace(/&amp;/g, '&'),
    );
    expect(url.searchParams.get('locale')).toBe('fr-CA');
    const link = `${url.pathname}${url.search}`;

    const res = await t.app.inject({ method: 'GET', url: link });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const { text } = await extractText(Uint8Array.from(res.rawPayload), { mergePages: true });
    expect(text).toContain('Facture');
    expect(text).toContain(`Numéro de facture ${(await t.api.as(b).get(`/orders/${orderId}`)).body.number}`);

    const token = url.pathname.split('/').pop()!;
    const [order, buyerKey, exp, mac] = token.split('.') as [string, string, string, string];
    const other = await namedBuyer('Autre');
    const tampered = [
      `${order}.${other.id.slice('users:'.length)}.${exp}.${mac}`, // another buyer
      `${order}.${buyerKey}.${(Number.parseInt(exp, 36) + 1).toString(36)}.${mac}`, // a later expiry
      // A forged MAC: its first character changed (the last ones may be base64url's padding bits,
      // or already what a fixed forgery would write).
      `${order}.${buyerKey}.${exp}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`,
      'not-a-token',
    ];
    for (const bad of tampered) {
      const refused = await t.api.get(`/invoices/${bad}`);
      expect(refused.status, bad).toBe(404);
      expect(refused.body.code).toBe('NOT_FOUND');
    }
    // A year and a day later the link has expired.
    t.clock.advance(366 * 86_400);
    try {
      expect((await t.api.get(link)).status).toBe(404);
    } finally {
      t.clock.advance(-366 * 86_400);
    }
  });
});

describe('an Ontario business buyer', () => {
  it("gets an English invoice with the seller's HST number and an HST 13% line", async () => {
    const { product: p } = await sellerWith(
      {
        ...SELLER_IDENTITY,
        legalName: 'Lakeshore Outfitters Ltd.',
        city: 'Toronto',
        postalCode: 'M5V 2T6',
        qstNumber: null,
      },
      'ON',
      12_999,
    );
    const b = await namedBuyer('Northwind Supplies Inc.');
    const orderId = await purchase(b, p.id, 1, ON_ADDRESS);
    const order = (await t.api.as(b).get(`/orders/${orderId}`)).body;
    const pdf = await invoice(b, orderId);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-language']).toBe('en-CA');
    expect(pdf.text).toContain('Invoice');
    expect(pdf.text).toContain('Lakeshore Outfitters Ltd.');
    expect(pdf.text).toContain('GST/HST registration no.: 123456782RT0001');
    expect(pdf.text).not.toContain('QST');
    expect(pdf.text).toContain('Northwind Supplies Inc.');
    expect(pdf.text).toContain('100 Queen St W');
    const en = 'en-CA';
    const subtotal = amountAfter(pdf.text, 'Subtotal', en);
    const discount = amountAfter(pdf.text, 'Discount', en);
    const shipping = amountAfter(pdf.text, 'Shipping', en);
    const hst = amountAfter(pdf.text, 'HST 13%', en);
    const total = amountAfter(pdf.text, 'Total', en);
    expect(subtotal).toBe(12_999);
    expect(discount).toBe(0);
    expect(hst).toBe(order.taxAmountCents);
    expect(subtotal + discount + shipping + hst).toBe(total);
    expect(total).toBe(order.totalAmountCents);
    expect(pdf.text).toContain(`1 ${money(en, 12_999)} ${money(en, 12_999)}`);

    const fr = await invoice(b, orderId, '?locale=fr-CA');
    expect(fr.text).toContain('Facture');
    expect(fr.text).toContain('TVH 13 %');
    expect(amountAfter(fr.text, 'TVH 13 %', 'fr-CA')).toBe(hst);
  });
});

describe('a seller without a GST/HST number', () => {
  it('names the platform as the marketplace operator collecting the taxes, with its numbers', async () => {
    const { product: p } = await sellerWith({ legalName: 'Atelier Sans Numéro' }, 'QC', 2000);
    const b = await buyer(t.api);
    const orderId = await purchase(b, p.id, 1, QC_ADDRESS);
    const pdf = await invoice(b, orderId, '?locale=fr-CA');
    expect(pdf.text).toContain('Atelier Sans Numéro');
    expect(pdf.text).toContain('Exploitant de la plateforme qui perçoit la taxe');
    expect(pdf.text).toContain('Portage Marketplace Inc.');
    expect(pdf.text).toContain('Nº d’inscription à la TPS/TVH : 876543216RT0001');
    expect(pdf.text).toContain('Nº d’inscription à la taxe de vente du Québec (TVQ) : 9876543211TQ0001');
    expect(pdf.text).toContain(
      'La TPS/TVH et la taxe de vente du Québec (TVQ) sur cette vente sont perçues et versées par l’exploitant de la plateforme',
    );
    const en = await invoice(b, orderId, '?locale=en-CA');
    expect(en.text).toContain('Marketplace operator collecting the tax');
    expect(en.text).toContain('GST/HST registration no.: 876543216RT0001');
  });
});

describe('refunds', () => {
  it('a cancelled order has a credit note page for its full refund, referencing the invoice', async () => {
    const { buyer: b, orderId, order } = await cancelledOrder(t);
    const pdf = await invoice(b, orderId);
    expect(pdf.pages).toHaveLength(2);
    const key = order.number;
    const note = pdf.pages[1]!;
    expect(note).toContain('Credit note');
    expect(note).toContain(`Credit note number ${key}-R1`);
    expect(note).toContain(`This credit note refers to invoice ${key} of`);
    expect(note).toContain('Refund of the cancelled order.');
    expect(amountAfter(note, 'HST 13% refunded', 'en-CA')).toBe(-order.taxAmountCents);
    expect(amountAfter(note, 'Total refunded', 'en-CA')).toBe(-order.totalAmountCents);
    expect(pdf.pages[0]).toContain('Page 1 of 2');
    expect(note).toContain('Page 2 of 2');

    const fr = await invoice(b, orderId, '?locale=fr-CA');
    expect(fr.pages[1]).toContain('Note de crédit');
    expect(fr.pages[1]).toContain(`Cette note de crédit se rapporte à la facture ${key} du`);
    expect(amountAfter(fr.pages[1]!, 'Total remboursé', 'fr-CA')).toBe(-order.totalAmountCents);
  });

  it('a partial return has a credit note of its amount, taxes included', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const kept = await product(t.api, s, { priceCents: 3000 });
    const returned = await product(t.api, s, { priceCents: 1000 });
    await addToCart(t.api, b, kept.id, 1);
    const orderId = await purchase(b, returned.id, 1, ON_ADDRESS);
    await ship(t, s, orderId);
    await deliver(t, s, orderId);
    const r = await t.api
      .as(b)
      .post('/returns', { order_id: orderId, reason: 'damaged', items: [returned.id] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const approved = await t.api.as(s).post(`/returns/${r.body.return_id}/approve`, {});
    expect(approved.body.status).toBe('refunded');
    const refunded = (await t.api.as(b).get(`/orders/${orderId}`)).body.refundedCents;
    const pdf = await invoice(b, orderId);
    expect(pdf.pages).toHaveLength(2);
    expect(pdf.pages[1]).toContain('Refund of a return the supplier accepted.');
    expect(amountAfter(pdf.pages[1]!, 'Amount refunded (taxes included)', 'en-CA')).toBe(-refunded);
    expect(pdf.pages[1]).not.toContain('HST 13% refunded');
  });

  it('a whole-order return refunds through a credit note too', async () => {
    const { buyer: b, orderId } = await refundedReturn(t);
    const pdf = await invoice(b, orderId);
    expect(pdf.pages).toHaveLength(2);
    expect(pdf.pages[1]).toContain('Total refunded');
  });
});
