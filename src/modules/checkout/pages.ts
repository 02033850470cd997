// With Stripe, the page `sessionUrl` points to: it mounts Stripe's embedded Checkout with the
// session's client secret (Stripe gives embedded sessions no page of their own), and the page
// Stripe sends the person back to. Served only when Stripe is the provider. Our words are the
// catalogues' (`page.stripe.*`) in the page's language (see page-layout.ts).
import { randomBytes } from 'node:crypto';
import { formatMoney, t } from '../../contract/i18n.ts';
import { languageSwitch, type PageLang, say } from '../page-layout.ts';

/** JSON safe inside a script element. */
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
  const html = `<!doctype html><html lang="${l}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${say(l, 'page.pay.title')}</title><style>${STYLE}</style><script src="https://js.stripe.com/v3/" nonce="${nonce}"></script></head><body><header><span>${say(l, 'page.stripe.header', { total })}</span>${languageSwitch(p)}</header><main><div id="checkout"><noscript>${say(l, 'page.stripe.needsScript')}</noscript></div></main><script nonce="${nonce}">
const data = ${scriptJson({ key: opts.publishableKey, secret: opts.clientSecret })};
Stripe(data.key).initEmbeddedCheckout({ fetchClientSecret: async () => data.secret }).then((c) => c.mount('#checkout'));
</script></body></html>`;
  return { html, csp };
}

export function returnPage(p: PageLang, status: string) {
  const l = p.locale;
  const message =
    status === 'complete'
      ? 'page.stripe.complete'
      : status === 'expired'
        ? 'page.stripe.expired'
        : 'page.stripe.pending';
  return `<!doctype html><html lang="${l}"><head><meta charset="utf-8"><title>${say(l, 'page.stripe.returnTitle')}</title><style>${STYLE}</style></head><body><header><span>Portage</span>${languageSwitch(p)}</header><main><p>${say(l, message)}</p>${status === 'complete' ? `<p><a href="/account/orders">${say(l, 'page.stripe.yourOrders')}</a></p>` : ''}</main></body></html>`;
}
