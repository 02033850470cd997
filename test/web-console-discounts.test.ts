// A shop's discounts in the console (/console/discounts), over inject with a signed-in browser:
// the automatic discount saved, refused under its field, shown and removed; a coupon made with
// the desk's form, refused when its code is taken, listed with its uses; what the buyer's cart
// then shows, named; in English and in French; who may see the page.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../src/modules/auth/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart } from './helpers/checkout.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

describe('/console/discounts', () => {
  let s: SignedIn;
  let browser: Browser;
  beforeAll(async () => {
    s = await seller(t.api);
    browser = new Browser(t.app);
    await browser.signIn(s);
  });

  it('saves the automatic discount, refuses a bad one under its field, shows and removes it', async () => {
    const first = await browser.get('/console/discounts');
    expect(first.status).toBe(200);
    expect(textOf(first.html)).toContain('Your shop has no automatic discount.');
    expect(first.html).toContain('<a href="/console/discounts" aria-current="page">Discounts</a>');

    const bad = await browser.post('/console/discounts/automatic', { percent: '95', minSubtotal: '50' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('id="f-percent-error"');
    expect(bad.html).toContain('value="95"');
    const late = await browser.post('/console/discounts/automatic', {
      percent: '10',
      minSubtotal: '50',
      startsOn: '2026-12-10',
      endsOn: '2026-12-01',
    });
    expect(late.status).toBe(400);
    expect(late.html).toContain('id="f-endsOn-error"');
    expect((await t.api.as(s).get('/sellers/me/automatic-discount')).body).toEqual({ discount: null });

    const saved = await browser.post('/console/discounts/automatic', {
      percent: '10',
      minSubtotal: '50',
      endsOn: '2026-12-31',
    });
    expect(saved.url).toBe('/console/discounts?done=saved');
    const text = textOf(saved.html);
    expect(text).toContain('Your automatic discount is saved');
    expect(text).toContain('Now: 10% off your items when they add up to $50.00.');
    expect(text).toContain('From now to December 31, 2026.');
    expect((await t.api.as(s).get('/sellers/me/automatic-discount')).body.discount).toMatchObject({
      percent: 10,
      minSubtotalCents: 5000,
      startsOn: null,
      endsOn: '2026-12-31',
    });

    const removed = await browser.post('/console/discounts/automatic/remove', {});
    expect(removed.url).toBe('/console/discounts?done=removed');
    expect(textOf(removed.html)).toContain('Your shop has no automatic discount.');
  });

  it("makes the shop's coupons, refuses a taken code, lists them; the buyer's cart names them", async () => {
    const code = `CEDAR${uniqueWord()}`.toUpperCase();
    const made = await browser.post('/console/discounts/coupons', {
      code,
      discountAmount: '5',
      minSubtotal: '',
    });
    expect(made.url).toBe(`/console/discounts?done=created&code=${code}`);
    expect(textOf(made.html)).toContain(code);
    expect(made.html).toMatch(
      new RegExp(`<td data-label="Code">${code}</td><td data-label="Discount">\\$5\\.00 off</td>`),
    );

    const again = await browser.post('/console/discounts/coupons', { code, discountPercent: '10' });
    expect(again.status).toBe(409);
    expect(textOf(again.html)).toContain(`A coupon with the code ${code} already exists`);
    expect(again.html).toContain('value="10"');

    const p = await product(t.api, s, { priceCents: 2000 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 1);
    expect((await t.api.as(b).post('/cart/coupon', { code })).status).toBe(200);
    const cart = new Browser(t.app);
    await cart.signIn(b);
    const page = await cart.get('/shop/cart');
    const shop = (await t.api.as(s).get('/sellers/me/shop')).body.name;
    expect(textOf(page.html)).toContain(`Coupon ${code} (${shop})`);
    expect(textOf(page.html)).toContain('the coupon then takes off what is left');
  });

  it('in French, and only for sellers', async () => {
    await database.db.update(users).set({ locale: 'fr-CA' }).where(eq(users.id, s.id));
    const fr = new Browser(t.app);
    await fr.signIn(s);
    const page = await fr.get('/console/discounts');
    expect(page.html).toContain('<html lang="fr-CA"');
    expect(textOf(page.html)).toContain('Rabais automatique');
    expect(textOf(page.html)).toContain('Vos codes promo');

    const b = new Browser(t.app);
    await b.signIn(await buyer(t.api));
    expect((await b.get('/console/discounts')).status).toBe(403);
    const anonymous = new Browser(t.app);
    const res = await anonymous.get('/console/discounts', { follow: false });
    expect(res.status).toBe(303);
  });
});
