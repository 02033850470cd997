// HTTP adapter of the authorization server for remote agents (docs/api.md "OAuth authorization server"): the
// metadata (RFC 8414, RFC 9728), the authorization pages, the token, registration and revocation
// endpoints, and the person's own list of agents. The protocol endpoints answer errors in their
// RFCs' form `{error, error_description}` (RFC 6749 section 5.2, RFC 7591 section 3.2.2), not the
// service's error model, and are left out of the OpenAPI document (docs/api.md documents them).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError, wordsOf } from '../../contract/errors.ts';
import { t } from '../../contract/i18n.ts';
import { agentParams, agentsAnswer } from '../../contract/oauth.ts';
import { AGENT_SCOPES, MCP_SCOPES } from '../../contract/scopes.ts';
import { unavailableOr } from '../../http/errors.ts';
import { acceptForms } from '../../http/input.ts';
import type { TokenSettings } from '../auth/jwt.ts';
import type { AuthService } from '../auth/service.ts';
import { findUser } from '../auth/users.ts';
import { type PageLang, pageLang, readPageLocale, sendPage, withLang } from '../page-layout.ts';
import {
  decide,
  type PendingRequest,
  pendingRequest,
  REQUEST_TTL_SECONDS,
  signIn,
  startAuthorization,
} from './authorization.ts';
import { OAuthError, registerClient } from './clients.ts';
import { listAgents, revokeAgent } from './grants.ts';
import { createMetadataDocuments } from './metadata-documents.ts';
import { consentPage, errorPage, oauthPageCsp, signInPage } from './pages.ts';
import { revoke, token } from './token-endpoint.ts';

export interface OAuthRouteDeps {
  publicBaseUrl: string;
  development: boolean;
  tokens: TokenSettings;
  agentTokenTtlSeconds: number;
  sessionMaxAgeSeconds: number;
  auth: AuthService;
}

const FORM_LIMIT = 8192;
const REGISTER_LIMIT = 16_384;
const COOKIE = 'portage_oauth';
const PROTOCOL_ROUTES = new Set(['/oauth/token', '/oauth/register', '/oauth/revoke']);
const PAGE_ROUTES = new Set(['/oauth/authorize', '/oauth/sign-in', '/oauth/consent']);
const tags = ['oauth'];

/** The agent as the pages show it, from the pending authorization. */
const agentOf = (row: PendingRequest) => ({
  clientId: row.clientId,
  clientName: row.clientName,
  logoUri: row.logoUri,
});

const expired = (reply: FastifyReply, status: number, p: PageLang) =>
  html(
    reply,
    status,
    errorPage(p, t(p.locale, 'page.oauth.expiredTitle'), t(p.locale, 'page.oauth.expired')),
  );

const html = (reply: FastifyReply, status: number, body: string, csp = oauthPageCsp()) =>
  sendPage(reply, status, body, csp);

/** The pending authorization's id the browser holds (its cookie, read by @fastify/cookie). */
const cookieValue = (req: FastifyRequest): string | undefined => req.cookies[COOKIE] || undefined;

const asParams = (body: unknown): Record<string, unknown> =>
  body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

export function oauthRoutes(deps: OAuthRouteDeps) {
  const base = deps.publicBaseUrl;
  const resource = `${base}/mcp`;
  const documents = createMetadataDocuments({ development: deps.development });
  const settings = { issuer: base, resource, documents };
  const tokenSettings = {
    tokens: deps.tokens,
    accessTtlSeconds: deps.agentTokenTtlSeconds,
    sessionMaxAgeSeconds: deps.sessionMaxAgeSeconds,
    documents,
  };
  /** The pending authorization's cookie: OAuth's pages only, HttpOnly, SameSite=Lax, Secure on https. */
  const cookieOptions = (maxAge: number) =>
    ({ maxAge, path: '/oauth', httpOnly: true, sameSite: 'lax', secure: base.startsWith('https:') }) as const;
  const setCookie = (reply: FastifyReply, value: string) =>
    reply.setCookie(COOKIE, value, cookieOptions(REQUEST_TTL_SECONDS));
  const clearCookie = (reply: FastifyReply) => reply.setCookie(COOKIE, '', cookieOptions(0));

  const authorizationServer = {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...AGENT_SCOPES],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
  const protectedResource = {
    resource,
    resource_name: 'Portage',
    authorization_servers: [base],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
  };

  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    // RFC 6749 section 3.1: a parameter sent twice is an error; kept as a list, it is refused.
    acceptForms(app, FORM_LIMIT);

    // The protocol endpoints answer their RFC's error form; 429s keep the service's model.
    app.setErrorHandler((thrown: FastifyError, req, reply) => {
      if (thrown instanceof OAuthError) return oauthError(reply, thrown);
      const err = unavailableOr(thrown, req);
      const url = req.routeOptions.url ?? '';
      const status = err.statusCode ?? 500;
      // The pages answer a person: a page, whatever went wrong (rate limit, unreadable form, the
      // database away for a moment).
      if (PAGE_ROUTES.has(url) && ((status >= 400 && status < 500) || status === 503)) {
        const p = pageLang(req, { here: null });
        const waiting = (status === 429 || status === 503) && err instanceof AppError;
        const message = waiting ? wordsOf(p.locale, err.text) : t(p.locale, 'page.oauth.unreadableForm');
        if (err instanceof AppError && err.retryAfter) reply.header('retry-after', String(err.retryAfter));
        if (status === 429 && reply.getHeader('retry-after') === undefined) reply.header('retry-after', '60');
        const title = t(
          p.locale,
          status === 429
            ? 'page.oauth.tooManyTitle'
            : status === 503
              ? 'page.unavailable.title'
              : 'page.oauth.wrongTitle',
        );
        return html(reply, status, errorPage(p, title, message));
      }
      if (PROTOCOL_ROUTES.has(url) && status >= 400 && status < 500 && status !== 429) {
        const error = url === '/oauth/register' ? 'invalid_client_metadata' : 'invalid_request';
        return reply
          .code(400)
          .header('cache-control', 'no-store')
          .send({
            error,
            error_description: err instanceof AppError ? err.message : 'The request could not be read',
          });
      }
      throw err;
    });

    // Listed in /openapi.json with a summary; their answers and inputs are the OAuth specs'.
    const wellKnown = (summary: string) => ({
      config: { auth: 'public' as const, otherFormat: true as const },
      schema: { tags: ['oauth'], summary },
    });
    app.get(
      '/.well-known/oauth-authorization-server',
      wellKnown('Authorization server metadata (RFC 8414)'),
      async () => authorizationServer,
    );
    app.get(
      '/.well-known/oauth-protected-resource',
      wellKnown('Protected resource metadata of /mcp (RFC 9728)'),
      async () => protectedResource,
    );
    app.get(
      '/.well-known/oauth-protected-resource/mcp',
      wellKnown('Protected resource metadata of /mcp, path-aware (RFC 9728)'),
      async () => protectedResource,
    );

    // `?lang=` and the forms' `lang` field choose the pages' language.
    const page = {
      preValidation: readPageLocale,
      config: { auth: 'public' as const, limit: 'oauthPages' as const, otherFormat: true as const },
      schema: { tags: ['oauth'], summary: 'The sign-in and consent pages a person sees (HTML forms)' },
    };

    app.get('/oauth/authorize', page, async (req, reply) => {
      const p = pageLang(req);
      const outcome = await startAuthorization(req.ctx, settings, req.query as Record<string, unknown>);
      if (outcome.kind === 'page')
        return html(reply, outcome.status, errorPage(p, outcome.title, outcome.message));
      setCookie(reply, outcome.requestId);
      return html(reply, 200, signInPage(p, { agent: outcome.client, csrf: outcome.csrf }));
    });

    app.post(
      '/oauth/sign-in',
      { ...page, bodyLimit: FORM_LIMIT, config: { auth: 'public', limit: 'auth' } },
      async (req, reply) => {
        const outcome = await signIn(req.ctx, settings, deps.auth, cookieValue(req), asParams(req.body));
        // The sign-in form again is the consent's address (it shows the form until signed in).
        const p = pageLang(req, { here: outcome.kind === 'expired' ? null : '/oauth/consent' });
        switch (outcome.kind) {
          case 'expired':
            return expired(reply, 403, p);
          case 'wrong-password': {
            const { row, email } = outcome;
            const error = 'page.oauth.wrongPassword';
            const page = signInPage(p, { agent: agentOf(row), csrf: row.csrfToken, email, error });
            return html(reply, 401, page);
          }
          case 'refused':
            return clearCookie(reply).code(303).redirect(outcome.location);
          case 'signed-in':
            return setCookie(reply, outcome.requestId)
              .code(303)
              .redirect(p.asked ? withLang('/oauth/consent', p.asked) : '/oauth/consent');
        }
      },
    );

    app.get('/oauth/consent', page, async (req, reply) => {
      const row = await pendingRequest(req.ctx, cookieValue(req));
      if (!row) return expired(reply, 400, pageLang(req));
      const agent = agentOf(row);
      const user = row.userId ? await findUser(req.ctx, row.userId) : undefined;
      // Signed in, the person's saved language is the page's (unless the URL asks for one).
      const p = pageLang(req, { known: user?.locale });
      if (!user) return html(reply, 200, signInPage(p, { agent, csrf: row.csrfToken }));
      return html(
        reply,
        200,
        consentPage(p, {
          agent,
          csrf: row.csrfToken,
          email: user.email,
          scopes: row.scope.split(' ') as never,
          redirectUri: row.redirectUri,
        }),
        oauthPageCsp(row.redirectUri),
      );
    });

    app.post('/oauth/consent', { ...page, bodyLimit: FORM_LIMIT }, async (req, reply) => {
      const form = asParams(req.body);
      const row = await pendingRequest(req.ctx, cookieValue(req), form.csrf ?? '');
      // A page only when the answer is refused: in the signed-in person's language.
      const refusal = async (here?: string) => {
        const user = row?.userId ? await findUser(req.ctx, row.userId) : undefined;
        return pageLang(req, { known: user?.locale, here: here ?? null });
      };
      if (!row?.userId) return expired(reply, 403, await refusal());
      if (form.decision !== 'allow' && form.decision !== 'deny') {
        const p = await refusal('/oauth/consent');
        const title = t(p.locale, 'page.oauth.chooseTitle');
        return html(reply, 400, errorPage(p, title, t(p.locale, 'page.oauth.choose')));
      }
      let location: string;
      try {
        location = await decide(req.ctx, settings, row, form.decision === 'allow');
      } catch (err) {
        if (err instanceof OAuthError) return expired(reply, 403, await refusal());
        throw err;
      }
      return clearCookie(reply).code(303).header('cache-control', 'no-store').redirect(location);
    });

    const protocol = {
      config: { auth: 'public' as const, limit: 'oauthTokens' as const, otherFormat: true as const },
      schema: {
        tags: ['oauth'],
        summary: 'OAuth 2.1 token and revocation endpoints (form-encoded, RFC 6749/7009)',
      },
    };

    app.post('/oauth/token', { ...protocol, bodyLimit: FORM_LIMIT }, async (req, reply) => {
      const answer = await token(req.ctx, tokenSettings, asParams(req.body));
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer);
    });

    app.post('/oauth/revoke', { ...protocol, bodyLimit: FORM_LIMIT }, async (req, reply) => {
      await revoke(req.ctx, tokenSettings, asParams(req.body));
      return reply.header('cache-control', 'no-store').send({});
    });

    app.post(
      '/oauth/register',
      {
        ...protocol,
        bodyLimit: REGISTER_LIMIT,
        config: { auth: 'public', limit: 'oauthRegister', otherFormat: true },
      },
      async (req, reply) => {
        const answer = await registerClient(req.ctx, req.body);
        return reply.code(201).header('cache-control', 'no-store').send(answer);
      },
    );

    app.get(
      '/me/agents',
      {
        config: { auth: 'user', limit: 'orders' },
        schema: {
          tags,
          summary: 'The agents (OAuth clients) you let use your account: name, scopes, last use',
          description: "Needs your own token: an agent's token cannot list or revoke agents.",
          response: { 200: agentsAnswer },
        },
      },
      async (req) => listAgents(req.ctx),
    );

    app.delete(
      '/me/agents/:clientId',
      {
        config: { auth: 'user', limit: 'orders' },
        schema: {
          tags,
          summary: "Take an agent's access back: its tokens stop working at once",
          description:
            'Revokes every authorization you gave this agent and its refresh tokens; its next call is `401`. ' +
            '`404` when it has no access. A client_id that is a URL goes URL-encoded.',
          params: agentParams,
        },
      },
      async (req, reply) => {
        await revokeAgent(req.ctx, req.params.clientId);
        return reply.code(204).send();
      },
    );
  };
}

function oauthError(reply: FastifyReply, err: OAuthError) {
  if (err.statusCode === 401) reply.header('www-authenticate', 'Bearer error="invalid_client"');
  return reply
    .code(err.statusCode)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send({ error: err.error, error_description: err.description });
}
