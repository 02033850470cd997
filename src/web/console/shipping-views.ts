// /console/shipping as markup: the seller's shipping profile as a form (where parcels leave
// from, handling days, carrier or flat rates, the Canada Post services, the amounts in dollars,
// the box), the rates that apply without a profile, and the button that removes it.
import { html } from 'ghtml';
import { PROVINCES } from '../../contract/common.ts';
import { formatMoney, type Locale, t } from '../../contract/i18n.ts';
import { CARRIER_SERVICES } from '../../contract/shipping.ts';
import {
  FREE_SHIPPING_FROM_CENTS,
  OTHER_PROVINCE_CENTS,
  PER_EXTRA_KG_CENTS,
  TO_TERRITORY_CENTS,
  WITHIN_PROVINCE_CENTS,
} from '../../modules/pricing/shipping.ts';
import type { View } from '../core.ts';
import {
  checkbox,
  csrfField,
  type FormError,
  field,
  formAlert,
  provinceName,
  selectField,
} from '../layout.ts';
import { BOX_FIELDS, type ShippingForm } from './shipping-form.ts';
import { consolePage, problemOf } from './views.ts';

/** The platform's flat rate, in words: what a seller without a profile charges. */
const platformRates = (l: Locale) =>
  t(l, 'web.console.shipping.platform', {
    within: formatMoney(l, WITHIN_PROVINCE_CENTS),
    other: formatMoney(l, OTHER_PROVINCE_CENTS),
    territories: formatMoney(l, TO_TERRITORY_CENTS),
    perKg: formatMoney(l, PER_EXTRA_KG_CENTS),
    freeFrom: formatMoney(l, FREE_SHIPPING_FROM_CENTS),
  });

/** A fieldset whose problem (a group of radios or checkboxes) is said under its legend. */
function group(o: { id: string; legend: string; hint?: string; problem: string; body: string }): string {
  const ids = [...(o.hint ? [`${o.id}-hint`] : []), ...(o.problem ? [`${o.id}-error`] : [])];
  return html`<fieldset id="${o.id}"!${ids.length ? html` aria-describedby="${ids.join(' ')}"` : ''}><legend>${o.legend}</legend>!${o.hint ? html`<p class="hint" id="${o.id}-hint">${o.hint}</p>` : ''}!${o.problem}!${o.body}</fieldset>`;
}

export function shippingView(
  v: View,
  o: { values: ShippingForm; hasProfile: boolean; error?: FormError; done?: string },
) {
  const l = v.p.locale;
  const f = o.values;
  const error = o.error;
  const money = { attrs: ' inputmode="decimal" maxlength="20" autocomplete="off"' };
  const rates = (['carrier', 'flat'] as const).map(
    (r) =>
      html`<label class="check" for="f-rates-${r}"><input id="f-rates-${r}" type="radio" name="rates" value="${r}"!${f.rates === r ? ' checked' : ''}>${t(l, r === 'carrier' ? 'web.console.shipping.ratesCarrier' : 'web.console.shipping.ratesFlat')}</label>`,
  );
  const services = CARRIER_SERVICES.map((code) =>
    checkbox({
      name: 'services',
      value: code,
      label: t(l, 'shipping.service', { service: code.replace('.', '_') }),
      checked: f.services.includes(code),
    }),
  );
  const box = BOX_FIELDS.map((k) =>
    field({
      name: `parcel.${k}`,
      label: t(l, `web.console.shipping.${k}`),
      value: f.box[k],
      error,
      attrs: ' inputmode="decimal" maxlength="10" autocomplete="off"',
    }),
  );
  const remove = o.hasProfile
    ? html`<form method="post" action="/console/shipping/remove" class="card">!${csrfField(v)}<p>${platformRates(l)}</p><button type="submit" class="danger">${t(l, 'web.console.shipping.remove')}</button></form>`
    : '';
  const without = o.hasProfile
    ? ''
    : html`<div class="card"><p><strong>${t(l, 'web.console.shipping.noProfile')}</strong></p><p>${platformRates(l)}</p></div>`;
  return consolePage(
    v,
    t(l, 'web.console.shipping.title'),
    html`!${without}<form method="post" action="/console/shipping" class="card profile-form" novalidate>!${csrfField(v)}!${formAlert(error)}
!${group({
      id: 'from',
      legend: t(l, 'web.console.shipping.from'),
      problem: '',
      body: html`<div class="row">!${field({ name: 'originPostalCode', label: t(l, 'web.console.shipping.originPostalCode'), value: f.originPostalCode, hint: t(l, 'web.checkout.postalHint'), error, autocomplete: 'postal-code', attrs: ' maxlength="10"' })}!${selectField({ name: 'originProvince', label: t(l, 'web.checkout.province'), value: f.originProvince, error, options: [{ value: '', label: t(l, 'web.checkout.chooseProvince') }, ...PROVINCES.map((p) => ({ value: p, label: provinceName(l, p) }))] })}</div>
!${field({ name: 'handlingDays', label: t(l, 'web.console.shipping.handlingDays'), type: 'number', value: f.handlingDays, hint: t(l, 'web.console.shipping.handlingHint'), error, attrs: ' min="0" max="10" inputmode="numeric"' })}`,
    })}
!${group({ id: 'rates', legend: t(l, 'web.console.shipping.rates'), problem: problemOf(error, 'rates', 'rates'), body: rates.join('') })}
!${group({ id: 'services', legend: t(l, 'web.console.shipping.services'), hint: t(l, 'web.console.shipping.servicesHint'), problem: problemOf(error, 'services', 'services'), body: services.join('') })}
<div class="row">!${field({ name: 'flat', problemField: 'flatCents', label: t(l, 'web.console.shipping.flat'), value: f.flat, hint: t(l, 'web.console.shipping.flatHint'), error, ...money })}!${field({ name: 'freeOver', problemField: 'freeOverCents', label: t(l, 'web.console.shipping.freeOver'), value: f.freeOver, hint: t(l, 'web.console.shipping.freeOverHint'), error, ...money })}</div>
!${group({ id: 'box', legend: t(l, 'web.console.shipping.box'), hint: t(l, 'web.console.shipping.boxHint'), problem: problemOf(error, 'parcel', 'box'), body: html`<div class="row box-row">!${box}</div>` })}
<button type="submit">${t(l, 'web.settings.save')}</button></form>
!${remove}`,
    o.done,
  );
}
