// The shop's discounts in the console (/console/discounts): its automatic discount's form, and
// its coupons (the form the desk's coupons use, coupon-form.ts, and the list with their uses).
import { html } from 'ghtml';
import type { z } from 'zod';
import type { coupon, shopDiscount } from '../../contract/cart.ts';
import { formatMoney, formatNumber, t } from '../../contract/i18n.ts';
import type { View } from '../core.ts';
import { couponDiscountText, couponFields } from '../coupon-form.ts';
import type { Form } from '../desk/form.ts';
import { csrfField, dateText, type FormError, field, formAlert } from '../layout.ts';
import { consolePage, table, th } from './views.ts';

/** The automatic discount's form as typed: percent, minimum in dollars, first and last days. */
export interface AutomaticForm {
  percent: string;
  minSubtotal: string;
  startsOn: string;
  endsOn: string;
}

export function discountsView(
  v: View,
  o: {
    discount: z.infer<typeof shopDiscount> | null;
    coupons: readonly z.infer<typeof coupon>[];
    automatic?: AutomaticForm;
    automaticError?: FormError;
    couponForm?: Form;
    couponError?: FormError;
    done?: string;
  },
) {
  const l = v.p.locale;
  const d = o.discount;
  const a: AutomaticForm = o.automatic ?? {
    percent: d ? String(d.percent) : '',
    minSubtotal: d ? (d.minSubtotalCents / 100).toFixed(2) : '',
    startsOn: d?.startsOn ?? '',
    endsOn: d?.endsOn ?? '',
  };
  const e = o.automaticError;
  const now = d
    ? t(l, 'web.console.discounts.current', {
        percent: formatNumber(l, d.percent),
        amount: formatMoney(l, d.minSubtotalCents),
      })
    : t(l, 'web.console.discounts.noneYet');
  const days =
    d && (d.startsOn || d.endsOn)
      ? html`<p>${t(l, 'web.console.discounts.days', {
          from: d.startsOn ? dateText(v, d.startsOn) : t(l, 'web.console.discounts.now'),
          to: d.endsOn ? dateText(v, d.endsOn) : t(l, 'web.console.discounts.noEnd'),
        })}</p>`
      : '';
  const automatic = html`<section class="card" aria-labelledby="automatic"><h2 id="automatic">${t(l, 'web.console.discounts.automatic')}</h2>
<p>${now}</p>!${days}<p class="hint">${t(l, 'web.console.discounts.automaticHint')}</p>
<form method="post" action="/console/discounts/automatic" novalidate>!${csrfField(v)}!${formAlert(e)}<div class="row">
!${field({ name: 'percent', label: t(l, 'web.console.discounts.percent'), type: 'number', value: a.percent, required: true, error: e, attrs: ' min="1" max="90" step="1" inputmode="numeric"' })}
!${field({ name: 'minSubtotal', label: t(l, 'web.console.discounts.minimum'), type: 'number', value: a.minSubtotal, required: true, error: e, problemField: 'minSubtotalCents', attrs: ' min="0" step="0.01" inputmode="decimal"' })}</div>
<div class="row">!${field({ name: 'startsOn', label: t(l, 'web.console.discounts.startsOn'), type: 'date', value: a.startsOn, error: e })}
!${field({ name: 'endsOn', label: t(l, 'web.console.discounts.endsOn'), type: 'date', value: a.endsOn, error: e })}</div>
<button type="submit">${t(l, 'web.console.discounts.save')}</button></form>
!${d ? html`<form method="post" action="/console/discounts/automatic/remove">!${csrfField(v)}<button type="submit" class="secondary">${t(l, 'web.console.discounts.remove')}</button></form>` : ''}</section>`;

  const ce = o.couponError;
  const create = html`<form method="post" action="/console/discounts/coupons" class="card" novalidate>!${csrfField(v)}<h2>${t(l, 'web.console.discounts.newCoupon')}</h2><p class="hint">${t(l, 'web.console.discounts.couponHint')}</p>!${formAlert(ce)}
!${couponFields(l, o.couponForm, ce)}
<button type="submit">${t(l, 'web.desk.coupons.submit')}</button></form>`;
  const cell = (label: string, value: string, num = false) =>
    html`<td data-label="${label}"!${num ? html` class="num"` : ''}>!${value}</td>`;
  const heads = {
    code: t(l, 'web.desk.coupons.code'),
    discount: t(l, 'web.desk.coupons.discount'),
    minimum: t(l, 'web.desk.coupons.minimum'),
    expires: t(l, 'web.desk.coupons.expiresShort'),
    used: t(l, 'web.desk.coupons.redemptions'),
  };
  const rows = o.coupons.map(
    (c) =>
      html`<tr>!${cell(heads.code, html`${c.code}`)}!${cell(heads.discount, html`${couponDiscountText(l, c)}`)}!${cell(heads.minimum, html`${formatMoney(l, c.minSubtotalCents)}`, true)}!${cell(heads.expires, html`${c.expirationDate ? dateText(v, c.expirationDate) : t(l, 'web.desk.coupons.noEnd')}`)}!${cell(heads.used, html`${formatNumber(l, c.redemptions)}`, true)}</tr>`,
  );
  const list = o.coupons.length
    ? html`<h2>${t(l, 'web.console.discounts.coupons')}</h2>!${table(
        [
          th(heads.code),
          th(heads.discount),
          th(heads.minimum, true),
          th(heads.expires),
          th(heads.used, true),
        ],
        rows,
        t(l, 'web.console.discounts.coupons'),
        true,
      )}`
    : '';
  return consolePage(
    v,
    t(l, 'web.console.discounts.title'),
    html`<p class="hint">${t(l, 'web.cart.discountRule')}</p>!${automatic}!${create}!${list}`,
    o.done,
  );
}
