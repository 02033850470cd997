// A coupon's form, as the desk (the platform's coupons) and the console (a shop's) both show and
// read it: the fields of POST /admin/coupons and /sellers/me/coupons, read with the API's own
// schema so that a refusal says what the API's 400 would.
import { html } from 'ghtml';
import { createCouponBody } from '../contract/cart.ts';
import { formatMoney, type Locale, t } from '../contract/i18n.ts';
import { centsOf, type Form, filled, numberOf, one } from './desk/form.ts';
import { type FormError, field, readForm, textArea } from './layout.ts';

/** What a coupon gives: "10% off", "$5.00 off". */
export const couponDiscountText = (
  l: Locale,
  c: { discountPercent: number | null; discountCents: number | null },
) =>
  c.discountPercent !== null
    ? t(l, 'web.desk.coupons.percentOff', { n: c.discountPercent })
    : t(l, 'web.desk.coupons.amountOff', { amount: formatMoney(l, c.discountCents ?? 0) });

/** The form's fields (code, percent or amount, minimum, last day, limits, terms), as typed after a refusal. */
export function couponFields(l: Locale, form: Form | undefined, e: FormError | undefined): string {
  const value = (name: string) => one(form?.[name]) ?? '';
  return html`!${field({ name: 'code', label: t(l, 'web.desk.coupons.code'), value: value('code'), required: true, hint: t(l, 'web.desk.coupons.codeHint'), autocomplete: 'off', error: e, attrs: ' maxlength="40"' })}
<fieldset><legend>${t(l, 'web.desk.coupons.discount')}</legend><p class="hint">${t(l, 'web.desk.coupons.discountHint')}</p><div class="row">
!${field({ name: 'discountPercent', label: t(l, 'web.desk.coupons.percent'), type: 'number', value: value('discountPercent'), error: e, attrs: ' min="0" max="100" step="any" inputmode="decimal"' })}
!${field({ name: 'discountAmount', label: t(l, 'web.desk.coupons.amount'), type: 'number', value: value('discountAmount'), error: e, problemField: 'discountCents', attrs: ' min="0" step="0.01" inputmode="decimal"' })}
</div></fieldset>
!${field({ name: 'minSubtotal', label: t(l, 'web.desk.coupons.minimum'), type: 'number', value: value('minSubtotal'), error: e, problemField: 'minSubtotalCents', attrs: ' min="0" step="0.01" inputmode="decimal"' })}
!${field({ name: 'expirationDate', label: t(l, 'web.desk.coupons.expires'), type: 'date', value: value('expirationDate'), error: e })}
<div class="row">!${field({ name: 'maxRedemptions', label: t(l, 'web.desk.coupons.maxRedemptions'), type: 'number', value: value('maxRedemptions'), error: e, attrs: ' min="1" step="1" inputmode="numeric"' })}
!${field({ name: 'maxRedemptionsPerCustomer', label: t(l, 'web.desk.coupons.maxPerCustomer'), type: 'number', value: value('maxRedemptionsPerCustomer'), error: e, attrs: ' min="1" step="1" inputmode="numeric"' })}</div>
!${textArea({ name: 'terms', label: t(l, 'web.desk.coupons.terms'), value: value('terms'), error: e, attrs: ' maxlength="1000"' })}`;
}

/** The posted form as the API's body (blank fields absent, dollars as cents); a 400 when it is not one. */
export const readCouponForm = (b: Form) =>
  readForm(createCouponBody, {
    code: one(b.code),
    discountPercent: numberOf(b.discountPercent),
    discountCents: centsOf(b.discountAmount),
    minSubtotalCents: centsOf(b.minSubtotal),
    expirationDate: filled(b.expirationDate),
    maxRedemptions: numberOf(b.maxRedemptions),
    maxRedemptionsPerCustomer: numberOf(b.maxRedemptionsPerCustomer),
    terms: filled(b.terms),
  });
