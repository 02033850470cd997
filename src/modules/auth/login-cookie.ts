// The cookie that binds an external login's `state` to the browser that started it, against
// login CSRF (docs/decisions.md "Accounts"): without it, an attacker could send a
// victim's browser to the callback URL of the attacker's own login and sign the victim in as
// the attacker. /auth/google/start sets it; the callback accepts the state only with it. The
// route writes and reads it through @fastify/cookie.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';

const LOGIN_COOKIE = 'portage_login';

/** A cookie to set: its name, value and attributes (as reply.setCookie takes them). */
export interface CookieToSet {
  name: string;
  value: string;
  options: CookieSerializeOptions;
}

export interface LoginCookie {
  /** The cookie that binds `state` to the browser. */
  bind(state: string): CookieToSet;
  /** True when the request's cookies carry the binding of `state`. */
  fits(cookies: Record<string, string | undefined>, state: string): boolean;
  /** The cookie that removes it. */
  readonly cleared: CookieToSet;
}

/**
 * The cookie holds an HMAC of the state (it never carries the state itself) under `key`.
 * HttpOnly, SameSite=Lax (sent on the provider's top-level redirect back, not on cross-site
 * subrequests), its Path the callback's and nothing else, Secure on an https deployment, and
 * it lives as long as the login may (`maxAgeSeconds`).
 */
export function createLoginCookie(o: {
  callbackUri: string;
  key: Buffer;
  maxAgeSeconds: number;
}): LoginCookie {
  const callback = new URL(o.callbackUri);
  const options = (maxAge: number): CookieSerializeOptions => ({
    maxAge,
    path: callback.pathname,
    httpOnly: true,
    sameSite: 'lax',
    secure: callback.protocol === 'https:',
  });
  const binding = (state: string) => createHmac('sha256', o.key).update(state).digest();
  return {
    bind: (state) => ({
      name: LOGIN_COOKIE,
      value: binding(state).toString('base64url'),
      options: options(o.maxAgeSeconds),
    }),
    fits(cookies, state) {
      const value = cookies[LOGIN_COOKIE];
      if (!value) return false;
      const expected = binding(state);
      const given = Buffer.from(value, 'base64url');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    cleared: { name: LOGIN_COOKIE, value: '', options: options(0) },
  };
}
