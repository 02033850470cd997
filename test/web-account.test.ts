// The buyer's account as pages (src/web/account/), over inject: registering, a review of a
// delivered order (a verified purchase), the agents with access and their revocation, the
// language, a new password ending every other session and token, the verification email again.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users, webSessions } from '../src/modules/auth/tables.ts';
import { returns } from '../src/modules/returns/tables.ts';
import { ACP_ON, AcpClient, checkoutOfSession, issuePlatform } from './helpers/acp.ts';
import { useTestApp } from './helpers/app.ts';
import {
  admin,
  buyer,
  product,
  seller,
  teeInTwoSizes,
  uniqueEmail,
  uniqueWord,
  verified,
} from './helpers/builders.ts';
import { addToCart, checkout, ON_ADDRESS, openCheckout, payOk } from './helpers/checkout.ts';
import { agentTokens } from './helpers/oauth.ts';
import { deliver, deliveredOrderOf, ordersOfCheckout, outboxRows, ship } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

describe('registering on the pages', () => {
  it('makes a signed-in buyer who keeps the language the page was read in', async () => {
    const b = new Browser(t.app);
    await b.get('/account/register?lang=fr-CA');
    const email = uniqueEmail('pages');
    const weak = await b.post('/account/register', {
      name: 'Élise',
      email,
      password: 'short',
      next: '/account',
    });
    expect(weak.status).toBe(400);
    expect(weak.html).toMatch(/id="f-password"[^>]*aria-invalid="true"/);
    const made = await b.post('/account/register', {
      name: 'Élise',
      email,
      password: 'correct horse battery',
      next: '/account',
    });
    expect(made.url).toBe('/account');
    expect(textOf(made.html)).toContain('Bonjour, Élise');
    const [row] = await database.db.select().from(users).where(eq(users.email, email));
    expect([row?.role, row?.locale, row?.emailVerified]).toEqual(['buyer', 'fr-CA', false]);
    // Its verification email, and another one from the overview.
    const mails = (await outboxRows(database, 'email-verify:')).filter((m) => m.toAddress === email);
    expect(mails).toHaveLength(1);
    const again = await b.post('/account/verification', {});
    expect(textOf(again.html)).toMatch(/Un nouveau courriel de vérification|Trop|courriel/);
    // The same email again is refused with the API's words.
    const other = new Browser(t.app);
    await other.get('/account/register');
    const taken = await other.post('/account/register', {
      name: 'X',
      email,
      password: 'correct horse battery',
    });
    expect(taken.status).toBe(409);
  });
});

describe('a delivered order', () => {
  it('takes a review from its page, as a verified purchase', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Birch bowl', priceCents: 4000 });
    const who = await buyer(t.api);
    await addToCart(t.api, who, p.id, 1);
    const [orderId] = await payOk(t.api, (await openCheckout(t.api, who)).sessionId);
    const b = new Browser(t.app);
    await b.signIn(who);
    const page = `/account/orders/${encodeURIComponent(orderId!)}`;
    expect((await b.get(page)).html).not.toContain('/review"');
    await t.api
      .as(s)
      .post(`/orders/${orderId}/ship`, { carrier: 'Canada Post', trackingNumber: '7023210039414604' });
    await t.api.as(s).post(`/orders/${orderId}/deliver`);
    const delivered = await b.get(page);
    // The link as the browser reads it (ghtml writes `=` as `&#61;`).
    expect(delivered.html.replaceAll('&#61;', '=')).toContain(
      'href="https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=7023210039414604"',
    );
    const bad = await b.post(`${page}/review`, { product_id: p.id, rating: '9', comment: 'x' });
    expect(bad.status).toBe(400);
    const done = await b.post(`${page}/review`, {
      product_id: p.id,
      rating: '5',
      title: 'Lovely',
      comment: 'Smooth and light.',
    });
    expect(done.url).toBe(`${page}?done=review-published`);
    // What moderation decided (published at once: no link), with its title; no second form.
    const after = textOf(done.html);
    expect(after).toContain('Thank you: your review is published.');
    expect(after).toContain(
      'Your review of Birch bowl 5 stars out of 5 · Lovely Smooth and light. Published',
    );
    expect(done.html).not.toContain('/review"');
    const listed = await t.api.as(who).get(`/products/${encodeURIComponent(p.id)}/reviews`);
    expect(
      listed.body.reviews.map((r: { rating: number; comment: string; verifiedPurchase?: boolean }) => [
        r.rating,
        r.comment,
      ]),
    ).toEqual([[5, 'Smooth and light.']]);
    // A second review of the same product (a form left open in another tab) is the API's 409,
    // said without the product's id.
    const twice = await b.post(`${page}/review`, { product_id: p.id, rating: '4', comment: 'Again' });
    expect(twice.status).toBe(409);
    expect(twice.html).toContain(
      '<p class="alert" role="alert" id="form-error">You have already reviewed this product; its review is below.</p>',
    );
    expect(textOf(twice.html)).not.toContain(p.id);
    // The product's page shows the review's title.
    expect(textOf((await b.get(`/shop/products/${encodeURIComponent(p.id)}`)).html)).toContain(
      '★★★★★ 5 stars out of 5 Lovely Smooth and light.',
    );
  });

  it('says a review holding a link waits for an admin, and shows a refusal in the form that made it', async () => {
    const paid = await deliveredOrderOf(t, [
      { priceCents: 1500, quantity: 1 },
      { priceCents: 2500, quantity: 1 },
    ]);
    const [first, second] = paid.products;
    const b = new Browser(t.app);
    await b.signIn(paid.buyer);
    const page = `/account/orders/${encodeURIComponent(paid.orderId)}`;
    const held = await b.post(`${page}/review`, {
      product_id: first!.id,
      rating: '4',
      title: 'See https://example.com',
      comment: 'Good',
    });
    expect(held.url).toBe(`${page}?done=review-held`);
    expect(textOf(held.html)).toContain(
      'Thank you: your review holds a link, so an admin checks it before it is published.',
    );
    expect(textOf(held.html)).toContain("Waiting for an admin's check (it holds a link)");
    // A bad rating for the second product: the alert is in that product's form, not the return's.
    const bad = await b.post(`${page}/review`, { product_id: second!.id, rating: '9', comment: 'x' });
    expect(bad.status).toBe(400);
    const forms = bad.html.split('<form ');
    const withAlert = forms.filter((f) => f.includes('role="alert"'));
    expect(withAlert).toHaveLength(1);
    expect(withAlert[0]).toContain(`name="product_id" value="${second!.id}"`);
  });
});

describe('returns and refunds on the order page', () => {
  it('offers a return of what is left, says a return is open, then that the order is refunded, and offers no more', async () => {
    const paid = await deliveredOrderOf(t, [
      { priceCents: 1500, quantity: 1 },
      { priceCents: 2500, quantity: 1 },
    ]);
    const [first, second] = paid.products;
    const b = new Browser(t.app);
    await b.signIn(paid.buyer);
    const page = `/account/orders/${encodeURIComponent(paid.orderId)}`;
    expect((await b.get(page)).html).toContain(`action="${page}/return"`);

    const asked = await b.post(`${page}/return`, { reason: 'damaged', items: first!.id });
    expect(asked.url).toBe(`${page}?done=return`);
    expect(textOf(asked.html)).toMatch(/Your returns of this order Asked on .*: Waiting for the seller/);
    expect(asked.html).not.toContain(`action="${page}/return"`);
    // Asked again (a form left open): the page's words, no ids.
    const again = await b.post(`${page}/return`, { reason: 'damaged', items: first!.id });
    expect(again.status).toBe(409);
    expect(/<p class="alert" role="alert" id="form-error">([^<]*)<\/p>/.exec(again.html)?.[1]).toBe(
      'A return of this order is already open; the seller decides it first.',
    );

    const [ret] = (await t.api.as(paid.buyer).get('/returns')).body.returns;
    expect((await t.api.as(paid.seller).post(`/returns/${ret.return_id}/approve`, {})).body.status).toBe(
      'refunded',
    );
    const partly = await b.get(page);
    const refunded = (await t.api.as(paid.buyer).get(`/returns/${ret.return_id}`)).body.refund_amount_cents;
    expect(textOf(partly.html)).toContain(`Delivered · $${(refunded / 100).toFixed(2)} refunded`);
    // Only the item not returned can be returned now.
    expect(partly.html).toContain(`action="${page}/return"`);
    expect(partly.html).not.toContain(`name="items" value="${first!.id}"`);

    const rest = await b.post(`${page}/return`, { reason: 'damaged' });
    expect(rest.url).toBe(`${page}?done=return`);
    const [last] = (await t.api.as(paid.buyer).get('/returns')).body.returns;
    expect(last.items).toEqual([second!.id]);
    expect((await t.api.as(paid.seller).post(`/returns/${last.return_id}/approve`, {})).body.status).toBe(
      'refunded',
    );
    const full = await b.get(page);
    expect(full.html).toContain(
      '<span class="badge delivered">Delivered</span> <span class="badge refunded">Refunded</span>',
    );
    expect(full.html).not.toContain(`action="${page}/return"`);
    expect(textOf(full.html)).toMatch(/Asked on .*: Refunded · \$[\d.]+ refunded Asked on .*: Refunded/);
  });
});

describe('returning one variant of a product from the order page', () => {
  it('lists each variant line by name; after one goes back, the other is still offered', async () => {
    const s = await seller(t.api);
    const word = uniqueWord();
    const made = { body: await teeInTwoSizes(t.api, s, word) };
    const [small, medium] = made.body.variants as Array<{ id: string; sku: string }>;
    const b0 = await buyer(t.api);
    for (const v of [small!, medium!]) {
      const res = await t.api
        .as(b0)
        .post('/cart/items', { product_id: made.body.id, quantity: 1, variant: v.sku });
      expect(res.status).toBe(200);
    }
    const held = await checkout(t.api, b0, { shipping_address: ON_ADDRESS });
    expect(held.status).toBe(201);
    const [orderId] = await payOk(t.api, held.body.sessionId);
    await ship(t, s, orderId!);
    await deliver(t, s, orderId!);

    const b = new Browser(t.app);
    await b.signIn(b0);
    const page = `/account/orders/${encodeURIComponent(orderId!)}`;
    const boxes = (html: string) =>
      [
        ...html.matchAll(
          /<label class="check"><input type="checkbox" name="items" value="([^"]+)">([^<]+)<\/label>/g,
        ),
      ].map((m) => [m[1], m[2]]);
    expect(boxes((await b.get(page)).html)).toEqual([
      [small!.id, `Tee ${word}, S`],
      [medium!.id, `Tee ${word}, M`],
    ]);

    // The M line goes back, by its own id.
    const asked = await b.post(`${page}/return`, { reason: 'other', items: medium!.id });
    expect(asked.url).toBe(`${page}?done=return`);
    const [ret] = (await t.api.as(b0).get('/returns')).body.returns;
    expect(ret.items).toEqual([made.body.id]);
    const [row] = await database.db
      .select({ items: returns.items })
      .from(returns)
      .where(eq(returns.id, ret.return_id));
    expect(row!.items.map((i) => [i.variantId, i.quantity])).toEqual([[medium!.id, 1]]);
    expect((await t.api.as(s).post(`/returns/${ret.return_id}/approve`, {})).body.status).toBe('refunded');

    // The S line of the same product is still offered, named; the form sends it alone.
    const left = await b.get(page);
    expect(left.html).toContain(`action="${page}/return"`);
    expect(boxes(left.html)).toEqual([]);
    expect(textOf(left.html)).toContain(`What goes back: Tee ${word}, S`);
    expect(textOf((await b.get(`${page}?lang=fr-CA`)).html)).toContain(
      `Ce qui est retourné : Tee ${word}, S`,
    );
    const rest = await b.post(`${page}/return`, { reason: 'other' });
    expect(rest.url).toBe(`${page}?done=return`);
    const [last] = (await t.api.as(b0).get('/returns')).body.returns;
    const [lastRow] = await database.db
      .select({ items: returns.items })
      .from(returns)
      .where(eq(returns.id, last.return_id));
    expect(lastRow!.items.map((i) => [i.variantId, i.quantity])).toEqual([[small!.id, 1]]);
    expect(last.whole_order).toBe(true);
  });
});

describe('the order link a platform is given (ACP permalink_url)', () => {
  it('opens the purchase in the buyer’s browser: sign-in first, then back to it; another person’s is not found', async () => {
    const boss = await admin(t.api, database);
    const shops = [await seller(t.api), await seller(t.api)];
    const products = await Promise.all(shops.map((s) => product(t.api, s, { stockQuantity: 5 })));
    const person = await verified(database, await buyer(t.api, 'linked'));
    const acp = new AcpClient(t.api, (await issuePlatform(t.api, boss)).apiKey, t.clock.now);
    const created = await acp.create({
      line_items: products.map((p) => ({ id: p.id, quantity: 1 })),
      buyer: { email: person.email, first_name: 'Avery' },
      fulfillment_details: ACP_ON,
    });
    const done = await acp.pay(created.body.id);
    const link = new URL(done.body.order.permalink_url);
    expect(link.origin).toBe(t.config.publicBaseUrl);

    const b = new Browser(t.app);
    const signIn = await b.get(link.pathname);
    expect(signIn.url).toBe(`/account/sign-in?next=${encodeURIComponent(link.pathname)}`);
    const back = await b.post('/account/sign-in', {
      email: person.email,
      password: person.password,
      next: link.pathname,
    });
    expect(back.status).toBe(200);
    expect(back.url).toBe(link.pathname);
    const listed = [...back.html.matchAll(/href="\/account\/orders\/([^"]+)"/g)].map((m) =>
      decodeURIComponent(m[1]!),
    );
    expect(listed.sort()).toEqual(
      (await ordersOfCheckout(database, await checkoutOfSession(database, created.body.id)))
        .map((o) => o.id)
        .sort(),
    );

    const stranger = await buyer(t.api, 'stranger');
    const other = new Browser(t.app);
    await other.signIn(stranger);
    expect((await other.get(link.pathname)).status).toBe(404);
  });
});

describe('the agents page', () => {
  it('lists the agents with access and revokes one: its token stops at once', async () => {
    const who = await buyer(t.api);
    const agent = await agentTokens(t.api, who, ['shop', 'orders']);
    expect((await t.api.as(agent.access_token).get('/cart')).status).toBe(200);
    const b = new Browser(t.app);
    await b.signIn(who);
    const page = await b.get('/account/agents');
    expect(page.html).toContain(`name="clientId" value="${agent.clientId}"`);
    const revoked = await b.post('/account/agents/revoke', { clientId: agent.clientId });
    expect(textOf(revoked.html)).toContain('The agent’s access is revoked.');
    expect((await t.api.as(agent.access_token).get('/cart')).status).toBe(401);
    // Someone else's agent cannot be revoked from another account: 404.
    const other = new Browser(t.app);
    await other.signIn(await buyer(t.api));
    await other.get('/account/agents');
    expect((await other.post('/account/agents/revoke', { clientId: agent.clientId })).status).toBe(404);
  });
});

describe('settings', () => {
  it('saves the language for pages and emails', async () => {
    const who = await buyer(t.api);
    const b = new Browser(t.app);
    await b.signIn(who);
    await b.get('/account/settings');
    const saved = await b.post('/account/settings/locale', { locale: 'fr-CA' });
    expect(saved.html).toContain('<html lang="fr-CA">');
    expect(textOf(saved.html)).toContain('Enregistré.');
    const [row] = await database.db.select().from(users).where(eq(users.id, who.id));
    expect(row?.locale).toBe('fr-CA');
    expect((await b.post('/account/settings/locale', { locale: 'de-DE' })).status).toBe(400);
  });

  it('changes the password: every other session and token ends, this browser goes on', async () => {
    const who = await buyer(t.api);
    const elsewhere = new Browser(t.app);
    await elsewhere.signIn(who);
    const b = new Browser(t.app);
    await b.signIn(who);
    await b.get('/account/settings');
    const wrong = await b.post('/account/settings/password', {
      currentPassword: 'not my password',
      newPassword: 'a brand new passphrase',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toMatch(/id="f-currentPassword"[^>]*aria-invalid="true"/);
    const changed = await b.post('/account/settings/password', {
      currentPassword: who.password,
      newPassword: 'a brand new passphrase',
    });
    expect(changed.url).toBe('/account/settings?done=password');
    expect((await b.get('/account')).status).toBe(200);
    expect((await elsewhere.get('/account')).url).toBe('/account/sign-in?next=%2Faccount');
    expect((await t.api.as(who).get('/me')).status).toBe(401);
    expect(
      (await t.api.post('/auth/login', { email: who.email, password: 'a brand new passphrase' })).status,
    ).toBe(200);
    // One session left: this browser's.
    expect(await database.db.select().from(webSessions).where(eq(webSessions.userId, who.id))).toHaveLength(
      1,
    );
  });

  it('two password changes at once: one wins, the other is refused', async () => {
    const who = await buyer(t.api);
    const b = new Browser(t.app);
    await b.signIn(who);
    await b.get('/account/settings');
    const tries = ['first new passphrase', 'second new passphrase'];
    const answers = await Promise.all(
      tries.map((next) =>
        b.post(
          '/account/settings/password',
          { currentPassword: who.password, newPassword: next },
          { follow: false },
        ),
      ),
    );
    // The loser read the new password (400: not the current one) or lost the update (409).
    expect(answers.filter((a) => a.status === 303)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400 || a.status === 409)).toHaveLength(1);
    const works = await Promise.all(
      tries.map(async (password) => (await t.api.post('/auth/login', { email: who.email, password })).status),
    );
    expect(works.filter((s) => s === 200)).toHaveLength(1);
  });
});
