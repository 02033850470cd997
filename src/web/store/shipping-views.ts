// The checkout's shipping step as markup: each shop's parcel with its items and its ways to ship
// as a radio group (the cheapest first, the one chosen checked), the totals, and "Continue to
// payment"; or, for a checkout that ended, why and where to go. Pure: data in, HTML out.
import { html } from 'ghtml';
import type { z } from 'zod';
import type { checkoutSession, shippingOption } from '../../contract/checkout.ts';
import { t } from '../../contract/i18n.ts';
import { amountRows } from '../../views/fragments.ts';
import { addressBlock, type ShownAddress } from '../addresses/views.ts';
import type { View } from '../core.ts';
import { csrfField, dateText, type FormError, formAlert, moneyText, page } from '../layout.ts';

type Session = z.infer<typeof checkoutSession>;
type Parcel = Session['parcels'][number];
type Option = z.infer<typeof shippingOption>;

/** The page of a checkout's shipping step. */
export const shippingPath = (sessionId: string) => `/shop/checkout/${encodeURIComponent(sessionId)}/shipping`;

/** The form's field of a seller's choice (`choice.<sellerId>`). */
export const choiceField = (sellerId: string) => `choice.${sellerId}`;

/** A parcel's options as offered: the cheapest first, at the same price the sooner. */
export const offered = (p: Parcel): Option[] =>
  [...p.shippingOptions].sort(
    (a, b) => a.priceCents - b.priceCents || a.deliveryDate.localeCompare(b.deliveryDate),
  );

/** Whether the buyer has a choice to make: some parcel ships more than one way. */
export const hasChoice = (s: Pick<Session, 'parcels'>) => s.parcels.some((p) => p.shippingOptions.length > 1);

export interface ShippingPageData {
  session: Session;
  address: ShownAddress;
  /** Each seller's shop name. */
  shops: ReadonlyMap<string, string>;
  /** The option checked per seller (as posted, after a refusal); else the session's. */
  chosen?: Readonly<Record<string, string>>;
  error?: FormError;
}

/** An option's words: its service, its price (or "Free"), its expected date. */
function optionText(v: View, o: Option): string {
  const l = v.p.locale;
  const price = o.priceCents === 0 ? t(l, 'web.shipping.free') : moneyText(v, o.priceCents);
  return html`<span class="ship-name">${o.name}</span> <span class="ship-price">${price}</span> <span class="ship-date">${t(l, 'web.shipping.expected', { date: dateText(v, o.deliveryDate) })}</span>`;
}

function parcelSection(v: View, d: ShippingPageData, p: Parcel, n: number): string {
  const l = v.p.locale;
  const shop = d.shops.get(p.sellerId) ?? p.sellerId;
  const headingId = `parcel-${n}-h`;
  const items = p.items.map(
    (i) =>
      html`<li><span>${i.name} × ${i.quantity}</span> <span class="num">${moneyText(v, i.unitPriceCents * i.quantity)}</span></li>`,
  );
  const options = offered(p);
  const name = choiceField(p.sellerId);
  const problem = d.error?.fields[name];
  const errorId = `parcel-${n}-error`;
  const checkedId = d.chosen?.[p.sellerId] ?? p.shippingOption?.id ?? options[0]?.id;
  const ways =
    options.length > 1
      ? html`<fieldset class="ship-options"!${problem ? html` aria-describedby="${errorId}"` : ''}><legend>${t(l, 'web.shipping.options')}<span class="visually-hidden"> (${shop})</span></legend>!${problem ? html`<p class="field-error" id="${errorId}">${problem}</p>` : ''}!${options.map(
          (o, k) => {
            const id = `parcel-${n}-option-${k}`;
            return html`<label class="ship-option" for="${id}"><input id="${id}" type="radio" name="${name}" value="${o.id}"!${o.id === checkedId ? ' checked' : ''}!${problem ? ' aria-invalid="true"' : ''}><span class="ship-words">!${optionText(v, o)}</span></label>`;
          },
        )}</fieldset>`
      : options[0]
        ? html`<p class="hint">${t(l, 'web.shipping.onlyOption')}</p><p class="ship-option"><span class="ship-words">!${optionText(v, options[0])}</span></p>`
        : '';
  return html`<section class="card parcel" aria-labelledby="${headingId}"><h2 id="${headingId}">${t(l, 'web.shipping.parcel', { shop })}</h2>
<ul class="parcel-items" aria-label="${t(l, 'web.shipping.items')}">!${items}</ul>!${ways}</section>`;
}

export function shippingPage(v: View, d: ShippingPageData): string {
  const l = v.p.locale;
  const title = t(l, 'web.shipping.title');
  const s = d.session;
  const totals = amountRows(l, {
    subtotalCents: s.subtotalCents,
    discountCents: s.discountCents,
    shippingCostCents: s.shippingCostCents,
    taxLines: s.taxLines,
    totalCents: s.totalCents,
  });
  return page(v, {
    title,
    narrow: true,
    body: html`<h1>${title}</h1>
<div class="card"><h2 class="first">${t(l, 'web.shipping.to')}</h2>!${addressBlock(l, d.address)}<p><a href="/shop/checkout">${t(l, 'web.shipping.changeAddress')}</a></p></div>
<form method="post" action="${shippingPath(s.sessionId)}" novalidate>!${csrfField(v)}!${formAlert(d.error)}
<p>${t(l, 'web.shipping.intro')}</p>
!${s.parcels.map((p, n) => parcelSection(v, d, p, n))}
<section class="card" aria-labelledby="totals-h"><h2 id="totals-h" class="first">${t(l, 'web.shipping.totals')}</h2><div class="totals">!${totals}</div>
<p class="hint">${t(l, 'web.shipping.totalsNote')}</p>
<button type="submit">${t(l, 'web.checkout.pay')}</button></section></form>
<p><a href="/shop/cart">${t(l, 'web.checkout.backToCart')}</a></p>`,
  });
}

/** A checkout that ended (paid, or expired), said plainly, with the way back to the cart. */
export function shippingEndedPage(v: View, how: 'expired' | 'paid'): string {
  const l = v.p.locale;
  const title = t(l, 'web.checkout.title');
  const orders =
    how === 'paid' ? html`<p><a href="/account/orders">${t(l, 'web.shipping.orders')}</a></p>` : '';
  return page(v, {
    title,
    narrow: true,
    body: html`<h1>${title}</h1><div class="card"><p class="alert" role="alert">${t(l, how === 'paid' ? 'web.shipping.paid' : 'web.shipping.expired')}</p>!${orders}<p><a class="button" href="/shop/cart">${t(l, 'web.checkout.backToCart')}</a></p></div>`,
  });
}
