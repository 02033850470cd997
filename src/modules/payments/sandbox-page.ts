// The sandbox's payment page: a plain HTML form (no script), the order summary with its tax
// lines and shipping, and the answer pages after paying. Every seller-written text is escaped.
import type { StoredParcel } from '../checkout/tables.ts';

export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Integer cents as dollars, e.g. 123456 -> $1,234.56 (integer math only). */
export function dollars(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}$${whole}.${String(abs % 100).padStart(2, '0')}`;
}

const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f6f4ef; color: #222; margin: 0; }
  header { background: #1d3b2a; color: #fff; padding: 14px 24px; font-weight: 600; }
  header small { font-weight: 400; opacity: .8; margin-left: 8px; }
  main { max-width: 760px; margin: 24px auto; display: grid; gap: 20px; padding: 0 16px; }
  section { background: #fff; border-radius: 8px; padding: 18px 22px; box-shadow: 0 1px 3px #0002; }
  h1 { font-size: 1.3rem; margin: 0 0 12px; } h2 { font-size: 1rem; margin: 14px 0 6px; }
  table { width: 100%; border-collapse: collapse; } td { padding: 4px 0; }
  td.amount { text-align: right; white-space: nowrap; } tr.total td { font-weight: 700; border-top: 1px solid #ccc; }
  label { display: block; margin: 10px 0 4px; font-size: .9rem; }
  input { width: 100%; box-sizing: border-box; padding: 9px; font-size: 1rem; border: 1px solid #bbb; border-radius: 6px; }
  .row { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
  button { margin-top: 16px; width: 100%; padding: 12px; font-size: 1rem; background: #1d3b2a; color: #fff; border: 0; border-radius: 6px; cursor: pointer; }
  .note { font-size: .85rem; color: #555; } .error { color: #a11; font-weight: 600; } .ok { color: #175; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><header>Portage <small>sandbox payments: no real money moves</small></header><main>${body}</main></body></html>`;
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
}

function summary(s: PageSession): string {
  const parcels = s.parcels
    .map((p, i) => {
      const items = p.items
        .map(
          (item) =>
            `<tr><td>${escapeHtml(item.name)} × ${item.quantity}</td><td class="amount">${dollars(item.unitPriceCents * item.quantity)}</td></tr>`,
        )
        .join('');
      return `<h2>Parcel ${i + 1} of ${s.parcels.length}</h2><table>${items}<tr><td>Shipping</td><td class="amount">${dollars(p.shippingCostCents)}</td></tr></table>`;
    })
    .join('');
  const taxes = s.taxLines
    .filter((t) => t.amountCents > 0 || s.taxAmountCents === 0)
    .map(
      (t) =>
        `<tr><td>${escapeHtml(t.name)} ${t.ratePercent}%</td><td class="amount">${dollars(t.amountCents)}</td></tr>`,
    )
    .join('');
  return `<section aria-label="Order summary"><h1>Order summary</h1>${parcels}<h2>Totals</h2><table>
    <tr><td>Items</td><td class="amount">${dollars(s.subtotalCents)}</td></tr>
    ${s.discountCents ? `<tr><td>Discount</td><td class="amount">-${dollars(s.discountCents)}</td></tr>` : ''}
    <tr><td>Shipping</td><td class="amount">${dollars(s.shippingCostCents)}</td></tr>
    ${taxes}
    <tr class="total"><td>Total (CAD)</td><td class="amount" data-testid="total">${dollars(s.totalCents)}</td></tr>
  </table></section>`;
}

export function paymentPage(s: PageSession, error?: string): string {
  const action = `/sandbox/checkout/${encodeURIComponent(s.id)}/pay`;
  return layout(
    'Pay for your Portage order',
    `${summary(s)}<section aria-label="Payment"><h1>Pay ${dollars(s.totalCents)}</h1>
      ${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
      <form method="post" action="${escapeHtml(action)}">
        <label for="card">Card number</label>
        <input id="card" name="card" inputmode="numeric" autocomplete="cc-number" required maxlength="23" placeholder="4242 4242 4242 4242">
        <div class="row"><div><label for="expiry">Expiry (MM/YY)</label><input id="expiry" name="expiry" autocomplete="cc-exp" maxlength="7" placeholder="12/30"></div>
        <div><label for="cvc">CVC</label><input id="cvc" name="cvc" autocomplete="cc-csc" maxlength="4" placeholder="123"></div></div>
        <label for="name">Name on card</label><input id="name" name="name" autocomplete="cc-name" maxlength="100">
        <button type="submit">Pay ${dollars(s.totalCents)}</button>
      </form>
      <p class="note">Test cards: 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined. Other payment methods (Apple Pay, Google Pay, Klarna) are offered by the real provider.</p>
    </section>`,
  );
}

export function paidPage(s: PageSession, orderIds: string[]): string {
  return layout(
    'Payment received',
    `<section aria-label="Confirmation"><h1 class="ok">Payment received: thank you!</h1>
      <p>You paid ${dollars(s.totalCents)}. Your order${orderIds.length > 1 ? 's are' : ' is'} confirmed:</p>
      <ul>${orderIds.map((id) => `<li data-testid="order-id">${escapeHtml(id)}</li>`).join('')}</ul>
      <p class="note">A confirmation email is on its way. You can close this page.</p></section>${summary(s)}`,
  );
}

export function closedPage(message: string): string {
  return layout(
    'Checkout unavailable',
    `<section><h1>This checkout is closed</h1><p>${escapeHtml(message)}</p></section>`,
  );
}
