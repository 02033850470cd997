// With Stripe, the page `sessionUrl` points to: it mounts Stripe's embedded Checkout with the
// session's client secret (Stripe gives embedded sessions no page of their own), and the page
// Stripe sends the person back to. Served only when Stripe is the provider. Our words are the
// catalogues' (`page.stripe.*`) in the page's language (see page-layout.ts). Written with
// html`...` in the document frame (src/views/document.ts).
import { randomBytes } from 'node:crypto';
import { html } from 'ghtml';
import { formatMoney, t } from '../../contract/i18n.ts';
import { documentFrame } from '../../views/document.ts';
import { languageSwitch, type PageLang } from '../../views/language.ts';
import { words } from '../../views/words.ts';

/** JSON safe inside a script element (a documented safe producer: no `<` is left in it). */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

const STYLE =
  'body{font-family:system-ui,sans-serif;background:#f6f4ef;margin:0}header{background:#1d3b2a;color:#fff;padding:14px 24px;font-weight:600;display:flex;gap:14px}header nav{margin-left:auto;font-weight:400}header nav a{color:#fff}main{max-width:760px;margin:24px auto;padding:0 16px}';

export function stripePage(
  p: PageLang,
  opts: { publishableKey: string; clientSecret: string; totalCents: number },
) {
  const l = p.locale;
  const total = t(l, 'page.stripe.total', { amount: formatMoney(l, opts.totalCents) });
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `script-src https://js.stripe.com 'nonce-${nonce}'`,
    'frame-src https://js.stripe.com https://checkout.stripe.com https://hooks.stripe.com',
    'connect-src https://api.stripe.com https://checkout.stripe.com',
    'img-src https://*.stripe.com data:',
    "style-src 'unsafe-inline'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  const page = documentFrame({
    lang: l,
    title: words(l, 'page.pay.title'),
    head: html`<style>!${STYLE}</style><script src="https://js.stripe.com/v3/" nonce="${nonce}"></script>`,
    body: html`<header><span>${words(l, 'page.stripe.header', { total })}</span>!${languageSwitch(p)}</header><main><div id="checkout"><noscript>${words(l, 'page.stripe.needsScript')}</noscript></div></main><script nonce="${nonce}">
const data = !${scriptJson({ key: opts.publishableKey, secret: opts.clientSecret })};
Stripe(data.key).initEmbeddedCheckout({ fetchClientSecret: async () => data.secret }).then((c) => c.mount('#checkout'));
</script>`,
  });
  return { html: page, csp };
}

export function returnPage(p: PageLang, status: string) {
  const l = p.locale;
  const message =
    status === 'complete'
      ? 'page.stripe.complete'
      : status === 'expired'
        ? 'page.stripe.expired'
        : 'page.stripe.pending';
  const orders =
    status === 'complete'
      ? html`<p><a href="/account/orders">${words(l, 'page.stripe.yourOrders')}</a></p>`
      : '';
  return documentFrame({
    lang: l,
    title: words(l, 'page.stripe.returnTitle'),
    head: html`<style>!${STYLE}</style>`,
    body: html`<header><span>Portage</span>!${languageSwitch(p)}</header><main><p>${words(l, message)}</p>!${orders}</main>`,
  });
}
