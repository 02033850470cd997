// In headless Chromium: the platform's policies (an admin edits them in the desk; a visitor reads
// them), the sample shop after `portage seed` (its images all load: no console error), and the
// product page that keeps its layout when its image fails. English on a desktop and French on a
// 360 px phone; axe-core on every page; screenshots with PAGE_SCREENSHOTS=docs/images/pages.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SAMPLE_IMAGES, seedCatalog } from '../src/db/seed.ts';
import { accessibilityProblems, browserApp, browserUnavailable, checked } from './helpers/browser.ts';
import { admin, product, seller, uniqueWord } from './helpers/builders.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('policies and product images in Chromium', () => {
  const env = browserApp();

  async function signIn(page: Page, who: { email: string; password: string }) {
    await env.browser.context.clearCookies();
    await page.goto(`${env.base}/account/sign-in?lang=en-CA`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toMatch(/^Hello/);
  }

  /** Nothing on the page is wider than the screen. */
  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

  it('an admin rewrites the returns policy in the desk; a visitor reads it, in English and in French on a phone', async () => {
    const boss = await admin(env.t.api, env.database);
    const page = await env.browser.page();
    await signIn(page, boss);
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByRole('link', { name: 'Policies' }).first().click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Terms, privacy and returns');
    await checked(page, 'desk-policies');

    const returns = page.locator('#policy-returns');
    await returns
      .getByLabel('In English')
      .fill(
        'Return anything within 30 days of delivery.\n\n## How\nAsk in your account.\n\n- Unused\n- In its box\n\n<script>alert(1)</script>',
      );
    await returns.getByLabel('In French').fill('Retournez tout dans les 30 jours suivant la livraison.');
    await returns.getByRole('button', { name: 'Save the returns policy' }).click();
    await expect
      .poll(() => page.getByRole('status').first().innerText())
      .toBe('Saved: visitors now read this text.');

    // A visitor follows the footer's link.
    await env.browser.context.clearCookies();
    await page.goto(`${env.base}/?lang=en-CA`);
    await page
      .getByRole('navigation', { name: 'Policies' })
      .getByRole('link', { name: 'Returns and refunds' })
      .click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Returns and refunds');
    const article = page.locator('article.policy');
    expect(await article.locator('h2').innerText()).toBe('How');
    expect(await article.locator('li').allInnerTexts()).toEqual(['Unused', 'In its box']);
    // The admin's <script> is text on the page, never an element.
    expect(await article.innerText()).toContain('<script>alert(1)</script>');
    expect(await page.locator('script').count()).toBe(0);
    await checked(page, 'policy-returns');

    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${env.base}/policies/returns?lang=fr-CA`);
    expect(await page.locator('h1').innerText()).toBe('Retours et remboursements');
    expect(await page.locator('article.policy').innerText()).toContain(
      'Retournez tout dans les 30 jours suivant la livraison.',
    );
    expect(await fitsWidth(page)).toBeLessThanOrEqual(360);
    await checked(page, 'phone-policy-returns-fr');
    await page.goto(`${env.base}/policies/terms`);
    expect(await page.locator('h1').innerText()).toBe('Conditions d’utilisation');
    expect(await fitsWidth(page)).toBeLessThanOrEqual(360);
    await checked(page, 'phone-policy-terms-fr');

    // The desk's page in French on the phone.
    await signIn(page, boss);
    await page.goto(`${env.base}/desk/policies?lang=fr-CA`);
    expect(await page.locator('h1').innerText()).toBe('Conditions, confidentialité et retours');
    expect(await page.locator('#policy-returns').getByLabel('En français').inputValue()).toBe(
      'Retournez tout dans les 30 jours suivant la livraison.',
    );
    expect(await fitsWidth(page)).toBeLessThanOrEqual(360);
    await checked(page, 'phone-desk-policies-fr');
    await page.close();
  });

  it('the sample shop after seeding: every image loads, no console error, on a desktop and a phone', async () => {
    // The images are served at the address the pages are served from (PUBLIC_BASE_URL).
    await seedCatalog(env.database.db, { seed: 5, count: 40, imageBase: env.base });
    const page = await env.browser.page();
    const errors: string[] = [];
    const failed: string[] = [];
    const images: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('requestfailed', (r) => failed.push(r.url()));
    page.on('response', (r) => {
      if (r.request().resourceType() === 'image') {
        images.push(`${r.status()} ${r.headers()['content-type']}`);
        if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      }
    });
    await env.browser.context.clearCookies();
    for (const [width, lang, name] of [
      [1100, 'en-CA', 'store-home-seeded'],
      [360, 'fr-CA', 'phone-store-home-seeded-fr'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${env.base}/?lang=${lang}`, { waitUntil: 'load' });
      // Lazy images below the fold load as a person scrolls down the page.
      await page.evaluate(async () => {
        for (let y = 0; y < document.body.scrollHeight; y += 300) {
          window.scrollTo(0, y);
          await new Promise((r) => setTimeout(r, 30));
        }
      });
      await page.waitForLoadState('networkidle');
      const loaded = () =>
        page
          .locator('.product img')
          .evaluateAll((imgs) => (imgs as HTMLImageElement[]).map((i) => (i.complete ? i.naturalWidth : -1)));
      await expect.poll(async () => new Set(await loaded())).toEqual(new Set([400]));
      expect((await loaded()).length).toBe(24);
      expect(await accessibilityProblems(page), name).toEqual([]);
      // The first screen only: the whole page of 24 tiles is half a megabyte.
      await page.evaluate(() => window.scrollTo(0, 0));
      if (process.env.PAGE_SCREENSHOTS) {
        await page.screenshot({ path: path.join(process.env.PAGE_SCREENSHOTS, `${name}.png`) });
      }
    }
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    expect(images.length).toBeGreaterThan(0);
    expect(new Set(images)).toEqual(new Set(['200 image/svg+xml']));
    expect(SAMPLE_IMAGES.size).toBeGreaterThan(0);
    await page.close();
  });

  it('a product page keeps its layout when its image fails to load', async () => {
    await seedCatalog(env.database.db, { seed: 5, count: 1, imageBase: env.base });
    const working = `${env.base}/images/${[...SAMPLE_IMAGES.values()][0]!.name}`;
    const s = await seller(env.t.api);
    const word = uniqueWord();
    // One title for both: titles of different widths could wrap differently at 360 px.
    const good = await product(env.t.api, s, { title: `${word} paddle`, imageUrl: working });
    const broken = await product(env.t.api, s, {
      title: `${word} paddle`,
      imageUrl: `${env.base}/images/sample-gone-0000000000.svg`,
    });
    const page = await env.browser.page();
    await env.browser.context.clearCookies();
    const where = async (id: string) => {
      await page.goto(`${env.base}/shop/products/${encodeURIComponent(id)}`, { waitUntil: 'load' });
      const box = async (selector: string) => {
        const b = await page.locator(selector).first().boundingBox();
        return b && { x: Math.round(b.x), y: Math.round(b.y), width: Math.round(b.width) };
      };
      return {
        image: await box('.gallery img'),
        title: await box('h1'),
        price: await box('.price'),
        button: await box('button:has-text("Add to cart"), button:has-text("Ajouter au panier")'),
      };
    };
    for (const [width, lang, name] of [
      [1100, 'en-CA', 'store-product-image-failed'],
      [360, 'fr-CA', 'phone-store-product-image-failed-fr'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${env.base}/?lang=${lang}`);
      const withImage = await where(good.id);
      const without = await where(broken.id);
      expect(await page.locator('.gallery img').evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(
        0,
      );
      expect(without, `${width} px`).toEqual(withImage);
      expect(await fitsWidth(page)).toBeLessThanOrEqual(width);
      await checked(page, name);
    }
    await page.close();
  });
});
