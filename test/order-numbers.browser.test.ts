// Order numbers and the platform's tax profile in headless Chromium, as people use them: an admin
// sets the tax profile on the desk (a wrong number refused under its field, then saved), in English
// and in French; a buyer and a seller read their orders by number. axe-core on every page (no
// serious or critical violation), desktop and a 360 px phone; screenshots with PAGE_SCREENSHOTS.
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserApp, browserUnavailable, checked, onAPhone } from './helpers/browser.ts';
import { admin } from './helpers/builders.ts';
import { orderNumber, paidOrder } from './helpers/orders.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('order numbers and the tax profile in Chromium', () => {
  const env = browserApp();

  async function signIn(page: Page, who: { email: string; password: string }) {
    await env.browser.context.clearCookies();
    await page.goto(`${env.base}/account/sign-in`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toMatch(/^Hello/);
  }

  it('an admin sets the platform’s tax profile on the desk, in English then in French', async () => {
    const boss = await admin(env.t.api, env.database);
    const page = await env.browser.page();
    await signIn(page, boss);
    await page.goto(`${env.base}/desk`);
    await page.getByRole('link', { name: 'Tax profile' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('The platform’s tax profile');
    expect(await page.getByRole('status').first().innerText()).toContain('Not set yet');
    await page.getByLabel('Legal name').fill('Portage Marketplace Inc.');
    await page.getByLabel('Street address').fill('1 Place Ville Marie');
    await page.getByLabel('City').fill('Montréal');
    await page.getByLabel('Province or territory').selectOption('QC');
    await page.getByLabel('Postal code').fill('H3B 2B6');
    // A digit typed wrong: the check digit refuses it, under its field.
    await page.getByLabel('GST/HST registration number').fill('876 543 217 RT 0001');
    await page.getByLabel('QST registration number').fill('9876543211 TQ 0001');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#f-gstHstNumber-error').innerText()).not.toBe('');
    await checked(page, 'desk-tax-refused');
    await page.getByLabel('GST/HST registration number').fill('876 543 216 RT 0001');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.getByRole('status').first().innerText())
      .toContain('The tax profile is saved.');
    await expect(page.getByLabel('GST/HST registration number').inputValue()).resolves.toBe(
      '876543216RT0001',
    );
    await checked(page, 'desk-tax');
    const saved = (await env.t.api.as(boss).get('/admin/tax-profile')).body;
    expect(saved).toMatchObject({
      legalName: 'Portage Marketplace Inc.',
      province: 'QC',
      gstHstNumber: '876543216RT0001',
      qstNumber: '9876543211TQ0001',
    });

    // In French: the same page in French words, and a change saved.
    await page.goto(`${env.base}/desk/tax?lang=fr-CA`);
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('fr-CA');
    expect(await page.locator('h1').innerText()).toBe('Le profil fiscal de la plateforme');
    await page.getByLabel('Adresse').fill('2 rue Neuve');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect
      .poll(() => page.getByRole('status').first().innerText())
      .toContain('Le profil fiscal est enregistré.');
    await checked(page, 'desk-tax-fr');
    expect((await env.t.api.as(boss).get('/admin/tax-profile')).body.street).toBe('2 rue Neuve');

    expect(
      await onAPhone(page, env.base, {
        'desk-tax-fr': '/desk/tax?lang=fr-CA',
        'desk-tax': '/desk/tax?lang=en-CA',
      }),
    ).toEqual([]);
    await page.close();
  });

  it('a buyer and a seller read their order by its number, never its id', async () => {
    const paid = await paidOrder(env.t);
    const number = await orderNumber(env.t, paid.buyer, paid.orderId);
    const key = paid.orderId.slice('orders:'.length);
    const page = await env.browser.page();
    await signIn(page, paid.buyer);
    await page.goto(`${env.base}/account/orders`);
    await page.locator('main table').getByRole('link', { name: number }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe(`Order ${number}`);
    expect(await page.locator('main').innerText()).not.toContain(key);
    await checked(page, 'account-order-number');
    await page.goto(`${env.base}/account/orders/${encodeURIComponent(paid.orderId)}?lang=fr-CA`);
    await expect.poll(() => page.locator('h1').innerText()).toBe(`Commande ${number}`);
    expect(
      await onAPhone(page, env.base, {
        'account-orders-fr': '/account/orders?lang=fr-CA',
        'account-order-number': `/account/orders/${encodeURIComponent(paid.orderId)}?lang=en-CA`,
      }),
    ).toEqual([]);

    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, paid.seller);
    await page.goto(`${env.base}/console/orders`);
    await page.locator('main table').getByRole('link', { name: number }).first().click();
    await expect.poll(() => page.locator('h1').innerText()).toBe(`Order ${number}`);
    expect(await page.locator('main').innerText()).not.toContain(key);
    await checked(page, 'console-order-number');
    await page.close();
  });
});
