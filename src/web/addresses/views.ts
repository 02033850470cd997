// An address as the pages show it to a person (the checkout's saved addresses, the account's
// address book, the seller's order page), the fields of an address form, and the address book.
// Markup only: each function takes values and draws them.
import { html } from 'ghtml';
import { phoneText } from '../../contract/address-input.ts';
import { PROVINCES } from '../../contract/common.ts';
import { type Locale, t } from '../../contract/i18n.ts';
import type { View } from '../core.ts';
import {
  actionButton,
  checkbox,
  csrfField,
  type FormError,
  field,
  formAlert,
  notice,
  page,
  provinceName,
  selectField,
} from '../layout.ts';
import type { AddressForm } from './form.ts';

export interface ShownAddress {
  recipientName?: string | null;
  street: string;
  line2?: string | null;
  city: string;
  province: string;
  postalCode: string;
  phone?: string | null;
}

/** Lines as on an envelope, and the phone (a `tel:` link) under them. */
export function addressBlock(l: Locale, a: ShownAddress): string {
  const lines = [
    a.recipientName ? html`<strong>${a.recipientName}</strong>` : '',
    html`${a.street}`,
    a.line2 ? html`${a.line2}` : '',
    html`${a.city} ${provinceName(l, a.province)} ${a.postalCode}`,
  ]
    .filter(Boolean)
    .map((line, i) => (i ? html`<br>!${line}` : line));
  const phone = a.phone
    ? html`<p>${t(l, 'web.addresses.phone', { phone: '' })}<a href="tel:${a.phone}">${phoneText(a.phone)}</a></p>`
    : '';
  return html`<address>!${lines}</address>!${phone}`;
}

/** The fields of an address form (the checkout's and the account's). */
export function addressFields(
  l: Locale,
  a: AddressForm,
  error: FormError | undefined,
  o: { recipientOptional?: boolean } = {},
): string {
  const f = (
    name: keyof AddressForm,
    x: { autocomplete: string; type?: string; hint?: string; required?: boolean; max: number },
  ) =>
    field({
      name,
      label: t(l, `web.checkout.${name}`),
      value: a[name] ?? '',
      required: x.required ?? true,
      error,
      problemField: name === 'recipientName' || name === 'line2' ? name : `shipping_address.${name}`,
      autocomplete: x.autocomplete,
      ...(x.type ? { type: x.type } : {}),
      ...(x.hint ? { hint: x.hint } : {}),
      attrs: html` maxlength="${x.max}"`,
    });
  const recipient = o.recipientOptional ? { required: false, hint: t(l, 'web.checkout.recipientHint') } : {};
  const province = selectField({
    name: 'province',
    label: t(l, 'web.checkout.province'),
    value: a.province ?? '',
    required: true,
    error,
    problemField: 'shipping_address.province',
    options: [
      { value: '', label: t(l, 'web.checkout.chooseProvince') },
      ...PROVINCES.map((p) => ({ value: p, label: provinceName(l, p) })),
    ],
    attrs: ' autocomplete="address-level1"',
  });
  return html`!${f('recipientName', { autocomplete: 'name', max: 100, ...recipient })}
!${f('street', { autocomplete: 'address-line1', max: 200 })}!${f('line2', { autocomplete: 'address-line2', required: false, max: 100 })}!${f('city', { autocomplete: 'address-level2', max: 100 })}
!${province}
!${f('postalCode', { autocomplete: 'postal-code', hint: t(l, 'web.checkout.postalHint'), max: 10 })}!${f('phone', { autocomplete: 'tel', type: 'tel', hint: t(l, 'web.checkout.phoneHint'), max: 25 })}`;
}

export interface SavedAddress extends ShownAddress {
  id: string;
  isDefault: boolean;
}

/** /account/addresses: the saved addresses, each with its buttons, then the form to add one (while under `max`). */
export function addressesView(
  v: View,
  o: {
    tabs: string;
    saved: readonly SavedAddress[];
    max: number;
    typed?: AddressForm;
    error?: FormError;
    done?: string;
  },
): string {
  const l = v.p.locale;
  const title = t(l, 'web.addresses.title');
  const card = (a: SavedAddress) => {
    const path = `/account/addresses/${encodeURIComponent(a.id)}`;
    const makeDefault = a.isDefault
      ? ''
      : actionButton(v, {
          action: `${path}/default`,
          label: t(l, 'web.addresses.makeDefault'),
          kind: 'secondary',
        });
    const remove = actionButton(v, {
      action: `${path}/delete`,
      label: t(l, 'web.addresses.delete'),
      kind: 'danger',
    });
    const badge = a.isDefault
      ? html`<p><span class="badge active">${t(l, 'web.addresses.default')}</span></p>`
      : '';
    return html`<li class="card">!${badge}!${addressBlock(l, a)}<p>!${makeDefault} !${remove}</p></li>`;
  };
  const list = o.saved.length
    ? html`<ul class="addresses">!${o.saved.map(card)}</ul>`
    : html`<div class="card"><p>${t(l, 'web.addresses.none')}</p></div>`;
  const form =
    o.saved.length < o.max
      ? html`<form method="post" action="/account/addresses" class="card" novalidate>!${csrfField(v)}!${formAlert(o.error)}
<h2>${t(l, 'web.addresses.add')}</h2>!${addressFields(l, o.typed ?? {}, o.error)}
!${checkbox({ name: 'default', label: t(l, 'web.addresses.makeDefault'), checked: false })}
<button type="submit">${t(l, 'web.addresses.save')}</button></form>`
      : html`!${formAlert(o.error)}<p class="hint">${t(l, 'web.addresses.limit', { max: o.max })}</p>`;
  return page(v, {
    title,
    body: html`<h1>${title}</h1>!${o.tabs}!${notice(o.done)}!${list}!${form}`,
  });
}
