// The language of the small pages a person sees outside the site (account links, OAuth sign-in
// and consent, payment), and their answer; their frame is src/views/small-page.ts. The language: `?lang=` (a link's or the language switch's choice, carried on by the forms in a
// hidden `lang` field), else the person's saved preference where the page knows the person,
// else the request's (Accept-Language, else DEFAULT_LOCALE).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BASE_LOCALE, isLocale, type Locale, negotiateLocale } from '../contract/i18n.ts';

import type { PageLang } from '../views/language.ts';

export { langField, languageSwitch, type PageLang, withLang } from '../views/language.ts';

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

/** Answers a page: HTML, its CSP, never cached. */
export function sendPage(reply: FastifyReply, status: number, body: string, csp: string) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('cache-control', 'no-store')
    .send(body);
}
