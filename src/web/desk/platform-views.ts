// The admin's desk's pages of the platform's own settings: its tax profile (what invoices name
// as the marketplace operator), the agent platforms and their keys (a new key shown once), and
// the policies' texts. Markup only.
import { html } from 'ghtml';
import { PROVINCES } from '../../contract/common.ts';
import { formatDate, formatNumber, t } from '../../contract/i18n.ts';
import { POLICY_KINDS, POLICY_MAX_CHARS, type PolicyKind } from '../../contract/policies.ts';
import type { feedStates } from '../../modules/feeds/push.ts';
import type { listPlatforms } from '../../modules/platforms/service.ts';
import type { Policy } from '../../modules/policies/service.ts';
import type { View } from '../core.ts';
import {
  actionButton,
  badge,
  csrfField,
  dateText,
  type FormError,
  field,
  formAlert,
  notice,
  provinceName,
  selectField,
  textArea,
} from '../layout.ts';
import { type Form, one, type TaxForm } from './form.ts';
import { deskPage } from './views.ts';

type Platform = Awaited<ReturnType<typeof listPlatforms>>[number];
type FeedState = Awaited<ReturnType<typeof feedStates>>[number];

// ---- the platform's tax profile --------------------------------------------------------------

/** /desk/tax: whether the profile is set (and when), and its form, replaced whole. */
export function taxView(
  v: View,
  o: { updatedAt?: Date | string | number; values: TaxForm; error?: FormError; done?: string },
) {
  const l = v.p.locale;
  const f = (
    name: Exclude<keyof TaxForm, 'province'>,
    extra: { autocomplete?: string; hint?: string; max: number; required?: boolean },
  ) =>
    field({
      name,
      label: t(l, `web.console.shop.${name}`),
      value: o.values[name],
      error: o.error,
      ...(extra.required ? { required: true } : {}),
      ...(extra.autocomplete ? { autocomplete: extra.autocomplete } : {}),
      ...(extra.hint ? { hint: extra.hint } : {}),
      attrs: html` maxlength="${extra.max}"`,
    });
  const state =
    o.updatedAt !== undefined
      ? html`<p>${t(l, 'web.desk.tax.updated', { date: dateText(v, o.updatedAt) })}</p>`
      : html`<p class="alert" role="status">${t(l, 'web.desk.tax.notSet')}</p>`;
  const province = selectField({
    name: 'province',
    label: t(l, 'web.checkout.province'),
    value: o.values.province,
    required: true,
    error: o.error,
    options: [{ value: '', label: '' }, ...PROVINCES.map((p) => ({ value: p, label: provinceName(l, p) }))],
  });
  return deskPage(
    v,
    t(l, 'web.desk.tax.title'),
    html`!${notice(o.done)}<div class="card"><p>${t(l, 'web.desk.tax.intro')}</p>!${state}</div>
<form method="post" action="/desk/tax" class="card" novalidate>!${csrfField(v)}!${formAlert(o.error)}
!${f('legalName', { autocomplete: 'organization', max: 200, required: true })}!${f('street', { autocomplete: 'street-address', max: 200, required: true })}
<div class="row">!${f('city', { autocomplete: 'address-level2', max: 100, required: true })}!${province}!${f('postalCode', { autocomplete: 'postal-code', max: 10, required: true })}</div>
!${f('gstHstNumber', { hint: t(l, 'web.console.shop.gstHstHint'), max: 40 })}!${f('qstNumber', { hint: t(l, 'web.console.shop.qstHint'), max: 40 })}
<button type="submit">${t(l, 'web.settings.save')}</button></form>`,
  );
}

// ---- platforms -----------------------------------------------------------------------------

/** A key just made: shown on the answer to the form that made it, never again. */
export interface Issued {
  /** What the notice says: registered, or its key replaced. */
  said: string;
  apiKey: string;
  webhookSecret?: string;
}

/** /desk/platforms: a key just issued, the platforms (rotate, revoke), the form that registers one. */
export function platformsView(
  v: View,
  o: {
    platforms: readonly Platform[];
    /** The feeds kept on the platforms' Feed APIs, and how each stands. */
    feeds: readonly FeedState[];
    done?: string;
    error?: FormError;
    /** What was typed into the registration form: its refusal shows there, not on top. */
    form?: Form;
    issued?: Issued;
  },
) {
  const l = v.p.locale;
  const f = o.form ?? {};
  const secret = o.issued?.webhookSecret
    ? html`<dt>${t(l, 'web.desk.platforms.webhookSecret')}</dt><dd><code>${o.issued.webhookSecret}</code></dd>`
    : '';
  const issued = o.issued
    ? html`<section class="card" aria-labelledby="issued-h"><h2 id="issued-h" class="notice" role="status">${o.issued.said}</h2><dl class="specs">
<dt>${t(l, 'web.desk.platforms.apiKey')}</dt><dd><code>${o.issued.apiKey}</code></dd>
!${secret}
</dl><p class="alert">${t(l, 'web.desk.platforms.shownOnce')}</p></section>`
    : '';
  const row = (p: Platform) => {
    const id = encodeURIComponent(p.id);
    const state = p.revokedAt === null ? 'active' : 'revoked';
    const actions =
      state === 'active'
        ? html`!${actionButton(v, { action: `/desk/platforms/${id}/rotate`, label: t(l, 'web.desk.platforms.rotate'), kind: 'secondary' })} !${actionButton(v, { action: `/desk/platforms/${id}/revoke`, label: t(l, 'web.desk.platforms.revoke'), kind: 'danger' })}`
        : '';
    return html`<tr><th scope="row">${p.name}</th><td>${p.webhookUrl}</td><td>${p.ucpProfileUrl ? p.ucpProfileUrl : t(l, 'web.desk.platforms.noProfile')}</td><td>${dateText(v, p.createdAt)}</td><td>${p.keyRotatedAt === null ? t(l, 'web.desk.platforms.never') : dateText(v, p.keyRotatedAt)}</td><td>!${badge(l, state, 'web.desk.platforms.state', { state })}</td><td>!${actions}</td></tr>`;
  };
  const table = o.platforms.length
    ? html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${t(l, 'web.desk.platforms.name')}</th><th scope="col">${t(l, 'web.desk.platforms.webhookUrl')}</th><th scope="col">${t(l, 'web.desk.platforms.ucpProfile')}</th><th scope="col">${t(l, 'web.desk.platforms.createdAt')}</th><th scope="col">${t(l, 'web.desk.platforms.keyRotatedAt')}</th><th scope="col">${t(l, 'web.desk.platforms.status')}</th><th scope="col"><span class="visually-hidden">${t(l, 'web.desk.platforms.actions')}</span></th></tr></thead><tbody>!${o.platforms.map(row)}</tbody></table></div>`
    : html`<div class="card"><p>${t(l, 'web.desk.platforms.none')}</p></div>`;
  const createForm = html`<form method="post" action="/desk/platforms" class="card" novalidate>!${csrfField(v)}<h2>${t(l, 'web.desk.platforms.create')}</h2>!${o.form ? formAlert(o.error) : ''}
!${field({ name: 'name', label: t(l, 'web.desk.platforms.name'), value: one(f.name) ?? '', required: true, error: o.error, autocomplete: 'off', attrs: ' maxlength="100"' })}
!${field({ name: 'webhookUrl', label: t(l, 'web.desk.platforms.webhookUrl'), type: 'url', value: one(f.webhookUrl) ?? '', required: true, hint: t(l, 'web.desk.platforms.webhookHint'), error: o.error, autocomplete: 'off', attrs: ' maxlength="2000"' })}
!${field({ name: 'ucpProfileUrl', label: t(l, 'web.desk.platforms.ucpProfileUrl'), type: 'url', value: one(f.ucpProfileUrl) ?? '', error: o.error, autocomplete: 'off', attrs: ' maxlength="2000"' })}
!${field({ name: 'feedUrl', label: t(l, 'web.desk.platforms.feedUrl'), type: 'url', value: one(f.feedUrl) ?? '', hint: t(l, 'web.desk.platforms.feedHint'), error: o.error, autocomplete: 'off', attrs: ' maxlength="2000"' })}
!${field({ name: 'feedToken', label: t(l, 'web.desk.platforms.feedToken'), type: 'password', value: '', error: o.error, autocomplete: 'off', attrs: ' maxlength="500"' })}
<button type="submit">${t(l, 'web.desk.platforms.submit')}</button></form>`;
  return deskPage(
    v,
    t(l, 'web.desk.platforms.title'),
    html`!${notice(o.done)}!${o.form ? '' : formAlert(o.error)}!${issued}<p>${t(l, 'web.desk.platforms.intro')}</p>!${table}!${feedsTable(v, o.platforms, o.feeds)}!${createForm}`,
  );
}

/** The feeds on the platforms' Feed APIs: each language's snapshot, sends and failures. */
function feedsTable(v: View, platforms: readonly Platform[], feeds: readonly FeedState[]) {
  if (feeds.length === 0) return '';
  const l = v.p.locale;
  const names = new Map(platforms.map((p) => [p.id, p.name]));
  const when = (at: number | null) => (at === null ? t(l, 'web.desk.platforms.never') : dateText(v, at));
  const row = (f: FeedState) =>
    html`<tr><th scope="row">${names.get(f.platformId) ?? f.platformId}</th><td>${t(l, `page.language.${f.locale}`)}</td><td>!${badge(l, f.snapshot === 'done' ? 'active' : 'pending', 'web.desk.platforms.snapshot', { state: f.snapshot })}</td><td>${when(f.lastFullAt)}</td><td>${when(f.lastSuccessAt)}</td><td class="num">${formatNumber(l, f.productsSent)}</td><td>${f.failures === 0 ? t(l, 'web.desk.platforms.feedOk') : t(l, 'web.desk.platforms.feedFailing', { n: f.failures, date: dateText(v, f.nextAttemptAt), error: f.lastError ?? '' })}</td></tr>`;
  return html`<section aria-labelledby="feeds-h"><h2 id="feeds-h">${t(l, 'web.desk.platforms.feeds')}</h2><div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${t(l, 'web.desk.platforms.name')}</th><th scope="col">${t(l, 'web.desk.platforms.feedLanguage')}</th><th scope="col">${t(l, 'web.desk.platforms.feedSnapshot')}</th><th scope="col">${t(l, 'web.desk.platforms.feedLastFull')}</th><th scope="col">${t(l, 'web.desk.platforms.feedLastSuccess')}</th><th scope="col">${t(l, 'web.desk.platforms.feedSent')}</th><th scope="col">${t(l, 'web.desk.platforms.feedFailures')}</th></tr></thead><tbody>!${feeds.map(row)}</tbody></table></div></section>`;
}

// ---- policies ------------------------------------------------------------------------------

/** /desk/policies: one form per policy, its English and French texts side by side; a refused one keeps what was typed. */
export function policiesView(
  v: View,
  o: {
    policies: readonly Policy[];
    done?: PolicyKind;
    error?: FormError;
    /** The policy whose form was refused, and what was typed into it. */
    kind?: PolicyKind;
    form?: Form;
  },
) {
  const l = v.p.locale;
  const policyForm = (kind: PolicyKind) => {
    const refused = o.kind === kind ? o.error : undefined;
    const fields = (['en', 'fr'] as const).map((lang) => {
      const stored = o.policies.find((p) => p.kind === kind && p.locale === `${lang}-CA`)!;
      const typed = o.kind === kind ? one(o.form?.[`${kind}-${lang}`]) : undefined;
      return textArea({
        name: `${kind}-${lang}`,
        label: t(l, 'web.desk.policies.field', { lang }),
        value: typed ?? stored.body,
        hint: t(l, 'web.desk.policies.hint', {
          max: POLICY_MAX_CHARS,
          state: stored.updatedAt ? 'edited' : 'default',
          date: stored.updatedAt ? formatDate(l, stored.updatedAt) : '',
        }),
        error: refused,
        attrs: html` maxlength="${POLICY_MAX_CHARS}"`,
      });
    });
    const saved = o.done === kind ? notice(t(l, 'web.desk.policies.saved')) : '';
    return html`<form method="post" action="/desk/policies/${kind}" class="card policy-form" id="policy-${kind}">!${csrfField(v)}<h2>${t(l, 'web.policies.title', { kind })}</h2>!${saved}!${formAlert(refused)}
<p><a href="/policies/${kind}">${t(l, 'web.desk.policies.view')}</a></p>!${fields}
<button type="submit">${t(l, 'web.desk.policies.save', { kind })}</button></form>`;
  };
  return deskPage(
    v,
    t(l, 'web.desk.policies.title'),
    html`<p>${t(l, 'web.desk.policies.intro')}</p>!${POLICY_KINDS.map(policyForm)}`,
  );
}
