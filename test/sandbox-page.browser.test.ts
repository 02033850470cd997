// The sandbox's payment page in headless Chromium, used as a person uses it: open the
// session's sessionUrl, read the order summary, type the card, pay, read the confirmation;
// then check the orders through the API. Also the declined card, an expired session, a
// seller's title that tries to run script, and the page's CSP (docs/api.md "Paying").
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dollars, PAGE_CSP } from '../src/modules/payments/sandbox-page.ts';
import type { SignedIn } from './helpers/app.ts';
import { browserApp, browserUnavailable } from './helpers/browser.ts';
import { buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, QC_ADDRESS } from './helpers/checkout.ts';

const unavailable = browserUnavailable();

/** The text a person sees (rendered: hidden parts left out, cells apart). */
// biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text we mean
const shown = (locator: Locator) => locator.innerText();

describe.skipIf(unavailable !== undefined)('the sandbox payment page in Chromium', () => {
  const env = browserApp();

  /** The page's address on our listening server (sessionUrl names PUBLIC_BASE_URL). */
  const pageUrl = (sessionUrl: string) => env.base + new URL(sessionUrl).pathname;

  /** A new tab that records every dialog and console message and any script error. */
  async function tab() {
    const page = await env.browser.page();
    const dialogs: string[] = [];
    const consoleMessages: string[] = [];
    const pageErrors: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('console', (m) => consoleMessages.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return { page, dialogs, consoleMessages, pageErrors };
  }

  async function ordersOf(who: SignedIn) {
    const res = await env.t.api.as(who).get('/orders');
    expect(res.status).toBe(200);
    return res.body;
  }

  it('shows the order summary, pays with 4242 4242 4242 4242 and confirms the orders', async () => {
    // Two sellers (two parcels, two orders) shipping to Québec: GST and QST lines.
    const on = await seller(env.t.api, 'ON');
    const bc = await seller(env.t.api, 'BC');
    const box = await product(env.t.api, on, { title: `Cedar box ${uniqueWord()}`, priceCents: 2500 });
    const syrup = await product(env.t.api, bc, { title: `Maple syrup ${uniqueWord()}`, priceCents: 1299 });
    const b = await buyer(env.t.api);
    await addToCart(env.t.api, b, box.id, 2);
    await addToCart(env.t.api, b, syrup.id, 1);
    const session = await openCheckout(env.t.api, b, QC_ADDRESS);
    expect(session.taxLines.map((l: { name: string }) => l.name)).toEqual(['GST', 'QST']);
    expect(session.parcels).toHaveLength(2);

    const { page, dialogs, pageErrors } = await tab();
    const res = await page.goto(pageUrl(session.sessionUrl));
    expect(res?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('Pay for your Portage order');

    const summary = page.getByRole('region', { name: 'Order summary' });
    const summaryText = await shown(summary);
    expect(summaryText).toContain(`${box.title} × 2`);
    expect(summaryText).toContain(dollars(5000));
    expect(summaryText).toContain(`${syrup.title} × 1`);
    expect(summaryText).toContain(dollars(1299));
    // Each total row: the subtotal, shipping, every tax line, the total.
    const row = (label: string | RegExp) =>
      summary.getByRole('table', { name: 'Totals' }).getByRole('row', { name: label });
    await expect(shown(row('Subtotal'))).resolves.toContain(dollars(session.subtotalCents));
    await expect(shown(row('Shipping'))).resolves.toContain(dollars(session.shippingCostCents));
    for (const line of session.taxLines) {
      const text = await shown(row(new RegExp(`^${line.name}\\b`)));
      expect(text).toContain(`${line.ratePercent}%`);
      expect(text).toContain(dollars(line.amountCents));
    }
    await expect(shown(page.getByTestId('total'))).resolves.toBe(dollars(session.totalCents));

    if (process.env.SANDBOX_PAGE_SCREENSHOT) {
      await page.screenshot({ path: process.env.SANDBOX_PAGE_SCREENSHOT, fullPage: true });
    }

    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Name on card').fill('Ada Tremblay');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/pay')),
      page.getByRole('button', { name: `Pay ${dollars(session.totalCents)}` }).click(),
    ]);
    expect(answer.status()).toBe(200);
    await expect(
      page.getByRole('heading', { name: 'Payment received: thank you!' }).isVisible(),
    ).resolves.toBe(true);
    const shownIds = await page.getByTestId('order-id').allInnerTexts();
    expect(shownIds).toHaveLength(2);

    // The orders exist, for this buyer, as the confirmation says.
    const orders = await ordersOf(b);
    expect(orders.total).toBe(2);
    // The receipt names each order by its number.
    expect(orders.orders.map((o: { number: string }) => o.number).sort()).toEqual([...shownIds].sort());
    expect(orders.orders.every((o: { status: string }) => o.status === 'confirmed')).toBe(true);
    const paidTotal = orders.orders.reduce(
      (sum: number, o: { totalAmountCents: number }) => sum + o.totalAmountCents,
      0,
    );
    expect(paidTotal).toBe(session.totalCents);

    // Opening the page again (a reload, the link in another tab) shows the confirmation.
    const again = await page.goto(pageUrl(session.sessionUrl));
    expect(again?.status()).toBe(200);
    await expect(page.getByTestId('order-id').allInnerTexts()).resolves.toEqual(shownIds);
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('shows the decline of 4000 0000 0000 0002 as an alert and makes no order', async () => {
    const s = await seller(env.t.api);
    const p = await product(env.t.api, s, { priceCents: 4200 });
    const b = await buyer(env.t.api);
    await addToCart(env.t.api, b, p.id, 1);
    const session = await openCheckout(env.t.api, b, ON_ADDRESS);

    const { page } = await tab();
    await page.goto(pageUrl(session.sessionUrl));
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/pay')),
      page.getByRole('button', { name: /^Pay / }).click(),
    ]);
    expect(answer.status()).toBe(400);
    const alert = page.getByRole('alert');
    await expect(shown(alert)).resolves.toBe(
      'Your card was declined (sandbox test card 4000 0000 0000 0002)',
    );
    // The person can try again: the form and the summary are still there.
    await expect(page.getByLabel('Card number').isVisible()).resolves.toBe(true);
    await expect(shown(page.getByTestId('total'))).resolves.toBe(dollars(session.totalCents));

    const orders = await ordersOf(b);
    expect(orders).toMatchObject({ total: 0, orders: [] });
    const open = await env.t.api.as(b).get(`/checkout/${encodeURIComponent(session.sessionId)}`);
    expect(open.body).toMatchObject({ status: 'ready_for_payment', orderIds: [] });
    await page.close();
  });

  it('shows a seller-written title with <script> and <img onerror> as text; no script runs', async () => {
    const s = await seller(env.t.api);
    const title = `<script>alert('script')</script><img src=x onerror="alert('img')"> Tin ${uniqueWord()}`;
    const p = await product(env.t.api, s, { title, priceCents: 1500 });
    expect(p.title).toBe(title);
    const b = await buyer(env.t.api);
    await addToCart(env.t.api, b, p.id, 1);
    const session = await openCheckout(env.t.api, b, ON_ADDRESS);

    const { page, dialogs, consoleMessages, pageErrors } = await tab();
    await page.goto(pageUrl(session.sessionUrl));
    const summary = page.getByRole('region', { name: 'Order summary' });
    await expect(shown(summary)).resolves.toContain(`${title} × 1`);
    await expect(page.locator('script').count()).resolves.toBe(0);
    await expect(page.locator('img').count()).resolves.toBe(0);

    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: 'Payment received: thank you!' }).waitFor();
    await expect(shown(page.getByRole('region', { name: 'Order summary' }))).resolves.toContain(title);
    await expect(page.locator('script, img').count()).resolves.toBe(0);

    expect(dialogs).toEqual([]);
    expect(consoleMessages).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('sends a CSP that forbids scripts, and Chromium enforces it on the page', async () => {
    const s = await seller(env.t.api);
    const p = await product(env.t.api, s);
    const b = await buyer(env.t.api);
    await addToCart(env.t.api, b, p.id, 1);
    const session = await openCheckout(env.t.api, b, ON_ADDRESS);

    const { page, consoleMessages } = await tab();
    const res = await page.goto(pageUrl(session.sessionUrl));
    const csp = res?.headers()['content-security-policy'];
    expect(csp).toBe(PAGE_CSP);
    const directives = new Map(
      csp!.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.has('script-src')).toBe(false);
    expect(directives.has('script-src-elem')).toBe(false);
    expect(directives.has('script-src-attr')).toBe(false);
    expect(directives.get('form-action')).toEqual(["'self'"]);

    // A script that found its way into the document anyway is refused by the env.browser.
    await page.evaluate(() => {
      const el = document.createElement('script');
      el.textContent = 'document.title = "ran";';
      document.body.append(el);
      const img = document.createElement('img');
      img.setAttribute('src', 'data:,x');
      img.setAttribute('onerror', 'document.title = "ran";');
      document.body.append(img);
    });
    await page.waitForTimeout(100);
    await expect(page.title()).resolves.toBe('Pay for your Portage order');
    expect(consoleMessages.some((m) => m.includes('Content Security Policy'))).toBe(true);
    await page.close();
  });

  it('says an expired session has expired (HTTP 410)', async () => {
    const s = await seller(env.t.api);
    const p = await product(env.t.api, s);
    const b = await buyer(env.t.api);
    await addToCart(env.t.api, b, p.id, 1);
    const session = await openCheckout(env.t.api, b, ON_ADDRESS);
    env.t.clock.advance(31 * 60);

    const { page } = await tab();
    const res = await page.goto(pageUrl(session.sessionUrl));
    expect(res?.status()).toBe(410);
    await expect(shown(page.getByRole('heading', { level: 1 }))).resolves.toBe('This checkout is closed');
    await expect(shown(page.locator('main'))).resolves.toContain(
      'This checkout session has expired; check out again from your cart.',
    );
    await expect(page.getByLabel('Card number').count()).resolves.toBe(0);
    await expect(ordersOf(b)).resolves.toMatchObject({ total: 0 });
    await page.close();
  });
});
