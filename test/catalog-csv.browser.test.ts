// The console's CSV import in headless Chromium: a seller uploads a small file with one bad row,
// sees the problem by its line, fixes the file, imports it, and finds the products listed; the
// same in French; a file of thousands of rows shows its progress; axe-core on each page, and the
// pages on a 360 px phone.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserApp,
  browserUnavailable,
  checked,
  launchBrowser,
  onAPhone,
  type TestBrowser,
} from './helpers/browser.ts';
import { seller, uniqueWord } from './helpers/builders.ts';

const unavailable = browserUnavailable();

const HEADER =
  'handle,title,description,category,status,isDigital,isPerishable,weight,width,height,depth,keywords,' +
  'option1Name,option1Value,option2Name,option2Value,option3Name,option3Value,sku,priceCents,' +
  'compareAtPriceCents,stockQuantity,barcode,imageUrl';

const file = (word: string, shirtM: string) =>
  [
    HEADER,
    `shirt,Shirt ${word},,,active,false,false,0.3,,,,,Size,S,,,,,S-${word},2500,,4,,`,
    `shirt,,,,,,,,,,,,,M,,,,,M-${word},${shirtM},,2,,`,
    `paddle,Paddle ${word},,,active,false,false,1.1,,,,,,,,,,,P-${word},8999,,12,,`,
    '',
  ].join('\n');

describe.skipIf(unavailable !== undefined)('the console CSV import in Chromium', () => {
  const env = browserApp();
  let french: TestBrowser;
  beforeAll(async () => {
    french = await launchBrowser({ locale: 'fr-CA' });
  });
  afterAll(async () => {
    await french?.close();
  });

  async function signIn(page: Page, who: { email: string; password: string }, fr = false) {
    await page.goto(`${env.base}/account/sign-in`);
    await page.getByLabel(fr ? 'Courriel' : 'Email').fill(who.email);
    await page.getByLabel(fr ? 'Mot de passe' : 'Password').fill(who.password);
    await page.getByRole('button', { name: fr ? 'Se connecter' : 'Sign in' }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/account/sign-in'));
  }

  async function send(
    page: Page,
    csv: string,
    dryRun: boolean,
    labels: { file: RegExp; dry: RegExp; submit: RegExp },
  ) {
    await page
      .getByLabel(labels.file)
      .setInputFiles({ name: 'products.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const box = page.getByLabel(labels.dry);
    if (dryRun) await box.check();
    else await box.uncheck();
    await page.getByRole('button', { name: labels.submit }).click();
    await page.waitForLoadState();
  }

  it('a seller sees the bad row by its line, fixes it, imports, and sees the products listed', async () => {
    const s = await seller(env.t.api);
    const page = await env.browser.page();
    await signIn(page, s);
    await page.goto(`${env.base}/console/products`);
    await page.getByRole('link', { name: 'Import products (CSV)' }).first().click();
    await checked(page, 'console-import');
    const word = uniqueWord();
    const labels = { file: /CSV file/, dry: /Check only/, submit: /Send the file/ };
    await send(page, file(word, '-5'), true, labels);
    const problems = page.locator('table');
    await expect.poll(() => problems.innerText()).toContain('3');
    expect(await problems.innerText()).toContain('priceCents');
    expect(await page.locator('h2').innerText()).toBe('1 problem; nothing was imported');
    await checked(page, 'console-import-problems');
    await send(page, file(word, '2700'), false, labels);
    await expect
      .poll(() => page.getByRole('status').first().innerText())
      .toContain('Imported: 2 products and 3 variants created');
    await page.goto(`${env.base}/console/products`);
    await page.getByLabel('Search your products').fill(word);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.locator('table').innerText()).toContain(`Shirt ${word}`);
    expect(await page.locator('table').innerText()).toContain(`Paddle ${word}`);
    await checked(page, 'console-products-filtered');
    expect(
      await onAPhone(page, env.base, {
        'console-import': '/console/products/import',
        'console-products-search': `/console/products?search=${word}`,
      }),
    ).toEqual([]);
  });

  it('a file of 3,000 rows shows its rows checked as it is read, then what it did, on a phone, in both languages', async () => {
    for (const fr of [false, true]) {
      const s = await seller(env.t.api);
      const page = await (fr ? french : env.browser).page();
      await page.setViewportSize({ width: 360, height: 780 });
      // The browser's pages share one context: sign the earlier test's seller out.
      await page.context().clearCookies();
      await signIn(page, s, fr);
      await page.goto(`${env.base}/console/products/import`);
      const word = uniqueWord();
      const big = [
        HEADER,
        ...Array.from(
          { length: 3000 },
          (_, n) =>
            `h${n},Big ${word} ${n},,,active,false,false,0.3,,,,,,,,,,,B-${word}-${n},${100 + n},,1,,`,
        ),
        '',
      ].join('\n');
      await send(
        page,
        big,
        false,
        fr
          ? { file: /Fichier CSV/, dry: /Vérifier seulement/, submit: /Envoyer le fichier/ }
          : { file: /CSV file/, dry: /Check only/, submit: /Send the file/ },
      );
      const log = page.getByRole('log');
      await expect.poll(() => log.innerText()).toMatch(fr ? /3\s000 lignes vérifiées/ : /3,000 rows checked/);
      // Only the last line shows; the earlier ones stay in the page.
      expect(await log.locator('p').count()).toBe(3);
      expect(await log.locator('progress').last().isVisible()).toBe(true);
      await expect
        .poll(() => page.getByRole('status').first().innerText())
        .toMatch(
          fr ? /Importé : 3\s000 produits créés/ : /Imported: 3,000 products and 3,000 variants created/,
        );
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await checked(page, fr ? 'console-import-progress-fr' : 'console-import-progress');
      await page.context().clearCookies();
    }
  });

  it('in French: the problem by its line, in French', async () => {
    const s = await seller(env.t.api);
    const page = await french.page();
    await signIn(page, s, true);
    await page.goto(`${env.base}/console/products/import`);
    await checked(page, 'console-import-fr');
    const word = uniqueWord();
    await send(page, file(word, '-5'), true, {
      file: /Fichier CSV/,
      dry: /Vérifier seulement/,
      submit: /Envoyer le fichier/,
    });
    expect(await page.locator('h2').innerText()).toBe("1 problème ; rien n'a été importé");
    expect(await page.locator('table').innerText()).toContain('priceCents');
    await checked(page, 'console-import-problems-fr');
  });
});
