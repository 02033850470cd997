// Views for agent hosts that show them (the MCP Apps extension, io.modelcontextprotocol/ui, spec
// 2026-01-26): search_products links a grid of product cards, get_product a product sheet,
// get_cart the cart with quantity buttons, create_checkout a summary with a pay button that
// opens the payment page and then shows the orders once paid. Each view is a `ui://` resource,
// one HTML document in the view frame (src/views/view-frame.ts) with a small script
// (./view-script.ts); the tool server renders what it shows (html`...`), in the person's
// language, into the tool result's `_meta["portage/view"]`: the text and structuredContent of every answer stay exactly those of
// a host without views. The buttons call the app-only tools (APP_TOOLS: listed only to a host
// that declares the extension, with visibility "app", so never to a model).
import {
  EXTENSION_ID,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from '@modelcontextprotocol/ext-apps/server';
import { html } from 'ghtml';
import type { z } from 'zod';
import { type cart as cartSchema, MAX_QUANTITY } from '../contract/cart.ts';
import type { productDetail } from '../contract/catalog.ts';
import type { checkoutSession } from '../contract/checkout.ts';
import { formatMoney, LOCALES, type Locale, t } from '../contract/i18n.ts';
import {
  addToCartTool,
  createCheckoutTool,
  getCartTool,
  getCheckoutTool,
  getProductTool,
  searchProductsTool,
  setCartQuantityTool,
} from '../contract/tools.ts';
import {
  amountRows,
  discountRows,
  productCard,
  productImages,
  reviewList,
  specifications,
  stars,
  stockLine,
} from '../views/fragments.ts';
import { viewDocument } from '../views/view-frame.ts';
import { words } from '../views/words.ts';
import { VIEW_SCRIPT } from './view-script.ts';

/** Where a tool result carries its view's HTML. */
export const VIEW_META_KEY = 'portage/view';

type Renderer = (l: Locale, value: never, links: ViewLinks) => string;

export interface ViewLinks {
  /** The service's public address: order pages are under it. */
  baseUrl: string;
}

interface View {
  uri: string;
  name: string;
  /** The tools whose answers it shows; the first is the one a model calls. */
  tools: readonly string[];
  render: Renderer;
}

const VIEWS: readonly View[] = [
  {
    uri: 'ui://portage/products.html',
    name: 'products',
    tools: [searchProductsTool.name],
    render: products as Renderer,
  },
  {
    uri: 'ui://portage/product.html',
    name: 'product',
    tools: [getProductTool.name],
    render: product as Renderer,
  },
  {
    uri: 'ui://portage/cart.html',
    name: 'cart',
    tools: [getCartTool.name, setCartQuantityTool.name],
    render: cart as Renderer,
  },
  {
    uri: 'ui://portage/checkout.html',
    name: 'checkout',
    tools: [createCheckoutTool.name, getCheckoutTool.name],
    render: checkout as Renderer,
  },
];

const VIEW_OF_TOOL = new Map(VIEWS.flatMap((v) => v.tools.map((tool) => [tool, v] as const)));
const VIEW_OF_URI = new Map(VIEWS.map((v) => [v.uri, v]));

/** Whether an MCP client's capabilities declare that it shows views (the extension, with our type). */
export function showsViews(capabilities: { extensions?: Record<string, unknown> } | undefined): boolean {
  const ui = capabilities?.extensions?.[EXTENSION_ID] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(RESOURCE_MIME_TYPE);
}

/**
 * The `_meta` of a tool with a view: the extension's key and its older spelling, and ChatGPT's
 * own (openai/outputTemplate); an app-only tool's visibility is "app" (ChatGPT: private).
 */
export function toolViewMeta(toolName: string, appOnly: boolean): Record<string, unknown> | undefined {
  const view = VIEW_OF_TOOL.get(toolName);
  if (!view) return undefined;
  return {
    ui: { resourceUri: view.uri, ...(appOnly ? { visibility: ['app'] } : {}) },
    [RESOURCE_URI_META_KEY]: view.uri,
    'openai/outputTemplate': view.uri,
    'openai/widgetAccessible': true,
    ...(appOnly ? { 'openai/visibility': 'private' } : {}),
  };
}

/** The resources' `_meta.ui`: the narrowest CSP (images of the configured origins only), a border. */
const resourceMeta = (imageOrigins: readonly string[]) => ({
  ui: { csp: { resourceDomains: [...imageOrigins], connectDomains: [] }, prefersBorder: true },
});

/** resources/list: the four views. */
export function viewResources(imageOrigins: readonly string[]) {
  return VIEWS.map((v) => ({
    uri: v.uri,
    name: v.name,
    title: t('en-CA', `view.${v.name}.title` as 'view.products.title'),
    mimeType: RESOURCE_MIME_TYPE,
    _meta: resourceMeta(imageOrigins),
  }));
}

/** resources/read of one view: its document, or undefined for a URI that is none of ours. */
export function readViewResource(uri: string, imageOrigins: readonly string[]) {
  const view = VIEW_OF_URI.get(uri);
  if (!view) return undefined;
  return {
    contents: [
      {
        uri,
        mimeType: RESOURCE_MIME_TYPE,
        text: viewDocument({ name: view.name, style: VIEW_STYLE, words: VIEW_WORDS, script: VIEW_SCRIPT }),
        _meta: resourceMeta(imageOrigins),
      },
    ],
  };
}

/** The HTML of a tool's answer in its view, or undefined for a tool without one. */
export function renderView(toolName: string, value: object, locale: Locale, links: ViewLinks) {
  return VIEW_OF_TOOL.get(toolName)?.render(locale, value as never, links);
}

// ---- the documents ----------------------------------------------------------------------------

/**
 * The host's style variables first, ours after: a host that names its colours and fonts dresses
 * the view in them (light or dark), one that does not gets the pages' own.
 */
const VIEW_STYLE = `
:root { --ink: var(--color-text-primary, #1f2328); --muted: var(--color-text-secondary, #5b6470); --line: var(--color-border-primary, #dcd9d0); --paper: var(--color-background-secondary, #f6f4ef); --card: var(--color-background-primary, #fff); }
[data-theme=dark] { --ink: var(--color-text-primary, #e8e6df); --muted: var(--color-text-secondary, #a9b0b8); --line: var(--color-border-primary, #3a3f45); --paper: var(--color-background-secondary, #16191c); --card: var(--color-background-primary, #1f2327); --brand: #2f5d43; --brand-2: #3d7656; }
body { background: var(--paper); font-family: var(--font-sans, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif); }
main { margin: 0; padding: 12px; max-width: none; }
h1 { font-size: 1.15rem; }
.grid { grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); }
.gallery img { max-height: 260px; }
.variants { min-width: 0; }
.qty { display: flex; align-items: center; gap: 6px; }
.qty button { margin: 0; min-width: 32px; }
[data-theme=dark] button.secondary { background: #2c3136; color: var(--ink); }
[data-theme=dark] table { background: var(--card); }
`;

/** Each view's own words (before any answer: waiting, a failure), in every language. */
const VIEW_WORDS = Object.fromEntries(
  LOCALES.map((l) => [
    l,
    {
      loading: t(l, 'view.loading'),
      failed: t(l, 'view.failed'),
      cancelled: t(l, 'view.cancelled'),
    },
  ]),
);

// ---- what each view shows ----------------------------------------------------------------------

const money = (l: Locale, cents: number) => formatMoney(l, cents);
/** A button that calls `tool` with `args` (the view's script sends it through the host); `attrs` from html`...`. */
const toolButton = (tool: string, args: object, label: string, attrs = '', cls = 'small secondary') =>
  html`<button type="button" class="${cls}" data-tool="${tool}" data-args="${JSON.stringify(args)}"!${attrs}>${label}</button>`;

function products(l: Locale, found: { items: Parameters<typeof productCard>[1][]; total: number }): string {
  if (!found.items.length) return html`<div class="card"><p>${words(l, 'web.search.none')}</p></div>`;
  return html`<p class="muted">${words(l, 'view.products.shown', { n: found.items.length, total: found.total })}</p>
<ul class="grid">!${found.items.map((r) => productCard(l, r, { stock: true }))}</ul>`;
}

/** A variant's availability in words: in stock, a few left, out of stock (also when not on sale). */
const availability = (l: Locale, v: { available: boolean; stockQuantity: number }) =>
  !v.available || v.stockQuantity <= 0
    ? words(l, 'web.product.outOfStock')
    : words(l, v.stockQuantity <= 5 ? 'web.product.fewLeft' : 'web.product.inStock', { n: v.stockQuantity });

/**
 * Add to cart: a product with options first picks a variant (radios, each with its price and
 * availability; one out of stock cannot be picked); the script adds the picked one, then shows
 * the cart (get_cart).
 */
function buyBlock(l: Locale, p: z.output<typeof productDetail>): string {
  const many = p.options.length > 0 || p.variants.length > 1;
  const optionsLang = p.optionsLanguage !== l ? html` lang="${p.optionsLanguage}"` : '';
  const first = p.variants.find((v) => v.available);
  const radios = p.variants.map((v) => {
    const id = `variant-${v.id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
    const price =
      v.compareAtPriceCents === null
        ? money(l, v.priceCents)
        : `${money(l, v.priceCents)} (${words(l, 'web.product.variant.regularPrice')} ${money(l, v.compareAtPriceCents)})`;
    return html`<label class="check" for="${id}"><input id="${id}" type="radio" name="variant" value="${v.id}"!${v === first ? ' checked' : ''}!${v.available ? '' : ' disabled'}><span><span!${v.title ? optionsLang : titleLang(l, p)}>${v.title || p.title}</span> · ${price} · ${availability(l, v)}</span></label>`;
  });
  // Option values not in the reader's language (not translated) are marked, and said.
  const onlyIn =
    p.optionsLanguage !== l && p.options.length
      ? html`<p class="muted">${words(l, p.optionsLanguage === 'fr-CA' ? 'web.product.optionsOnlyInFrench' : 'web.product.optionsOnlyInEnglish')}</p>`
      : '';
  const pick = many
    ? html`<fieldset class="variants"><legend>${words(l, 'view.product.chooseVariant')}</legend>!${onlyIn}!${radios}</fieldset>`
    : '';
  const button = html`<button type="button" data-tool="${addToCartTool.name}" data-args="${JSON.stringify({ product_id: p.id, quantity: 1 })}"!${many ? ' data-pick="variant"' : ''} data-then="${getCartTool.name}"!${first && p.status === 'active' ? '' : ' disabled'}>${words(l, 'web.product.addToCart')}</button>`;
  return html`!${pick}<p data-status></p>!${button}`;
}

/** ` lang="…"` for a title not in the reader's language (not translated), else nothing. */
const titleLang = (l: Locale, p: { language: Locale }) =>
  p.language !== l ? html` lang="${p.language}"` : '';

/**
 * The sheet in the reader's language when the product has it; text only as written is marked
 * with its language for screen readers, and said, as the store's product page does.
 */
function product(l: Locale, p: z.output<typeof productDetail>): string {
  const descriptionLang = p.descriptionLanguage !== l ? html` lang="${p.descriptionLanguage}"` : '';
  const onlyIn =
    p.descriptionLanguage !== l && p.description !== ''
      ? html`<p class="muted">${words(l, p.descriptionLanguage === 'fr-CA' ? 'web.product.onlyInFrench' : 'web.product.onlyInEnglish')}</p>`
      : '';
  return html`<div class="sheet"><div class="gallery">!${productImages(l, p)}</div>
<div><h1!${titleLang(l, p)}>${p.title}</h1><p class="price">${money(l, p.priceCents)}</p><p>!${stars(l, p.rating, p.reviewCount)}</p>
<p>${words(l, 'web.product.soldBy', { shop: p.seller.name })}</p>!${stockLine(l, p.stockQuantity)}
!${buyBlock(l, p)}
!${onlyIn}<p!${descriptionLang}>${p.description}</p>
!${specifications(l, p.specifications)}
</div></div>
<section><h2>${words(l, 'web.product.reviews')}</h2>!${reviewList(l, p.reviews)}</section>`;
}

function cart(l: Locale, c: z.output<typeof cartSchema>): string {
  const title = html`<h1>${words(l, 'web.cart.title')}</h1>`;
  if (!c.items.length)
    return html`!${title}<p data-status></p><div class="card"><p>${words(l, 'web.cart.empty')}</p></div>`;
  const set = setCartQuantityTool.name;
  const rows = c.items.map((i) => {
    // A line is a variant: its buttons name the variant (the product's own id for one sold one way).
    const id = { product_id: i.variant_id };
    const less = toolButton(
      set,
      { ...id, quantity: i.quantity - 1 },
      '−',
      html` aria-label="${words(l, 'view.cart.less', { title: i.title })}"`,
    );
    const more = toolButton(
      set,
      { ...id, quantity: i.quantity + 1 },
      '+',
      html` aria-label="${words(l, 'view.cart.more', { title: i.title })}"!${i.quantity >= MAX_QUANTITY ? ' disabled' : ''}`,
    );
    const remove = toolButton(
      set,
      { ...id, quantity: 0 },
      words(l, 'web.cart.remove'),
      html` aria-label="${words(l, 'view.cart.removeTitle', { title: i.title })}"`,
    );
    return html`<tr><td>${i.title}</td><td class="num">${money(l, i.unit_price_cents)}</td><td><div class="qty">!${less}<span>${i.quantity}</span>!${more}</div></td><td class="num">${money(l, i.line_total_cents)}</td><td>!${remove}</td></tr>`;
  });
  const totals = amountRows(l, {
    ...c,
    discountCents: c.discount_cents,
    discounts: discountRows(l, c.discounts),
    totalCents: c.totalAmountCents,
  });
  return html`!${title}<p data-status></p>
<div class="table-wrap"><table><thead><tr><th>${words(l, 'web.cart.product')}</th><th class="num">${words(l, 'web.cart.price')}</th><th>${words(l, 'web.cart.quantity')}</th><th class="num">${words(l, 'web.cart.lineTotal')}</th><th><span class="visually-hidden">${words(l, 'web.cart.remove')}</span></th></tr></thead><tbody>!${rows}</tbody></table></div>
<div class="totals card">!${totals}</div>
<p class="hint">${words(l, 'view.cart.estimate')}</p>`;
}

type Parcel = z.output<typeof checkoutSession>['parcels'][number];

/**
 * Each parcel's shipping: the option chosen with its price and day, and the others offered (the
 * person asks the agent to change it: create_checkout's shipping_choices).
 */
function shippingOf(l: Locale, parcels: Parcel[]): string {
  const rows = parcels.flatMap((p) => {
    const chosen = p.shippingOption;
    if (!chosen) return [];
    const said = (o: NonNullable<Parcel['shippingOption']>) =>
      words(l, 'view.checkout.option', {
        name: o.name,
        price: money(l, o.priceCents),
        date: new Date(`${o.deliveryDate}T12:00:00Z`),
      });
    const others = p.shippingOptions.filter((o) => o.id !== chosen.id);
    const also = others.length
      ? html`<br><span class="muted">${words(l, 'view.checkout.otherOptions', { list: others.map(said).join('; ') })}</span>`
      : '';
    return [html`<li>${said(chosen)}!${also}</li>`];
  });
  if (!rows.length) return '';
  return html`<div class="card"><h2>${words(l, 'view.checkout.shipping')}</h2><ul>!${rows}</ul></div>`;
}

function checkout(l: Locale, s: z.output<typeof checkoutSession>, links: ViewLinks): string {
  const items = s.parcels.flatMap((p) => p.items);
  const lines = items.map(
    (i) =>
      html`<tr><td>${i.name}</td><td class="num">${i.quantity}</td><td class="num">${money(l, i.unitPriceCents * i.quantity)}</td></tr>`,
  );
  const totals = amountRows(l, s);
  const summary = html`<div class="table-wrap"><table><thead><tr><th>${words(l, 'web.cart.product')}</th><th class="num">${words(l, 'web.cart.quantity')}</th><th class="num">${words(l, 'web.cart.lineTotal')}</th></tr></thead><tbody>!${lines}</tbody></table></div>
!${shippingOf(l, s.parcels)}<div class="totals card">!${totals}</div>`;
  const base = links.baseUrl.replace(/\/+$/, '');
  let state: string;
  if (s.orderIds.length) {
    const orders = s.orderIds.map((id, n) => {
      const url = `${base}/account/orders/${encodeURIComponent(id)}`;
      return html`<li><a href="${url}" data-open="${url}">${words(l, 'view.checkout.order', { id: s.orderNumbers?.[n] ?? id })}</a></li>`;
    });
    state = html`<p class="notice" role="status">${words(l, 'view.checkout.paid', { n: s.orderIds.length })}</p><ul>!${orders}</ul>`;
  } else if (s.status === 'ready_for_payment') {
    state = html`<p data-status data-poll="${getCheckoutTool.name}" data-args="${JSON.stringify({ session_id: s.sessionId })}" data-until="${s.expiresAt}" class="muted">${words(l, 'view.checkout.waiting')}</p>
<button type="button" data-open="${s.sessionUrl}">${words(l, 'view.checkout.pay', { total: formatMoney(l, s.totalCents) })}</button>`;
  } else {
    state = html`<p class="alert" data-status>${words(l, 'view.checkout.ended')}</p>`;
  }
  return html`<h1>${words(l, 'web.checkout.title')}</h1>!${summary}!${state}`;
}
