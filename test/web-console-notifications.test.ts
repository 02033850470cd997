// A seller's notifications in the console, over inject with a signed-in browser: the header's and
// the tab's unread count, the inbox newest first with its links, marking one or all read, pages of
// 20, the form of what the seller is told of (unticked boxes save as off), the product page's
// low-stock form (a bad number refused under its field), in English and in French; who may see it.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../src/modules/auth/tables.ts';
import { type SignedIn, useTestApp, verified } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk } from './helpers/checkout.ts';
import { outboxRows } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

async function buy(productId: string, units = 1): Promise<string> {
  const b = await verified(database, await buyer(t.api));
  await addToCart(t.api, b, productId, units);
  const [id] = await payOk(t.api, (await openCheckout(t.api, b, ON_ADDRESS)).sessionId);
  // The seller's notice is queued with the payment: the notices job tells it.
  await t.app.jobs.runOnce('notices');
  return id!;
}

const header = (html: string) => html.slice(html.indexOf('<header'), html.indexOf('</header>'));

describe('/console/notifications', () => {
  let s: SignedIn;
  let browser: Browser;
  let productId: string;
  const orderIds: string[] = [];

  beforeAll(async () => {
    s = await seller(t.api);
    browser = new Browser(t.app);
    await browser.signIn(s);
    productId = (await product(t.api, s, { title: 'Cedar box', priceCents: 2000, stockQuantity: 50 })).id;
  });

  it('empty at first: no count, the words of an empty inbox, every kind ticked', async () => {
    const page = await browser.get('/console/notifications');
    expect(page.status).toBe(200);
    expect(header(page.html)).toContain('<a href="/console">Seller console</a>');
    expect(textOf(page.html)).toContain(
      'Nothing here yet: new orders, returns, reviews, low stock, payouts and disputes show here.',
    );
    expect(page.html).not.toContain('Mark all read');
    expect(page.html.match(/type="checkbox"[^>]* checked/g)).toHaveLength(18);
    expect(page.html).toContain('aria-label="New orders by email"');
  });

  it('counts the unread ones in the header and the tab, lists them newest first with their links', async () => {
    for (let n = 0; n < 3; n++) {
      orderIds.push(await buy(productId));
      t.clock.offsetMs += 1000;
    }
    const page = await browser.get('/console/notifications');
    expect(header(page.html)).toContain(
      '<a href="/console">Seller console <span class="count" aria-hidden="true">3</span><span class="visually-hidden">3 unread notifications</span></a>',
    );
    expect(page.html).toContain(
      '<a href="/console/notifications" aria-current="page">Notifications (3 unread)</a>',
    );
    const links = [...page.html.matchAll(/<a href="(\/console\/orders\/[^"]+)">New order/g)].map((m) => m[1]);
    expect(links).toEqual([...orderIds].reverse().map((id) => `/console/orders/${encodeURIComponent(id)}`));
    expect(page.html.match(/class="unread"/g)).toHaveLength(3);
  });

  it('marks one read, then all; the count follows', async () => {
    await browser.get('/console/notifications');
    const first = browser.last!.html.match(/name="id" value="([^"]+)"/)![1]!;
    const one = await browser.post('/console/notifications/read', { id: first });
    expect(one.url).toBe('/console/notifications?done=read');
    expect(textOf(one.html)).toContain('Marked read.');
    expect(one.html.match(/class="unread"/g)).toHaveLength(2);
    expect(header(one.html)).toContain('<span class="count" aria-hidden="true">2</span>');
    // Unread only lists the two.
    const unread = await browser.get('/console/notifications?unread=1');
    expect(unread.html.match(/<li class="unread">/g)).toHaveLength(2);
    expect(unread.html).toContain(
      '<a href="/console/notifications?unread&#61;1" aria-current="page">Unread only</a>',
    );

    const all = await browser.post('/console/notifications/read', { all: '1' });
    expect(textOf(all.html)).toContain('Everything is marked read.');
    expect(all.html).not.toContain('class="unread"');
    expect(header(all.html)).toContain('<a href="/console">Seller console</a>');
    // A post without its token changes nothing.
    const forged = await browser.post(
      '/console/notifications/read',
      { all: '1' },
      { csrf: null, follow: false },
    );
    expect(forged.status).toBe(403);
  });

  it('pages by 20: Older, then Newest', async () => {
    for (let n = 0; n < 19; n++) {
      orderIds.push(await buy(productId));
      t.clock.offsetMs += 1000;
    }
    const page = await browser.get('/console/notifications');
    expect(page.html.match(/>New order /g)).toHaveLength(20);
    const older = page.html.match(
      /<a href="(\/console\/notifications\?before&#61;[^"]+)" rel="next">Older<\/a>/,
    )![1]!;
    const next = await browser.get(
      older.replaceAll('&#61;', '=').replaceAll('&#37;', '%').replaceAll('&#38;', '&'),
    );
    expect(next.html.match(/>New order /g)).toHaveLength(2);
    expect(next.html).toContain('<a href="/console/notifications">Newest</a>');
    expect(next.html).not.toContain('rel="next"');
  });

  it('saves the choices: an unticked box is off, and the next order honours it', async () => {
    await browser.get('/console/notifications');
    const fields: Record<string, string> = {};
    for (const kind of [
      'order_message',
      'order_waiting_for_stock',
      'return_requested',
      'review_posted',
      'stock_low',
      'payout_sent',
      'payout_failed',
      'dispute_opened',
    ]) {
      fields[`email.${kind}`] = 'on';
      fields[`inbox.${kind}`] = 'on';
    }
    fields['inbox.order_placed'] = 'on'; // new orders: inbox only
    const saved = await browser.post('/console/notifications/settings', fields);
    expect(saved.url).toBe('/console/notifications?done=saved#settings');
    expect(textOf(saved.html)).toContain('Your choices are saved.');
    expect(saved.html).toMatch(
      /id="f-email\.order_placed" name="email\.order_placed" value="on" aria-label="New orders by email">/,
    );
    expect(saved.html).toMatch(
      /id="f-inbox\.order_placed" name="inbox\.order_placed" value="on" aria-label="New orders in the inbox" checked>/,
    );
    const api = await t.api.as(s).get('/sellers/me/notification-settings');
    expect(api.body.settings[0]).toEqual({ kind: 'order_placed', email: false, inbox: true });
  });

  it('the product page sets the low-stock alert, refuses a bad number under its field', async () => {
    const path = `/console/products/${encodeURIComponent(productId)}`;
    await browser.get(path);
    const bad = await browser.post(`${path}/low-stock`, { threshold: '-2' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('id="f-threshold-error"');
    expect(bad.html).toContain('value="-2"');
    const ok = await browser.post(`${path}/low-stock`, { threshold: '5' });
    expect(ok.url).toBe(`${path}?done=lowStock#low-stock`);
    expect(textOf(ok.html)).toContain('The low-stock alert is saved.');
    expect(ok.html).toContain(
      'name="threshold" type="number" min="0" max="1000000" step="1" inputmode="numeric" value="5"',
    );
    expect((await t.api.as(s).get('/sellers/me/low-stock-thresholds')).body).toEqual({
      thresholds: [{ productId, threshold: 5 }],
    });
    await browser.post(`${path}/low-stock`, { threshold: '' });
    expect((await t.api.as(s).get('/sellers/me/low-stock-thresholds')).body).toEqual({ thresholds: [] });
    // Another seller's product is not there for them.
    const other = new Browser(t.app);
    await other.signIn(await seller(t.api));
    await other.get('/console');
    expect((await other.post(`${path}/low-stock`, { threshold: '1' })).status).toBe(404);
  });

  it('in French: the words, the count and the messages', async () => {
    await t.api.as(s).post('/sellers/me/notifications/read', { all: true });
    await database.db.update(users).set({ locale: 'fr-CA' }).where(eq(users.id, s.id));
    const orderId = await buy(productId, 2);
    // New orders are in the inbox only since the choice above: no email.
    expect(await outboxRows(database, `notice:order_placed:${orderId}`)).toEqual([]);
    const page = await browser.get('/console/notifications');
    expect(page.html).toContain('<html lang="fr-CA"');
    expect(header(page.html)).toContain('<span class="visually-hidden">1 notification non lue</span>');
    expect(textOf(page.html)).toMatch(/Nouvelle commande \d{4}-\d{6}\s: [\d\s]+,\d\d\s\$, 2 articles/);
    expect(textOf(page.html)).toContain('Ce dont on vous avertit');
  });

  it('a buyer is refused; signed out goes to sign in', async () => {
    const b = new Browser(t.app);
    await b.signIn(await buyer(t.api));
    expect((await b.get('/console/notifications')).status).toBe(403);
    const anon = await new Browser(t.app).get('/console/notifications', { follow: false });
    expect(anon.status).toBe(303);
  });
});
