// A shop's page (/shops/<slug>): its logo, name, province and rating, its description, its products
// (the search engine's, by seller, 24 a page) and its return and shipping policies, in the
// reader's language when the shop wrote it (GET /shops/:shop's service). `/shops/<seller id>`
// (what "Sold by" and the protocols link, with no read) redirects to the slug.
import type { FastifyInstance } from 'fastify';
import { html } from 'ghtml';
import { t } from '../../contract/i18n.ts';
import { policyUrl } from '../../modules/policies/links.ts';
import { getShop, type Shop, shopPath } from '../../modules/shops/service.ts';
import { productCard, stars } from '../../views/fragments.ts';
import { wordsWith } from '../../views/words.ts';
import { type View, viewOf, type WebDeps } from '../core.ts';
import { page, provinceName, sendHtml } from '../layout.ts';

const PAGE_SIZE = 24;

type Found = Awaited<ReturnType<WebDeps['search']['search']>>;

export function shopPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  app.get<{ Params: { shop: string }; Querystring: { page?: string } }>(
    '/shops/:shop',
    { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
    async (req, reply) => {
      const shop = await getShop(req.ctx, req.params.shop, deps.commerce.publicBaseUrl);
      if (req.params.shop !== shop.slug) return reply.redirect(shopPath(shop.slug), 301);
      const pageNo = Math.min(Math.max(1, Number.parseInt(req.query.page ?? '1', 10) || 1), 400);
      const found = await deps.search.search(req.ctx, {
        q: '',
        filters: `sellerId:${shop.sellerId}`,
        limit: PAGE_SIZE,
        offset: (pageNo - 1) * PAGE_SIZE,
      });
      return sendHtml(reply, shopView(viewOf(req, reply, s), shop, found, pageNo));
    },
  );
}

function shopView(v: View, shop: Shop, found: Found, pageNo: number): string {
  const l = v.p.locale;
  // Words the shop wrote in the other language are marked for screen readers, and said.
  const lang = shop.language !== l ? html` lang="${shop.language}"` : '';
  const onlyIn =
    shop.language !== l
      ? html`<p class="hint">${t(l, shop.language === 'fr-CA' ? 'web.shop.onlyInFrench' : 'web.shop.onlyInEnglish')}</p>`
      : '';
  const paragraphs = (text: string) => text.split(/\n{2,}/).map((p) => html`<p!${lang}>${p}</p>`);
  const logo = shop.logoUrl
    ? html`<img class="shop-logo" src="${shop.logoUrl}" alt="${t(l, 'web.shop.logo', { shop: shop.name })}" height="96" loading="lazy" referrerpolicy="no-referrer">`
    : '';
  const products = found.results.length
    ? html`<ul class="grid">!${found.results.map((r) => productCard(l, r, { href: `/shop/products/${r.id}` }))}</ul>`
    : html`<div class="card"><p>${t(l, 'web.shop.noProducts')}</p></div>`;
  const pages = Math.ceil(Math.min(found.total, PAGE_SIZE * 400) / PAGE_SIZE);
  const at = (n: number) => `${shopPath(shop.slug)}${n > 1 ? `?page=${n}` : ''}`;
  const pager =
    pages > 1
      ? html`<nav class="pager" aria-label="${t(l, 'web.search.pages')}">!${pageNo > 1 ? html`<a href="${at(pageNo - 1)}" rel="prev">${t(l, 'web.search.previous')}</a>` : ''}<span>${t(l, 'web.search.pageOf', { page: pageNo, pages })}</span>!${pageNo < pages ? html`<a href="${at(pageNo + 1)}" rel="next">${t(l, 'web.search.next')}</a>` : ''}</nav>`
      : '';
  const returns = shop.returnPolicy
    ? paragraphs(shop.returnPolicy).join('')
    : html`<p>!${wordsWith(l, 'web.shop.follows', {}, { policy: html`<a href="${policyUrl('', 'returns')}">${t(l, 'web.shop.platformReturns')}</a>` })}</p>`;
  const shipping = shop.shippingPolicy
    ? paragraphs(shop.shippingPolicy).join('')
    : html`<p>${t(l, 'web.shop.noShipping')}</p>`;
  return page(v, {
    title: shop.name,
    index: true,
    body: html`<div class="shop-head">!${logo}<div><h1>${shop.name}</h1><p>${t(l, 'web.shop.from', { province: provinceName(l, shop.province) })} · !${stars(l, shop.rating, shop.reviewCount)}</p></div></div>
!${shop.description ? html`<section class="card" aria-labelledby="about-h"><h2 id="about-h" class="first">${t(l, 'web.shop.about')}</h2>!${onlyIn}!${paragraphs(shop.description)}</section>` : ''}
<section class="shop-products" aria-labelledby="products-h"><h2 id="products-h">${t(l, 'web.shop.products')}</h2><p role="status">${t(l, 'web.search.count', { n: found.total })}</p>!${products}!${pager}</section>
<section class="card" id="returns" aria-labelledby="returns-h"><h2 id="returns-h" class="first">${t(l, 'web.shop.returns')}</h2>!${returns}</section>
<section class="card" id="shipping" aria-labelledby="shipping-h"><h2 id="shipping-h" class="first">${t(l, 'web.shop.shipping')}</h2>!${shipping}</section>`,
  });
}
