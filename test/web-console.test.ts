// The seller's console as pages (src/web/console/), over inject: the catalogue (create with the
// API's validation messages, edit, unpublish, publish, delete), another seller's product not there,
// orders shipped and delivered, returns decided, the shop's invoice identity, and the sales charts.
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../src/contract/i18n.ts';
import type { SignedIn } from './helpers/app.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, buyer, category, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart, openCheckout, payOk } from './helpers/checkout.ts';
import { requestedReturn } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

async function signedInBrowser(who: SignedIn) {
  const b = new Browser(t.app);
  await b.signIn(who);
  return b;
}

const PRODUCT_FORM = {
  description: 'Hand-carved from western red cedar.',
  price: '89.99',
  stockQuantity: '12',
  weight: '1,1',
  categoryId: '',
  imageUrl: 'https://images.example.com/paddle.jpg',
  status: 'active',
};

/** A paid order of the product by a new buyer: answers the buyer and the order id. */
async function boughtOnce(productId: string) {
  const b = await buyer(t.api);
  await addToCart(t.api, b, productId, 1);
  const session = await openCheckout(t.api, b);
  const [orderId] = await payOk(t.api, session.sessionId);
  return { buyer: b, orderId: orderId! };
}

const enc = encodeURIComponent;

describe('the console’s catalogue', () => {
  it('creates a product through the form, with the API’s messages under the fields, then edits, unpublishes, publishes and deletes it', async () => {
    const s = await seller(t.api);
    const c = await category(t.api, await admin(t.api, database));
    const word = uniqueWord();
    const b = await signedInBrowser(s);
    const home = await b.get('/console');
    expect(home.status).toBe(200);
    expect(textOf(home.html)).toContain('Seller console');
    expect(textOf(home.html)).toContain('No orders to ship');

    await b.get('/console/products/new');
    const title = `${word} cedar paddle`;
    const badPrice = await b.post('/console/products/new', { ...PRODUCT_FORM, title, price: 'lots' });
    expect(badPrice.status).toBe(400);
    expect(textOf(badPrice.html)).toContain('Check the fields marked below.');
    expect(badPrice.html).toMatch(/id="f-price"[^>]*aria-invalid="true"/);
    expect(badPrice.html).toContain(
      '<p class="field-error" id="f-price-error">must be a positive integer (cents)</p>',
    );
    // What was typed stays in the form.
    expect(badPrice.html).toContain(`value="${title}"`);

    const noWeight = await b.post('/console/products/new', { ...PRODUCT_FORM, title, weight: '' });
    expect(noWeight.status).toBe(400);
    expect(noWeight.html).toMatch(/id="f-weight"[^>]*aria-invalid="true"/);
    expect(noWeight.html).toContain(
      '<p class="field-error" id="f-weight-error">required for a physical product: kilograms, greater than 0</p>',
    );
    const both = await b.post('/console/products/new', {
      ...PRODUCT_FORM,
      title,
      isDigital: 'on',
      isPerishable: 'on',
    });
    expect(both.status).toBe(400);
    expect(both.html).toContain(
      '<p class="field-error" id="f-isPerishable-error">a digital product cannot be perishable</p>',
    );
    expect((await t.api.as(s).get(`/products?sellerId=${enc(s.id)}`)).body.total).toBe(0);

    const made = await b.post('/console/products/new', { ...PRODUCT_FORM, title, categoryId: c.id });
    expect(made.url).toBe('/console/products?done=created');
    expect(textOf(made.html)).toContain('The product is created.');
    expect(textOf(made.html)).toContain(title);
    const listed = await t.api.as(s).get(`/products?sellerId=${enc(s.id)}`);
    expect(listed.body.total).toBe(1);
    const id: string = listed.body.products[0].id;
    expect((await t.api.as(s).get(`/products/${id}`)).body).toMatchObject({
      id,
      title,
      description: 'Hand-carved from western red cedar.',
      priceCents: 8999,
      stockQuantity: 12,
      weight: 1.1,
      categoryId: c.id,
      isDigital: false,
      isPerishable: false,
      imageUrl: 'https://images.example.com/paddle.jpg',
      imageUrls: ['https://images.example.com/paddle.jpg'],
      status: 'active',
      sellerId: s.id,
    });

    // The edit form shows the product; a change in French decimals is saved.
    const edit = await b.get(`/console/products/${enc(id)}`);
    expect(edit.status).toBe(200);
    expect(edit.html).toContain('value="89.99"');
    expect(edit.html).toContain('value="1.1"');
    const saved = await b.post(`/console/products/${enc(id)}`, {
      ...PRODUCT_FORM,
      title: `${word} cedar paddle, long`,
      price: '75,50',
      stockQuantity: '3',
      weight: '1.3',
      categoryId: c.id,
      imageUrl: '',
    });
    expect(saved.url).toBe(`/console/products/${enc(id)}?done=saved`);
    expect(textOf(saved.html)).toContain('The changes are saved.');
    expect((await t.api.as(s).get(`/products/${id}`)).body).toMatchObject({
      title: `${word} cedar paddle, long`,
      priceCents: 7550,
      stockQuantity: 3,
      weight: 1.3,
      imageUrls: [],
      status: 'active',
    });
    const refused = await b.post(`/console/products/${enc(id)}`, { ...PRODUCT_FORM, title, price: '0' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('must be a positive integer (cents)');
    expect((await t.api.as(s).get(`/products/${id}`)).body.priceCents).toBe(7550);

    await b.get('/console/products');
    const hidden = await b.post(`/console/products/${enc(id)}/status`, { status: 'inactive' });
    expect(hidden.url).toBe('/console/products?done=unpublished');
    expect(textOf(hidden.html)).toContain('Unpublished');
    expect((await t.api.as(s).get(`/products/${id}`)).body.status).toBe('inactive');
    const shown = await b.post(`/console/products/${enc(id)}/status`, { status: 'active' });
    expect(shown.url).toBe('/console/products?done=published');
    expect((await t.api.as(s).get(`/products/${id}`)).body.status).toBe('active');

    const deleted = await b.post(`/console/products/${enc(id)}/delete`, {});
    expect(deleted.url).toBe('/console/products?done=deleted');
    expect(textOf(deleted.html)).toContain('The product is deleted.');
    expect(textOf(deleted.html)).not.toContain(title);
    expect((await t.api.as(s).get(`/products/${id}`)).body.status).toBe('deleted');
  });

  it('offers a product to AI agents with one box: ticked when new, its choice saved and shown again, in English and French', async () => {
    const s = await seller(t.api);
    const b = await signedInBrowser(s);
    const box = (html: string) => /<input[^>]*name="agentChannels"[^>]*>/.exec(html)?.[0] ?? '';
    const fresh = await b.get('/console/products/new');
    expect(textOf(fresh.html)).toContain('Offer to AI agents (feeds, ACP, UCP)');
    expect(box(fresh.html)).toContain('checked');
    const title = `${uniqueWord()} kept paddle`;
    // Unticked: the box sends nothing, the hidden field beside it says it was there.
    const made = await b.post('/console/products/new', { ...PRODUCT_FORM, title, agentChannelsShown: '1' });
    expect(made.url).toBe('/console/products?done=created');
    const listed = await t.api.as(s).get(`/products?sellerId=${enc(s.id)}`);
    const id: string = listed.body.products[0].id;
    expect((await t.api.as(s).get(`/products/${id}`)).body.agentChannels).toBe(false);
    const edit = await b.get(`/console/products/${enc(id)}`);
    expect(box(edit.html)).not.toContain('checked');

    const offered = await b.post(`/console/products/${enc(id)}`, {
      ...PRODUCT_FORM,
      title,
      agentChannelsShown: '1',
      agentChannels: 'on',
    });
    expect(offered.url).toBe(`/console/products/${enc(id)}?done=saved`);
    expect(box(offered.html)).toContain('checked');
    expect((await t.api.as(s).get(`/products/${id}`)).body.agentChannels).toBe(true);
    // Unticked again, then a post without the box (an old page): it stays out.
    await b.post(`/console/products/${enc(id)}`, { ...PRODUCT_FORM, title, agentChannelsShown: '1' });
    expect((await t.api.as(s).get(`/products/${id}`)).body.agentChannels).toBe(false);
    await b.post(`/console/products/${enc(id)}`, { ...PRODUCT_FORM, title });
    expect((await t.api.as(s).get(`/products/${id}`)).body.agentChannels).toBe(false);

    const french = await b.get(`/console/products/${enc(id)}?lang=fr-CA`);
    expect(textOf(french.html)).toContain('Proposer aux agents IA (flux, ACP, UCP)');
    expect(box(french.html)).not.toContain('checked');
  });

  it('reads prices and weights as French writes them, in French', async () => {
    const s = await seller(t.api);
    const b = await signedInBrowser(s);
    const form = await b.get('/console/products/new?lang=fr-CA');
    expect(form.html).toContain('<html lang="fr-CA">');
    expect(textOf(form.html)).toContain('Nouveau produit');
    const bad = await b.post('/console/products/new', {
      ...PRODUCT_FORM,
      title: 'Tire d’érable',
      weight: '',
    });
    expect(bad.status).toBe(400);
    expect(textOf(bad.html)).toContain('Vérifiez les champs indiqués ci-dessous.');
    const made = await b.post('/console/products/new', {
      ...PRODUCT_FORM,
      title: 'Tire d’érable',
      price: '12,50 $',
    });
    expect(textOf(made.html)).toContain('Le produit est créé.');
    const listed = await t.api.as(s).get(`/products?sellerId=${enc(s.id)}`);
    expect(listed.body.products[0]).toMatchObject({ title: 'Tire d’érable', priceCents: 1250 });
  });

  it('another seller’s product is not there (404), even to a POST, and stays as it was; a buyer is refused the console', async () => {
    const owner = await seller(t.api);
    const active = await product(t.api, owner, { title: 'Birch bowl' });
    const draft = await product(t.api, owner, { title: 'Birch spoon', status: 'draft' });
    const other = await signedInBrowser(await seller(t.api));
    await other.get('/console/products');
    for (const p of [active, draft]) {
      const path = `/console/products/${enc(p.id)}`;
      expect((await other.get(path)).status).toBe(404);
      await other.get('/console/products');
      expect((await other.post(path, { ...PRODUCT_FORM, title: 'Mine now' })).status).toBe(404);
      expect((await other.post(`${path}/status`, { status: 'inactive' })).status).toBe(404);
      expect((await other.post(`${path}/delete`, {})).status).toBe(404);
      const after = (await t.api.as(owner).get(`/products/${p.id}`)).body;
      expect(after).toMatchObject({ title: p.title, status: p.status, priceCents: p.priceCents });
    }
    expect(textOf((await other.get('/console/products')).html)).not.toContain('Birch');

    const shopper = await signedInBrowser(await buyer(t.api));
    const refused = await shopper.get('/console');
    expect(refused.status).toBe(403);
    expect(textOf(refused.html)).toContain('This page is for sellers.');
    expect((await shopper.get('/console/products/new')).status).toBe(403);
    // Signed out: to the sign-in page, which comes back.
    const out = await new Browser(t.app).get('/console/orders', { follow: false });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/account/sign-in?next=%2Fconsole%2Forders');
  });

  it('escapes HTML in product titles on console pages', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: `${uniqueWord()} <script>alert(1)</script>` });
    const { orderId } = await boughtOnce(p.id);
    const b = await signedInBrowser(s);
    for (const path of [
      '/console/products',
      `/console/products/${enc(p.id)}`,
      `/console/orders/${enc(orderId)}`,
      '/console/analytics',
    ]) {
      const page = await b.get(path);
      expect(page.status, path).toBe(200);
      expect(page.html, path).not.toContain('<script>alert(1)</script>');
      expect(textOf(page.html), path).toContain('<script>alert(1)</script>');
    }
  });
});

describe('the console’s orders and returns', () => {
  it('ships a buyer’s order with its tracking number, then marks it delivered', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Cedar canoe paddle', priceCents: 8999 });
    const { orderId } = await boughtOnce(p.id);
    const b = await signedInBrowser(s);
    expect(textOf((await b.get('/console')).html)).toContain('1 order to ship');
    const list = await b.get('/console/orders');
    expect(list.html).toContain(`href="/console/orders/${enc(orderId)}"`);
    expect(textOf(list.html)).toContain('To ship');

    // A refused tracking number shows on the order's page, under its field.
    const bad = await b.post(`/console/orders/${enc(orderId)}/ship`, {
      carrier: 'Canada Post',
      trackingNumber: 'no#way',
      from: 'list',
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/id="f-trackingNumber"[^>]*aria-invalid="true"/);
    expect(bad.html).toContain('letters, digits, spaces and - only');
    expect(bad.html).toContain('value="no#way"');
    expect((await t.api.as(s).get(`/orders/${orderId}`)).body.status).toBe('confirmed');

    await b.get('/console/orders');
    const shipped = await b.post(`/console/orders/${enc(orderId)}/ship`, {
      carrier: 'Canada Post',
      trackingNumber: '7023 2100 0042',
      from: 'list',
    });
    expect(shipped.url).toBe('/console/orders?done=shipped');
    expect(textOf(shipped.html)).toContain('The order is marked shipped');
    expect((await t.api.as(s).get(`/orders/${orderId}`)).body).toMatchObject({
      status: 'shipped',
      carrier: 'Canada Post',
      trackingNumber: '7023 2100 0042',
    });

    const detail = await b.get(`/console/orders/${enc(orderId)}`);
    expect(detail.status).toBe(200);
    const text = textOf(detail.html);
    expect(text).toContain('Cedar canoe paddle');
    expect(text).toContain('100 Queen St W');
    expect(text).toContain('Shipped with Canada Post, tracking number 7023 2100 0042');
    const invoice = await b.get(`/console/orders/${enc(orderId)}/invoice`);
    expect(invoice.status).toBe(200);
    expect(invoice.headers['content-type']).toBe('application/pdf');

    const delivered = await b.post(`/console/orders/${enc(orderId)}/deliver`, {});
    expect(delivered.url).toBe(`/console/orders/${enc(orderId)}?done=delivered`);
    expect(textOf(delivered.html)).toContain('The order is marked delivered.');
    expect((await t.api.as(s).get(`/orders/${orderId}`)).body.status).toBe('delivered');
    // Once delivered, it cannot be delivered again: the refusal shows on the page.
    const again = await b.post(`/console/orders/${enc(orderId)}/deliver`, {});
    expect(again.status).toBe(409);
    expect(again.html).toContain('role="alert"');

    // Another shop's order is not there.
    const other = await signedInBrowser(await seller(t.api));
    expect((await other.get(`/console/orders/${enc(orderId)}`)).status).toBe(404);
    expect((await other.get(`/console/orders/${enc(orderId)}/invoice`)).status).toBe(404);
    expect((await other.post(`/console/orders/${enc(orderId)}/deliver`, {})).status).toBe(404);
  });

  it('approves one return and rejects another, which needs a reason', async () => {
    const s = await seller(t.api);
    const first = await requestedReturn(t, { seller: s, description: 'The blade is cracked' });
    const second = await requestedReturn(t, { seller: s, reason: 'other' });
    const b = await signedInBrowser(s);
    expect(textOf((await b.get('/console')).html)).toContain('2 returns to decide');
    const page = await b.get('/console/returns');
    expect(textOf(page.html)).toContain('The buyer says: The blade is cracked');
    expect(page.html).toContain(`action="/console/returns/${enc(first.returnId)}/approve"`);

    const approved = await b.post(`/console/returns/${enc(first.returnId)}/approve`, {});
    expect(approved.url).toBe('/console/returns?done=approved');
    expect(textOf(approved.html)).toContain('The return is approved');
    expect((await t.api.as(s).get(`/returns/${first.returnId}`)).body.status).toBe('refunded');

    const noNote = await b.post(`/console/returns/${enc(second.returnId)}/reject`, { note: '  ' });
    expect(noNote.status).toBe(400);
    expect(noNote.html).toContain('must say why the return is rejected');
    expect(noNote.html).toMatch(/aria-invalid="true" aria-describedby="reject-0-note-error"/);
    expect((await t.api.as(s).get(`/returns/${second.returnId}`)).body.status).toBe('pending');
    const rejected = await b.post(`/console/returns/${enc(second.returnId)}/reject`, {
      note: 'Used for a season',
    });
    expect(rejected.url).toBe('/console/returns?done=rejected');
    expect((await t.api.as(s).get(`/returns/${second.returnId}`)).body).toMatchObject({
      status: 'rejected',
      note: 'Used for a season',
    });
    expect(textOf((await b.get('/console/returns')).html)).toContain('No returns are waiting for you.');
  });
});

describe('the console’s shop and sales', () => {
  it('saves the shop’s invoice identity, and refuses a malformed GST number with the API’s message', async () => {
    const s = await seller(t.api, 'ON');
    const b = await signedInBrowser(s);
    const form = await b.get('/console/shop');
    expect(textOf(form.html)).toContain('Maple Goods');
    expect(textOf(form.html)).toContain('Ontario');
    const identity = {
      legalName: 'Érablière Tremblay inc.',
      street: '12 rue du Moulin',
      city: 'Kingston',
      postalCode: 'k7l 3n6',
      gstHstNumber: '123 456 782 RT 0001',
      qstNumber: '',
    };
    const saved = await b.post('/console/shop', identity);
    expect(saved.url).toBe('/console/shop?done=saved');
    expect(textOf(saved.html)).toContain('Your shop’s details are saved.');
    expect(saved.html).toContain('value="123456782RT0001"');
    const expected = {
      shopName: 'Maple Goods',
      province: 'ON',
      legalName: 'Érablière Tremblay inc.',
      street: '12 rue du Moulin',
      city: 'Kingston',
      postalCode: 'K7L 3N6',
      gstHstNumber: '123456782RT0001',
      qstNumber: null,
    };
    expect((await t.api.as(s).get('/me')).body.seller).toEqual(expected);

    const api = await t.api.as(s).patch('/me/seller', { gstHstNumber: '123456783RT0001' });
    expect(api.status).toBe(400);
    const message: string = api.body.details[0].message;
    const bad = await b.post('/console/shop', { ...identity, gstHstNumber: '123456783RT0001' });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/id="f-gstHstNumber"[^>]*aria-invalid="true"/);
    expect(textOf(bad.html)).toContain(message);
    expect(bad.html).toContain('value="123456783RT0001"');
    expect((await t.api.as(s).get('/me')).body.seller).toEqual(expected);
  });

  it('shows the sales with their charts and figures after a paid order', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Cedar canoe paddle', priceCents: 8999 });
    const b = await signedInBrowser(s);
    const before = await b.get('/console/analytics');
    expect(before.status).toBe(200);
    expect(textOf(before.html)).toContain('No sales in this period yet.');
    await boughtOnce(p.id);
    const figures = (await t.api.as(s).get('/sellers/me/analytics')).body;
    expect(figures.total_revenue_cents).toBeGreaterThan(0);
    const page = await b.get('/console/analytics');
    expect(page.html.match(/<svg class="chart"/g)?.length).toBeGreaterThanOrEqual(2);
    const text = textOf(page.html);
    expect(text).toContain(formatMoney('en-CA', figures.total_revenue_cents));
    expect(text).toContain('Revenue per day');
    expect(text).toContain('Top products by revenue');
    expect(page.html).toContain('<details><summary>The chart’s figures</summary>');
    // Another period, in French.
    const year = await b.get('/console/analytics?period=year&lang=fr-CA');
    expect(year.html).toContain('<option value="year" selected>');
    expect(textOf(year.html)).toContain('Revenus par mois');
    // textOf writes the no-break space of French amounts as a space.
    expect(textOf(year.html)).toContain(
      formatMoney('fr-CA', figures.total_revenue_cents).replace(/\s/g, ' '),
    );
  });
});
