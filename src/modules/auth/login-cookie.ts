// The cookie that binds an external login's `state` to the browser that started it, against
// login CSRF (docs/decisions.md "Accounts"): without it, an attacker could send a
// victim's browser to the callback URL of the attacker's own login and sign the victim in as
// the attacker. /auth/google/start sets it; the callback accepts the state only with it.
import { createHmac, timingSafeEqual } from 'node:crypto';

const LOGIN_COOKIE = 'portage_login';

export interface LoginCookie {
  /** The Set-Cookie value that binds `state` to the browser. */
  bind(state: string): string;
  /** True when the request's Cookie header carries the binding of `state`. */
  fits(cookieHeader: string | undefined, state: string): boolean;
  /** The Set-Cookie value that removes the cookie. */
  readonly cleared: string;
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
  const attributes = [
    `Path=${callback.pathname}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(callback.protocol === 'https:' ? ['Secure'] : []),
  ].join('; ');
  const binding = (state: string) => createHmac('sha256', o.key).update(state).digest();
  return {
    bind: (state) =>
      `${LOGIN_COOKIE}=${binding(state).toString('base64url')}; Max-Age=${o.maxAgeSeconds}; ${attributes}`,
    fits(cookieHeader, state) {
      const expected = binding(state);
      return cookieValues(cookieHeader, LOGIN_COOKIE).some((value) => {
        const given = Buffer.from(value, 'base64url');
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
    },
    cleared: `${LOGIN_COOKIE}=; Max-Age=0; ${attributes}`,
  };
}

/** Every value of the cookie `name` in a Cookie header (a browser may send one name twice). */
function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return [];
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => pair.slice(name.length + 1));
}
