// Shipping on the pages (issue 41), over inject: the checkout's shipping step (a parcel that
// ships more than one way is chosen on /shop/checkout/<id>/shipping before the payment page;
// one way only goes straight to payment), who may see and post it, a paid or expired checkout,
// CSRF; and the seller's shipping profile in the console (/console/shipping): saved, refused
// under its fields, removed.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessions } from '../src/modules/checkout/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, pay } from './helpers/checkout.ts';
import { setClock } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

/** A Friday, 10:00 in Toronto: parcels handed over on Monday the 23rd. */
const FRIDAY = '2026-11-20T15:00:00.000Z';

/** A Toronto shop offering the four Canada Post services, priced by the built-in table. */
const CARRIER_PROFILE = {
  originPostalCode: 'M5H 2N2',
  originProvince: 'ON',
  handlingDays: 1,
  rates: 'carrier',
  services: ['DOM.RP', 'DOM.EP', 'DOM.XP', 'DOM.PC'],
};

/** The address form as a Montréal buyer fills it. */
const MONTREAL = {
  recipientName: 'Camille Tremblay',
  street: '1000 Rue Sherbrooke O',
  city: 'Montréal',
  province: 'QC',
  postalCode: 'H3A 3G4',
  phone: '514 555 0123',
};

beforeAll(() => setClock(t, FRIDAY));

/** A shop in Toronto with carrier rates (unless `profile` is false), a $20.00 product of it in a new buyer's cart, the buyer signed in on the pages. */
async function cartFromToronto(o: { profile?: boolean } = {}) {
  const s = await seller(t.api);
  if (o.profile !== false) {
    expect((await t.api.as(s).put('/sellers/me/shipping', CARRIER_PROFILE)).status).toBe(200);
  }
  const p = await product(t.api, s, { title: 'Cedar canoe paddle', priceCents: 2000, stockQuantity: 10 });
  const b = await buyer(t.api);
  await addToCart(t.api, b, p.id);
  const browser = new Browser(t.app);
  await browser.signIn(b);
  return { seller: s, product: p, buyer: b, browser };
}

/** Posts the address form; answers where it sent the buyer. */
async function addressPosted(browser: Browser) {
  await browser.get('/shop/checkout');
  const res = await browser.post('/shop/checkout', MONTREAL, { follow: false });
  expect(res.status, res.html.slice(0, 300)).toBe(303);
  return String(res.headers.location);
}

const sessionIdOf = (location: string) => decodeURIComponent(location.split('/')[3] ?? '');
const session = async (who: SignedIn, id: string) =>
  (await t.api.as(who).get(`/checkout/${encodeURIComponent(id)}`)).body;

describe('the checkout’s shipping step', () => {
  it('comes after the address when a parcel ships several ways: the options cheapest first, the chosen one checked, and the totals', async () => {
    const { buyer: b, seller: s, browser } = await cartFromToronto();
    const to = await addressPosted(browser);
    expect(to).toMatch(/^\/shop\/checkout\/checkouts%3A[^/]+\/shipping$/);
    const first = await session(b, sessionIdOf(to));
    const page = await browser.get(to);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('Choose your shipping');
    expect(text).toContain('Parcel from Maple Goods');
    expect(text).toContain('Cedar canoe paddle × 1');
    expect(text).toContain('Camille Tremblay');
    // Each option: its name, price and date, in the order offered (cheapest first), the cheapest checked.
    const options = first.parcels[0].shippingOptions;
    expect(options.map((o: { id: string }) => o.id)).toEqual([
      'canada_post:DOM.RP',
      'canada_post:DOM.EP',
      'canada_post:DOM.XP',
      'canada_post:DOM.PC',
    ]);
    const radios = [
      ...page.html.matchAll(
        /<input id="parcel-0-option-\d" type="radio" name="([^"]+)" value="([^"]+)"( checked)?/g,
      ),
    ];
    expect(radios.map((r) => [r[1], r[2], Boolean(r[3])])).toEqual(
      options.map((o: { id: string }, i: number) => [`choice.${s.id}`, o.id, i === 0]),
    );
    const xp = options.find((o: { id: string }) => o.id === 'canada_post:DOM.XP');
    expect(text).toContain(`Canada Post Xpresspost $${(xp.priceCents / 100).toFixed(2)} Expected`);
    expect(text).toMatch(/Expected November 2\d, 2026/);
    expect(text).toContain(`Total $${(first.totalCents / 100).toFixed(2)}`);
    expect(text).toContain('Continue to payment');
  });

  it('posts the choices, prices the cart again with them, and opens the new session’s payment page', async () => {
    const { buyer: b, seller: s, browser } = await cartFromToronto();
    const to = await addressPosted(browser);
    const before = await session(b, sessionIdOf(to));
    await browser.get(to);
    const chosen = await browser.post(to, { [`choice.${s.id}`]: 'canada_post:DOM.XP' }, { follow: false });
    expect(chosen.status).toBe(303);
    const payment = String(chosen.headers.location);
    expect(payment).toMatch(/^\/sandbox\/checkout\/checkouts/);
    const after = await session(b, decodeURIComponent(payment.split('/sandbox/checkout/')[1] ?? ''));
    const xp = before.parcels[0].shippingOptions.find((o: { id: string }) => o.id === 'canada_post:DOM.XP');
    expect(after.sessionId).not.toBe(before.sessionId);
    expect(after.parcels[0].shippingOption).toEqual(xp);
    expect(after.shippingCostCents).toBe(xp.priceCents);
    expect(after.totalCents).toBeGreaterThan(before.totalCents);
    // The payment page is the new session's, and the old one is over.
    expect((await browser.get(payment)).status).toBe(200);
    const [old] = await database.db
      .select({ status: checkoutSessions.status })
      .from(checkoutSessions)
      .where(eq(checkoutSessions.id, before.sessionId));
    expect(old?.status).toBe('expired');
  });

  it('keeps the session when the cheapest is posted, and goes to its payment page', async () => {
    const { seller: s, browser } = await cartFromToronto();
    const to = await addressPosted(browser);
    await browser.get(to);
    const chosen = await browser.post(to, { [`choice.${s.id}`]: 'canada_post:DOM.RP' }, { follow: false });
    expect(String(chosen.headers.location)).toBe(`/sandbox/checkout/${encodeURIComponent(sessionIdOf(to))}`);
  });

  it('goes straight to payment when every parcel ships one way (a shop without a profile)', async () => {
    const { browser } = await cartFromToronto({ profile: false });
    expect(await addressPosted(browser)).toMatch(/^\/sandbox\/checkout\//);
  });

  it('shows an option the parcel does not have under its parcel, with the form again (400)', async () => {
    const { seller: s, browser } = await cartFromToronto();
    const to = await addressPosted(browser);
    await browser.get(to);
    const refused = await browser.post(to, { [`choice.${s.id}`]: 'canada_post:DOM.XX' });
    expect(refused.status).toBe(400);
    const text = textOf(refused.html);
    expect(text).toContain('Check the fields marked below.');
    expect(text).toContain('Choose one of this parcel’s ways to ship');
    expect(refused.html).toMatch(/<fieldset class="ship-options" aria-describedby="parcel-0-error">/);
    expect(refused.html).toContain('aria-invalid="true"');
    // The real choice then goes through.
    const chosen = await browser.post(to, { [`choice.${s.id}`]: 'canada_post:DOM.EP' }, { follow: false });
    expect(chosen.status).toBe(303);
  });

  it('is the buyer’s own: another buyer gets 404 on the page and on its form; a visitor is sent to sign in', async () => {
    const { seller: s, browser } = await cartFromToronto();
    const to = await addressPosted(browser);
    const stranger = new Browser(t.app);
    await stranger.signIn(await buyer(t.api));
    expect((await stranger.get(to)).status).toBe(404);
    await stranger.get('/account');
    const posted = await stranger.post(to, { [`choice.${s.id}`]: 'canada_post:DOM.XP' });
    expect(posted.status).toBe(404);
    expect(textOf(posted.html)).toContain('Not found');
    // A made-up id is the same 404.
    expect((await browser.get('/shop/checkout/checkouts%3Anope/shipping')).status).toBe(404);
    const visitor = await new Browser(t.app).get(to);
    expect(visitor.url).toBe(`/account/sign-in?next=${encodeURIComponent(to)}`);
    // The owner's choice was never changed.
    await browser.get(to);
    expect(textOf(browser.last!.html)).toContain('Choose your shipping');
  });

  it('refuses a post without the page’s CSRF token (403), changing nothing', async () => {
    const { buyer: b, seller: s, browser } = await cartFromToronto();
    const to = await addressPosted(browser);
    const refused = await browser.post(
      to,
      { [`choice.${s.id}`]: 'canada_post:DOM.XP' },
      { csrf: null, follow: false },
    );
    expect(refused.status).toBe(403);
    const still = await session(b, sessionIdOf(to));
    expect(still.status).toBe('ready_for_payment');
    expect(still.parcels[0].shippingOption.id).toBe('canada_post:DOM.RP');
  });

  it('says plainly when the checkout expired or was paid, with the way back to the cart', async () => {
    const { browser } = await cartFromToronto();
    const to = await addressPosted(browser);
    await pay(t.api, sessionIdOf(to));
    const paid = await browser.get(to);
    expect(paid.status).toBe(200);
    expect(textOf(paid.html)).toContain('This checkout is already paid: you will find it in your orders.');
    expect(paid.html).toContain('href="/shop/cart"');
    expect(paid.html).toContain('href="/account/orders"');

    const next = await cartFromToronto();
    const later = await addressPosted(next.browser);
    await next.browser.get(later);
    await t.clock.advance(31 * 60);
    try {
      const expired = await next.browser.get(later);
      expect(textOf(expired.html)).toContain('This checkout has expired');
      expect(expired.html).toContain('href="/shop/cart"');
      const posted = await next.browser.post(later, { [`choice.${next.seller.id}`]: 'canada_post:DOM.XP' });
      expect(posted.status).toBe(409);
      expect(textOf(posted.html)).toContain('This checkout has expired');
    } finally {
      await t.clock.advance(-31 * 60);
    }
  });

  it('speaks French: the services’ names and the dates in the reader’s language', async () => {
    const { browser } = await cartFromToronto();
    const to = await addressPosted(browser);
    const page = await browser.get(`${to}?lang=fr-CA`);
    const text = textOf(page.html);
    expect(text).toContain('Choisissez la livraison');
    expect(text).toContain('Postes Canada Xpresspost');
    expect(text).toMatch(/Livraison prévue le 2\d novembre 2026/);
    expect(text).toContain('Continuer vers le paiement');
  });
});

describe('the seller’s shipping profile in the console', () => {
  const FORM = {
    originPostalCode: 'm5h 2n2',
    originProvince: 'ON',
    handlingDays: '2',
    rates: 'carrier',
    services: ['DOM.RP', 'DOM.XP'],
    flat: '',
    freeOver: '150',
    'parcel.lengthCm': '40',
    'parcel.widthCm': '30',
    'parcel.heightCm': '20,5',
    'parcel.weightKg': '0.75',
  };

  async function sellerOnPages() {
    const s = await seller(t.api);
    const browser = new Browser(t.app);
    await browser.signIn(s);
    return { s, browser };
  }

  it('is linked from the console; without a profile it says the platform’s flat rate applies', async () => {
    const { browser } = await sellerOnPages();
    const console = await browser.get('/console');
    expect(console.html).toContain('href="/console/shipping"');
    const page = await browser.get('/console/shipping');
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('You have no shipping profile yet.');
    expect(text).toContain(
      'Without a profile, your parcels ship at the platform’s flat rate: $8.99 within your province, $12.99 to another, $24.99 to Yukon',
    );
    expect(text).toContain('free from $75.00 of items');
    expect(page.html).not.toContain('action="/console/shipping/remove"');
    // The shop's province and the default box, filled in.
    expect(page.html).toMatch(/<option value="ON" selected>/);
    expect(page.html).toMatch(/id="f-parcel-lengthCm" name="parcel.lengthCm" type="text" value="30"/);
  });

  it('saves the profile as the API does (dollars to cents, a French comma, the postal code canonical)', async () => {
    const { s, browser } = await sellerOnPages();
    await browser.get('/console/shipping');
    const saved = await browser.post('/console/shipping', FORM);
    expect(saved.url).toBe('/console/shipping?done=saved');
    expect(textOf(saved.html)).toContain('Your shipping profile is saved');
    const profile = (await t.api.as(s).get('/sellers/me/shipping')).body;
    expect(profile).toMatchObject({
      originPostalCode: 'M5H 2N2',
      originProvince: 'ON',
      handlingDays: 2,
      rates: 'carrier',
      services: ['DOM.RP', 'DOM.XP'],
      flatCents: null,
      freeOverCents: 15000,
      parcel: { lengthCm: 40, widthCm: 30, heightCm: 20.5, weightKg: 0.75 },
    });
    // Shown back as saved: the services checked, the amount in dollars.
    expect(saved.html).toMatch(/value="DOM.XP" checked/);
    expect(saved.html).not.toMatch(/value="DOM.EP" checked/);
    expect(saved.html).toMatch(/id="f-freeOver" name="freeOver" type="text" value="150.00"/);
    // A flat rate instead.
    await browser.post('/console/shipping', { ...FORM, rates: 'flat', flat: '9,50' });
    expect((await t.api.as(s).get('/sellers/me/shipping')).body).toMatchObject({
      rates: 'flat',
      services: [],
      flatCents: 950,
    });
  });

  it('shows each refusal under its field, the form as typed (400), and saves nothing', async () => {
    const { s, browser } = await sellerOnPages();
    await browser.get('/console/shipping');
    // What each field takes: an amount, one decimal.
    const refused = await browser.post('/console/shipping', {
      ...FORM,
      freeOver: 'lots',
      'parcel.heightCm': '20.25',
    });
    expect(refused.status).toBe(400);
    expect(textOf(refused.html)).toContain('Check the fields marked below.');
    expect(refused.html).toMatch(
      /id="f-freeOver-error">must be an amount in dollars from \$0.00 to \$100,000.00</,
    );
    expect(refused.html).toMatch(/id="f-parcel-heightCm-error">must have one decimal at most</);
    expect(refused.html).toMatch(/id="f-freeOver"[^>]*value="lots"[^>]*aria-invalid="true"/);
    // The rules across fields: the postal code's province, a service for carrier rates.
    const rules = await browser.post('/console/shipping', {
      ...FORM,
      originPostalCode: 'H3A 3G4',
      services: [],
    });
    expect(rules.status).toBe(400);
    expect(rules.html).toMatch(
      /id="f-originPostalCode-error">postal codes in ON start with K or L or M or N or P</,
    );
    expect(rules.html).toMatch(/id="services-error">Choose at least one service for Canada Post’s rates</);
    expect(rules.html).toMatch(/<fieldset id="services" aria-describedby="services-hint services-error">/);
    expect(rules.html).toMatch(/id="f-originPostalCode"[^>]*value="H3A 3G4"/);
    expect((await t.api.as(s).get('/sellers/me/shipping')).status).toBe(404);
    // Flat rates without the rate.
    const flat = await browser.post('/console/shipping', { ...FORM, rates: 'flat', flat: '' });
    expect(flat.html).toMatch(/id="f-flat-error">Give your flat rate per parcel</);
    const tooMuch = await browser.post('/console/shipping', { ...FORM, rates: 'flat', flat: '2000' });
    expect(tooMuch.html).toMatch(/id="f-flat-error">must be an amount in dollars from \$0.00 to \$1,000.00</);
  });

  it('removes the profile: the platform’s flat rate again', async () => {
    const { s, browser } = await sellerOnPages();
    await browser.get('/console/shipping');
    await browser.post('/console/shipping', FORM);
    expect(browser.last!.html).toContain('action="/console/shipping/remove"');
    const removed = await browser.post('/console/shipping/remove', {});
    expect(removed.url).toBe('/console/shipping?done=removed');
    expect(textOf(removed.html)).toContain('Your shipping profile is removed');
    expect((await t.api.as(s).get('/sellers/me/shipping')).status).toBe(404);
    // Removing again (another tab): said on the page.
    const again = await browser.post('/console/shipping/remove', {});
    expect(again.status).toBe(404);
    expect(textOf(again.html)).toContain('You have no shipping profile');
  });

  it('is a seller’s: a buyer is refused (403); a post without the CSRF token is refused (403)', async () => {
    const b = new Browser(t.app);
    await b.signIn(await buyer(t.api));
    expect((await b.get('/console/shipping')).status).toBe(403);
    const { s, browser } = await sellerOnPages();
    await browser.get('/console/shipping');
    expect((await browser.post('/console/shipping', FORM, { csrf: null })).status).toBe(403);
    expect((await browser.post('/console/shipping/remove', {}, { csrf: null })).status).toBe(403);
    expect((await t.api.as(s).get('/sellers/me/shipping')).status).toBe(404);
  });

  it('speaks French, amounts with a comma', async () => {
    const { browser } = await sellerOnPages();
    await browser.get('/console/shipping?lang=fr-CA');
    await browser.post('/console/shipping', { ...FORM, rates: 'flat', flat: '9,5' });
    const page = await browser.get('/console/shipping');
    const text = textOf(page.html);
    expect(text).toContain('Profil d’expédition');
    expect(text).toContain('Supprimer le profil (utiliser le tarif fixe de la plateforme)');
    expect(page.html).toMatch(/id="f-flat" name="flat" type="text" value="9,50"/);
    expect(page.html).toMatch(/id="f-parcel-heightCm" name="parcel.heightCm" type="text" value="20,5"/);
  });
});
