// Shops' pages (issue 43): every shop's slug (made from its name when it opens, unique, two shops
// of one name opening at once included), the shop as anyone reads it over the API (by slug or
// seller id, in the reader's language, the platform's returns policy where the shop wrote none),
// the seller's writing of it (whole, https logos only, bounded, a buyer refused), and the page
// /shops/<slug> with its products, its policies and the redirect from the seller's id; the
// product page's "Sold by" link; the console's form of the page, refused under its field.
import { describe, expect, it } from 'vitest';
import { admin, type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, expectError, expectInvalid, product } from './helpers/builders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

/** A buyer who opens a shop named `name`: the seller, signed in. */
async function opens(name: string): Promise<SignedIn> {
  const b = await buyer(t.api, 'shop');
  const opened = await t.api.as(b).post('/me/seller', { shopName: name, province: 'QC' });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  return { ...b, token: opened.body.token };
}

const slugOf = async (s: SignedIn) => (await t.api.as(s).get('/sellers/me/shop')).body.slug as string;

const TEXTS = {
  'en-CA': {
    description: 'Syrup from our sugar shack.\n\nFamily-run since 1952.',
    returnPolicy: 'Unopened tins back within 30 days.',
    shippingPolicy: '',
  },
  'fr-CA': {
    description: 'Du sirop de notre cabane à sucre.',
    returnPolicy: 'Boîtes non ouvertes reprises sous 30 jours.',
    shippingPolicy: 'Expédié le lendemain.',
  },
};

describe('slugs', () => {
  it('made from the name: accents dropped, taken ones numbered, a name without letters "shop"', async () => {
    const name = `Érablière ${Date.now()}`;
    const first = await opens(name);
    const second = await opens(name);
    expect(await slugOf(first)).toBe(`erabliere-${name.slice(10)}`);
    expect(await slugOf(second)).toBe(`erabliere-${name.slice(10)}-2`);
    expect(await slugOf(await opens('!!!'))).toMatch(/^shop(-\d+)?$/);
    expect(await slugOf(await opens(`Cœur d’Æ ${name.slice(10)}`))).toBe(`coeur-d-ae-${name.slice(10)}`);
  });

  it('two shops of one name opening at once get two slugs', async () => {
    const name = `Twin Maples ${Date.now()}`;
    const [a, b] = await Promise.all([opens(name), opens(name)]);
    expect([await slugOf(a), await slugOf(b)].sort()).toEqual([
      `twin-maples-${name.slice(12)}`,
      `twin-maples-${name.slice(12)}-2`,
    ]);
  });
});

describe('the API', () => {
  it('the seller writes the page whole; anyone reads it in their language', async () => {
    const s = await opens(`Sucrerie ${Date.now()}`);
    const slug = await slugOf(s);
    const put = await t.api
      .as(s)
      .put('/sellers/me/shop', { logoUrl: 'https://images.example/logo.png', texts: TEXTS });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({
      sellerId: s.id,
      slug,
      url: `/shops/${slug}`,
      name: expect.any(String),
      province: 'QC',
      logoUrl: 'https://images.example/logo.png',
      texts: TEXTS,
      status: 'active',
      statusReason: null,
    });

    const en = await t.api.get(`/shop-pages/${slug}`);
    expect(en.status).toBe(200);
    expect(en.body).toEqual({
      sellerId: s.id,
      slug,
      url: `/shops/${slug}`,
      name: put.body.name,
      province: 'QC',
      logoUrl: 'https://images.example/logo.png',
      rating: 0,
      reviewCount: 0,
      ...TEXTS['en-CA'],
      language: 'en-CA',
      policyUrls: { returns: `http://portage.test/shops/${slug}#returns`, shipping: null },
    });
    const fr = await t.api.get(`/shop-pages/${encodeURIComponent(s.id)}`, { 'Accept-Language': 'fr-CA' });
    expect(fr.body).toMatchObject({
      ...TEXTS['fr-CA'],
      language: 'fr-CA',
      policyUrls: {
        returns: `http://portage.test/shops/${slug}#returns`,
        shipping: `http://portage.test/shops/${slug}#shipping`,
      },
    });

    // Only French written: an English reader gets the French, said so.
    await t.api.as(s).put('/sellers/me/shop', { logoUrl: null, texts: { 'fr-CA': TEXTS['fr-CA'] } });
    expect((await t.api.get(`/shop-pages/${slug}`)).body).toMatchObject({ language: 'fr-CA', logoUrl: null });
    expect((await t.api.as(s).get('/sellers/me/shop')).body.texts['en-CA']).toEqual({
      description: '',
      returnPolicy: '',
      shippingPolicy: '',
    });
  });

  it('a shop that wrote nothing follows the platform: its returns policy linked', async () => {
    const s = await opens(`Plain ${Date.now()}`);
    const answer = (await t.api.get(`/shop-pages/${await slugOf(s)}`)).body;
    expect(answer).toMatchObject({
      description: '',
      returnPolicy: '',
      shippingPolicy: '',
      logoUrl: null,
      policyUrls: { returns: 'http://portage.test/policies/returns', shipping: null },
    });
  });

  it('refuses an http logo, a text too long, an unknown language; a buyer; 404 for an unknown shop', async () => {
    const s = await opens(`Strict ${Date.now()}`);
    expectInvalid(
      await t.api.as(s).put('/sellers/me/shop', { logoUrl: 'http://images.example/l.png', texts: {} }),
      [{ field: 'logoUrl', message: 'must be an https address' }],
    );
    expectInvalid(
      await t.api
        .as(s)
        .put('/sellers/me/shop', { logoUrl: null, texts: { 'en-CA': { description: 'x'.repeat(2001) } } }),
      [{ field: 'texts.en-CA.description', message: 'must be at most 2,000 characters' }],
    );
    const unknown = await t.api.as(s).put('/sellers/me/shop', { logoUrl: null, texts: { 'es-MX': {} } });
    expect(unknown.status).toBe(400);
    const b = await buyer(t.api);
    expectError(await t.api.as(b).put('/sellers/me/shop', { logoUrl: null, texts: {} }), 'AUTHZ_ERROR', 403);
    expectError(await t.api.get('/shop-pages/no-such-shop-anywhere'), 'NOT_FOUND', 404);
    expectError(await t.api.get('/shop-pages/Not%20A%20Slug'), 'NOT_FOUND', 404);
    expectError(await t.api.get(`/shop-pages/${encodeURIComponent(b.id)}`), 'NOT_FOUND', 404);
    // A seller an admin made a buyer again: the page is gone with the role.
    const gone = await opens(`Gone ${Date.now()}`);
    const slug = await slugOf(gone);
    const boss = await admin(t.api, database);
    expect((await t.api.as(boss).patch(`/admin/users/${gone.id}`, { role: 'buyer' })).status).toBe(200);
    expectError(await t.api.get(`/shop-pages/${slug}`), 'NOT_FOUND', 404);
  });
});

describe('the pages', () => {
  it('/shops/<slug>: the shop, its products on sale, its policies; the seller id redirects; the product links it', async () => {
    const s = await opens(`Cabane ${Date.now()}`);
    const slug = await slugOf(s);
    await t.api.as(s).put('/sellers/me/shop', { logoUrl: 'https://images.example/logo.png', texts: TEXTS });
    const p = await product(t.api, s, { title: 'Maple syrup 540 ml' });
    const draft = await product(t.api, s, { title: 'Secret blend', status: 'draft' });
    const visitor = new Browser(t.app);

    const shopPage = await visitor.get(`/shops/${slug}`);
    expect(shopPage.status).toBe(200);
    const text = textOf(shopPage.html);
    expect(text).toContain('Ships from Quebec');
    expect(text).toContain('Syrup from our sugar shack.');
    expect(shopPage.html).toContain('<p>Family-run since 1952.</p>');
    expect(text).toContain('Maple syrup 540 ml');
    expect(text).not.toContain(draft.title);
    expect(shopPage.html).toContain('id="returns"');
    expect(text).toContain('Unopened tins back within 30 days.');
    expect(text).toContain('Shipping costs and delivery dates are given at checkout.');
    expect(shopPage.html).toMatch(
      /<img class="shop-logo" src="https:\/\/images\.example\/logo\.png" alt="[^"]+ logo"/,
    );

    // By the seller's id: a permanent redirect to the slug.
    const byId = await visitor.get(`/shops/${encodeURIComponent(s.id)}`, { follow: false });
    expect(byId.status).toBe(301);
    expect(byId.headers.location).toBe(`/shops/${slug}`);
    expect((await visitor.get('/shops/nothing-here-at-all')).status).toBe(404);

    // The product page's "Sold by" links the shop.
    const productPage = await visitor.get(`/shop/products/${p.id}`);
    expect(productPage.html).toContain(`Sold by <a href="/shops/${encodeURIComponent(s.id)}">`);

    // In French: the shop's French texts.
    const fr = await new Browser(t.app, { 'accept-language': 'fr-CA' }).get(`/shops/${slug}`);
    expect(textOf(fr.html)).toContain('Boîtes non ouvertes reprises sous 30 jours.');
    expect(textOf(fr.html)).toContain('Expédié le lendemain.');
  });

  it('a shop without policies says it follows the platform’s, in the page’s language', async () => {
    const s = await opens(`Nue ${Date.now()}`);
    const page = await new Browser(t.app, { 'accept-language': 'fr-CA' }).get(`/shops/${await slugOf(s)}`);
    expect(page.html).toContain(
      'Cette boutique suit <a href="/policies/returns">la politique de retours et de remboursements de Portage</a>.',
    );
  });

  it('the console writes the page, refused under its field', async () => {
    const s = await opens(`Console ${Date.now()}`);
    const browser = new Browser(t.app);
    await browser.signIn(s);
    await browser.get('/console/shop');
    const bad = await browser.post('/console/shop/page', {
      logoUrl: 'http://images.example/l.png',
      'en.description': 'Hello',
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('id="f-logoUrl-error"');
    expect(bad.html).toContain('>Hello</textarea>');
    const ok = await browser.post('/console/shop/page', {
      logoUrl: '',
      'en.description': 'Hello',
      'fr.returnPolicy': 'Retours sous 14 jours.',
    });
    expect(ok.url).toBe('/console/shop?done=page#page');
    expect(textOf(ok.html)).toContain('Your shop’s page is saved.');
    expect((await t.api.as(s).get('/sellers/me/shop')).body.texts).toEqual({
      'en-CA': { description: 'Hello', returnPolicy: '', shippingPolicy: '' },
      'fr-CA': { description: '', returnPolicy: 'Retours sous 14 jours.', shippingPolicy: '' },
    });
  });
});
