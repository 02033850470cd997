// With Stripe, the page `sessionUrl` points to: it mounts Stripe's embedded Checkout with the
// session's client secret (Stripe gives embedded sessions no page of their own), and the page
// Stripe sends the person back to. Served only when Stripe is the provider.
import { randomBytes } from 'node:crypto';
import { escapeHtml } from '../../contract/format.ts';

/** JSON safe inside a script element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

const STYLE =
  'body{font-family:system-ui,sans-serif;background:#f6f4ef;margin:0}header{background:#1d3b2a;color:#fff;padding:14px 24px;font-weight:600}main{max-width:760px;margin:24px auto;padding:0 16px}';

export function stripePage(opts: { publishableKey: string; clientSecret: string; totalLabel: string }) {
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
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Pay for your Portage order</title><style>${STYLE}</style><script src="https://js.stripe.com/v3/" nonce="${nonce}"></script></head><body><header>Portage: pay ${escapeHtml(opts.totalLabel)}</header><main><div id="checkout"><noscript>Paying needs JavaScript (Stripe's secure form).</noscript></div></main><script nonce="${nonce}">
const data = ${scriptJson({ key: opts.publishableKey, secret: opts.clientSecret })};
Stripe(data.key).initEmbeddedCheckout({ fetchClientSecret: async () => data.secret }).then((c) => c.mount('#checkout'));
</script></body></html>`;
  return { html, csp };
}

export function returnPage(status: string) {
  const message =
    status === 'complete'
      ? 'Payment received: thank you! Your order is confirmed and a confirmation email is on its way.'
      : status === 'expired'
        ? 'This checkout has expired; check out again from your cart.'
        : 'Thank you: your payment is being confirmed. Your order will appear in your account in a moment.';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portage checkout</title><style>${STYLE}</style></head><body><header>Portage</header><main><p>${escapeHtml(message)}</p></main></body></html>`;
}
