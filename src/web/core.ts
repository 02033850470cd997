// What every page request shares: who is signed in (the session cookie), the page's language,
// the CSRF token of its forms, and the answers pages give (a page, a redirect, a refusal).
//
// - Session: `portage_session` (HttpOnly, SameSite=Lax, Secure on https) holds a random id;
//   cookies are read and written through @fastify/cookie (registered in src/app.ts);
//   src/modules/auth/web-sessions.ts reads it with the user on every page.
// - CSRF: every form carries `csrf`, an HMAC under a key derived from the signing key of the
//   session id, or for a visitor not signed in (the sign-in and registration forms) of a random
//   `portage_visit` cookie. A POST without the right one is refused before its handler runs, so
//   another site cannot post a form in the person's name (SameSite=Lax already keeps the cookie
//   off its requests; the token does not rely on it).
// - Language: `?lang=` (the switch's links) then the `portage_lang` cookie it sets, then the
//   person's saved choice, then Accept-Language, then DEFAULT_LOCALE.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Role } from '../contract/common.ts';
import { forbidden, unauthenticated } from '../contract/errors.ts';
import { isLocale, type Locale, negotiateLocale } from '../contract/i18n.ts';
import type { AuthService } from '../modules/auth/service.ts';
import type { WebUser } from '../modules/auth/web-sessions.ts';
import type { CheckoutDeps } from '../modules/checkout/service.ts';
import type { ImageDeps } from '../modules/images/service.ts';
import type { InvoiceRenderer } from '../modules/invoices/renderer.ts';
import type { OrdersDeps } from '../modules/orders/service.ts';
import type { PageLang } from '../modules/page-layout.ts';
import type { PayoutsDeps } from '../modules/payouts/deps.ts';
import type { PlatformKeys } from '../modules/platforms/service.ts';
import type { SearchEngine } from '../modules/search/service.ts';

export const SESSION_COOKIE = 'portage_session';
const VISIT_COOKIE = 'portage_visit';
const LANG_COOKIE = 'portage_lang';

/** What a page knows of its request. */
export interface View {
  p: PageLang;
  user?: WebUser;
  /** The token every form of the page carries. */
  csrf: string;
  /** The request's path and query: where the sign-in sends the person back. */
  here: string;
}

interface WebState {
  sessionId?: string;
  user?: WebUser;
  visit?: string;
  locale: Locale;
  asked?: Locale;
}

const states = new WeakMap<FastifyRequest, WebState>();

/** The cookie `name` as the request sent it (@fastify/cookie parses; a name sent twice: the first, the most specific). */
export const cookieOf = (req: FastifyRequest, name: string): string | undefined =>
  req.cookies[name] || undefined;

/** A cookie the pages set: its name, its value and its attributes. */
export interface WebCookie {
  name: string;
  value: string;
  options: CookieSerializeOptions;
}

/** Sets `cookie` on the answer (beside any other the answer sets). */
export const addCookie = (reply: FastifyReply, cookie: WebCookie) =>
  reply.setCookie(cookie.name, cookie.value, cookie.options);

/** What the pages are built with: the services' dependencies and the pages' own settings. */
export interface WebDeps {
  auth: AuthService;
  search: SearchEngine;
  commerce: CheckoutDeps & OrdersDeps & { publishableKey: string };
  invoices: InvoiceRenderer;
  platforms: PlatformKeys;
  returnWindowDays: number;
  /** Uploaded product images: their store and public address (the console's gallery). */
  images: ImageDeps;
  /** Sellers' payout accounts, balances, payouts, disputes and statements (docs/payouts.md). */
  payouts: PayoutsDeps;
  settings: WebSettings;
}

export interface WebSettings {
  secure: boolean;
  csrfKey: Buffer;
  sessionMaxAgeSeconds: number;
}

/** A cookie of the pages: the whole site's, HttpOnly, SameSite=Lax, Secure on https, for `maxAgeSeconds` (0: removed). */
export function webCookie(s: WebSettings, name: string, value: string, maxAgeSeconds: number): WebCookie {
  return {
    name,
    value,
    options: { maxAge: maxAgeSeconds, path: '/', httpOnly: true, sameSite: 'lax', secure: s.secure },
  };
}

/** The name the page sections call `webCookie` by. */
export const cookieText = webCookie;

/** Sets up the request's state: its user (when the session stands) and its language. */
export function beginWebRequest(
  req: FastifyRequest,
  reply: FastifyReply,
  s: WebSettings,
  session: { id: string; user: WebUser } | undefined,
) {
  const query = req.query as Record<string, unknown> | undefined;
  const lang =
    typeof query?.lang === 'string' && query.lang.length <= 35 ? negotiateLocale(query.lang) : undefined;
  if (lang) addCookie(reply, webCookie(s, LANG_COOKIE, lang, 365 * 86_400));
  const cookieLang = cookieOf(req, LANG_COOKIE);
  const saved = isLocale(cookieLang) ? cookieLang : undefined;
  const locale = lang ?? saved ?? session?.user.locale ?? req.ctx.locale ?? 'en-CA';
  req.ctx.locale = locale;
  if (session) req.ctx.user = session.user;
  states.set(req, {
    locale,
    ...(lang ? { asked: lang } : {}),
    ...(session ? { sessionId: session.id, user: session.user } : {}),
    visit: cookieOf(req, VISIT_COOKIE),
  });
}

function stateOf(req: FastifyRequest): WebState {
  const state = states.get(req);
  if (!state) throw new Error('a page outside the web plugin');
  return state;
}

export const sessionIdOf = (req: FastifyRequest) => stateOf(req).sessionId;
export const webUserOf = (req: FastifyRequest) => stateOf(req).user;

/** The language the person picked on this request (a form's hidden `lang`, or the switch). */
export function setPageLocale(req: FastifyRequest, reply: FastifyReply, s: WebSettings, locale: Locale) {
  const state = stateOf(req);
  state.locale = locale;
  req.ctx.locale = locale;
  addCookie(reply, webCookie(s, LANG_COOKIE, locale, 365 * 86_400));
}

const sign = (s: WebSettings, what: string) =>
  createHmac('sha256', s.csrfKey).update(what).digest('base64url');

/** The CSRF token of the page's forms; a visitor not signed in gets their `portage_visit` cookie here. */
function csrfOf(req: FastifyRequest, reply: FastifyReply, s: WebSettings): string {
  const state = stateOf(req);
  if (state.sessionId) return sign(s, `session\n${state.sessionId}`);
  if (!state.visit || !/^[A-Za-z0-9_-]{22}$/.test(state.visit)) {
    state.visit = randomBytes(16).toString('base64url');
    addCookie(reply, webCookie(s, VISIT_COOKIE, state.visit, 86_400));
  }
  return sign(s, `visit\n${state.visit}`);
}

/** Whether a form's `csrf` is the one this browser's pages carry. */
export function csrfFits(req: FastifyRequest, s: WebSettings, given: unknown): boolean {
  const state = stateOf(req);
  const what = state.sessionId
    ? `session\n${state.sessionId}`
    : state.visit
      ? `visit\n${state.visit}`
      : undefined;
  if (!what || typeof given !== 'string') return false;
  const expected = Buffer.from(sign(s, what));
  const got = Buffer.from(given);
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/** The page's view of its request. */
export function viewOf(req: FastifyRequest, reply: FastifyReply, s: WebSettings): View {
  const state = stateOf(req);
  // A form posts to its page's own address: after a POST, that address is the page again.
  const here = dropLang(req.url);
  return {
    p: { locale: state.locale, here },
    ...(state.user ? { user: state.user } : {}),
    csrf: csrfOf(req, reply, s),
    here,
  };
}

/** A path and query on this site, from what a form or a link sent (`next`); anything else is refused. */
export function safeLocalPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2000) return undefined;
  let url: URL;
  try {
    url = new URL(value, 'http://page.invalid');
  } catch {
    return undefined;
  }
  // Only a path of our own: never another host, scheme, or a `//host` path.
  if (url.host !== 'page.invalid' || !url.pathname.startsWith('/') || url.pathname.startsWith('//')) {
    return undefined;
  }
  return url.pathname + url.search;
}

function dropLang(path: string): string {
  const url = new URL(path, 'http://page.invalid');
  url.searchParams.delete('lang');
  return url.pathname + url.search;
}

/** A redirect after a form (303: the browser follows with a GET). */
export const seeOther = (reply: FastifyReply, to: string) => reply.code(303).header('location', to).send();

/**
 * The signed-in person a page is for: without a session the page sends them to sign in (401);
 * with another role it is refused (403), as the API's guard does (admins may do everything).
 */
export function signedIn(req: FastifyRequest, roles?: readonly Role[]): WebUser {
  const user = stateOf(req).user;
  if (!user) throw unauthenticated('error.auth.missingToken');
  if (roles && user.role !== 'admin' && !roles.includes(user.role)) {
    throw forbidden('web.error.roleNeeded', { role: roles[0] ?? 'admin' });
  }
  return user;
}
