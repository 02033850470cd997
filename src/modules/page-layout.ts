// The frame of every page a person sees outside the API (account links, OAuth sign-in and
// consent, payment): plain HTML and inline CSS, no script, no referrer, not indexed. Callers
// escape what they put in the body. Every word comes from the catalogues, in the page's
// language: `?lang=` (a link's or the language switch's choice, carried on by the forms in a
// hidden `lang` field), else the person's saved preference where the page knows the person,
// else the request's (Accept-Language, else DEFAULT_LOCALE).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '../contract/format.ts';
import {
  BASE_LOCALE,
  isLocale,
  LOCALES,
  type Locale,
  type MessageKey,
  type MessageValues,
  negotiateLocale,
  t,
} from '../contract/i18n.ts';

const BASE_STYLE = `
  * { box-sizing: border-box; }
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f6f4ef; color: #1f2328; margin: 0; line-height: 1.45; }
  header { background: #1d3b2a; color: #fff; padding: 14px 20px; font-weight: 700; font-size: 1.15rem; display: flex; align-items: center; gap: 14px; }
  header nav { margin-left: auto; font-weight: 400; font-size: .88rem; }
  header nav a { color: #fff; }
  main { max-width: 480px; margin: 32px auto; padding: 0 16px; }
  section { background: #fff; border: 1px solid #e3e1da; border-radius: 12px; padding: 22px 24px; }
  h1 { font-size: 1.3rem; margin: 0 0 12px; }
  label { display: block; margin: 14px 0 5px; font-size: .92rem; font-weight: 500; }
  input { width: 100%; padding: 11px 12px; font: inherit; border: 1px solid #b9bec6; border-radius: 8px; }
  input:focus { outline: 3px solid #9cc3ad; border-color: #2f5d43; }
  button { margin-top: 20px; width: 100%; padding: 12px; font: inherit; font-weight: 600; background: #1d3b2a; color: #fff; border: 0; border-radius: 8px; cursor: pointer; }
  button:hover { background: #2f5d43; }
  .hint { font-size: .85rem; color: #5b6470; }
  .error { color: #8c1d18; background: #fdecea; border: 1px solid #f1b9b4; border-radius: 8px; padding: 10px 12px; font-weight: 600; }
`;

/** The language a page is written in, and what its links and forms carry on. */
export interface PageLang {
  locale: Locale;
  /** The language the URL or the form asked for (`lang`): the page's forms carry it on. */
  asked?: Locale;
  /** The page's own address (a GET), for the language switch; none where it cannot be opened again. */
  here?: string;
}

/** What a request's `?lang=` or form field `lang` asked for, read before validation strips it. */
const askedOf = new WeakMap<FastifyRequest, Locale>();

function readAsked(req: FastifyRequest): Locale | undefined {
  const query = req.query as Record<string, unknown> | undefined;
  const body = req.body as Record<string, unknown> | undefined;
  const fromForm = body && typeof body === 'object' && !Buffer.isBuffer(body) ? body.lang : undefined;
  // `fr`, `fr-ca`, `en-US`: any French asks for fr-CA, any English for en-CA.
  const asked = (value: unknown) =>
    typeof value === 'string' && value.length <= 35 ? negotiateLocale(value) : undefined;
  return asked(fromForm) ?? asked(query?.lang);
}

/**
 * A page route's preValidation hook: a `lang` the URL or the form asks for becomes the
 * request's language (so its errors, pages and refusals speak it) before the body's schema
 * drops the field.
 */
export async function readPageLocale(req: FastifyRequest): Promise<void> {
  const asked = readAsked(req);
  if (!asked) return;
  askedOf.set(req, asked);
  req.ctx.locale = asked;
}

/**
 * The page's language: the one asked for (`lang`), else `known` (the person's saved
 * preference, when the page knows the person), else the request's. It becomes the request's.
 * `here` is the page's own address for the switch (default: the URL of a GET).
 */
export function pageLang(
  req: FastifyRequest,
  o: { known?: string | null; here?: string | null } = {},
): PageLang {
  const asked = askedOf.get(req) ?? readAsked(req);
  const locale = asked ?? (isLocale(o.known) ? o.known : undefined) ?? req.ctx?.locale ?? BASE_LOCALE;
  if (req.ctx) req.ctx.locale = locale;
  const here = o.here === null ? undefined : (o.here ?? (req.method === 'GET' ? req.url : undefined));
  return { locale, ...(asked ? { asked } : {}), ...(here ? { here } : {}) };
}

/** The hidden field that carries the asked language through a form's POST. */
export const langField = (p: PageLang) =>
  p.asked ? `<input type="hidden" name="lang" value="${escapeHtml(p.asked)}">` : '';

/** `href` (a path with its query) with `lang` set. */
export function withLang(href: string, locale: Locale): string {
  const url = new URL(href, 'http://page.invalid');
  url.searchParams.set('lang', locale);
  return url.pathname + url.search;
}

/** The link to the page in each other language, named in that language ("English", "Français"). */
export function languageSwitch(p: PageLang): string {
  if (!p.here) return '';
  const here = p.here;
  const links = LOCALES.filter((l) => l !== p.locale).map(
    (l) =>
      `<a href="${escapeHtml(withLang(here, l))}" lang="${l}" hreflang="${l}">${escapeHtml(t(p.locale, `page.language.${l}`))}</a>`,
  );
  return `<nav aria-label="${escapeHtml(t(p.locale, 'page.language.label'))}">${links.join(' ')}</nav>`;
}

/** The message `key`, escaped: the text of a page. */
export const say = (locale: Locale, key: MessageKey, values?: MessageValues) =>
  escapeHtml(t(locale, key, values));

/**
 * The message `key` as HTML: its words escaped, and each `html` value (markup the caller built
 * and escaped, e.g. `<strong>…</strong>`) put in place of its placeholder.
 */
export function sayHtml(
  locale: Locale,
  key: MessageKey,
  values: MessageValues,
  html: Record<string, string>,
): string {
  const names = Object.keys(html);
  const marks = Object.fromEntries(names.map((name, i) => [name, `\uE000${i}\uE001`]));
  return escapeHtml(t(locale, key, { ...values, ...marks })).replace(
    /\uE000(\d+)\uE001/g,
    (_, i: string) => html[names[Number(i)] as string] ?? '',
  );
}

/** The document around a page's body, in its language. */
export function htmlDocument(p: PageLang, title: string, head: string, body: string): string {
  return `<!doctype html><html lang="${p.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>${head}</head><body>
${body}
</body></html>`;
}

/** A whole page: the shop's header and one card holding `body`; `style` adds the page's own rules. */
export function pageLayout(p: PageLang, title: string, body: string, style = ''): string {
  return htmlDocument(
    p,
    title,
    `<style>${BASE_STYLE}${style}</style>`,
    `<header><span>Portage</span>${languageSwitch(p)}</header>
<main><section>${body}</section></main>`,
  );
}

/** Answers a page: HTML, its CSP, never cached. */
export function sendPage(reply: FastifyReply, status: number, body: string, csp: string) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('cache-control', 'no-store')
    .send(body);
}
