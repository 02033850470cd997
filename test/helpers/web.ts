// A person's browser over Fastify's inject, for the pages (src/web): it keeps cookies, reads the
// CSRF token from the page it is on, posts forms as a browser does (urlencoded) and follows 303s.
// The Chromium tests (*.browser.test.ts) cover what a real browser adds.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

export interface Page {
  status: number;
  /** Where the browser ended (after redirects). */
  url: string;
  html: string;
  headers: Record<string, string | string[] | number | undefined>;
}

export class Browser {
  private readonly cookies = new Map<string, string>();
  /** The page the browser is on: its forms' CSRF token is the one posted. */
  last?: Page;

  constructor(
    private readonly app: FastifyInstance,
    private readonly headers: Record<string, string> = {},
  ) {}

  private keep(setCookie: string | string[] | number | undefined) {
    for (const c of setCookie === undefined
      ? []
      : Array.isArray(setCookie)
        ? setCookie
        : [String(setCookie)]) {
      const [pair = '', ...attrs] = c.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private async request(
    method: 'GET' | 'POST',
    url: string,
    form?: URLSearchParams | { payload: Buffer; contentType: string },
    follow = true,
  ): Promise<Page> {
    const raw = form instanceof URLSearchParams ? undefined : form;
    let res = await this.app.inject({
      method,
      url,
      headers: {
        ...this.headers,
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(form ? { 'content-type': raw?.contentType ?? 'application/x-www-form-urlencoded' } : {}),
      },
      payload: raw ? raw.payload : form?.toString(),
    });
    this.keep(res.headers['set-cookie']);
    let at = url;
    for (let hops = 0; follow && res.statusCode >= 301 && res.statusCode <= 303 && hops < 5; hops++) {
      at = String(res.headers.location);
      if (/^https?:/.test(at)) at = new URL(at).pathname + new URL(at).search;
      res = await this.app.inject({
        method: 'GET',
        url: at,
        headers: {
          ...this.headers,
          ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        },
      });
      this.keep(res.headers['set-cookie']);
    }
    const page = { status: res.statusCode, url: at, html: res.body, headers: res.headers };
    if (String(res.headers['content-type'] ?? '').startsWith('text/html')) this.last = page;
    return page;
  }

  get(url: string, o: { follow?: boolean } = {}) {
    return this.request('GET', url, undefined, o.follow ?? true);
  }

  /** The CSRF token of the page the browser is on. */
  csrf(): string {
    const m = this.last?.html.match(/name="csrf" value="([^"]+)"/);
    if (!m?.[1]) throw new Error(`no form on ${this.last?.url}`);
    return m[1];
  }

  /** Posts a form of the current page (its CSRF token added unless `csrf` is given). */
  post(
    url: string,
    fields: Record<string, string | string[]>,
    o: { follow?: boolean; csrf?: string | null } = {},
  ) {
    const form = new URLSearchParams();
    const csrf = o.csrf === undefined ? this.csrf() : o.csrf;
    if (csrf !== null) form.append('csrf', csrf);
    for (const [k, v] of Object.entries(fields))
      for (const one of ([] as string[]).concat(v)) form.append(k, one);
    return this.request('POST', url, form, o.follow ?? true);
  }

  /** Posts a multipart body (a file form), with the browser's cookies. */
  upload(url: string, body: { payload: Buffer; contentType: string }, o: { follow?: boolean } = {}) {
    return this.request('POST', url, body, o.follow ?? true);
  }

  /** Signs in through the sign-in page. */
  async signIn(who: { email: string; password: string }) {
    await this.get('/account/sign-in');
    const page = await this.post('/account/sign-in', {
      email: who.email,
      password: who.password,
      next: '/account',
    });
    expect(page.status, page.html.slice(0, 500)).toBe(200);
    expect(page.url).toBe('/account');
    return page;
  }
}

/** The named entities pages write; numeric ones (&#60;, what html`...` writes) are decoded by number. */
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', quot: '"', amp: '&' };

/** The visible text of some HTML (tags dropped, entities undone, spaces squeezed). */

export function textOf(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(
      /&(lt|gt|quot|amp|#\d+);/g,
      (_, e: string) => ENTITIES[e] ?? String.fromCharCode(Number(e.slice(1))),
    )
    .replace(/\s+/g, ' ')
    .trim();
}
