// The sandbox's payment page: plain HTML and CSS (no script: its CSP forbids any), the order
// summary with each parcel, shipping and every tax line, a card form that posts form fields,
// and the answer pages after paying. Every seller-written text is escaped. Tested in headless
// Chromium as a person uses it (test/sandbox-page.browser.test.ts).
import { escapeHtml, formatCents } from '../../contract/format.ts';
import type { StoredAddress, StoredParcel } from '../checkout/tables.ts';

export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Integer cents as dollars (the one money format of pages and emails). */
export const dollars = formatCents;

const STYLE = `
  :root { --brand: #1d3b2a; --brand-2: #2f5d43; --ink: #1f2328; --muted: #5b6470; --line: #e3e1da; --bg: #f6f4ef; }
  * { box-sizing: border-box; }
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--ink); margin: 0; line-height: 1.45; }
  .top { background: var(--brand); color: #fff; }
  .top div { max-width: 1040px; margin: 0 auto; padding: 14px 20px; display: flex; align-items: center; gap: 14px; }
  .brand { font-weight: 700; font-size: 1.15rem; letter-spacing: .02em; }
  .crumb { opacity: .85; font-size: .92rem; }
  .badge { margin-left: auto; background: #f4c542; color: #3a2c00; font-size: .78rem; font-weight: 600; padding: 3px 10px; border-radius: 999px; }
  main { max-width: 1040px; margin: 28px auto; padding: 0 20px; display: grid; gap: 24px; align-items: start; }
  @media (min-width: 820px) { main.two { grid-template-columns: minmax(0, 1.1fr) minmax(0, .9fr); } main.two > .summary { grid-column: 2; grid-row: 1; } }
  section { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 22px 24px; }
  h1 { font-size: 1.35rem; margin: 0 0 4px; } h2 { font-size: 1.05rem; margin: 0 0 14px; }
  .due { color: var(--muted); margin: 0 0 18px; } .due strong { color: var(--ink); font-size: 1.1rem; }
  table { width: 100%; border-collapse: collapse; font-size: .95rem; }
  caption { text-align: left; font-weight: 600; font-size: .82rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); padding: 12px 0 6px; }
  th, td { padding: 6px 0; vertical-align: top; font-weight: 400; text-align: left; }
  td.amount { text-align: right; white-space: nowrap; padding-left: 12px; font-variant-numeric: tabular-nums; }
  .parcel tr + tr th, .parcel tr + tr td { border-top: 1px dashed var(--line); }
  .each { display: block; color: var(--muted); font-size: .82rem; }
  .totals { margin-top: 10px; border-top: 1px solid var(--line); }
  .totals tr.total th, .totals tr.total td { font-weight: 700; font-size: 1.1rem; border-top: 1px solid var(--ink); padding-top: 10px; }
  .totals tr.discount td { color: #175; }
  fieldset { border: 0; padding: 0; margin: 0; } legend { font-weight: 600; margin-bottom: 6px; padding: 0; }
  label { display: block; margin: 12px 0 5px; font-size: .9rem; font-weight: 500; }
  input, button { font: inherit; }
  input { width: 100%; padding: 11px 12px; font-size: 1rem; border: 1px solid #b9bec6; border-radius: 8px; background: #fff; color: var(--ink); }
  input:focus { outline: 3px solid #9cc3ad; border-color: var(--brand-2); }
  input[aria-invalid="true"] { border-color: #b3261e; }
  .row { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; }
  button { margin-top: 20px; width: 100%; padding: 13px; font-size: 1.05rem; font-weight: 600; background: var(--brand); color: #fff; border: 0; border-radius: 8px; cursor: pointer; }
  button:hover { background: var(--brand-2); } button:focus-visible { outline: 3px solid #9cc3ad; outline-offset: 2px; }
  .hold { font-size: .88rem; color: var(--muted); margin: 12px 0 0; text-align: center; }
  .note { font-size: .85rem; color: var(--muted); background: #f7f7f4; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; margin: 18px 0 0; }
  .note code { font-size: .85rem; color: var(--ink); }
  .error { color: #8c1d18; background: #fdecea; border: 1px solid #f1b9b4; border-radius: 8px; padding: 10px 12px; font-weight: 600; margin: 0 0 8px; }
  .ok { color: #175; }
  .orders { padding-left: 20px; } .orders li { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; margin: 4px 0; }
  footer { max-width: 1040px; margin: 0 auto 32px; padding: 0 20px; color: var(--muted); font-size: .8rem; }
  .vh { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

function layout(title: string, body: string, mainClass = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>
<header class="top"><div><span class="brand">Portage</span><span class="crumb">Checkout</span><span class="badge">Sandbox: no real money moves</span></div></header>
<main${mainClass ? ` class="${mainClass}"` : ''}>${body}</main>
<footer>Payments in this environment are simulated by the Portage sandbox. Amounts are in Canadian dollars.</footer>
</body></html>`;
}

export interface PageSession {
  id: string;
  status: string;
  parcels: StoredParcel[];
  subtotalCents: number;
  discountCents: number;
  shippingCostCents: number;
  taxLines: Array<{ name: string; ratePercent: number; amountCents: number }>;
  taxAmountCents: number;
  totalCents: number;
  expiresAt: Date;
  /** Where the parcels go (only the city and province are shown: the page is reachable by its link). */
  address?: StoredAddress;
}

const row = (label: string, amount: string, attrs = '') =>
  `<tr${attrs}><th scope="row">${label}</th><td class="amount">${amount}</td></tr>`;

function summary(s: PageSession): string {
  const parcels = s.parcels
    .map((p, i) => {
      const items = p.items
        .map((item) => {
          const each =
            item.quantity > 1 ? `<span class="each">${dollars(item.unitPriceCents)} each</span>` : '';
          return row(
            `${escapeHtml(item.name)} × ${item.quantity}${each}`,
            dollars(item.unitPriceCents * item.quantity),
          );
        })
        .join('');
      const caption =
        s.parcels.length > 1
          ? `Parcel ${i + 1} of ${s.parcels.length}: ships from ${escapeHtml(p.originProvince)}`
          : `Ships from ${escapeHtml(p.originProvince)}`;
      return `<table class="parcel"><caption>${caption}</caption>${items}${row('Shipping', dollars(p.shippingCostCents))}</table>`;
    })
    .join('');
  const taxes = s.taxLines
    .filter((t) => t.amountCents > 0 || s.taxAmountCents === 0)
    .map((t) => row(`${escapeHtml(t.name)} ${t.ratePercent}%`, dollars(t.amountCents)))
    .join('');
  const shipTo = s.address
    ? `<p class="due">Shipping to ${escapeHtml(s.address.city)}, ${escapeHtml(s.address.province)}</p>`
    : '';
  return `<section class="summary" aria-labelledby="summary-title"><h2 id="summary-title">Order summary</h2>${shipTo}${parcels}
    <table class="totals"><caption class="vh">Totals</caption>
    ${row('Subtotal', dollars(s.subtotalCents))}
    ${s.discountCents ? row('Discount', `-${dollars(s.discountCents)}`, ' class="discount"') : ''}
    ${row('Shipping', dollars(s.shippingCostCents))}
    ${taxes}
    <tr class="total"><th scope="row">Total (CAD)</th><td class="amount" data-testid="total">${dollars(s.totalCents)}</td></tr>
  </table></section>`;
}

/** HH:MM UTC of a moment, for "reserved until". */
const clock = (d: Date) => `${d.toISOString().slice(11, 16)} UTC`;

export function paymentPage(s: PageSession, error?: string): string {
  const action = `/sandbox/checkout/${encodeURIComponent(s.id)}/pay`;
  const describedBy = error ? 'card-error test-cards' : 'test-cards';
  return layout(
    'Pay for your Portage order',
    `<section class="pay" aria-labelledby="pay-title"><h1 id="pay-title">Payment</h1>
      <p class="due">Amount due: <strong>${dollars(s.totalCents)}</strong> CAD</p>
      ${error ? `<p class="error" role="alert" id="card-error">${escapeHtml(error)}</p>` : ''}
      <form method="post" action="${escapeHtml(action)}">
        <fieldset><legend>Card details</legend>
        <label for="card">Card number</label>
        <input id="card" name="card" inputmode="numeric" autocomplete="cc-number" required maxlength="23" placeholder="1234 1234 1234 1234" aria-describedby="${describedBy}"${error ? ' aria-invalid="true" autofocus' : ''}>
        <div class="row"><div><label for="expiry">Expiry (MM/YY)</label><input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="MM/YY"></div>
        <div><label for="cvc">Security code (CVC)</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123"></div></div>
        <label for="name">Name on card</label><input id="name" name="name" autocomplete="cc-name" maxlength="100">
        </fieldset>
        <button type="submit">Pay ${dollars(s.totalCents)}</button>
      </form>
      <p class="hold">Your items are reserved until <time datetime="${s.expiresAt.toISOString()}">${clock(s.expiresAt)}</time>.</p>
      <p class="note" id="test-cards">Sandbox test cards: <code>4242 4242 4242 4242</code> pays; <code>4000 0000 0000 0002</code> is declined; <code>4000 0027 6000 3184</code> asks you to confirm (3-D Secure) and pays. Any expiry and CVC. Apple Pay, Google Pay and Klarna are offered by the real provider.</p>
    </section>${summary(s)}`,
    'two',
  );
}

export function paidPage(s: PageSession, orderIds: string[]): string {
  return layout(
    'Payment received',
    `<section aria-labelledby="paid-title"><h1 id="paid-title" class="ok">Payment received: thank you!</h1>
      <p>You paid ${dollars(s.totalCents)}. Your order${orderIds.length > 1 ? 's are' : ' is'} confirmed:</p>
      <ul class="orders" aria-label="Your orders">${orderIds.map((id) => `<li data-testid="order-id">${escapeHtml(id)}</li>`).join('')}</ul>
      <p class="note">A confirmation email is on its way. You can close this page.</p></section>${summary(s)}`,
    'two',
  );
}

export function closedPage(message: string): string {
  return layout(
    'Checkout unavailable',
    `<section aria-labelledby="closed-title"><h1 id="closed-title">This checkout is closed</h1><p>${escapeHtml(message)}</p></section>`,
  );
}
