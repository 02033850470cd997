// An invoice is issued once, at payment (docs/invoices.md "Issued once"): the seller's legal name,
// address and numbers, and the platform's as marketplace operator, are what they were when the
// order was paid, whatever changes after; the platform collects the taxes a seller is not
// registered for and the invoice says so; without a platform profile (development) the invoice
// says plainly it is a sample. The platform's profile has its page in the desk, for admins only.
import { extractText } from 'unpdf';
import { describe, expect, it } from 'vitest';
import type { Locale } from '../src/contract/i18n.ts';
import { type SignedIn, type TestApp, useTestApp, withTestApp } from './helpers/app.ts';
import { admin, buyer, PLATFORM_TAX_PROFILE, product, seller } from './helpers/builders.ts';
import { addToCart, openCheckout, payOk, QC_ADDRESS } from './helpers/checkout.ts';
import { paidOrder } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const PLATFORM = PLATFORM_TAX_PROFILE;

/** The invoice's text as `who` downloads it, pages joined, spaces made plain. */
async function invoiceText(t: TestApp, who: SignedIn, orderId: string, locale: Locale = 'en-CA') {
  const res = await t.app.inject({
    method: 'GET',
    url: `/orders/${encodeURIComponent(orderId)}/invoice?locale=${locale}`,
    headers: { authorization: `Bearer ${who.token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  const { text } = await extractText(Uint8Array.from(res.rawPayload), { mergePages: true });
  return text.replace(/[\s\u00a0\u202f]+/g, ' ');
}

/** A Québec seller with no registration number selling to a Québec buyer: GST and QST charged. */
async function unregisteredSale(t: TestApp) {
  const s = await seller(t.api, 'QC');
  const p = await product(t.api, s, { priceCents: 5000 });
  const b = await buyer(t.api);
  await addToCart(t.api, b, p.id, 1);
  const [orderId] = await payOk(t.api, (await openCheckout(t.api, b, QC_ADDRESS)).sessionId);
  return { seller: s, buyer: b, orderId: orderId! };
}

describe('with the platform’s tax profile set', () => {
  const { t, database } = useTestApp();

  it('names the platform collecting the GST and QST a seller is not registered for, with its numbers', async () => {
    const boss = await admin(t.api, database);
    expect((await t.api.as(boss).put('/admin/tax-profile', PLATFORM)).status).toBe(200);
    const sale = await unregisteredSale(t);
    for (const locale of ['en-CA', 'fr-CA'] as const) {
      const text = await invoiceText(t, sale.buyer, sale.orderId, locale);
      expect(text).not.toMatch(/SAMPLE|EXEMPLE/);
      expect(text).toContain('Portage Marketplace Inc.');
      expect(text).toContain('876543216RT0001');
      expect(text).toContain('9876543211TQ0001');
      expect(text).not.toMatch(/Not registered|Non inscrit/);
    }
    const en = await invoiceText(t, sale.buyer, sale.orderId);
    expect(en).toContain('Marketplace operator collecting the tax');
    expect(en).toContain(
      'The GST/HST and the Québec sales tax (QST) on this sale are collected and remitted by the operator of the marketplace, because the supplier is not registered for them.',
    );
  });

  it('prints what the seller and the platform were at payment, not the numbers they entered after', async () => {
    const boss = await admin(t.api, database);
    expect((await t.api.as(boss).put('/admin/tax-profile', PLATFORM)).status).toBe(200);
    const sale = await unregisteredSale(t);
    // After the payment and before any invoice was drawn: the seller registers, the platform moves.
    const registered = {
      legalName: 'Érablière Tardive inc.',
      gstHstNumber: '123456782RT0001',
      qstNumber: '1234567892TQ0001',
    };
    expect((await t.api.as(sale.seller).patch('/me/seller', registered)).status).toBe(200);
    const moved = { ...PLATFORM, legalName: 'Portage Nouvelle Inc.', street: '2 rue Neuve' };
    expect((await t.api.as(boss).put('/admin/tax-profile', moved)).status).toBe(200);

    for (const locale of ['en-CA', 'fr-CA'] as const) {
      const text = await invoiceText(t, sale.buyer, sale.orderId, locale);
      expect(text).not.toContain('Érablière Tardive inc.');
      expect(text).not.toContain('123456782RT0001');
      expect(text).not.toContain('1234567892TQ0001');
      expect(text).not.toContain('Portage Nouvelle Inc.');
      expect(text).toContain('Portage Marketplace Inc.');
      expect(text).toContain('1 Place Ville Marie');
    }
    // An order paid now names them as they are now.
    const later = await paidOrder(t, { seller: sale.seller });
    const text = await invoiceText(t, later.buyer, later.orderId);
    expect(text).toContain('Érablière Tardive inc.');
    expect(text).toContain('123456782RT0001');
  });
});

describe('without the platform’s tax profile (development)', () => {
  it('says plainly on every page that the invoice is a sample, in both languages', async () => {
    await withTestApp(async (t) => {
      const sale = await unregisteredSale(t);
      const en = await invoiceText(t, sale.buyer, sale.orderId);
      expect(en).toContain(
        "SAMPLE, NOT AN INVOICE: the platform's tax profile is not set (development). Set it in the desk (Tax profile) before selling.",
      );
      const fr = await invoiceText(t, sale.buyer, sale.orderId, 'fr-CA');
      expect(fr).toContain(
        'EXEMPLE, PAS UNE FACTURE : le profil fiscal de la plateforme n’est pas renseigné (développement).',
      );
    });
  });
});

describe('the desk’s tax profile page', () => {
  const { t, database } = useTestApp();

  it('lets an admin set the profile, normalising the numbers and refusing a wrong one', async () => {
    const boss = await admin(t.api, database);
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    const empty = await desk.get('/desk/tax');
    expect(empty.status).toBe(200);
    expect(textOf(empty.html)).toContain('Not set yet: invoices are samples until it is');

    const form = {
      legalName: 'Portage Marketplace Inc.',
      street: '1 Place Ville Marie',
      city: 'Montréal',
      province: 'QC',
      postalCode: 'H3B 2B6',
      gstHstNumber: '876543216RT0001',
      qstNumber: '9876543211TQ0002',
    };
    const wrong = await desk.post('/desk/tax', { ...form, gstHstNumber: '876543217RT0001' });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toMatch(/id="f-gstHstNumber"[^>]*aria-invalid="true"/);
    // What was typed stays in the form.
    expect(wrong.html).toContain('value="876543217RT0001"');
    expect((await t.api.as(boss).get('/admin/tax-profile')).status).toBe(404);

    const saved = await desk.post('/desk/tax', { ...form, gstHstNumber: '876 543 216 rt 0001' });
    expect(saved.url).toBe('/desk/tax?done=saved');
    expect(textOf(saved.html)).toContain('The tax profile is saved.');
    expect(saved.html).toContain('value="876543216RT0001"');
    const profile = await t.api.as(boss).get('/admin/tax-profile');
    expect(profile.body).toMatchObject({ ...form, gstHstNumber: '876543216RT0001' });
  });

  it('is for admins only: a visitor is sent to sign in, buyers and sellers are refused', async () => {
    const visitor = new Browser(t.app);
    const res = await visitor.get('/desk/tax', { follow: false });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/account/sign-in?next=%2Fdesk%2Ftax');
    for (const who of [await buyer(t.api), await seller(t.api)]) {
      const b = new Browser(t.app);
      await b.signIn(who);
      expect((await b.get('/desk/tax')).status).toBe(403);
      await b.get('/account');
      const post = await b.post('/desk/tax', { ...PLATFORM, legalName: 'Intrus inc.' });
      expect(post.status).toBe(403);
    }
    const boss = await admin(t.api, database);
    const profile = await t.api.as(boss).get('/admin/tax-profile');
    expect(profile.body.legalName ?? null).not.toBe('Intrus inc.');
  });
});
