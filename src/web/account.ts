// The buyer's account: sign in and out, register, orders (tracking, invoice, cancel, a return, a
// review of what was delivered), returns and their decisions, the agents with access (revoke),
// and settings (language, password, the verification email).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { loginBody, registerBody } from '../contract/auth.ts';
import { addToCartBody } from '../contract/cart.ts';
import type { Role } from '../contract/common.ts';
import { AppError, invalid, notFound, problem } from '../contract/errors.ts';
import { escapeHtml } from '../contract/format.ts';
import { isLocale, LOCALES, type Locale, type MessageKey, type MessageValues, t } from '../contract/i18n.ts';
import { listOrdersQuery } from '../contract/orders.ts';
import { RETURN_REASONS, requestReturnBody } from '../contract/returns.ts';
import { submitReviewBody } from '../contract/reviews.ts';
import { saveLocale } from '../modules/auth/sellers.ts';
import { endWebSession, startWebSession } from '../modules/auth/web-sessions.ts';
import * as carts from '../modules/cart/service.ts';
import { sendInvoice } from '../modules/invoices/routes.ts';
import { invoiceOf } from '../modules/invoices/service.ts';
import { listAgents, revokeAgent } from '../modules/oauth/grants.ts';
import * as orders from '../modules/orders/service.ts';
import * as returns from '../modules/returns/service.ts';
import { ownReviewsOf, submitReview } from '../modules/reviews/service.ts';
import { addressPages } from './addresses/routes.ts';
import type { WebDeps } from './core.ts';
import {
  addCookie,
  cookieText,
  SESSION_COOKIE,
  safeLocalPath,
  seeOther,
  sessionIdOf,
  setPageLocale,
  signedIn,
  type View,
  viewOf,
  type WebSettings,
} from './core.ts';
import { amountRows } from './fragments.ts';
import {
  actionButton,
  badge,
  csrfField,
  date,
  dateText,
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

/** After a sign-in: a new session id (nothing from before carries over), its cookie, then the page asked for. */
async function signInAs(
  req: FastifyRequest,
  reply: FastifyReply,
  s: WebSettings,
  user: { id: string; tokenVersion: number },
  next: string,
) {
  const old = sessionIdOf(req);
  if (old) await endWebSession(req.ctx, old);
  const session = await startWebSession(req.ctx, user, s.sessionMaxAgeSeconds);
  addCookie(reply, cookieText(s, SESSION_COOKIE, session.id, s.sessionMaxAgeSeconds));
  return seeOther(reply, next);
}

/** A line a person asked to add to the cart while signed out, carried through the sign-in. */
type Pending = { productId: string; quantity: number };

const pendingOf = (fields: Record<string, unknown>): Pending | undefined => {
  const parsed = addToCartBody.safeParse({ product_id: fields.add, quantity: Number(fields.quantity) });
  return parsed.success ? { productId: parsed.data.product_id, quantity: parsed.data.quantity } : undefined;
};

const pendingFields = (add?: Pending) =>
  add
    ? `<input type="hidden" name="add" value="${escapeHtml(add.productId)}"><input type="hidden" name="quantity" value="${add.quantity}">`
    : '';

const pendingQuery = (next: string, add?: Pending) =>
  new URLSearchParams({
    next,
    ...(add ? { add: add.productId, quantity: String(add.quantity) } : {}),
  }).toString();

/**
 * Adds the line asked for before the sign-in, as the person now signed in (a buyer), in the
 * request that signed them in (its form carried the CSRF token); answers where to go: the
 * product again, saying whether it was added.
 */
async function addPending(
  req: FastifyRequest,
  user: { id: string; email: string; role: Role },
  add: Pending | undefined,
  next: string,
): Promise<string> {
  if (!add || user.role !== 'buyer') return next;
  const product = `/shop/products/${encodeURIComponent(add.productId)}`;
  try {
    await carts.addToCart(
      { ...req.ctx, user: { id: user.id, email: user.email, role: user.role } },
      {
        product_id: add.productId,
        quantity: add.quantity,
      },
    );
    return `${product}?added=1`;
  } catch (err) {
    if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
    return `${product}?added=0`;
  }
}

/** The account's sections; a seller's or an admin's account has no buyer's sections (they answer 403). */
export const accountTabs = (v: View) =>
  tabs(v, t(v.p.locale, 'web.account.sections'), [
    { href: '/account', label: t(v.p.locale, 'web.account.overview') },
    ...(v.user?.role === 'buyer'
      ? [
          { href: '/account/orders', label: t(v.p.locale, 'web.account.orders') },
          { href: '/account/returns', label: t(v.p.locale, 'web.account.returns') },
          { href: '/account/addresses', label: t(v.p.locale, 'web.account.addresses') },
        ]
      : []),
    { href: '/account/agents', label: t(v.p.locale, 'web.account.agents') },
    { href: '/account/settings', label: t(v.p.locale, 'web.account.settings') },
  ]);

/**
 * A refusal of the order page's forms in a person's words: the API's texts name records by id
 * ("order orders:…"), which the page already shows by what they are.
 */
function orderRefusal(l: Locale, err: AppError): FormError {
  const key = err.text.key;
  const said = (k: MessageKey, values?: MessageValues) => ({ message: t(l, k, values), fields: {} });
  if (key === 'error.reviews.alreadyReviewed') return said('web.review.already');
  if (
    key === 'error.returns.openPending' ||
    key === 'error.returns.openApproved' ||
    key === 'error.returns.openRace'
  ) {
    return said('web.return.open');
  }
  if (key === 'error.returns.allReturned') return said('web.return.allReturned');
  if (key === 'error.returns.alreadyReturned') return said('web.return.someReturned');
  if (key === 'error.returns.refundedInFull') return said('web.return.refundedInFull');
  return formErrorOf(l, err);
}

export const orderStatus = (l: Locale, status: string) => badge(l, status, 'web.order.status', { status });

export function accountPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;

  // ---- signing in and out ----------------------------------------------------------------

  const signInPage = (v: View, o: { email?: string; next: string; add?: Pending; error?: FormError }) => {
    const l = v.p.locale;
    return page(v, {
      title: t(l, 'web.signIn.title'),
      narrow: true,
      body: `<h1>${say(l, 'web.signIn.title')}</h1>${o.add ? notice(t(l, 'web.signIn.toAdd')) : ''}<form method="post" action="/account/sign-in" class="card">${csrfField(v)}<input type="hidden" name="next" value="${escapeHtml(o.next)}">${pendingFields(o.add)}${formAlert(o.error)}
${field({ name: 'email', label: t(l, 'web.signIn.email'), type: 'email', value: o.email, required: true, autocomplete: 'username', error: o.error })}
${field({ name: 'password', label: t(l, 'web.signIn.password'), type: 'password', required: true, autocomplete: 'current-password', error: o.error })}
<button type="submit">${say(l, 'web.signIn.submit')}</button></form>
<p>${say(l, 'web.signIn.noAccount')} <a href="/account/register?${pendingQuery(o.next, o.add)}">${say(l, 'web.nav.register')}</a></p>`,
    });
  };

  app.get<{ Querystring: Record<string, string> }>('/account/sign-in', pageRoute, async (req, reply) => {
    const v = viewOf(req, reply, s);
    const next = safeLocalPath(req.query.next) ?? '/account';
    if (v.user) return seeOther(reply, next);
    return sendHtml(reply, signInPage(v, { next, add: pendingOf(req.query) }));
  });

  app.post<{ Body: Record<string, string> }>(
    '/account/sign-in',
    { config: { auth: 'public', limit: 'auth' }, schema: { hide: true } },
    async (req, reply) => {
      const next = safeLocalPath(req.body.next) ?? '/account';
      const add = pendingOf(req.body);
      try {
        const input = readForm(loginBody, { email: req.body.email, password: req.body.password });
        const user = await deps.auth.checkCredentials(req.ctx, input);
        return await signInAs(req, reply, s, user, await addPending(req, user, add, next));
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
        const v = viewOf(req, reply, s);
        return sendHtml(
          reply,
          signInPage(v, { email: req.body.email, next, add, error: formErrorOf(v.p.locale, err) }),
          err.statusCode,
        );
      }
    },
  );

  app.post(
    '/account/sign-out',
    { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
    async (req, reply) => {
      const id = sessionIdOf(req);
      if (id) await endWebSession(req.ctx, id);
      addCookie(reply, cookieText(s, SESSION_COOKIE, '', 0));
      return seeOther(reply, '/');
    },
  );

  const registerPage = (
    v: View,
    o: { email?: string; name?: string; next: string; add?: Pending; error?: FormError },
  ) => {
    const l = v.p.locale;
    return page(v, {
      title: t(l, 'web.register.title'),
      narrow: true,
      body: `<h1>${say(l, 'web.register.title')}</h1><form method="post" action="/account/register" class="card">${csrfField(v)}<input type="hidden" name="next" value="${escapeHtml(o.next)}">${pendingFields(o.add)}${formAlert(o.error)}
${field({ name: 'name', label: t(l, 'web.register.name'), value: o.name, required: true, autocomplete: 'name', error: o.error })}
${field({ name: 'email', label: t(l, 'web.signIn.email'), type: 'email', value: o.email, required: true, autocomplete: 'email', error: o.error })}
${field({ name: 'password', label: t(l, 'web.signIn.password'), type: 'password', required: true, autocomplete: 'new-password', hint: t(l, 'web.register.passwordHint'), error: o.error })}
<button type="submit">${say(l, 'web.register.submit')}</button></form>`,
    });
  };

  app.get<{ Querystring: Record<string, string> }>('/account/register', pageRoute, async (req, reply) => {
    const v = viewOf(req, reply, s);
    return sendHtml(
      reply,
      registerPage(v, { next: safeLocalPath(req.query.next) ?? '/account', add: pendingOf(req.query) }),
    );
  });

  app.post<{ Body: Record<string, string> }>(
    '/account/register',
    { config: { auth: 'public', limit: 'auth' }, schema: { hide: true } },
    async (req, reply) => {
      const next = safeLocalPath(req.body.next) ?? '/account';
      const b = req.body;
      const add = pendingOf(b);
      try {
        const input = readForm(registerBody, { email: b.email, password: b.password, name: b.name });
        // The new account keeps the language its pages were read in (its emails follow it).
        const user = await deps.auth.createBuyer(req.ctx, input, req.ctx.locale);
        return await signInAs(req, reply, s, user, await addPending(req, user, add, next));
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        const v = viewOf(req, reply, s);
        return sendHtml(
          reply,
          registerPage(v, { email: b.email, name: b.name, next, add, error: formErrorOf(v.p.locale, err) }),
          err.statusCode,
        );
      }
    },
  );

  // ---- the account -------------------------------------------------------------------------

  app.get<{ Querystring: { done?: string } }>('/account', pageRoute, async (req, reply) => {
    const user = signedIn(req);
    const v = viewOf(req, reply, s);
    const l = v.p.locale;
    const recent =
      user.role === 'buyer' || user.role === 'admin'
        ? await orders.listOrders(req.ctx, listOrdersQuery.parse({ limit: 5 }), 'buyer')
        : undefined;
    return sendHtml(
      reply,
      page(v, {
        title: t(l, 'web.account.title'),
        body: `<h1>${say(l, 'web.account.hello', { name: user.name })}</h1>${accountTabs(v)}
${user.emailVerified ? '' : `<div class="card"><p>${say(l, 'web.account.unverified', { email: user.email })}</p>${actionButton(v, { action: '/account/verification', label: t(l, 'web.account.resend'), kind: 'secondary' })}</div>`}
<div class="card"><p>${say(l, 'web.account.signedInAs', { email: user.email, role: user.role })}</p></div>
${recent ? `<h2>${say(l, 'web.account.recentOrders')}</h2>${orderTable(v, recent.orders)}` : ''}`,
      }),
    );
  });

  app.post(
    '/account/verification',
    { config: { auth: 'public', limit: 'auth' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req);
      const v = viewOf(req, reply, s);
      const l = v.p.locale;
      let message: string;
      try {
        await deps.auth.resendVerification(req.ctx);
        message = t(l, 'web.account.resent');
      } catch (err) {
        if (!shownRefusal(err) && !(err instanceof AppError && err.statusCode === 429)) throw err;
        message = formErrorOf(l, err as AppError).message;
      }
      return sendHtml(
        reply,
        page(v, {
          title: t(l, 'web.account.title'),
          narrow: true,
          body: `${notice(message)}<p><a href="/account">${say(l, 'web.account.back')}</a></p>`,
        }),
      );
    },
  );

  // ---- orders ------------------------------------------------------------------------------

  const orderTable = (v: View, list: Awaited<ReturnType<typeof orders.listOrders>>['orders']) => {
    const l = v.p.locale;
    if (!list.length)
      return `<div class="card"><p>${say(l, 'web.orders.none')}</p><p><a href="/">${say(l, 'web.cart.browse')}</a></p></div>`;
    return `<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${say(l, 'web.orders.order')}</th><th scope="col">${say(l, 'web.orders.date')}</th><th scope="col">${say(l, 'web.orders.status')}</th><th scope="col" class="num">${say(l, 'web.orders.items')}</th><th scope="col" class="num">${say(l, 'web.orders.total')}</th></tr></thead><tbody>${list
      .map(
        (o) =>
          `<tr><td><a class="order-number" href="/account/orders/${encodeURIComponent(o.id)}">${escapeHtml(o.number)}</a></td><td>${date(v, o.createdAt)}</td><td>${orderStatus(l, o.status)}</td><td class="num">${o.itemCount}</td><td class="num">${money(v, o.totalAmountCents)}</td></tr>`,
      )
      .join('')}</tbody></table></div>`;
  };

  app.get<{ Querystring: Record<string, string> }>('/account/orders', pageRoute, async (req, reply) => {
    signedIn(req, ['buyer']);
    const v = viewOf(req, reply, s);
    const l = v.p.locale;
    const pageNo = Math.max(1, Math.min(1000, Number.parseInt(req.query.page ?? '1', 10) || 1));
    const list = await orders.listOrders(
      req.ctx,
      listOrdersQuery.parse({ limit: 20, offset: (pageNo - 1) * 20 }),
      'buyer',
    );
    const more = list.total > pageNo * 20;
    return sendHtml(
      reply,
      page(v, {
        title: t(l, 'web.account.orders'),
        body: `<h1>${say(l, 'web.account.orders')}</h1>${accountTabs(v)}${orderTable(v, list.orders)}<nav class="pager" aria-label="${say(l, 'web.search.pages')}">${pageNo > 1 ? `<a href="/account/orders?page=${pageNo - 1}">${say(l, 'web.search.previous')}</a>` : ''}${more ? `<a href="/account/orders?page=${pageNo + 1}">${say(l, 'web.search.next')}</a>` : ''}</nav>`,
      }),
    );
  });

  // A purchase's page: where the order links given to agent platforms lead (ACP's and UCP's
  // permalink_url). A person signed out is sent to sign in and brought back here.
  app.get<{ Params: { checkoutId: string } }>(
    '/account/purchases/:checkoutId',
    pageRoute,
    async (req, reply) => {
      signedIn(req, ['buyer']);
      const v = viewOf(req, reply, s);
      const l = v.p.locale;
      const bought = await orders.ordersOfPurchase(req.ctx, req.params.checkoutId);
      if (bought.length === 0) throw notFound('error.orders.purchaseNotFound');
      if (bought.length === 1) return seeOther(reply, `/account/orders/${encodeURIComponent(bought[0]!.id)}`);
      return sendHtml(
        reply,
        page(v, {
          title: t(l, 'web.account.purchase'),
          body: `<h1>${say(l, 'web.account.purchase')}</h1>${accountTabs(v)}<p>${say(l, 'web.account.purchaseSellers', { n: bought.length })}</p>${orderTable(v, bought)}`,
        }),
      );
    },
  );

  /** Which form of the order page a refusal belongs to: it is shown in that form only. */
  type OrderForm = 'cancel' | 'return' | `review:${string}`;

  const orderPage = async (
    req: FastifyRequest,
    v: View,
    id: string,
    o: { error?: FormError; form?: OrderForm; done?: string } = {},
  ) => {
    const l = v.p.locale;
    const order = await orders.getOrder(req.ctx, id);
    const me = signedIn(req);
    if (order.buyerId !== me.id) throw notFound('error.orders.notFound', { id });
    const oid = encodeURIComponent(order.id);
    const alertOf = (form: OrderForm) => (o.form === form ? formAlert(o.error) : '');
    const errorOf = (form: OrderForm) => (o.form === form ? o.error : undefined);
    const tracking = order.trackingNumber
      ? `<p>${say(l, 'web.order.tracking', { carrier: order.carrier ?? '', number: order.trackingNumber })}${trackingUrl(order.carrier, order.trackingNumber) ? ` · <a href="${escapeHtml(trackingUrl(order.carrier, order.trackingNumber)!)}" rel="noreferrer">${say(l, 'web.order.track')}</a>` : ''}</p>`
      : '';
    const items = order.items
      .map(
        (i) =>
          `<tr><td><a href="/shop/products/${escapeHtml(i.productId)}">${escapeHtml(i.name)}</a></td><td class="num">${i.quantity}</td><td class="num">${money(v, i.unitPriceCents)}</td><td class="num">${money(v, i.unitPriceCents * i.quantity)}</td></tr>`,
      )
      .join('');
    const cancel =
      order.status === 'pending' || order.status === 'confirmed'
        ? `<form method="post" action="/account/orders/${oid}/cancel" class="card">${csrfField(v)}<h2>${say(l, 'web.order.cancelTitle')}</h2>${alertOf('cancel')}${field({ name: 'reason', label: t(l, 'web.order.cancelReason'), attrs: ' maxlength="500"', error: errorOf('cancel') })}<button type="submit" class="danger">${say(l, 'web.order.cancel')}</button></form>`
        : '';
    const delivered = order.status === 'delivered';
    // A cancelled order is refunded in full by its cancellation: its status says so already.
    const refundedInFull = order.status !== 'cancelled' && order.refundedCents >= order.totalAmountCents;
    const refundState =
      order.status === 'cancelled' || order.refundedCents === 0
        ? ''
        : refundedInFull
          ? ` ${orderStatus(l, 'refunded')}`
          : ` · ${say(l, 'web.order.partlyRefunded', { amount: money(v, order.refundedCents) })}`;
    const [asked, reviewed] = delivered
      ? await Promise.all([
          returns.returnsOfOwnOrder(req.ctx, order.id),
          ownReviewsOf(
            req.ctx,
            order.items.map((i) => i.productId),
          ),
        ])
      : [[], []];
    const open = asked.some((r) => r.status === 'pending' || r.status === 'approved');
    const returned = new Set(asked.filter((r) => r.status !== 'rejected').flatMap((r) => r.items));
    const left = order.items.filter((i) => !returned.has(i.productId));
    const closesAt =
      order.deliveredAt === null
        ? undefined
        : returns.returnWindowClosesAt(new Date(order.deliveredAt * 1000), deps.returnWindowDays);
    const windowOpen = closesAt !== undefined && req.ctx.now() <= closesAt;
    const returnList = asked.length
      ? `<div class="card"><h2>${say(l, 'web.return.yours')}</h2><ul>${asked
          .map(
            (r) =>
              `<li>${say(l, 'web.return.asked', { date: dateText(v, r.created_at), status: t(l, 'web.return.status', { status: r.status }) })}${r.refund_amount_cents ? ` · ${say(l, 'web.return.refunded', { amount: money(v, r.refund_amount_cents) })}` : ''}</li>`,
          )
          .join('')}</ul></div>`
      : '';
    // The form only while a return can still be asked: none open, something left to return and
    // to refund, inside the window. Otherwise what happened is said instead.
    const returnForm =
      !delivered || open || refundedInFull || left.length === 0
        ? ''
        : !windowOpen
          ? `<p class="muted">${say(l, 'web.return.windowClosed', { date: dateText(v, Math.floor(closesAt!.getTime() / 1000)) })}</p>`
          : `<form method="post" action="/account/orders/${oid}/return" class="card">${csrfField(v)}<h2>${say(l, 'web.return.title')}</h2>${alertOf('return')}
${selectField({ name: 'reason', label: t(l, 'web.return.reason'), required: true, error: errorOf('return'), options: RETURN_REASONS.map((r) => ({ value: r, label: t(l, 'web.return.reasonName', { reason: r }) })) })}
${left.length > 1 ? `<fieldset><legend>${say(l, 'web.return.items')}</legend>${left.map((i) => `<label class="check"><input type="checkbox" name="items" value="${escapeHtml(i.productId)}">${escapeHtml(i.name)}</label>`).join('')}<p class="hint">${say(l, 'web.return.itemsHint')}</p></fieldset>` : ''}
${textArea({ name: 'description', label: t(l, 'web.return.description'), error: errorOf('return'), attrs: ' maxlength="2000"' })}
<button type="submit">${say(l, 'web.return.submit')}</button></form>`;
    const reviewOf = new Map(reviewed.map((r) => [r.product_id, r]));
    const reviewForms = delivered
      ? order.items
          .map((i) => {
            const mine = reviewOf.get(i.productId);
            if (mine) {
              return `<div class="card"><h2>${say(l, 'web.review.yours', { name: i.name })}</h2><p>${say(l, 'web.review.stars', { rating: mine.rating })}${mine.title ? ` · <strong>${escapeHtml(mine.title)}</strong>` : ''}</p>${mine.comment ? `<p>${escapeHtml(mine.comment)}</p>` : ''}<p>${badge(l, mine.status, 'web.review.state', { status: mine.status })}</p></div>`;
            }
            const form: OrderForm = `review:${i.productId}`;
            return `<form method="post" action="/account/orders/${oid}/review" class="card">${csrfField(v)}<input type="hidden" name="product_id" value="${escapeHtml(i.productId)}"><h2>${say(l, 'web.review.title', { name: i.name })}</h2>${alertOf(form)}
${selectField({ name: 'rating', label: t(l, 'web.review.rating'), required: true, error: errorOf(form), options: [5, 4, 3, 2, 1].map((n) => ({ value: String(n), label: t(l, 'web.search.stars', { n }) })) })}
${field({ name: 'title', label: t(l, 'web.review.heading'), attrs: ' maxlength="120"', error: errorOf(form) })}${textArea({ name: 'comment', label: t(l, 'web.review.comment'), attrs: ' maxlength="5000"', error: errorOf(form) })}
<button type="submit" class="secondary">${say(l, 'web.review.submit')}</button></form>`;
          })
          .join('')
      : '';
    const a = order.shippingAddress;
    // A refusal of a form no longer shown (the return asked in another tab, say) is said at the top.
    const formOnPage = (form: OrderForm | undefined) =>
      form === 'cancel'
        ? cancel !== ''
        : form === 'return'
          ? returnForm.startsWith('<form')
          : delivered &&
            order.items.some((i) => form === `review:${i.productId}` && !reviewOf.has(i.productId));
    const topAlert = o.error && !formOnPage(o.form) ? formAlert(o.error) : '';
    return page(v, {
      title: t(l, 'web.order.title', { id: order.number }),
      body: `<h1>${say(l, 'web.order.title', { id: order.number })}</h1>${accountTabs(v)}${notice(o.done)}${topAlert}
<div class="card"><p>${orderStatus(l, order.status)}${refundState} · ${say(l, 'web.order.placed', { date: dateText(v, order.createdAt) })}</p>
${order.status === 'cancelled' ? '' : `<p>${say(l, 'web.order.estimated', { date: dateText(v, order.estimatedDelivery) })}</p>`}${tracking}
<p>${say(l, 'web.order.shipTo', { street: a.street, city: a.city, province: provinceName(l, a.province), postalCode: a.postalCode })}</p>
<p><a href="/account/orders/${oid}/invoice">${say(l, 'web.order.invoice')}</a></p></div>
<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${say(l, 'web.cart.product')}</th><th scope="col" class="num">${say(l, 'web.cart.quantity')}</th><th scope="col" class="num">${say(l, 'web.cart.price')}</th><th scope="col" class="num">${say(l, 'web.cart.lineTotal')}</th></tr></thead><tbody>${items}</tbody></table></div>
<div class="card totals">${amountRows(l, { ...order, totalCents: order.totalAmountCents }, order.refundedCents ? [{ label: t(l, 'web.order.refunded'), cents: order.refundedCents }] : [])}</div>
${cancel}${returnList}${returnForm}${reviewForms}`,
    });
  };

  app.get<{ Params: { orderId: string } }>('/account/orders/:orderId', pageRoute, async (req, reply) => {
    signedIn(req, ['buyer']);
    const v = viewOf(req, reply, s);
    const done = (req.query as { done?: string }).done;
    const l = v.p.locale;
    const said =
      done === 'cancelled'
        ? t(l, 'web.order.cancelled')
        : done === 'return'
          ? t(l, 'web.return.sent')
          : done === 'review-published'
            ? t(l, 'web.review.published')
            : done === 'review-held'
              ? t(l, 'web.review.held')
              : undefined;
    return sendHtml(reply, await orderPage(req, v, req.params.orderId, { done: said }));
  });

  app.get<{ Params: { orderId: string } }>(
    '/account/orders/:orderId/invoice',
    pageRoute,
    async (req, reply) => {
      signedIn(req);
      const l = viewOf(req, reply, s).p.locale;
      reply.header('content-security-policy', "default-src 'none'");
      return sendInvoice(reply, await invoiceOf(req.ctx, deps.invoices, req.params.orderId, l));
    },
  );

  const orderAction = <R>(
    path: string,
    act: (
      req: FastifyRequest<{ Params: { orderId: string }; Body: Record<string, string | string[]> }>,
    ) => Promise<R>,
    done: (result: R) => string,
    limit: 'orders' | 'returns' | 'reviews',
    formOf: (body: Record<string, string | string[]>) => OrderForm,
  ) =>
    app.post<{ Params: { orderId: string }; Body: Record<string, string | string[]> }>(
      `/account/orders/:orderId/${path}`,
      { config: { auth: 'public', limit }, schema: { hide: true } },
      async (req, reply) => {
        signedIn(req, ['buyer']);
        let result: R;
        try {
          result = await act(req);
        } catch (err) {
          if (!shownRefusal(err)) throw err;
          const v = viewOf(req, reply, s);
          return sendHtml(
            reply,
            await orderPage(req, v, req.params.orderId, {
              error: orderRefusal(v.p.locale, err),
              form: formOf(req.body ?? {}),
            }),
            err.statusCode,
          );
        }
        return seeOther(
          reply,
          `/account/orders/${encodeURIComponent(req.params.orderId)}?done=${done(result)}`,
        );
      },
    );

  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  orderAction(
    'cancel',
    (req) =>
      orders.cancelOrder(req.ctx, deps.commerce, req.params.orderId, one(req.body.reason) || undefined),
    () => 'cancelled',
    'orders',
    () => 'cancel',
  );
  orderAction(
    'return',
    (req) => {
      const items = req.body.items === undefined ? undefined : ([] as string[]).concat(req.body.items);
      const description = one(req.body.description)?.trim();
      return returns.requestReturn(
        req.ctx,
        { ...deps.commerce, returnWindowDays: deps.returnWindowDays },
        readForm(requestReturnBody, {
          order_id: req.params.orderId,
          reason: one(req.body.reason),
          ...(description ? { description } : {}),
          ...(items?.length ? { items } : {}),
        }),
      );
    },
    () => 'return',
    'returns',
    () => 'return',
  );
  orderAction(
    'review',
    (req) =>
      submitReview(
        req.ctx,
        readForm(submitReviewBody, {
          product_id: one(req.body.product_id),
          rating: Number(one(req.body.rating)),
          title: one(req.body.title) ?? '',
          comment: one(req.body.comment) ?? '',
          order_id: req.params.orderId,
        }),
      ),
    (review) => (review.published ? 'review-published' : 'review-held'),
    'reviews',
    (body) => `review:${one(body.product_id) ?? ''}`,
  );

  // ---- returns -----------------------------------------------------------------------------

  app.get('/account/returns', pageRoute, async (req, reply) => {
    signedIn(req, ['buyer']);
    const v = viewOf(req, reply, s);
    const l = v.p.locale;
    const list = await returns.listReturns(req.ctx, { limit: 50, offset: 0 }, 'buyer');
    const rows = list.returns
      .map(
        (r) =>
          `<tr><td data-label="${say(l, 'web.orders.order')}"><a href="/account/orders/${encodeURIComponent(r.order_id)}">${escapeHtml(r.order_id)}</a></td><td data-label="${say(l, 'web.orders.date')}">${date(v, r.created_at)}</td><td data-label="${say(l, 'web.return.reason')}">${say(l, 'web.return.reasonName', { reason: r.reason })}</td><td data-label="${say(l, 'web.orders.status')}">${badge(l, r.status, 'web.return.status', { status: r.status })}</td><td class="num" data-label="${say(l, 'web.return.refund')}">${money(v, r.refund_amount_cents ?? r.estimated_refund_amount_cents)}</td></tr>`,
      )
      .join('');
    return sendHtml(
      reply,
      page(v, {
        title: t(l, 'web.account.returns'),
        body: `<h1>${say(l, 'web.account.returns')}</h1>${accountTabs(v)}${
          list.returns.length
            ? `<div class="table-wrap" tabindex="0"><table class="stack"><thead><tr><th scope="col">${say(l, 'web.orders.order')}</th><th scope="col">${say(l, 'web.orders.date')}</th><th scope="col">${say(l, 'web.return.reason')}</th><th scope="col">${say(l, 'web.orders.status')}</th><th scope="col" class="num">${say(l, 'web.return.refund')}</th></tr></thead><tbody>${rows}</tbody></table></div>`
            : `<div class="card"><p>${say(l, 'web.return.none')}</p></div>`
        }`,
      }),
    );
  });

  // ---- agents ------------------------------------------------------------------------------

  app.get('/account/agents', pageRoute, async (req, reply) => {
    signedIn(req);
    const v = viewOf(req, reply, s);
    const l = v.p.locale;
    const { agents } = await listAgents(req.ctx);
    const done = (req.query as { done?: string }).done;
    return sendHtml(
      reply,
      page(v, {
        title: t(l, 'web.account.agents'),
        body: `<h1>${say(l, 'web.account.agents')}</h1>${accountTabs(v)}${done ? notice(t(l, 'web.agents.revoked')) : ''}<p>${say(l, 'web.agents.intro')}</p>${
          agents.length
            ? `<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${say(l, 'web.agents.name')}</th><th scope="col">${say(l, 'web.agents.scopes')}</th><th scope="col">${say(l, 'web.agents.lastUsed')}</th><th scope="col"><span class="visually-hidden">${say(l, 'web.agents.actions')}</span></th></tr></thead><tbody>${agents
                .map(
                  (a) =>
                    `<tr><td>${escapeHtml(a.name)}</td><td>${escapeHtml(a.scopes.join(', '))}</td><td>${a.lastUsedAt ? date(v, a.lastUsedAt) : say(l, 'web.agents.never')}</td><td>${actionButton(v, { action: '/account/agents/revoke', label: t(l, 'web.agents.revoke'), kind: 'danger', fields: { clientId: a.clientId } })}</td></tr>`,
                )
                .join('')}</tbody></table></div>`
            : `<div class="card"><p>${say(l, 'web.agents.none')}</p></div>`
        }`,
      }),
    );
  });

  app.post<{ Body: Record<string, string> }>(
    '/account/agents/revoke',
    { config: { auth: 'public', limit: 'orders' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req);
      await revokeAgent(req.ctx, String(req.body.clientId ?? ''));
      return seeOther(reply, '/account/agents?done=1');
    },
  );

  // ---- settings ----------------------------------------------------------------------------

  const settingsPage = (v: View, o: { error?: FormError; done?: string } = {}) => {
    const l = v.p.locale;
    return page(v, {
      title: t(l, 'web.account.settings'),
      body: `<h1>${say(l, 'web.account.settings')}</h1>${accountTabs(v)}${notice(o.done)}
<form method="post" action="/account/settings/locale" class="card">${csrfField(v)}<h2>${say(l, 'web.settings.language')}</h2>
${selectField({ name: 'locale', label: t(l, 'web.settings.languageLabel'), value: v.user?.locale ?? l, options: LOCALES.map((x) => ({ value: x, label: t(l, `page.language.${x}`) })) })}
<p class="hint">${say(l, 'web.settings.languageHint')}</p><button type="submit">${say(l, 'web.settings.save')}</button></form>
<form method="post" action="/account/settings/password" class="card">${csrfField(v)}<h2>${say(l, 'web.settings.password')}</h2>${formAlert(o.error)}
${field({ name: 'currentPassword', label: t(l, 'web.settings.currentPassword'), type: 'password', required: true, autocomplete: 'current-password', error: o.error })}
${field({ name: 'newPassword', label: t(l, 'web.settings.newPassword'), type: 'password', required: true, autocomplete: 'new-password', hint: t(l, 'web.register.passwordHint'), error: o.error })}
<p class="hint">${say(l, 'web.settings.passwordHint')}</p><button type="submit">${say(l, 'web.settings.changePassword')}</button></form>`,
    });
  };

  app.get('/account/settings', pageRoute, async (req, reply) => {
    signedIn(req);
    const v = viewOf(req, reply, s);
    const done = (req.query as { done?: string }).done;
    return sendHtml(
      reply,
      settingsPage(v, {
        done: done
          ? t(v.p.locale, done === 'password' ? 'web.settings.passwordChanged' : 'web.settings.saved')
          : undefined,
      }),
    );
  });

  app.post<{ Body: Record<string, string> }>(
    '/account/settings/locale',
    { config: { auth: 'public', limit: 'orders' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req);
      const locale = req.body.locale;
      if (!isLocale(locale))
        throw invalid('web.form.fix', undefined, [problem('locale', 'web.settings.unknownLocale')]);
      await saveLocale(req.ctx, locale, deps.auth.forget);
      setPageLocale(req, reply, s, locale);
      return seeOther(reply, '/account/settings?done=locale');
    },
  );

  app.post<{ Body: Record<string, string> }>(
    '/account/settings/password',
    { config: { auth: 'public', limit: 'auth' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req);
      try {
        const input = readForm(
          z.object({ currentPassword: loginBody.shape.password, newPassword: registerBody.shape.password }),
          req.body,
        );
        const user = await deps.auth.changePassword(req.ctx, input);
        // Every other session and token ended with the old password; this browser goes on.
        return await signInAs(req, reply, s, user, '/account/settings?done=password');
      } catch (err) {
        if (!shownRefusal(err)) throw err;
        const v = viewOf(req, reply, s);
        return sendHtml(reply, settingsPage(v, { error: formErrorOf(v.p.locale, err) }), err.statusCode);
      }
    },
  );

  addressPages(app, deps, accountTabs);
}

/** The carrier's tracking page for the carriers Canadians use; none for another carrier. */
function trackingUrl(carrier: string | null, number: string): string | undefined {
  const n = encodeURIComponent(number);
  switch ((carrier ?? '').toLowerCase().replace(/[^a-z]/g, '')) {
    case 'canadapost':
    case 'postescanada':
      return `https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=${n}`;
    case 'purolator':
      return `https://www.purolator.com/en/shipping/tracker?pin=${n}`;
    case 'ups':
      return `https://www.ups.com/track?tracknum=${n}`;
    case 'fedex':
      return `https://www.fedex.com/fedextrack/?trknbr=${n}`;
    case 'dhl':
      return `https://www.dhl.com/ca-en/home/tracking.html?tracking-id=${n}`;
    default:
      return undefined;
  }
}
