// The MCP Apps views in headless Chromium, inside a host made of the extension's own host side
// (test/helpers/apps-host.ts): an agent's client at /mcp that declares the extension calls the
// tools as a model would, reads each view's resource, and the host shows it with the call's
// result. Cards render the search, the cart's buttons change the cart through the app-only tool,
// the pay button asks the host to open the payment page and the view shows the orders once
// paid; axe-core finds no serious or critical problem in any view. The views' CSP lets images
// come from VIEW_IMAGE_ORIGINS only. With
// PAGE_SCREENSHOTS=<dir> the views are saved there (docs/images/views in the repository).
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a person reads
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken } from './helpers/agents.ts';
import { listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { type AppsHost, hostLog, mountView, startAppsHost } from './helpers/apps-host.ts';
import {
  accessibilityProblems,
  browserUnavailable,
  launchBrowser,
  screenshot,
  type TestBrowser,
} from './helpers/browser.ts';
import { buyer, product, seller, uniqueWord } from './helpers/builders.ts';
import { ON_ADDRESS, payOk } from './helpers/checkout.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('the views in an MCP Apps host', () => {
  let host: AppsHost;
  beforeAll(async () => {
    host = await startAppsHost();
  });
  const { t, database } = useTestApp(() => ({ env: { VIEW_IMAGE_ORIGINS: host.images.allowed } }));
  let base: string;
  let browser: TestBrowser;
  let shopper: SignedIn;
  const word = uniqueWord();
  const ids = { paddle: '', tarp: '' };
  const clients: Client[] = [];

  beforeAll(async () => {
    base = await listen(t);
    browser = await launchBrowser();
    const shop = await seller(t.api);
    // Canada Post's services (by the rate table): the checkout view shows the one chosen and the other.
    await t.api.as(shop).put('/sellers/me/shipping', {
      originPostalCode: 'M5H 2N2',
      originProvince: 'ON',
      rates: 'carrier',
      services: ['DOM.RP', 'DOM.XP'],
    });
    ids.paddle = (
      await product(t.api, shop, {
        title: `${word} cedar paddle`,
        priceCents: 8999,
        stockQuantity: 5,
        imageUrl: `${host.images.allowed}/paddle.png`,
        specifications: { Length: '150 cm', Wood: 'Cedar' },
      })
    ).id;
    ids.tarp = (
      await product(t.api, shop, {
        title: `${word} ripstop tarp`,
        priceCents: 4500,
        stockQuantity: 5,
        imageUrl: `${host.images.unlisted}/tarp.png`,
      })
    ).id;
    shopper = await buyer(t.api);
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await browser?.close();
    await host?.close();
  });

  /** An agent's client at /mcp (2026-07-28), declaring that its host shows views, or not. */
  async function agent(who: SignedIn, opts: { views?: boolean; language?: string } = {}) {
    const { token } = await agentToken(t, database, who, ['shop', 'orders']);
    const client = new Client(
      { name: 'views-test-host', version: '0.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        capabilities:
          opts.views === false ? {} : { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: {
          headers: { authorization: `Bearer ${token}`, 'accept-language': opts.language ?? 'en-CA' },
        },
      }),
    );
    clients.push(client);
    return client;
  }

  /** The host side of a tool call: the call as a model makes it, then its view with the result. */
  async function showTool(
    page: Page,
    client: Client,
    name: string,
    args: Record<string, unknown>,
    hostContext?: object,
  ): Promise<Frame> {
    const { tools } = await client.listTools();
    const tool = tools.find((x) => x.name === name)!;
    const uri = (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
    expect(uri, name).toMatch(/^ui:\/\/portage\//);
    const [resource] = (await client.readResource({ uri: uri! })).contents as {
      text: string;
      mimeType: string;
      _meta?: { ui?: { csp?: object } };
    }[];
    expect(resource!.mimeType).toBe('text/html;profile=mcp-app');
    const result = await client.callTool({ name, arguments: args });
    // A host answers the view's calls with the server's tools that apps may call.
    const appVisible = new Set(
      tools
        .filter((x) =>
          ((x._meta?.ui as { visibility?: string[] })?.visibility ?? ['model', 'app']).includes('app'),
        )
        .map((x) => x.name),
    );
    await page.exposeFunction('hostCallTool', async (tool: string, toolArgs: Record<string, unknown>) => {
      if (!appVisible.has(tool)) throw new Error(`${tool} is not for apps`);
      return client.callTool({ name: tool, arguments: toolArgs });
    });
    return mountView(page, host, {
      html: resource!.text,
      csp: resource!._meta?.ui?.csp,
      toolInput: args,
      toolResult: result,
      hostContext,
    });
  }

  it('lists the app-only tools to a host that shows views, with visibility app; a host without views never sees them', async () => {
    const withViews = await agent(shopper);
    const { tools } = await withViews.listTools();
    const visibility = (name: string) =>
      (tools.find((x) => x.name === name)?._meta?.ui as { visibility?: string[] } | undefined)?.visibility;
    expect(visibility('set_cart_quantity')).toEqual(['app']);
    expect(visibility('get_checkout')).toEqual(['app']);
    // What the host gives its model: every tool whose visibility includes "model".
    const forModel = tools
      .filter((x) => ((x._meta?.ui as { visibility?: string[] })?.visibility ?? ['model']).includes('model'))
      .map((x) => x.name);
    expect(forModel).not.toContain('set_cart_quantity');
    expect(forModel).not.toContain('get_checkout');
    expect(tools.find((x) => x.name === 'get_cart')?._meta).toMatchObject({
      ui: { resourceUri: 'ui://portage/cart.html' },
      'ui/resourceUri': 'ui://portage/cart.html',
      'openai/outputTemplate': 'ui://portage/cart.html',
    });
    const { resources } = await withViews.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([
      'ui://portage/cart.html',
      'ui://portage/checkout.html',
      'ui://portage/product.html',
      'ui://portage/products.html',
    ]);
    for (const r of resources) {
      expect(r.mimeType).toBe('text/html;profile=mcp-app');
      expect(r._meta?.ui).toEqual({
        csp: { resourceDomains: [host.images.allowed], connectDomains: [] },
        prefersBorder: true,
      });
    }

    const without = await agent(shopper, { views: false });
    const names = (await without.listTools()).tools.map((x) => x.name);
    expect(names).not.toContain('set_cart_quantity');
    expect(names).not.toContain('get_checkout');
    // Its answers carry no view.
    const plain = await without.callTool({ name: 'get_cart', arguments: {} });
    expect(plain._meta?.['portage/view']).toBeUndefined();
  });

  it('cards show the search; an image of an unlisted origin is refused by the view’s CSP and never requested', async () => {
    const page = await browser.page();
    const client = await agent(shopper);
    const before = { ...host.imageRequests };
    const frame = await showTool(page, client, 'search_products', { query: word });
    const cards = frame.locator('li.product');
    await expect.poll(() => cards.count()).toBe(2);
    const text = await frame.locator('main').innerText();
    expect(text).toContain(`${word} cedar paddle`);
    expect(text).toContain('$89.99');
    expect(text).toContain('$45.00');
    expect(text).toContain('No reviews yet');
    expect(text).toContain('Only 5 left');
    await expect
      .poll(async () =>
        (
          await frame.evaluate(() =>
            [...document.images].map((i) => [i.alt, i.complete && i.naturalWidth > 0]),
          )
        ).sort(),
      )
      .toEqual([
        [`${word} cedar paddle`, true],
        [`${word} ripstop tarp`, false],
      ]);
    expect(host.imageRequests.allowed).toBeGreaterThan(before.allowed);
    expect(host.imageRequests.unlisted).toBe(before.unlisted);
    expect(await accessibilityProblems(frame), 'views-products').toEqual([]);
    await screenshot(page, 'views-products');
    await page.close();
  });

  it('the product sheet speaks the person’s language: French words and prices', async () => {
    const page = await browser.page();
    const client = await agent(shopper, { language: 'fr-CA' });
    const frame = await showTool(
      page,
      client,
      'get_product',
      { id: ids.paddle },
      { theme: 'light', locale: 'fr-CA' },
    );
    await expect.poll(() => frame.locator('h1').innerText()).toBe(`${word} cedar paddle`);
    const text = await frame.locator('main').innerText();
    expect(text).toMatch(/89,99\s\$/);
    expect(text).toContain('Caractéristiques');
    expect(text).toContain('150 cm');
    expect(await accessibilityProblems(frame), 'views-product-fr').toEqual([]);
    await screenshot(page, 'views-product-fr');
    await page.close();
  });

  it('the product sheet shows the reader’s language when the product has it, else the text as written, saying so', async () => {
    const shop = await seller(t.api);
    const variants = (name: string, values: string[]) =>
      values.map((v) => ({ options: { [name]: v }, priceCents: 3000, stockQuantity: 4 }));
    const made = (fields: Record<string, unknown>) =>
      product(t.api, shop, { priceCents: undefined, stockQuantity: undefined, ...fields });
    const plain = await made({
      title: `${word} wool mitts`,
      description: 'Knitted in Gaspé.',
      options: [{ name: 'Size', values: ['S', 'L'] }],
      variants: variants('Size', ['S', 'L']),
    });
    const translated = await made({
      title: `${word} wool hat`,
      description: 'Knitted in Gaspé.',
      options: [{ name: 'Size', values: ['S', 'L'] }],
      variants: variants('Size', ['S', 'L']),
      translations: {
        'fr-CA': {
          title: `${word} tuque de laine`,
          description: 'Tricotée en Gaspésie.',
          options: [{ name: 'Taille', values: ['P', 'G'] }],
        },
      },
    });
    const page = await browser.page();
    const client = await agent(shopper, { language: 'fr-CA' });
    const fallback = await showTool(page, client, 'get_product', { id: plain.id }, { locale: 'fr-CA' });
    await expect.poll(() => fallback.locator('h1').innerText()).toBe(`${word} wool mitts`);
    expect(await fallback.locator('h1').getAttribute('lang')).toBe('en-CA');
    expect(await fallback.getByText('Knitted in Gaspé.').getAttribute('lang')).toBe('en-CA');
    const text = await fallback.locator('main').innerText();
    expect(text).toContain('Description offerte en anglais seulement');
    expect(text).toContain('Options nommées en anglais seulement');
    expect(await fallback.locator('fieldset.variants label span span[lang="en-CA"]').allInnerTexts()).toEqual(
      ['S', 'L'],
    );
    expect(await accessibilityProblems(fallback), 'views-product-fallback-fr').toEqual([]);
    await screenshot(page, 'views-product-fallback-fr');

    await page.close();
    const second = await browser.page();
    const french = await showTool(second, client, 'get_product', { id: translated.id }, { locale: 'fr-CA' });
    await expect.poll(() => french.locator('h1').innerText()).toBe(`${word} tuque de laine`);
    expect(await french.locator('h1').getAttribute('lang')).toBeNull();
    const frenchText = await french.locator('main').innerText();
    expect(frenchText).toContain('Tricotée en Gaspésie.');
    expect(frenchText).not.toContain('seulement');
    expect(await french.locator('fieldset.variants label span span').allInnerTexts()).toEqual(['P', 'G']);
    expect(await accessibilityProblems(french), 'views-product-translated-fr').toEqual([]);
    await second.close();
  });

  it('the cart’s buttons change the cart through the app-only tool: one more, one fewer, removed', async () => {
    const who = await buyer(t.api, 'cart-view');
    await t.api.as(who).post('/cart/items', { product_id: ids.paddle, quantity: 1 });
    await t.api.as(who).post('/cart/items', { product_id: ids.tarp, quantity: 2 });
    const page = await browser.page();
    const client = await agent(who);
    const frame = await showTool(
      page,
      client,
      'get_cart',
      {},
      {
        theme: 'dark',
        locale: 'en-CA',
        styles: { variables: { '--color-background-primary': 'rgb(20, 30, 40)' } },
      },
    );
    const quantities = async () =>
      Object.fromEntries(
        (await t.api.as(who).get('/cart')).body.items.map((i: { product_id: string; quantity: number }) => [
          i.product_id === ids.paddle ? 'paddle' : 'tarp',
          i.quantity,
        ]),
      );
    await frame.getByRole('button', { name: `One more: ${word} cedar paddle` }).click();
    await expect.poll(quantities).toEqual({ paddle: 2, tarp: 2 });
    // The view shows the cart the tool answered.
    await expect
      .poll(() =>
        frame.getByRole('button', { name: `One fewer: ${word} cedar paddle` }).getAttribute('data-args'),
      )
      .toContain('"quantity":1');
    await frame.getByRole('button', { name: `One fewer: ${word} ripstop tarp` }).click();
    await expect.poll(quantities).toEqual({ paddle: 2, tarp: 1 });
    await expect
      .poll(() =>
        frame.getByRole('button', { name: `One fewer: ${word} ripstop tarp` }).getAttribute('data-args'),
      )
      .toContain('"quantity":0');
    // The host's theme: its colour is the view's background of cards.
    await expect
      .poll(() => frame.locator('.totals').evaluate((e) => getComputedStyle(e).backgroundColor))
      .toBe('rgb(20, 30, 40)');
    expect(await accessibilityProblems(frame), 'views-cart-dark').toEqual([]);
    await screenshot(page, 'views-cart-dark');
    await frame.getByRole('button', { name: `Remove ${word} ripstop tarp` }).click();
    await expect.poll(() => frame.locator('tbody tr').count()).toBe(1);
    expect(
      (await t.api.as(who).get('/cart')).body.items.map((i: { product_id: string }) => i.product_id),
    ).toEqual([ids.paddle]);
    expect(
      (await hostLog(page))
        .filter((e) => e[0] === 'tools/call')
        .map((e) => [e[1], (e[2] as { quantity: number }).quantity]),
    ).toEqual([
      ['set_cart_quantity', 2],
      ['set_cart_quantity', 1],
      ['set_cart_quantity', 0],
    ]);
    await page.close();
  });

  it('the product sheet picks a variant (radios with price and availability) and adds it; the cart view names it', async () => {
    const shop = await seller(t.api);
    const made = await t.api.as(shop).post('/products', {
      title: `${word} ash paddle`,
      weight: 1.2,
      options: [
        { name: 'Wood', values: ['Cedar', 'Ash'] },
        { name: 'Length', values: ['150 cm', '160 cm'] },
      ],
      variants: [
        { options: { Wood: 'Cedar', Length: '150 cm' }, priceCents: 12900, stockQuantity: 0 },
        {
          options: { Wood: 'Cedar', Length: '160 cm' },
          priceCents: 13900,
          compareAtPriceCents: 15900,
          stockQuantity: 8,
        },
        { options: { Wood: 'Ash', Length: '160 cm' }, priceCents: 14900, stockQuantity: 2 },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const who = await buyer(t.api, 'variant-view');
    for (const [language, chosen] of [
      ['en-CA', 'Ash / 160 cm · $149.00 · Only 2 left'],
      ['fr-CA', 'Ash / 160 cm · 149,00 $ · Plus que 2 en stock'],
    ] as const) {
      const page = await browser.page();
      await page.setViewportSize({ width: 360, height: 800 });
      const client = await agent(who, { language });
      const frame = await showTool(page, client, 'get_product', { id: made.body.id }, { locale: language });
      const sold = frame.getByRole('radio', { name: /^Cedar \/ 150 cm/ });
      await expect.poll(() => sold.isDisabled()).toBe(true);
      expect(await frame.getByRole('radio', { name: /^Cedar \/ 160 cm/ }).isChecked()).toBe(true);
      expect((await frame.locator('fieldset').innerText()).replace(/\s+/g, ' ')).toContain(chosen);
      await frame.getByRole('radio', { name: /^Ash \/ 160 cm/ }).check();
      expect(await accessibilityProblems(frame), `views-product-variants-${language}`).toEqual([]);
      await screenshot(page, `views-product-variants${language === 'fr-CA' ? '-fr' : ''}`);
      await frame
        .getByRole('button', { name: language === 'fr-CA' ? 'Ajouter au panier' : 'Add to cart' })
        .click();
      // The cart's view, with the line named by its variant.
      await expect
        .poll(() => frame.locator('tbody').innerText())
        .toContain(`${word} ash paddle, Ash / 160 cm`);
      const calls = (await hostLog(page)).filter((e) => e[0] === 'tools/call').map((e) => [e[1], e[2]]);
      expect(calls).toEqual([
        ['add_to_cart', { product_id: made.body.id, quantity: 1, variant: made.body.variants[2].id }],
        ['get_cart', {}],
      ]);
      await page.close();
    }
    const { items } = (await t.api.as(who).get('/cart')).body;
    expect(items.map((i: { variant_id: string; quantity: number }) => [i.variant_id, i.quantity])).toEqual([
      [made.body.variants[2].id, 2],
    ]);
  });

  it('the pay button asks the host to open the payment page; once paid, the view shows the order', async () => {
    const who = await buyer(t.api, 'pay-view');
    await t.api.as(who).post('/cart/items', { product_id: ids.paddle, quantity: 1 });
    const page = await browser.page();
    const client = await agent(who);
    const frame = await showTool(page, client, 'create_checkout', { shipping_address: ON_ADDRESS });
    const pay = frame.getByRole('button', { name: /^Pay \$/ });
    await expect.poll(() => pay.innerText()).toMatch(/^Pay \$\d+\.\d\d$/);
    // Each parcel's shipping: the cheapest chosen, the other offered.
    const shipping = frame.locator('.card', { has: frame.getByRole('heading', { name: 'Shipping' }) });
    expect(await shipping.innerText()).toMatch(
      /^Shipping\nCanada Post Regular Parcel: \$\d+\.\d\d, expected \w+ \d+, \d{4}\nAlso offered: Canada Post Xpresspost: \$\d+\.\d\d, expected \w+ \d+, \d{4}\. Ask to change it before paying\.$/,
    );
    expect(await accessibilityProblems(frame), 'views-checkout').toEqual([]);
    await screenshot(page, 'views-checkout');
    await pay.click();
    const opened = (await hostLog(page)).find((e) => e[0] === 'open-link');
    expect(String(opened?.[1]).startsWith(`${t.config.publicBaseUrl}/sandbox/checkout/`)).toBe(true);
    const sessionId = new URL(String(opened![1])).pathname.split('/').pop()!;
    const [orderId] = await payOk(t.api, decodeURIComponent(sessionId));
    await expect
      .poll(() => frame.getByRole('status').innerText(), { timeout: 20_000 })
      .toContain('Paid, thank you.');
    // The view names the order by its number; its link carries the id.
    const { number } = (await t.api.as(who).get(`/orders/${encodeURIComponent(orderId!)}`)).body;
    expect(await frame.getByRole('link', { name: `Order ${number}` }).getAttribute('href')).toBe(
      `${t.config.publicBaseUrl}/account/orders/${encodeURIComponent(orderId!)}`,
    );
    expect((await hostLog(page)).some((e) => e[0] === 'tools/call' && e[1] === 'get_checkout')).toBe(true);
    expect(await accessibilityProblems(frame), 'views-checkout-paid').toEqual([]);
    await screenshot(page, 'views-checkout-paid');
    await page.close();
  });
});
