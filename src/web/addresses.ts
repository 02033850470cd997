// An address as the pages show it to a person: the checkout's saved addresses, the account's
// address book and the seller's order page (where the parcel is addressed from it).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canonicalPhone, canonicalPostalCode, phoneText } from '../contract/address-input.ts';
import { recipientFields, shippingAddressInput } from '../contract/checkout.ts';
import { PROVINCES } from '../contract/common.ts';
import { escapeHtml } from '../contract/format.ts';
import { type Locale, t } from '../contract/i18n.ts';
import * as addresses from '../modules/addresses/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from './core.ts';
import {
  actionButton,
  checkbox,
  csrfField,
  type FormError,
  field,
  formAlert,
  formErrorOf,
  notice,
  page,
  provinceName,
  readForm,
  say,
  selectField,
  sendHtml,
  shownRefusal,
} from './layout.ts';

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
    a.recipientName ? `<strong>${escapeHtml(a.recipientName)}</strong>` : '',
    escapeHtml(a.street),
    a.line2 ? escapeHtml(a.line2) : '',
    `${escapeHtml(a.city)} ${escapeHtml(provinceName(l, a.province))} ${escapeHtml(a.postalCode)}`,
  ].filter(Boolean);
  const phone = a.phone
    ? `<p>${say(l, 'web.addresses.phone', { phone: '' })}<a href="tel:${escapeHtml(a.phone)}">${escapeHtml(phoneText(a.phone))}</a></p>`
    : '';
  return `<address>${lines.join('<br>')}</address>${phone}`;
}

/** An address form's fields as a person typed them, phone and postal code in canonical form. */
export type AddressForm = Partial<
  Record<'recipientName' | 'street' | 'line2' | 'city' | 'province' | 'postalCode' | 'phone', string>
>;

/** The form's values, what people type made canonical (shown back so when refused). */
export function typedAddress(body: Record<string, unknown>): AddressForm {
  const one = (x: unknown) => (typeof x === 'string' ? x : '');
  return {
    recipientName: one(body.recipientName).trim(),
    street: one(body.street),
    line2: one(body.line2),
    city: one(body.city),
    province: one(body.province),
    postalCode: canonicalPostalCode(one(body.postalCode)),
    phone: canonicalPhone(one(body.phone)),
  };
}

/** The address form's schema: the API's address and what the pages add (a recipient, a unit line). */
export const addressForm = recipientFields.extend({ shipping_address: shippingAddressInput });

/** Reads a typed address by the API's rules (a refusal names each field, as the API's 400 does). */
export const readAddress = (a: AddressForm, recipientName = a.recipientName) =>
  readForm(addressForm, {
    recipientName,
    line2: a.line2,
    shipping_address: {
      street: a.street,
      city: a.city,
      province: a.province,
      postalCode: a.postalCode,
      country: 'CA',
      phone: a.phone,
    },
  });

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
      attrs: ` maxlength="${x.max}"`,
    });
  return `${f('recipientName', { autocomplete: 'name', max: 100, ...(o.recipientOptional ? { required: false, hint: t(l, 'web.checkout.recipientHint') } : {}) })}
${f('street', { autocomplete: 'address-line1', max: 200 })}${f('line2', { autocomplete: 'address-line2', required: false, max: 100 })}${f('city', { autocomplete: 'address-level2', max: 100 })}
${selectField({ name: 'province', label: t(l, 'web.checkout.province'), value: a.province ?? '', required: true, error, problemField: 'shipping_address.province', options: [{ value: '', label: t(l, 'web.checkout.chooseProvince') }, ...PROVINCES.map((p) => ({ value: p, label: provinceName(l, p) }))], attrs: ' autocomplete="address-level1"' })}
${f('postalCode', { autocomplete: 'postal-code', hint: t(l, 'web.checkout.postalHint'), max: 10 })}${f('phone', { autocomplete: 'tel', type: 'tel', hint: t(l, 'web.checkout.phoneHint'), max: 25 })}`;
}

const DONE = ['added', 'default', 'deleted'] as const;
const BUYERS = ['buyer'] as const;

/** /account/addresses: the buyer's saved addresses (add, make one the default, delete). */
export function addressPages(app: FastifyInstance, deps: WebDeps, accountTabs: (v: View) => string) {
  const s = deps.settings;
  const postRoute = { config: { auth: 'public', limit: 'orders' }, schema: { hide: true } } as const;

  const addressesPage = async (
    req: FastifyRequest,
    v: View,
    o: { typed?: AddressForm; error?: FormError; done?: string } = {},
  ) => {
    const me = signedIn(req, BUYERS);
    const l = v.p.locale;
    const saved = await addresses.listAddresses(req.ctx, me.id);
    const title = t(l, 'web.addresses.title');
    const list = saved.length
      ? `<ul class="addresses">${saved
          .map((a) => {
            const path = `/account/addresses/${encodeURIComponent(a.id)}`;
            return `<li class="card">${a.isDefault ? `<p><span class="badge active">${say(l, 'web.addresses.default')}</span></p>` : ''}${addressBlock(l, a)}<p>${
              a.isDefault
                ? ''
                : actionButton(v, {
                    action: `${path}/default`,
                    label: t(l, 'web.addresses.makeDefault'),
                    kind: 'secondary',
                  })
            } ${actionButton(v, { action: `${path}/delete`, label: t(l, 'web.addresses.delete'), kind: 'danger' })}</p></li>`;
          })
          .join('')}</ul>`
      : `<div class="card"><p>${say(l, 'web.addresses.none')}</p></div>`;
    const form =
      saved.length < addresses.MAX_ADDRESSES
        ? `<form method="post" action="/account/addresses" class="card" novalidate>${csrfField(v)}${formAlert(o.error)}
<h2>${say(l, 'web.addresses.add')}</h2>${addressFields(l, o.typed ?? {}, o.error)}
${checkbox({ name: 'default', label: t(l, 'web.addresses.makeDefault'), checked: false })}
<button type="submit">${say(l, 'web.addresses.save')}</button></form>`
        : `${formAlert(o.error)}<p class="hint">${say(l, 'web.addresses.limit', { max: addresses.MAX_ADDRESSES })}</p>`;
    return page(v, {
      title,
      body: `<h1>${escapeHtml(title)}</h1>${accountTabs(v)}${notice(o.done)}${list}${form}`,
    });
  };

  app.get<{ Querystring: { done?: string } }>(
    '/account/addresses',
    { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req, BUYERS);
      const v = viewOf(req, reply, s);
      const done = DONE.find((d) => d === req.query.done);
      return sendHtml(
        reply,
        await addressesPage(req, v, { done: done && t(v.p.locale, 'web.addresses.done', { done }) }),
      );
    },
  );

  app.post<{ Body: Record<string, unknown> }>('/account/addresses', postRoute, async (req, reply) => {
    const me = signedIn(req, BUYERS);
    const typed = typedAddress(req.body ?? {});
    try {
      const form = readAddress(typed);
      await addresses.saveAddress(
        req.ctx,
        me.id,
        { recipientName: form.recipientName, line2: form.line2, address: form.shipping_address },
        { makeDefault: req.body?.default === 'on' },
      );
    } catch (err) {
      if (!shownRefusal(err)) throw err;
      const v = viewOf(req, reply, s);
      return sendHtml(
        reply,
        await addressesPage(req, v, { typed, error: formErrorOf(v.p.locale, err) }),
        err.statusCode,
      );
    }
    return seeOther(reply, '/account/addresses?done=added');
  });

  app.post<{ Params: { addressId: string } }>(
    '/account/addresses/:addressId/default',
    postRoute,
    async (req, reply) => {
      const me = signedIn(req, BUYERS);
      await addresses.setDefaultAddress(req.ctx, me.id, req.params.addressId);
      return seeOther(reply, '/account/addresses?done=default');
    },
  );

  app.post<{ Params: { addressId: string } }>(
    '/account/addresses/:addressId/delete',
    postRoute,
    async (req, reply) => {
      const me = signedIn(req, BUYERS);
      await addresses.deleteAddress(req.ctx, me.id, req.params.addressId);
      return seeOther(reply, '/account/addresses?done=deleted');
    },
  );
}
