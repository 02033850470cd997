// The sandbox's payment page: plain HTML and CSS (no script: its CSP forbids any), the order
// summary with each parcel, shipping and every tax line, a card form that posts form fields,
// and the answer pages after paying, in the small-page frame's document (src/views), written
// with html`...`. Every seller-written text is escaped; every word is the catalogues' (`page.sandbox.*`) in the page's language, money and times as that language
// writes them. Tested in headless Chromium as a person uses it (test/sandbox-page.browser.test.ts,
// test/i18n-pages.browser.test.ts).
import type { FastifyRequest } from 'fastify';
import { html } from 'ghtml';
import { formatCents } from '../../contract/format.ts';
import { BOOKS_TIME_ZONE, formatMoney, type Locale, t, taxLineLabel } from '../../contract/i18n.ts';
import { langField, languageSwitch, type PageLang } from '../../views/language.ts';
import { smallDocument } from '../../views/small-page.ts';
import { words, wordsWith } from '../../views/words.ts';
import { findUser } from '../auth/users.ts';
import type { StoredAddress, StoredParcel } from '../checkout/tables.ts';
import { pageLang } from '../page-layout.ts';
import { SANDBOX_CARDS } from './providers/sandbox.ts';

export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Integer cents as dollars in English (the tests' money format of the en-CA page). */
export const dollars = formatCents;

const STYLE = `
  :root { --brand: #1d3b2a; --brand-2: #2f5d43; --ink: #1f2328; --muted: #5b6470; --line: #e3e1da; --bg: #f6f4ef; }
  * { box-sizing: border-box; }
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--ink); margin: 0; line-height: 1.45; }
  .top { background: var(--brand); color: #fff; }
  .top div { max-width: 1040px; margin: 0 auto; padding: 14px 20px; display: flex; flex-wrap: wrap; align-items: center; gap: 6px 14px; }
  .brand { font-weight: 700; font-size: 1.15rem; letter-spacing: .02em; }
  .crumb { opacity: .85; font-size: .92rem; }
  .top nav { margin-left: auto; font-size: .88rem; } .top nav a { color: #fff; }
  .badge { background: #f4c542; color: #3a2c00; font-size: .78rem; font-weight: 600; padding: 3px 10px; border-radius: 999px; }
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

/** The page's own address: where the language switch and the answers after a POST point. */
export const sandboxPagePath = (sessionId: string) => `/sandbox/checkout/${encodeURIComponent(sessionId)}`;

/**
 * The language of a checkout's page: `?lang=` (or the form's `lang`), else the buyer's saved
 * preference, else the request's (Accept-Language).
 */
export async function sandboxPageLang(
  req: FastifyRequest,
  session: { id: string; buyerId: string } | undefined,
  sessionId: string,
): Promise<PageLang> {
  const buyer = session ? await findUser(req.ctx, session.buyerId) : undefined;
  return pageLang(req, { known: buyer?.locale, here: sandboxPagePath(sessionId) });
}

function layout(p: PageLang, title: string, body: string, mainClass = ''): string {
  const l = p.locale;
  return smallDocument(
    p,
    title,
    html`<style>!${STYLE}</style>`,
    html`<header class="top"><div><span class="brand">Portage</span><span class="crumb">${words(l, 'page.sandbox.crumb')}</span><span class="badge">${words(l, 'page.sandbox.badge')}</span>!${languageSwitch(p)}</div></header>
<main!${mainClass ? html` class="${mainClass}"` : ''}>!${body}</main>
<footer>${words(l, 'page.sandbox.footer')}</footer>`,
  );
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

/** A row of amounts: its label a fragment of html`...`, its amount text; `attrs` as html`...` wrote them. */
const row = (label: string, amount: string, attrs = '') =>
  html`<tr!${attrs}><th scope="row">!${label}</th><td class="amount">${amount}</td></tr>`;

function summary(l: Locale, s: PageSession): string {
  const money = (cents: number) => formatMoney(l, cents);
  const parcels = s.parcels
    .map((p, i) => {
      const items = p.items
        .map((item) => {
          const each =
            item.quantity > 1
              ? html`<span class="each">${words(l, 'page.sandbox.each', { price: formatMoney(l, item.unitPriceCents) })}</span>`
              : '';
          return row(
            html`${words(l, 'page.sandbox.item', { name: item.name, quantity: item.quantity })}!${each}`,
            money(item.unitPriceCents * item.quantity),
          );
        })
        .join('');
      const caption =
        s.parcels.length > 1
          ? words(l, 'page.sandbox.parcelOf', {
              n: i + 1,
              count: s.parcels.length,
              province: p.originProvince,
            })
          : words(l, 'page.sandbox.shipsFrom', { province: p.originProvince });
      return html`<table class="parcel"><caption>${caption}</caption>!${items}!${row(html`${words(l, 'page.sandbox.shipping')}`, money(p.shippingCostCents))}</table>`;
    })
    .join('');
  const taxes = s.taxLines
    .filter((x) => x.amountCents > 0 || s.taxAmountCents === 0)
    .map((x) => row(html`${taxLineLabel(l, x.name, x.ratePercent)}`, money(x.amountCents)))
    .join('');
  const shipTo = s.address
    ? html`<p class="due">${words(l, 'page.sandbox.shippingTo', { city: s.address.city, province: s.address.province })}</p>`
    : '';
  const label = (key: 'page.sandbox.subtotal' | 'page.sandbox.discount' | 'page.sandbox.shipping') =>
    html`${words(l, key)}`;
  return html`<section class="summary" aria-labelledby="summary-title"><h2 id="summary-title">${words(l, 'page.sandbox.summary')}</h2>!${shipTo}!${parcels}
    <table class="totals"><caption class="vh">${words(l, 'page.sandbox.totals')}</caption>
    !${row(label('page.sandbox.subtotal'), money(s.subtotalCents))}
    !${s.discountCents ? row(label('page.sandbox.discount'), money(-s.discountCents), ' class="discount"') : ''}
    !${row(label('page.sandbox.shipping'), money(s.shippingCostCents))}
    !${taxes}
    <tr class="total"><th scope="row">${words(l, 'page.sandbox.total')}</th><td class="amount" data-testid="total">${money(s.totalCents)}</td></tr>
  </table></section>`;
}

/** Each province's clock (the most populous zone where a province has several). */
const PROVINCE_ZONES: Record<string, string> = {
  BC: 'America/Vancouver',
  AB: 'America/Edmonton',
  SK: 'America/Regina',
  MB: 'America/Winnipeg',
  ON: 'America/Toronto',
  QC: 'America/Toronto',
  NB: 'America/Halifax',
  NS: 'America/Halifax',
  PE: 'America/Halifax',
  NL: 'America/St_Johns',
  YT: 'America/Whitehorse',
  NT: 'America/Yellowknife',
  NU: 'America/Iqaluit',
};

/** Formats of a time of day by locale and zone: two locales, the zones above. */
const hourMinute = new Map<string, Intl.DateTimeFormat>();

/**
 * The time of a moment on the buyer's clock (the province it ships to; Eastern without one), as
 * "23:06 EST" or "23 h 06 HNE", for "reserved until".
 */
function clock(l: Locale, d: Date, province: string | undefined): string {
  const timeZone = PROVINCE_ZONES[province ?? ''] ?? BOOKS_TIME_ZONE;
  const id = `${l} ${timeZone}`;
  let format = hourMinute.get(id);
  if (!format) {
    format = new Intl.DateTimeFormat(l, {
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZone,
      timeZoneName: 'short',
    });
    hourMinute.set(id, format);
  }
  return format.format(d);
}

/** A test card as people write it: 4242 4242 4242 4242. */
const card = (digits: string) => html`<code>${digits.replace(/(\d{4})(?=\d)/g, '$1 ')}</code>`;

/** The payment form; `error` is the refusal already in the page's language. */
export function paymentPage(p: PageLang, s: PageSession, error?: string): string {
  const l = p.locale;
  const action = `${sandboxPagePath(s.id)}/pay`;
  const describedBy = error ? 'card-error test-cards' : 'test-cards';
  const total = formatMoney(l, s.totalCents);
  const time = html`<time datetime="${s.expiresAt.toISOString()}">${clock(l, s.expiresAt, s.address?.province)}</time>`;
  return layout(
    p,
    t(l, 'page.pay.title'),
    html`<section class="pay" aria-labelledby="pay-title"><h1 id="pay-title">${words(l, 'page.sandbox.payment')}</h1>
      <p class="due">!${wordsWith(l, 'page.sandbox.amountDue', {}, { amount: html`<strong>${total}</strong>` })}</p>
      !${error ? html`<p class="error" role="alert" id="card-error">${error}</p>` : ''}
      <form method="post" action="${action}">!${langField(p)}
        <fieldset><legend>${words(l, 'page.sandbox.cardDetails')}</legend>
        <label for="card">${words(l, 'page.sandbox.cardNumber')}</label>
        <input id="card" name="card" inputmode="numeric" autocomplete="cc-number" required maxlength="23" placeholder="1234 1234 1234 1234" aria-describedby="${describedBy}"!${error ? ' aria-invalid="true" autofocus' : ''}>
        <div class="row"><div><label for="expiry">${words(l, 'page.sandbox.expiry')}</label><input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="${words(l, 'page.sandbox.expiryPlaceholder')}"></div>
        <div><label for="cvc">${words(l, 'page.sandbox.cvc')}</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123"></div></div>
        <label for="name">${words(l, 'page.sandbox.nameOnCard')}</label><input id="name" name="name" autocomplete="cc-name" maxlength="100">
        </fieldset>
        <button type="submit">${words(l, 'page.sandbox.pay', { amount: formatMoney(l, s.totalCents) })}</button>
      </form>
      <p class="hold">!${wordsWith(l, 'page.sandbox.reservedUntil', {}, { time })}</p>
      <p class="note" id="test-cards">!${wordsWith(
        l,
        'page.sandbox.testCards',
        {},
        {
          pays: card(SANDBOX_CARDS.pays),
          declined: card(SANDBOX_CARDS.declined),
          confirms: card(SANDBOX_CARDS.authenticates),
        },
      )}</p>
    </section>!${summary(l, s)}`,
    'two',
  );
}

export function paidPage(
  p: PageLang,
  s: PageSession,
  paidOrders: Array<{ id: string; number: string }>,
): string {
  const l = p.locale;
  return layout(
    p,
    t(l, 'page.sandbox.paidTitle'),
    html`<section aria-labelledby="paid-title"><h1 id="paid-title" class="ok">${words(l, 'page.sandbox.paidHeading')}</h1>
      <p>${words(l, 'page.sandbox.paidOrders', { amount: formatMoney(l, s.totalCents), count: paidOrders.length })}</p>
      <ul class="orders" aria-label="${words(l, 'page.sandbox.yourOrders')}">!${paidOrders.map((o) => html`<li data-testid="order-id" data-order-id="${o.id}"><a href="/account/orders/${encodeURIComponent(o.id)}">${o.number}</a></li>`)}</ul>
      <p class="note">${words(l, 'page.sandbox.paidNote')}</p></section>!${summary(l, s)}`,
    'two',
  );
}

/** The page of a checkout that cannot be paid; `message` is already in the page's language. */
export function closedPage(p: PageLang, message: string): string {
  const l = p.locale;
  return layout(
    p,
    t(l, 'page.sandbox.closedTitle'),
    html`<section aria-labelledby="closed-title"><h1 id="closed-title">${words(l, 'page.sandbox.closedHeading')}</h1><p>${message}</p></section>`,
  );
}
