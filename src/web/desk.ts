// The admin's desk: the platform's analytics with charts, reviews to moderate, a user's role,
// coupons, and the agent platforms with their keys. Every page is for admins (`signedIn` with
// ['admin']); every rule is the services'. A platform's new key is shown once, on the answer to
// the form that made it (never in a URL, never again).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { changeRoleBody, platformTaxProfileBody } from '../contract/auth.ts';
import { createCouponBody } from '../contract/cart.ts';
import { PROVINCES, ROLES } from '../contract/common.ts';
import { AppError, notFound } from '../contract/errors.ts';
import { escapeHtml } from '../contract/format.ts';
import { formatDate, formatMoney, formatNumber, t } from '../contract/i18n.ts';
import { createPlatformBody } from '../contract/platforms.ts';
import { POLICY_KINDS, POLICY_MAX_CHARS, type PolicyKind, savePolicyBody } from '../contract/policies.ts';
import { adminReviewsQuery } from '../contract/reviews.ts';
import { platformDashboard } from '../modules/analytics/service.ts';
import {
  getPlatformTaxProfile,
  profileOf,
  putPlatformTaxProfile,
  shopNames,
} from '../modules/auth/sellers.ts';
import { findUser, findUserByEmail } from '../modules/auth/users.ts';
import { listItemsByIds } from '../modules/catalog/service.ts';
import { couponUses, createCoupon, findCoupon, listCoupons } from '../modules/coupons/service.ts';
import {
  createPlatform,
  listPlatforms,
  revokePlatform,
  rotatePlatformKey,
} from '../modules/platforms/service.ts';
import { listPolicies, savePolicy } from '../modules/policies/service.ts';
import { listReviewsForModeration, publishReview, rejectReview } from '../modules/reviews/service.ts';
import type { WebDeps } from './core.ts';
import { seeOther, signedIn, type View, viewOf } from './core.ts';
import { dashboardBody, PERIODS } from './dashboard.ts';
import {
  actionButton,
  badge,
  csrfField,
  date,
  type FormError,
  field,
  formAlert,
  formErrorOf,
  money,
  notice,
  page,
  provinceName,
  readForm,
  say,
  selectField,
  sendHtml,
  shownRefusal,
  tabs,
  textArea,
} from './layout.ts';

const ADMINS = ['admin'] as const;
/** The fields of the platform's tax profile, as PUT /admin/tax-profile takes them. */
const TAX_FIELDS = [
  'legalName',
  'street',
  'city',
  'province',
  'postalCode',
  'gstHstNumber',
  'qstNumber',
] as const;
type TaxForm = Record<(typeof TAX_FIELDS)[number], string>;
const REVIEW_FILTERS = ['pending', 'published', 'rejected', 'all'] as const;
type ReviewFilter = (typeof REVIEW_FILTERS)[number];
const REVIEWS_PER_PAGE = 20;

type Form = Record<string, string | string[] | undefined>;

/** A form's or a query's one value (a repeated name counts its first). */
const one = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
/** A value typed into a field, or undefined when left blank. */
const filled = (v: unknown) => {
  const s = one(v)?.trim();
  return s ? s : undefined;
};
/** A number typed into a field (NaN when it is not one: the schema words the problem). */
const numberOf = (v: unknown) => {
  const s = filled(v);
  return s === undefined ? undefined : Number(s.replace(',', '.'));
};
/** Dollars typed into a field, as cents. */
const centsOf = (v: unknown) => {
  const n = numberOf(v);
  return n === undefined || !Number.isFinite(n) ? n : Math.round(n * 100);
};
const queryOf = (req: FastifyRequest, name: string) => one((req.query as Record<string, unknown>)[name]);
const oneOf = <T extends string>(list: readonly T[], v: string | undefined, fallback: T): T =>
  list.includes(v as T) ? (v as T) : fallback;

const deskTabs = (v: View) => {
  const l = v.p.locale;
  return tabs(v, t(l, 'web.desk.sections'), [
    { href: '/desk', label: t(l, 'web.desk.tab.analytics') },
    { href: '/desk/reviews', label: t(l, 'web.desk.tab.reviews') },
    { href: '/desk/users', label: t(l, 'web.desk.tab.users') },
    { href: '/desk/coupons', label: t(l, 'web.desk.tab.coupons') },
    { href: '/desk/platforms', label: t(l, 'web.desk.tab.platforms') },
    { href: '/desk/policies', label: t(l, 'web.desk.tab.policies') },
    { href: '/desk/tax', label: t(l, 'web.desk.tab.tax') },
  ]);
};

/** A desk page: its heading, the desk's tabs, then `body`. */
const deskPage = (v: View, title: string, body: string) =>
  page(v, { title, body: `<h1>${escapeHtml(title)}</h1>${deskTabs(v)}${body}` });

export function deskPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const writeRoute = { config: { auth: 'public', limit: 'productWrites' }, schema: { hide: true } } as const;

  // ---- analytics ---------------------------------------------------------------------------

  app.get('/desk', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const l = v.p.locale;
    const period = oneOf(PERIODS, queryOf(req, 'period'), 'month');
    const dashboard = await platformDashboard(req.ctx, { period });
    return sendHtml(
      reply,
      deskPage(
        v,
        t(l, 'web.desk.analytics.title'),
        dashboardBody(v, dashboard, {
          action: '/desk',
          period,
          platform: true,
          sellerHref: (id) => `/desk/users?user=${encodeURIComponent(id)}`,
        }),
      ),
    );
  });

  // ---- reviews -----------------------------------------------------------------------------

  const reviewsPage = async (
    req: FastifyRequest,
    v: View,
    o: { filter: ReviewFilter; pageNo: number; done?: string; error?: FormError },
  ) => {
    const l = v.p.locale;
    const list = await listReviewsForModeration(
      req.ctx,
      adminReviewsQuery.parse({
        ...(o.filter === 'all' ? {} : { status: o.filter }),
        limit: REVIEWS_PER_PAGE,
        offset: (o.pageNo - 1) * REVIEWS_PER_PAGE,
      }),
    );
    const titles = new Map(
      (await listItemsByIds(req.ctx, [...new Set(list.reviews.map((r) => r.product_id))])).map((p) => [
        p.id,
        p.title,
      ]),
    );
    const back = { filter: o.filter };
    const items = list.reviews
      .map((r) => {
        const id = encodeURIComponent(r.review_id);
        const product = titles.get(r.product_id) ?? r.product_id;
        const actions = [
          r.status === 'published'
            ? ''
            : actionButton(v, {
                action: `/desk/reviews/${id}/publish`,
                label: t(l, 'web.desk.reviews.publish'),
                fields: back,
              }),
          r.status === 'rejected'
            ? ''
            : actionButton(v, {
                action: `/desk/reviews/${id}/hide`,
                label: t(l, 'web.desk.reviews.hide'),
                kind: 'danger',
                fields: back,
              }),
        ].join(' ');
        return `<article class="card review"><p>${badge(l, r.status, 'web.desk.reviews.state', { status: r.status })}${r.verified_purchase ? ` ${badge(l, 'verified', 'web.desk.reviews.verified')}` : ''}${r.has_link ? ` ${badge(l, 'link', 'web.desk.reviews.hasLink')}` : ''}</p>
<h2>${say(l, 'web.search.stars', { n: r.rating })}${r.title ? ` · ${escapeHtml(r.title)}` : ''}</h2>
${r.comment ? `<p>${escapeHtml(r.comment)}</p>` : ''}
<p class="hint">${say(l, 'web.desk.reviews.by', { author: r.author, date: formatDate(l, new Date(r.created_at * 1000), 'America/Toronto') })} · <a href="/shop/products/${encodeURIComponent(r.product_id)}">${say(l, 'web.desk.reviews.about', { product })}</a> · <a href="/desk/users?user=${encodeURIComponent(r.buyer_id)}">${say(l, 'web.desk.reviews.buyer')}</a></p>
<div>${actions}</div></article>`;
      })
      .join('');
    const filterForm = `<form method="get" action="/desk/reviews" class="row card">${selectField({
      name: 'status',
      label: t(l, 'web.desk.reviews.statusFilter'),
      value: o.filter,
      options: REVIEW_FILTERS.map((f) => ({
        value: f,
        label: t(l, 'web.desk.reviews.status', { status: f }),
      })),
    })}<button type="submit" class="secondary">${say(l, 'web.desk.show')}</button></form>`;
    const more = list.total > o.pageNo * REVIEWS_PER_PAGE;
    const href = (n: number) => `/desk/reviews?status=${o.filter}&amp;page=${n}`;
    const pager =
      o.pageNo > 1 || more
        ? `<nav class="pager" aria-label="${say(l, 'web.search.pages')}">${o.pageNo > 1 ? `<a href="${href(o.pageNo - 1)}" rel="prev">${say(l, 'web.search.previous')}</a>` : ''}${more ? `<a href="${href(o.pageNo + 1)}" rel="next">${say(l, 'web.search.next')}</a>` : ''}</nav>`
        : '';
    return deskPage(
      v,
      t(l, 'web.desk.reviews.title'),
      `${notice(o.done)}${formAlert(o.error)}${filterForm}<p role="status">${say(l, 'web.desk.reviews.count', { n: list.total })}</p>${
        items || `<div class="card"><p>${say(l, 'web.desk.reviews.none')}</p></div>`
      }${pager}`,
    );
  };

  const pageNumber = (v: string | undefined) =>
    Math.max(1, Math.min(1000, Number.parseInt(v ?? '1', 10) || 1));

  app.get('/desk/reviews', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = queryOf(req, 'done');
    return sendHtml(
      reply,
      await reviewsPage(req, v, {
        filter: oneOf(REVIEW_FILTERS, queryOf(req, 'status'), 'pending'),
        pageNo: pageNumber(queryOf(req, 'page')),
        done:
          done === 'published'
            ? t(v.p.locale, 'web.desk.reviews.published')
            : done === 'hidden'
              ? t(v.p.locale, 'web.desk.reviews.hidden')
              : undefined,
      }),
    );
  });

  const moderation = (path: 'publish' | 'hide', act: typeof publishReview) =>
    app.post<{ Params: { reviewId: string }; Body: Form }>(
      `/desk/reviews/:reviewId/${path}`,
      writeRoute,
      async (req, reply) => {
        signedIn(req, ADMINS);
        const filter = oneOf(REVIEW_FILTERS, one(req.body.filter), 'pending');
        try {
          await act(req.ctx, req.params.reviewId);
        } catch (err) {
          if (!shownRefusal(err)) throw err;
          const v = viewOf(req, reply, s);
          return sendHtml(
            reply,
            await reviewsPage(req, v, { filter, pageNo: 1, error: formErrorOf(v.p.locale, err) }),
            err.statusCode,
          );
        }
        return seeOther(
          reply,
          `/desk/reviews?status=${filter}&done=${path === 'hide' ? 'hidden' : 'published'}`,
        );
      },
    );
  moderation('publish', publishReview);
  moderation('hide', rejectReview);

  // ---- users -------------------------------------------------------------------------------

  const usersPage = async (
    req: FastifyRequest,
    v: View,
    o: { id?: string; done?: string; error?: FormError; form?: Form },
  ) => {
    const l = v.p.locale;
    const findForm = `<form method="get" action="/desk/users" class="row card">${field({
      name: 'user',
      label: t(l, 'web.desk.users.id'),
      value: o.id ?? '',
      required: true,
      hint: t(l, 'web.desk.users.idHint'),
      autocomplete: 'off',
      attrs: ' maxlength="320"',
    })}<button type="submit" class="secondary">${say(l, 'web.desk.find')}</button></form>`;
    let found = '';
    const user = !o.id
      ? undefined
      : o.id.includes('@')
        ? await findUserByEmail(req.ctx, o.id)
        : await findUser(req.ctx, o.id);
    if (o.id && !user) {
      found = `<div class="card"><p role="status">${say(l, 'web.desk.users.notFound', { id: o.id })}</p></div>`;
    } else if (user) {
      const hasShop = (await profileOf(req.ctx, user.id)).seller !== null;
      const shop = hasShop ? (await shopNames(req.ctx, [user.id])).get(user.id) : undefined;
      const f = o.form ?? {};
      const uid = encodeURIComponent(user.id);
      const shopFields = hasShop
        ? ''
        : `<fieldset><legend>${say(l, 'web.desk.users.shop')}</legend><p class="hint">${say(l, 'web.desk.users.shopHint')}</p>
${field({ name: 'shopName', label: t(l, 'web.desk.users.shopName'), value: one(f.shopName) ?? '', error: o.error, autocomplete: 'off', attrs: ' maxlength="100"' })}
${selectField({
  name: 'province',
  label: t(l, 'web.desk.users.province'),
  value: one(f.province) ?? '',
  error: o.error,
  options: [
    { value: '', label: t(l, 'web.checkout.chooseProvince') },
    ...PROVINCES.map((p) => ({ value: p, label: provinceName(l, p) })),
  ],
})}</fieldset>`;
      found = `<section class="card" aria-labelledby="user-h"><h2 id="user-h">${escapeHtml(user.name)}</h2><dl class="specs">
<dt>${say(l, 'web.desk.users.email')}</dt><dd>${escapeHtml(user.email)}</dd>
<dt>${say(l, 'web.desk.users.emailVerified')}</dt><dd>${say(l, user.emailVerified ? 'web.desk.yes' : 'web.desk.no')}</dd>
<dt>${say(l, 'web.desk.users.role')}</dt><dd>${say(l, 'web.desk.users.roleName', { role: user.role })}</dd>
<dt>${say(l, 'web.desk.users.shop')}</dt><dd>${shop === undefined ? say(l, 'web.desk.users.noShop') : escapeHtml(shop)}</dd>
</dl></section>
<form method="post" action="/desk/users/${uid}/role" class="card" novalidate>${csrfField(v)}<h2>${say(l, 'web.desk.users.changeRole')}</h2>${formAlert(o.error)}
${selectField({
  name: 'role',
  label: t(l, 'web.desk.users.newRole'),
  value: one(f.role) ?? user.role,
  required: true,
  error: o.error,
  options: ROLES.map((r) => ({ value: r, label: t(l, 'web.desk.users.roleName', { role: r }) })),
})}
${shopFields}<p class="hint">${say(l, 'web.desk.users.roleHint')}</p>
<button type="submit">${say(l, 'web.desk.users.changeRole')}</button></form>`;
    }
    return deskPage(v, t(l, 'web.desk.users.title'), `${notice(o.done)}${findForm}${found}`);
  };

  app.get('/desk/users', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    return sendHtml(
      reply,
      await usersPage(req, v, {
        id: filled(queryOf(req, 'user')),
        done: queryOf(req, 'done') === 'role' ? t(v.p.locale, 'web.desk.users.changed') : undefined,
      }),
    );
  });

  app.post<{ Params: { userId: string }; Body: Form }>(
    '/desk/users/:userId/role',
    writeRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const id = req.params.userId;
      try {
        const input = readForm(changeRoleBody, {
          role: one(req.body.role),
          shopName: filled(req.body.shopName),
          province: filled(req.body.province),
        });
        await deps.auth.changeRole(req.ctx, id, input);
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        const v = viewOf(req, reply, s);
        return sendHtml(
          reply,
          await usersPage(req, v, { id, error: formErrorOf(v.p.locale, err), form: req.body }),
          err.statusCode,
        );
      }
      return seeOther(reply, `/desk/users?user=${encodeURIComponent(id)}&done=role`);
    },
  );

  // ---- coupons -----------------------------------------------------------------------------

  const couponsPage = async (
    req: FastifyRequest,
    v: View,
    o: { lookup?: string; done?: string; error?: FormError; form?: Form },
  ) => {
    const l = v.p.locale;
    const f = o.form ?? {};
    const value = (name: string) => one(f[name]) ?? '';
    const e = o.error;
    const findForm = `<form method="get" action="/desk/coupons" class="row card">${field({
      name: 'lookup',
      label: t(l, 'web.desk.coupons.find'),
      value: o.lookup ?? '',
      required: true,
      autocomplete: 'off',
      attrs: ' maxlength="40"',
    })}<button type="submit" class="secondary">${say(l, 'web.desk.find')}</button></form>`;
    let found = '';
    if (o.lookup) {
      const c = await findCoupon(req.ctx, o.lookup);
      if (!c) {
        found = `<div class="card"><p role="status">${say(l, 'web.desk.coupons.notFound', { code: o.lookup })}</p></div>`;
      } else {
        const used = (await couponUses(req.ctx, c.code, signedIn(req).id)).total;
        const noLimit = t(l, 'web.desk.coupons.noLimit');
        found = `<section class="card" aria-labelledby="coupon-h"><h2 id="coupon-h">${escapeHtml(c.code)}</h2><dl class="specs">
<dt>${say(l, 'web.desk.coupons.discount')}</dt><dd>${
          c.discountPercent !== null
            ? say(l, 'web.desk.coupons.percentOff', { n: c.discountPercent })
            : say(l, 'web.desk.coupons.amountOff', { amount: formatMoney(l, c.discountCents ?? 0) })
        }</dd>
<dt>${say(l, 'web.desk.coupons.minimumShort')}</dt><dd>${money(v, c.minSubtotalCents)}</dd>
<dt>${say(l, 'web.desk.coupons.expiresShort')}</dt><dd>${c.expiresOn ? date(v, c.expiresOn) : say(l, 'web.desk.coupons.noEnd')}</dd>
<dt>${say(l, 'web.desk.coupons.limits')}</dt><dd>${say(l, 'web.desk.coupons.limitsValue', {
          total: c.maxRedemptions === null ? noLimit : formatNumber(l, c.maxRedemptions),
          each: c.maxRedemptionsPerCustomer === null ? noLimit : formatNumber(l, c.maxRedemptionsPerCustomer),
        })}</dd>
<dt>${say(l, 'web.desk.coupons.redemptions')}</dt><dd>${escapeHtml(formatNumber(l, used))}</dd>
${c.terms ? `<dt>${say(l, 'web.desk.coupons.termsShort')}</dt><dd>${escapeHtml(c.terms)}</dd>` : ''}
</dl></section>`;
      }
    }
    const createForm = `<form method="post" action="/desk/coupons" class="card" novalidate>${csrfField(v)}<h2>${say(l, 'web.desk.coupons.create')}</h2>${formAlert(e)}
${field({ name: 'code', label: t(l, 'web.desk.coupons.code'), value: value('code'), required: true, hint: t(l, 'web.desk.coupons.codeHint'), autocomplete: 'off', error: e, attrs: ' maxlength="40"' })}
<fieldset><legend>${say(l, 'web.desk.coupons.discount')}</legend><p class="hint">${say(l, 'web.desk.coupons.discountHint')}</p><div class="row">
${field({ name: 'discountPercent', label: t(l, 'web.desk.coupons.percent'), type: 'number', value: value('discountPercent'), error: e, attrs: ' min="0" max="100" step="any" inputmode="decimal"' })}
${field({ name: 'discountAmount', label: t(l, 'web.desk.coupons.amount'), type: 'number', value: value('discountAmount'), error: e, problemField: 'discountCents', attrs: ' min="0" step="0.01" inputmode="decimal"' })}
</div></fieldset>
${field({ name: 'minSubtotal', label: t(l, 'web.desk.coupons.minimum'), type: 'number', value: value('minSubtotal'), error: e, problemField: 'minSubtotalCents', attrs: ' min="0" step="0.01" inputmode="decimal"' })}
${field({ name: 'expirationDate', label: t(l, 'web.desk.coupons.expires'), type: 'date', value: value('expirationDate'), error: e })}
<div class="row">${field({ name: 'maxRedemptions', label: t(l, 'web.desk.coupons.maxRedemptions'), type: 'number', value: value('maxRedemptions'), error: e, attrs: ' min="1" step="1" inputmode="numeric"' })}
${field({ name: 'maxRedemptionsPerCustomer', label: t(l, 'web.desk.coupons.maxPerCustomer'), type: 'number', value: value('maxRedemptionsPerCustomer'), error: e, attrs: ' min="1" step="1" inputmode="numeric"' })}</div>
${textArea({ name: 'terms', label: t(l, 'web.desk.coupons.terms'), value: value('terms'), error: e, attrs: ' maxlength="1000"' })}
<button type="submit">${say(l, 'web.desk.coupons.submit')}</button></form>`;
    const recent = await listCoupons(req.ctx);
    const list = recent.length
      ? `<h2>${say(l, 'web.desk.coupons.recent')}</h2><div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${say(l, 'web.desk.coupons.code')}</th><th scope="col">${say(l, 'web.desk.coupons.discount')}</th><th scope="col">${say(l, 'web.desk.coupons.expiresShort')}</th><th scope="col" class="num">${say(l, 'web.desk.coupons.redemptions')}</th></tr></thead><tbody>${recent
          .map(
            (c) =>
              `<tr><td><a href="/desk/coupons?lookup=${encodeURIComponent(c.code)}">${escapeHtml(c.code)}</a></td><td>${
                c.discountPercent !== null
                  ? say(l, 'web.desk.coupons.percentOff', { n: c.discountPercent })
                  : say(l, 'web.desk.coupons.amountOff', { amount: formatMoney(l, c.discountCents ?? 0) })
              }</td><td>${c.expirationDate ? date(v, c.expirationDate) : say(l, 'web.desk.coupons.noEnd')}</td><td class="num">${escapeHtml(formatNumber(l, c.redemptions))}</td></tr>`,
          )
          .join('')}</tbody></table></div>`
      : '';
    return deskPage(
      v,
      t(l, 'web.desk.coupons.title'),
      `${notice(o.done)}${findForm}${found}${createForm}${list}`,
    );
  };

  app.get('/desk/coupons', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const lookup = filled(queryOf(req, 'lookup'))?.slice(0, 40);
    return sendHtml(
      reply,
      await couponsPage(req, v, {
        lookup,
        done:
          lookup && queryOf(req, 'done') === 'created'
            ? t(v.p.locale, 'web.desk.coupons.created', { code: lookup })
            : undefined,
      }),
    );
  });

  app.post<{ Body: Form }>('/desk/coupons', writeRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const b = req.body;
    let code: string;
    try {
      const input = readForm(createCouponBody, {
        code: one(b.code),
        discountPercent: numberOf(b.discountPercent),
        discountCents: centsOf(b.discountAmount),
        minSubtotalCents: centsOf(b.minSubtotal),
        expirationDate: filled(b.expirationDate),
        maxRedemptions: numberOf(b.maxRedemptions),
        maxRedemptionsPerCustomer: numberOf(b.maxRedemptionsPerCustomer),
        terms: filled(b.terms),
      });
      code = (await createCoupon(req.ctx, input)).code;
    } catch (err) {
      if (!shownRefusal(err)) throw err;
      const v = viewOf(req, reply, s);
      return sendHtml(
        reply,
        await couponsPage(req, v, { error: formErrorOf(v.p.locale, err), form: b }),
        err.statusCode,
      );
    }
    return seeOther(reply, `/desk/coupons?lookup=${encodeURIComponent(code)}&done=created`);
  });

  // ---- the platform's tax profile ----------------------------------------------------------

  /** What invoices name as the marketplace operator (docs/invoices.md); one profile, replaced whole. */
  const taxPage = async (
    req: FastifyRequest,
    v: View,
    o: { values?: TaxForm; error?: FormError; done?: string } = {},
  ) => {
    const l = v.p.locale;
    const current = await getPlatformTaxProfile(req.ctx).catch((err: { statusCode?: number }) => {
      if (err.statusCode === 404) return undefined;
      throw err;
    });
    const values =
      o.values ?? (Object.fromEntries(TAX_FIELDS.map((k) => [k, current?.[k] ?? ''])) as TaxForm);
    const f = (
      name: Exclude<keyof TaxForm, 'province'>,
      extra: { autocomplete?: string; hint?: string; max: number; required?: boolean },
    ) =>
      field({
        name,
        label: t(l, `web.console.shop.${name}`),
        value: values[name],
        error: o.error,
        ...(extra.required ? { required: true } : {}),
        ...(extra.autocomplete ? { autocomplete: extra.autocomplete } : {}),
        ...(extra.hint ? { hint: extra.hint } : {}),
        attrs: ` maxlength="${extra.max}"`,
      });
    const state = current
      ? `<p>${say(l, 'web.desk.tax.updated', { date: date(v, current.updatedAt) })}</p>`
      : `<p class="alert" role="status">${say(l, 'web.desk.tax.notSet')}</p>`;
    return deskPage(
      v,
      t(l, 'web.desk.tax.title'),
      `${notice(o.done)}<div class="card"><p>${say(l, 'web.desk.tax.intro')}</p>${state}</div>
<form method="post" action="/desk/tax" class="card" novalidate>${csrfField(v)}${formAlert(o.error)}
${f('legalName', { autocomplete: 'organization', max: 200, required: true })}${f('street', { autocomplete: 'street-address', max: 200, required: true })}
<div class="row">${f('city', { autocomplete: 'address-level2', max: 100, required: true })}${selectField({ name: 'province', label: t(l, 'web.checkout.province'), value: values.province, required: true, error: o.error, options: [{ value: '', label: '' }, ...PROVINCES.map((p) => ({ value: p, label: provinceName(l, p) }))] })}${f('postalCode', { autocomplete: 'postal-code', max: 10, required: true })}</div>
${f('gstHstNumber', { hint: t(l, 'web.console.shop.gstHstHint'), max: 40 })}${f('qstNumber', { hint: t(l, 'web.console.shop.qstHint'), max: 40 })}
<button type="submit">${say(l, 'web.settings.save')}</button></form>`,
    );
  };

  app.get('/desk/tax', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = queryOf(req, 'done') === 'saved' ? t(v.p.locale, 'web.desk.tax.saved') : undefined;
    return sendHtml(reply, await taxPage(req, v, { done }));
  });

  app.post<{ Body: Form }>('/desk/tax', writeRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const values = Object.fromEntries(TAX_FIELDS.map((k) => [k, (one(req.body[k]) ?? '').trim()])) as TaxForm;
    try {
      // PUT /admin/tax-profile with every field: an empty number is none.
      await putPlatformTaxProfile(
        req.ctx,
        readForm(platformTaxProfileBody, {
          ...values,
          gstHstNumber: values.gstHstNumber || null,
          qstNumber: values.qstNumber || null,
        }),
      );
    } catch (err) {
      if (!shownRefusal(err)) throw err;
      const v = viewOf(req, reply, s);
      return sendHtml(
        reply,
        await taxPage(req, v, { values, error: formErrorOf(v.p.locale, err) }),
        err.statusCode,
      );
    }
    return seeOther(reply, '/desk/tax?done=saved');
  });

  // ---- platforms ---------------------------------------------------------------------------

  interface Issued {
    /** What the notice says: registered, or its key replaced. */
    said: string;
    apiKey: string;
    webhookSecret?: string;
  }

  const platformsPage = async (
    req: FastifyRequest,
    v: View,
    o: { done?: string; error?: FormError; form?: Form; issued?: Issued } = {},
  ) => {
    const l = v.p.locale;
    const list = await listPlatforms(req.ctx);
    const f = o.form ?? {};
    const issued = o.issued
      ? `<section class="card" aria-labelledby="issued-h"><h2 id="issued-h" class="notice" role="status">${escapeHtml(o.issued.said)}</h2><dl class="specs">
<dt>${say(l, 'web.desk.platforms.apiKey')}</dt><dd><code>${escapeHtml(o.issued.apiKey)}</code></dd>
${o.issued.webhookSecret ? `<dt>${say(l, 'web.desk.platforms.webhookSecret')}</dt><dd><code>${escapeHtml(o.issued.webhookSecret)}</code></dd>` : ''}
</dl><p class="alert">${say(l, 'web.desk.platforms.shownOnce')}</p></section>`
      : '';
    const rows = list
      .map((p) => {
        const id = encodeURIComponent(p.id);
        const state = p.revokedAt === null ? 'active' : 'revoked';
        const actions =
          state === 'active'
            ? `${actionButton(v, { action: `/desk/platforms/${id}/rotate`, label: t(l, 'web.desk.platforms.rotate'), kind: 'secondary' })} ${actionButton(v, { action: `/desk/platforms/${id}/revoke`, label: t(l, 'web.desk.platforms.revoke'), kind: 'danger' })}`
            : '';
        return `<tr><th scope="row">${escapeHtml(p.name)}</th><td>${escapeHtml(p.webhookUrl)}</td><td>${p.ucpProfileUrl ? escapeHtml(p.ucpProfileUrl) : say(l, 'web.desk.platforms.noProfile')}</td><td>${date(v, p.createdAt)}</td><td>${p.keyRotatedAt === null ? say(l, 'web.desk.platforms.never') : date(v, p.keyRotatedAt)}</td><td>${badge(l, state, 'web.desk.platforms.state', { state })}</td><td>${actions}</td></tr>`;
      })
      .join('');
    const table = list.length
      ? `<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${say(l, 'web.desk.platforms.name')}</th><th scope="col">${say(l, 'web.desk.platforms.webhookUrl')}</th><th scope="col">${say(l, 'web.desk.platforms.ucpProfile')}</th><th scope="col">${say(l, 'web.desk.platforms.createdAt')}</th><th scope="col">${say(l, 'web.desk.platforms.keyRotatedAt')}</th><th scope="col">${say(l, 'web.desk.platforms.status')}</th><th scope="col"><span class="visually-hidden">${say(l, 'web.desk.platforms.actions')}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
      : `<div class="card"><p>${say(l, 'web.desk.platforms.none')}</p></div>`;
    const createForm = `<form method="post" action="/desk/platforms" class="card" novalidate>${csrfField(v)}<h2>${say(l, 'web.desk.platforms.create')}</h2>${o.form ? formAlert(o.error) : ''}
${field({ name: 'name', label: t(l, 'web.desk.platforms.name'), value: one(f.name) ?? '', required: true, error: o.error, autocomplete: 'off', attrs: ' maxlength="100"' })}
${field({ name: 'webhookUrl', label: t(l, 'web.desk.platforms.webhookUrl'), type: 'url', value: one(f.webhookUrl) ?? '', required: true, hint: t(l, 'web.desk.platforms.webhookHint'), error: o.error, autocomplete: 'off', attrs: ' maxlength="2000"' })}
${field({ name: 'ucpProfileUrl', label: t(l, 'web.desk.platforms.ucpProfileUrl'), type: 'url', value: one(f.ucpProfileUrl) ?? '', error: o.error, autocomplete: 'off', attrs: ' maxlength="2000"' })}
<button type="submit">${say(l, 'web.desk.platforms.submit')}</button></form>`;
    return deskPage(
      v,
      t(l, 'web.desk.platforms.title'),
      `${notice(o.done)}${o.form ? '' : formAlert(o.error)}${issued}<p>${say(l, 'web.desk.platforms.intro')}</p>${table}${createForm}`,
    );
  };

  app.get('/desk/platforms', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = queryOf(req, 'done') === 'revoked' ? t(v.p.locale, 'web.desk.platforms.revoked') : undefined;
    return sendHtml(reply, await platformsPage(req, v, { done }));
  });

  // The answer to a registration or a rotation is the page itself, with the secrets: a redirect
  // would have to carry them in its URL, or keep them somewhere to show later.
  app.post<{ Body: Form }>('/desk/platforms', writeRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const b = req.body;
    const v = viewOf(req, reply, s);
    try {
      const made = await createPlatform(
        req.ctx,
        readForm(createPlatformBody, {
          name: one(b.name) ?? '',
          webhookUrl: one(b.webhookUrl)?.trim() ?? '',
          ...(filled(b.ucpProfileUrl) ? { ucpProfileUrl: filled(b.ucpProfileUrl) } : {}),
        }),
      );
      const said = t(v.p.locale, 'web.desk.platforms.issued', { name: made.name });
      return sendHtml(
        reply,
        await platformsPage(req, v, {
          issued: { said, apiKey: made.apiKey, webhookSecret: made.webhookSecret },
        }),
        201,
      );
    } catch (err) {
      if (!shownRefusal(err)) throw err;
      return sendHtml(
        reply,
        await platformsPage(req, v, { error: formErrorOf(v.p.locale, err), form: b }),
        err.statusCode,
      );
    }
  });

  app.post<{ Params: { platformId: string }; Body: Form }>(
    '/desk/platforms/:platformId/rotate',
    writeRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const v = viewOf(req, reply, s);
      try {
        const rotated = await rotatePlatformKey(req.ctx, deps.platforms, req.params.platformId);
        const name = (await listPlatforms(req.ctx)).find((p) => p.id === rotated.id)?.name ?? rotated.id;
        const said = t(v.p.locale, 'web.desk.platforms.rotated', { name });
        return sendHtml(reply, await platformsPage(req, v, { issued: { said, apiKey: rotated.apiKey } }));
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        return sendHtml(
          reply,
          await platformsPage(req, v, { error: formErrorOf(v.p.locale, err) }),
          err.statusCode,
        );
      }
    },
  );

  app.post<{ Params: { platformId: string }; Body: Form }>(
    '/desk/platforms/:platformId/revoke',
    writeRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      try {
        await revokePlatform(req.ctx, deps.platforms, req.params.platformId);
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        const v = viewOf(req, reply, s);
        return sendHtml(
          reply,
          await platformsPage(req, v, { error: formErrorOf(v.p.locale, err) }),
          err.statusCode,
        );
      }
      return seeOther(reply, '/desk/platforms?done=revoked');
    },
  );
  // ---- policies ----------------------------------------------------------------------------

  /** One form per policy, its English and French texts side by side; a refused one keeps what was typed. */
  const policiesPage = async (
    req: FastifyRequest,
    v: View,
    o: { done?: PolicyKind; error?: FormError; kind?: PolicyKind; form?: Form } = {},
  ) => {
    const l = v.p.locale;
    const all = await listPolicies(req.ctx, deps.returnWindowDays);
    const forms = POLICY_KINDS.map((kind) => {
      const refused = o.kind === kind ? o.error : undefined;
      const fields = (['en', 'fr'] as const)
        .map((lang) => {
          const stored = all.find((p) => p.kind === kind && p.locale === `${lang}-CA`)!;
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
            attrs: ` maxlength="${POLICY_MAX_CHARS}"`,
          });
        })
        .join('');
      return `<form method="post" action="/desk/policies/${kind}" class="card policy-form" id="policy-${kind}">${csrfField(v)}<h2>${say(l, 'web.policies.title', { kind })}</h2>${o.done === kind ? notice(t(l, 'web.desk.policies.saved')) : ''}${formAlert(refused)}
<p><a href="/policies/${kind}">${say(l, 'web.desk.policies.view')}</a></p>${fields}
<button type="submit">${say(l, 'web.desk.policies.save', { kind })}</button></form>`;
    }).join('');
    return deskPage(
      v,
      t(l, 'web.desk.policies.title'),
      `<p>${say(l, 'web.desk.policies.intro')}</p>${forms}`,
    );
  };

  app.get('/desk/policies', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = POLICY_KINDS.find((k) => k === queryOf(req, 'done'));
    return sendHtml(reply, await policiesPage(req, v, done ? { done } : {}));
  });

  app.post<{ Params: { kind: string }; Body: Form }>(
    '/desk/policies/:kind',
    writeRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const kind = POLICY_KINDS.find((k) => k === req.params.kind);
      if (!kind) throw notFound('web.error.notFoundTitle');
      const b = req.body;
      try {
        // Both languages are read before either is saved: a refusal saves neither.
        const texts = (['en', 'fr'] as const).map((lang) => {
          const name = `${kind}-${lang}`;
          try {
            return readForm(savePolicyBody, { kind, locale: `${lang}-CA`, body: one(b[name]) ?? '' });
          } catch (err) {
            // The problem goes under its own language's field.
            if (!(err instanceof AppError) || !err.problems) throw err;
            const problems = err.problems.map((p) => ({ ...p, field: name }));
            throw new AppError(err.code, err.statusCode, err.text, problems);
          }
        });
        for (const input of texts) await savePolicy(req.ctx, input);
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        const v = viewOf(req, reply, s);
        return sendHtml(
          reply,
          await policiesPage(req, v, { kind, error: formErrorOf(v.p.locale, err), form: b }),
          err.statusCode,
        );
      }
      return seeOther(reply, `/desk/policies?done=${kind}#policy-${kind}`);
    },
  );
}
