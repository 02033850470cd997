// The authorization endpoint's rules (RFC 6749 section 4.1, OAuth 2.1, RFC 7636, RFC 8707):
// checking a request, the pending authorization between the sign-in and consent pages, and the
// code a consent gives. A request is checked in two steps: until its client and redirect URI are
// known good, a problem is shown on a page (never sent to an unchecked URI); after, it goes back
// to the client's redirect URI as `error=...`.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import { AppError } from '../../contract/errors.ts';
import { BASE_LOCALE, type MessageKey, type MessageValues, t } from '../../contract/i18n.ts';
import { AGENT_SCOPES, type AgentScope, parseScopes, roleCanGrant } from '../../contract/scopes.ts';
import type { AuthService } from '../auth/service.ts';
import { findUser } from '../auth/users.ts';
import type { RequestContext } from '../context.ts';
import { randomToken, sha256 } from '../secrets.ts';
import type { MetadataDocuments } from './clients.ts';
import { type Client, findClient, OAuthError } from './clients.ts';
import { oauthCodes, oauthRequests } from './tables.ts';

/** How long a person has between opening the authorization and answering the consent. */
export const REQUEST_TTL_SECONDS = 600;
/** How long a code may wait for its exchange (OAuth 2.1: short; clients exchange at once). */
export const CODE_TTL_SECONDS = 120;
/** Scopes given when a request names none. */
export const DEFAULT_SCOPES: AgentScope[] = ['shop', 'orders'];

export interface AuthorizationSettings {
  issuer: string;
  resource: string;
  documents: MetadataDocuments;
}

export type AuthorizeOutcome =
  /** A refusal shown on a page: its title and message in the request's language (ctx.locale). */
  | { kind: 'page'; status: number; title: string; message: string }
  | { kind: 'sign-in'; requestId: string; csrf: string; client: Client };

/** The redirect back to the client, with `iss` (RFC 9207) and the client's `state`. */
export function redirectTo(
  s: Pick<AuthorizationSettings, 'issuer'>,
  redirectUri: string,
  state: string | null | undefined,
  params: Record<string, string>,
): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (state) url.searchParams.set('state', state);
  url.searchParams.set('iss', s.issuer);
  return url.href;
}

const one = (q: Record<string, unknown>, name: string): string | undefined => {
  const v = q[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** GET /oauth/authorize: checks the request and opens a pending authorization for the sign-in page. */
export async function startAuthorization(
  ctx: RequestContext,
  s: AuthorizationSettings,
  query: Record<string, unknown>,
): Promise<AuthorizeOutcome> {
  const locale = ctx.locale ?? BASE_LOCALE;
  const page = (key: MessageKey, values?: MessageValues): AuthorizeOutcome => ({
    kind: 'page',
    status: 400,
    title: t(locale, 'page.oauth.badLinkTitle'),
    message: t(locale, key, values),
  });
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v)) return page('page.oauth.repeatedParameter', { name: k });
  }
  const clientId = one(query, 'client_id');
  if (!clientId) return page('page.oauth.noClientId');
  let client: Client | undefined;
  try {
    client = await findClient(ctx, s.documents, clientId);
  } catch (err) {
    // The protocol's own description (for the agent's makers), inside the page's words.
    if (err instanceof OAuthError) return page('page.oauth.clientProblem', { description: err.description });
    throw err;
  }
  if (!client) return page('page.oauth.unknownClient');
  const given = one(query, 'redirect_uri');
  const redirectUri = given ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri) return page('page.oauth.noRedirectUri');
  if (!client.redirectUris.includes(redirectUri)) return page('page.oauth.unregisteredRedirect');

  // Anyone may register a client and its redirect URI, so a request refused before the person
  // signed in is shown here, never redirected (RFC 9700 section 4.11.2: no open redirector). The
  // page names the OAuth error for the agent's makers.
  const state = one(query, 'state');
  const back = (error: string, description: MessageKey, values?: MessageValues): AuthorizeOutcome =>
    page('page.oauth.badRequest', { error, description: t(locale, description, values) });
  if (one(query, 'response_type') !== 'code') {
    return back('unsupported_response_type', 'page.oauth.bad.responseType');
  }
  const challenge = one(query, 'code_challenge');
  const method = one(query, 'code_challenge_method');
  if (!challenge) return back('invalid_request', 'page.oauth.bad.noChallenge');
  if (method !== 'S256') return back('invalid_request', 'page.oauth.bad.challengeMethod');
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return back('invalid_request', 'page.oauth.bad.challengeForm');
  const resource = one(query, 'resource');
  if (resource !== undefined && resource !== s.resource) {
    return back('invalid_target', 'page.oauth.bad.resource', { resource: s.resource });
  }
  const scopeParam = one(query, 'scope');
  let scopes: AgentScope[] = DEFAULT_SCOPES;
  if (scopeParam !== undefined) {
    const names = scopeParam.split(' ').filter(Boolean);
    scopes = parseScopes(scopeParam);
    if (scopes.length !== new Set(names).size) {
      return back('invalid_scope', 'page.oauth.bad.scope', { scopes: AGENT_SCOPES.join(', ') });
    }
  }
  if (state && state.length > 1000) return back('invalid_request', 'page.oauth.bad.longState');

  const requestId = randomToken();
  const csrf = randomToken();
  await ctx.db.insert(oauthRequests).values({
    idHash: sha256(requestId),
    csrfToken: csrf,
    clientId: client.clientId,
    clientName: client.clientName ?? null,
    logoUri: client.logoUri ?? null,
    redirectUri,
    state: state ?? null,
    codeChallenge: challenge,
    scope: scopes.join(' '),
    expiresAt: new Date(ctx.now().getTime() + REQUEST_TTL_SECONDS * 1000),
  });
  return { kind: 'sign-in', requestId, csrf, client };
}

export type PendingRequest = typeof oauthRequests.$inferSelect;

/**
 * The pending authorization a browser holds (its cookie), if it is still live and the form's
 * CSRF token is its own (when `csrf` is given).
 */
export async function pendingRequest(
  ctx: RequestContext,
  requestId: string | undefined,
  csrf?: unknown,
): Promise<PendingRequest | undefined> {
  if (!requestId) return undefined;
  const [row] = await ctx.db
    .select()
    .from(oauthRequests)
    .where(and(eq(oauthRequests.idHash, sha256(requestId)), gt(oauthRequests.expiresAt, ctx.now())));
  if (!row) return undefined;
  if (csrf !== undefined && !sameText(csrf, row.csrfToken)) return undefined;
  return row;
}

function sameText(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** How a sign-in on the authorization's page ended. */
export type SignInOutcome =
  | { kind: 'expired' }
  | { kind: 'wrong-password'; row: PendingRequest; email: string }
  /** Nothing the person may give is left (analytics asked by a non-admin): back to the agent. */
  | { kind: 'refused'; location: string }
  /** Signed in: the request's new id (its cookie); the consent comes next. */
  | { kind: 'signed-in'; requestId: string };

/**
 * The sign-in form of a pending authorization (the browser's cookie and the form's CSRF token):
 * checks the password, then the request names the person, with the scopes they may give
 * (analytics only for administrators: dropped for others, and the consent shows only what is
 * given), under a new id and CSRF token, so that whoever held the request before (a cookie
 * planted in the person's browser) cannot answer the consent that follows.
 */
export async function signIn(
  ctx: RequestContext,
  s: Pick<AuthorizationSettings, 'issuer'>,
  auth: Pick<AuthService, 'login'>,
  requestId: string | undefined,
  form: { csrf?: unknown; email?: unknown; password?: unknown },
): Promise<SignInOutcome> {
  const row = await pendingRequest(ctx, requestId, form.csrf ?? '');
  if (!row) return { kind: 'expired' };
  const email = typeof form.email === 'string' ? form.email.trim().slice(0, 254) : '';
  const password = typeof form.password === 'string' ? form.password.slice(0, 256) : '';
  let userId: string;
  try {
    userId = (await auth.login(ctx, { email, password })).userId;
  } catch (err) {
    if (!(err instanceof AppError) || err.statusCode !== 401) throw err;
    return { kind: 'wrong-password', row, email };
  }
  const user = await findUser(ctx, userId);
  if (!user) return { kind: 'expired' };
  const scopes = parseScopes(row.scope).filter((x) => roleCanGrant(x, user.role));
  if (!scopes.length) {
    await dropRequest(ctx, row);
    return {
      kind: 'refused',
      location: redirectTo(s, row.redirectUri, row.state, {
        error: 'invalid_scope',
        error_description: 'The analytics scope is for administrators only',
      }),
    };
  }
  const renewedId = randomToken();
  const [renewed] = await ctx.db
    .update(oauthRequests)
    .set({
      idHash: sha256(renewedId),
      csrfToken: randomToken(),
      userId: user.id,
      tokenVersion: user.tokenVersion,
      authTime: ctx.now(),
      scope: scopes.join(' '),
    })
    .where(eq(oauthRequests.idHash, row.idHash))
    .returning({ idHash: oauthRequests.idHash });
  return renewed ? { kind: 'signed-in', requestId: renewedId } : { kind: 'expired' };
}

/** Ends a pending authorization without a code. */
export async function dropRequest(ctx: RequestContext, row: PendingRequest): Promise<void> {
  await ctx.db.delete(oauthRequests).where(eq(oauthRequests.idHash, row.idHash));
}

/**
 * The consent's answer: the pending authorization is used up either way; Allow gives a code
 * (bound to the client, redirect URI, PKCE challenge and the grant its exchange creates).
 * Answers where the browser goes next.
 */
export async function decide(
  ctx: RequestContext,
  s: Pick<AuthorizationSettings, 'issuer'>,
  row: PendingRequest,
  allow: boolean,
): Promise<string> {
  const [taken] = await ctx.db
    .delete(oauthRequests)
    .where(eq(oauthRequests.idHash, row.idHash))
    .returning({ idHash: oauthRequests.idHash });
  if (!taken || !row.userId || row.tokenVersion === null || !row.authTime) {
    throw new OAuthError('invalid_request', 'This authorization was already answered');
  }
  if (!allow) {
    return redirectTo(s, row.redirectUri, row.state, {
      error: 'access_denied',
      error_description: 'The person declined to give this agent access',
    });
  }
  const code = randomToken();
  await ctx.db.insert(oauthCodes).values({
    codeHash: sha256(code),
    grantId: `grants:${randomBytes(15).toString('base64url')}`,
    clientId: row.clientId,
    clientName: row.clientName,
    redirectUri: row.redirectUri,
    codeChallenge: row.codeChallenge,
    scope: row.scope,
    userId: row.userId,
    tokenVersion: row.tokenVersion,
    authTime: row.authTime,
    expiresAt: new Date(ctx.now().getTime() + CODE_TTL_SECONDS * 1000),
  });
  return redirectTo(s, row.redirectUri, row.state, { code });
}
