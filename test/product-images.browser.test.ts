// In headless Chromium: a seller uploads a PNG from the console's product page and sees it on the
// store's product page, served by the service (WebP, same origin: the pages' CSP lets it load, no
// console error). English on a desktop, French on a 360 px phone; axe-core on every page;
// screenshots with PAGE_SCREENSHOTS=docs/images/pages.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { createServer } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.ts';
import { browserUnavailable, checked, launchBrowser, type TestBrowser } from './helpers/browser.ts';
import { product, seller } from './helpers/builders.ts';
import { picture } from './helpers/images.ts';

const unavailable = browserUnavailable();

/** A port no one listens on now: the app's PUBLIC_BASE_URL must be the address the browser opens. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe.skipIf(unavailable !== undefined)('uploaded product images in Chromium', () => {
  let port = 0;
  beforeAll(async () => {
    port = await freePort();
  });
  const base = () => `http://127.0.0.1:${port}`;
  const { t } = useTestApp(() => ({ env: { PUBLIC_BASE_URL: base() } }));
  let browser: TestBrowser;
  beforeAll(async () => {
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function signIn(page: Page, who: { email: string; password: string }) {
    await browser.context.clearCookies();
    await page.goto(`${base()}/account/sign-in?lang=en-CA`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toMatch(/^Hello/);
  }

  it('a seller uploads a PNG in the console; the store’s product page shows it; the console fits a phone in French', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { title: 'Cedar canoe paddle' });
    const page = await browser.page();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    const images: string[] = [];
    page.on('response', (r) => {
      if (r.request().resourceType() === 'image') images.push(`${r.status()} ${r.headers()['content-type']}`);
    });
    await signIn(page, s);
    await page.goto(`${base()}/console/products/${encodeURIComponent(p.id)}`);
    await expect.poll(() => page.locator('#images-h').innerText()).toBe('Product images');
    expect(await page.locator('#images').innerText()).toContain('No uploaded images yet.');

    await page.getByLabel('Image file').setInputFiles({
      name: 'paddle.png',
      mimeType: 'image/png',
      buffer: await picture(900, 600),
    });
    await page.getByLabel('Description in English (alt text)').fill('A cedar paddle on a dock');
    await page.getByLabel('Description in French (alt text)').fill('Une pagaie en cèdre sur un quai');
    await page.getByRole('button', { name: 'Upload the image' }).click();
    await expect.poll(() => page.locator('#images [role="status"]').innerText()).toBe('The image is added.');
    const thumb = page.locator('#images img');
    await expect
      .poll(() => thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBe(320);
    expect(await thumb.getAttribute('alt')).toBe('A cedar paddle on a dock');
    await checked(page, 'console-product-images');

    // The store's product page: the uploaded image first, loaded from the service.
    await page.goto(`${base()}/shop/products/${encodeURIComponent(p.id)}?lang=en-CA`);
    const shown = page.locator('.gallery img').first();
    await expect
      .poll(() => shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBe(900);
    expect(await shown.getAttribute('src')).toMatch(
      new RegExp(`^${base().replaceAll('.', '\\.')}/images/[0-9a-f]{16}-900\\.webp$`),
    );
    await checked(page, 'store-product-uploaded-image');
    expect(new Set(images)).toEqual(new Set(['200 image/webp']));
    expect(errors).toEqual([]);

    // The console's gallery in French on a phone: nothing wider than the screen.
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${base()}/console/products/${encodeURIComponent(p.id)}?lang=fr-CA`);
    expect(await page.locator('#images-h').innerText()).toBe('Images du produit');
    expect(await page.locator('#images img').getAttribute('alt')).toBe('Une pagaie en cèdre sur un quai');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await checked(page, 'phone-console-product-images-fr');
  });
});
