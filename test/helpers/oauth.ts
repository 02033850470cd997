// The OAuth dance against the real pages, through inject: register a client, open the
// authorization, sign in, consent, exchange the code. Each step is also usable alone.
import { createHash, randomBytes } from 'node:crypto';
import type { AgentScope } from '../../src/contract/scopes.ts';
import type { Answer, Api, SignedIn } from './app.ts';

export const REDIRECT = 'http://127.0.0.1:8123/callback';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export async function registerClient(
  api: Api,
  metadata: Record<string, unknown> = {},
): Promise<{ clientId: string; body: Record<string, unknown> }> {
  const res = await api.post('/oauth/register', {
    client_name: 'Shopping Helper',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
    ...metadata,
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { clientId: res.body.client_id, body: res.body };
}

export function authorizeUrl(o: {
  clientId: string;
  challenge?: string;
  method?: string;
  redirectUri?: string;
  scope?: string;
  state?: string;
  resource?: string;
}): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: o.clientId,
    redirect_uri: o.redirectUri ?? REDIRECT,
    state: o.state ?? 'state-123',
  });
  if (o.challenge !== undefined) q.set('code_challenge', o.challenge);
  if (o.method !== undefined) q.set('code_challenge_method', o.method);
  if (o.scope !== undefined) q.set('scope', o.scope);
  if (o.resource !== undefined) q.set('resource', o.resource);
  return `/oauth/authorize?${q}`;
}

export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];

export function cookieOf(res: Answer): string {
  const set = res.headers['set-cookie'];
  const line = (Array.isArray(set) ? set : [String(set)]).find((c) => c.startsWith('portage_oauth='));
  if (!line) throw new Error('no portage_oauth cookie');
  return line.split(';')[0]!;
}

/** Opens the authorization and signs in: answers the cookie and the consent page. */
export async function signInToConsent(api: Api, url: string, who: SignedIn) {
  const opened = await api.get(url);
  if (opened.status !== 200) throw new Error(`authorize: ${opened.status} ${opened.body}`);
  const cookie = cookieOf(opened);
  const signIn = await api.post(
    '/oauth/sign-in',
    form({ csrf: csrfOf(opened.body)!, email: who.email, password: who.password }),
    { ...FORM, cookie },
  );
  if (signIn.status !== 303) throw new Error(`sign-in: ${signIn.status} ${signIn.body}`);
  // Signing in renews the pending authorization's id (its cookie) and CSRF token.
  const signedIn = cookieOf(signIn);
  const consent = await api.get('/oauth/consent', { cookie: signedIn });
  return { cookie: signedIn, consent };
}

/** The whole dance: answers the code (and the redirect it came on). */
export async function authorize(
  api: Api,
  who: SignedIn,
  o: { clientId: string; challenge: string; scope?: string; redirectUri?: string; resource?: string },
): Promise<{ code: string; location: URL }> {
  const { cookie, consent } = await signInToConsent(
    api,
    authorizeUrl({ ...o, method: 'S256', resource: o.resource ?? 'http://portage.test/mcp' }),
    who,
  );
  const answered = await api.post(
    '/oauth/consent',
    form({ csrf: csrfOf(consent.body)!, decision: 'allow' }),
    {
      ...FORM,
      cookie,
    },
  );
  if (answered.status !== 303) throw new Error(`consent: ${answered.status} ${answered.body}`);
  const location = new URL(String(answered.headers.location));
  return { code: location.searchParams.get('code')!, location };
}

export async function exchange(
  api: Api,
  o: { clientId: string; code: string; verifier: string; redirectUri?: string },
): Promise<Answer> {
  return api.post(
    '/oauth/token',
    form({
      grant_type: 'authorization_code',
      code: o.code,
      client_id: o.clientId,
      redirect_uri: o.redirectUri ?? REDIRECT,
      code_verifier: o.verifier,
    }),
    FORM,
  );
}

export async function refresh(api: Api, o: { clientId: string; refreshToken: string }): Promise<Answer> {
  return api.post(
    '/oauth/token',
    form({ grant_type: 'refresh_token', refresh_token: o.refreshToken, client_id: o.clientId }),
    FORM,
  );
}

/** Registers a client, authorizes `who` with `scopes` and answers the token endpoint's answer. */
export async function agentTokens(
  api: Api,
  who: SignedIn,
  scopes: AgentScope[] = ['shop', 'orders'],
  /** The app's /mcp resource, when its PUBLIC_BASE_URL is not the tests' usual one. */
  resource?: string,
) {
  const { clientId } = await registerClient(api);
  const { verifier, challenge } = pkce();
  const { code } = await authorize(api, who, { clientId, challenge, scope: scopes.join(' '), resource });
  const res = await exchange(api, { clientId, code, verifier });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return { clientId, ...(res.body as { access_token: string; refresh_token: string; scope: string }) };
}
