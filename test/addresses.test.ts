// A buyer's saved addresses (/account/addresses and the checkout's page), the recipient and unit
// line a parcel is addressed with on the seller's order page, and a seller's menu.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { savedAddresses } from '../src/modules/addresses/tables.ts';
import { orders } from '../src/modules/orders/tables.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, buyer, product, seller } from './helpers/builders.ts';
import { addToCart, pay } from './helpers/checkout.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

const HOME = {
  recipientName: 'Camille Tremblay',
  street: '1000 Rue Sherbrooke O',
  line2: 'App. 4',
  city: 'Montréal',
  province: 'QC',
  postalCode: 'h3a 1t5',
  phone: '(514) 555-0199',
};
const WORK = {
  recipientName: 'Camille Tremblay',
  street: '100 Queen St W',
  line2: '',
  city: 'Toronto',
  province: 'ON',
  postalCode: 'M5H2N2',
  phone: '416 555 0123',
};

const rowsOf = (userId: string) =>
  database.db.select().from(savedAddresses).where(eq(savedAddresses.userId, userId));

async function signedInBuyer() {
  const who = await buyer(t.api);
  const b = new Browser(t.app);
  await b.signIn(who);
  return { who, b };
}

describe("the account's addresses", () => {
  it('adds addresses in canonical form, the first the default; another can become it; deleting the default passes it on', async () => {
    const { who, b } = await signedInBuyer();
    const empty = await b.get('/account/addresses');
    expect(empty.status).toBe(200);
    expect(textOf(empty.html)).toContain('No saved address yet.');
    const added = await b.post('/account/addresses', HOME);
    expect(added.url).toBe('/account/addresses?done=added');
    expect(textOf(added.html)).toContain('The address is saved.');
    expect(textOf(added.html)).toContain(
      'Default Camille Tremblay 1000 Rue Sherbrooke O App. 4 Montréal Quebec H3A 1T5 Phone: +1 514 555 0199',
    );
    await b.post('/account/addresses', WORK);
    const rows = await rowsOf(who.id);
    expect(rows.map((r) => [r.street, r.line2, r.postalCode, r.phone, r.isDefault])).toEqual([
      ['1000 Rue Sherbrooke O', 'App. 4', 'H3A 1T5', '+15145550199', true],
      ['100 Queen St W', null, 'M5H 2N2', '+14165550123', false],
    ]);
    // The same address again is the same row.
    await b.post('/account/addresses', WORK);
    expect(await rowsOf(who.id)).toHaveLength(2);
    const work = rows.find((r) => r.city === 'Toronto')!;
    const made = await b.post(`/account/addresses/${encodeURIComponent(work.id)}/default`, {});
    expect(textOf(made.html)).toContain('This address is now your default.');
    expect((await rowsOf(who.id)).find((r) => r.isDefault)?.id).toBe(work.id);
    const deleted = await b.post(`/account/addresses/${encodeURIComponent(work.id)}/delete`, {});
    expect(textOf(deleted.html)).toContain('The address is deleted.');
    const left = await rowsOf(who.id);
    expect(left.map((r) => [r.city, r.isDefault])).toEqual([['Montréal', true]]);
  });

  it("refuses what the API refuses, under each field, in the person's language", async () => {
    const { who, b } = await signedInBuyer();
    await b.get('/account/addresses?lang=fr-CA');
    const refused = await b.post('/account/addresses', {
      ...HOME,
      recipientName: '',
      postalCode: '90210',
      phone: '+44 20 7946 0958',
    });
    expect(refused.status).toBe(400);
    const text = textOf(refused.html);
    expect(text).toContain('Vérifiez les champs indiqués ci-dessous.');
    expect(text).toContain('doit être +1 suivi de 10 chiffres (E.164)');
    expect(text).toContain('doit avoir la forme A1A 1A1');
    expect(refused.html).toMatch(/id="f-recipientName"[^>]*aria-invalid="true"/);
    const long = await b.post('/account/addresses', { ...HOME, line2: 'x'.repeat(101) });
    expect(long.status).toBe(400);
    expect(long.html).toMatch(/id="f-line2"[^>]*aria-invalid="true"/);
    expect(await rowsOf(who.id)).toHaveLength(0);
  });

  it('keeps at most 10 addresses', async () => {
    const { who, b } = await signedInBuyer();
    await b.get('/account/addresses');
    for (let n = 1; n <= 10; n++) {
      expect((await b.post('/account/addresses', { ...HOME, street: `${n} Rue Sherbrooke O` })).status).toBe(
        200,
      );
    }
    const full = await b.get('/account/addresses');
    expect(textOf(full.html)).toContain('You can keep up to 10 addresses.');
    expect(full.html).not.toContain('action="/account/addresses"');
    const refused = await b.post('/account/addresses', { ...HOME, street: '11 Rue Sherbrooke O' });
    expect(refused.status).toBe(409);
    expect(textOf(refused.html)).toContain('You can keep at most 10 addresses; delete one first');
    expect(await rowsOf(who.id)).toHaveLength(10);
  });

  it("is the buyer's own: another's address is not found, and a seller has none", async () => {
    const { who, b } = await signedInBuyer();
    await b.get('/account/addresses');
    await b.post('/account/addresses', HOME);
    const [mine] = await rowsOf(who.id);
    const other = await signedInBuyer();
    await other.b.get('/account/addresses');
    const id = encodeURIComponent(mine!.id);
    expect((await other.b.post(`/account/addresses/${id}/default`, {})).status).toBe(404);
    expect((await other.b.post(`/account/addresses/${id}/delete`, {})).status).toBe(404);
    expect((await other.b.get(`/shop/checkout?address=${id}`)).status).toBe(404);
    expect(textOf((await other.b.get('/account/addresses')).html)).not.toContain('Sherbrooke');
    expect(await rowsOf(who.id)).toHaveLength(1);
    const s = new Browser(t.app);
    await s.signIn(await seller(t.api));
    expect((await s.get('/account/addresses')).status).toBe(403);
  });
});

describe('the checkout with saved addresses', () => {
  it('fills in the default, offers the others, saves a new one when asked, and the order keeps the recipient and unit', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Cedar paddle', stockQuantity: 10 });
    const { who, b } = await signedInBuyer();
    await addToCart(t.api, who, p.id);
    // No saved address yet: the form is empty and offers to save it, ticked.
    const first = await b.get('/shop/checkout');
    expect(first.html).toMatch(/id="f-recipientName" name="recipientName" type="text" value=""/);
    expect(first.html).toMatch(/id="f-line2" name="line2"/);
    expect(first.html).toMatch(/name="save" value="on" checked/);
    const paying = await b.post('/shop/checkout', { ...HOME, save: 'on' }, { follow: false });
    expect(paying.status).toBe(303);
    expect((await rowsOf(who.id)).map((r) => [r.recipientName, r.line2, r.isDefault])).toEqual([
      ['Camille Tremblay', 'App. 4', true],
    ]);
    const sessionId = decodeURIComponent(String(paying.headers.location).split('/sandbox/checkout/')[1]!);
    expect((await pay(t.api, sessionId)).status).toBe(200);
    const [order] = await database.db.select().from(orders).where(eq(orders.buyerId, who.id));
    expect(order!.shippingAddress).toEqual({
      street: '1000 Rue Sherbrooke O',
      line2: 'App. 4',
      city: 'Montréal',
      province: 'QC',
      postalCode: 'H3A 1T5',
      country: 'CA',
      recipientName: 'Camille Tremblay',
    });
    // The API's order keeps the interface's address fields only.
    const api = await t.api.as(who).get(`/orders/${encodeURIComponent(order!.id)}`);
    expect(api.body.shippingAddress).toEqual({
      street: '1000 Rue Sherbrooke O',
      city: 'Montréal',
      province: 'QC',
      postalCode: 'H3A 1T5',
      country: 'CA',
    });

    // Next time the default is filled in, the others offered, and saving not ticked.
    await b.get('/account/addresses');
    await b.post('/account/addresses', WORK);
    await addToCart(t.api, who, p.id);
    const again = await b.get('/shop/checkout');
    expect(again.html).toMatch(
      /id="f-recipientName" name="recipientName" type="text" value="Camille Tremblay"/,
    );
    expect(again.html).toMatch(/id="f-line2" name="line2" type="text" value="App. 4"/);
    expect(again.html).toMatch(/id="f-phone" name="phone" type="tel" value="\+15145550199"/);
    expect(again.html).toMatch(/name="save" value="on">/);
    const work = (await rowsOf(who.id)).find((r) => r.city === 'Toronto')!;
    expect(again.html).toContain(`href="/shop/checkout?address=${encodeURIComponent(work.id)}"`);
    const chosen = await b.get(`/shop/checkout?address=${encodeURIComponent(work.id)}`);
    expect(chosen.html).toMatch(/id="f-street" name="street" type="text" value="100 Queen St W"/);
    expect(chosen.html).toMatch(/id="f-postalCode" name="postalCode" type="text" value="M5H 2N2"/);
  });

  it("names the buyer's account when no recipient is given", async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 10 });
    const { who, b } = await signedInBuyer();
    await addToCart(t.api, who, p.id);
    await b.get('/shop/checkout');
    const paying = await b.post('/shop/checkout', { ...WORK, recipientName: '' }, { follow: false });
    expect(paying.status).toBe(303);
    expect(await rowsOf(who.id)).toHaveLength(0);
    const sessionId = decodeURIComponent(String(paying.headers.location).split('/sandbox/checkout/')[1]!);
    await pay(t.api, sessionId);
    const [order] = await database.db.select().from(orders).where(eq(orders.buyerId, who.id));
    expect(order!.shippingAddress.recipientName).toBe('Test buyer');
  });
});

describe("the seller's order page", () => {
  it('addresses the parcel: recipient, full address and phone, to its own seller only', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 10 });
    const { who, b } = await signedInBuyer();
    await addToCart(t.api, who, p.id);
    await b.get('/shop/checkout');
    const paying = await b.post('/shop/checkout', HOME, { follow: false });
    const sessionId = decodeURIComponent(String(paying.headers.location).split('/sandbox/checkout/')[1]!);
    const [orderId] = (await pay(t.api, sessionId)).body.orderIds;
    const path = `/console/orders/${encodeURIComponent(orderId)}`;
    const shop = new Browser(t.app);
    await shop.signIn(s);
    const page = await shop.get(path);
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain(
      'Ship to Camille Tremblay 1000 Rue Sherbrooke O App. 4 Montréal Quebec H3A 1T5 Phone: +1 514 555 0199',
    );
    expect(page.html).toContain('<a href="tel:+15145550199">');
    const fr = await shop.get(`${path}?lang=fr-CA`);
    expect(textOf(fr.html)).toContain(
      'Expédier à Camille Tremblay 1000 Rue Sherbrooke O App. 4 Montréal Québec H3A 1T5 Téléphone : +1 514 555 0199',
    );
    const other = new Browser(t.app);
    await other.signIn(await seller(t.api));
    const refused = await other.get(path);
    expect(refused.status).toBe(404);
    expect(refused.html).not.toContain('Sherbrooke');
  });
});

describe('the menus', () => {
  /** The links of a page's menus: the header's and the section's tabs. */
  const menuLinks = (html: string) =>
    [
      ...(html.match(/<header class="top">[\s\S]*?<\/header>/)?.[0] ?? '').matchAll(/href="(\/[^"]*)"/g),
      ...(html.match(/<ul class="tabs">[\s\S]*?<\/ul>/)?.[0] ?? '').matchAll(/href="(\/[^"]*)"/g),
    ]
      .map((m) => m[1]!.replaceAll('&amp;', '&'))
      .filter((href) => !href.includes('lang='));

  it("never link a seller or an admin to a page that refuses them; a buyer's has the cart and addresses", async () => {
    const s = new Browser(t.app);
    await s.signIn(await seller(t.api));
    const a = new Browser(t.app);
    await a.signIn(await admin(t.api, database));
    for (const who of [s, a]) {
      for (const start of ['/', '/account', '/console']) {
        const links = menuLinks((await who.get(start)).html);
        expect(links).not.toContain('/shop/cart');
        for (const href of links) expect((await who.get(href)).status, `${start} → ${href}`).toBe(200);
      }
    }
    const { b } = await signedInBuyer();
    const links = menuLinks((await b.get('/account')).html);
    expect(links).toEqual(
      expect.arrayContaining(['/shop/cart', '/account/orders', '/account/returns', '/account/addresses']),
    );
    for (const href of links) expect((await b.get(href)).status, href).toBe(200);
  });
});
