// Health, the load balancer's probes, and the machine-readable API reference.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MCP_SCOPES, SCOPE_DESCRIPTIONS } from '../../contract/scopes.ts';
import { TOOL_SCOPES, TOOL_SERVER, TOOLS, toolJsonSchemas } from '../../contract/tools.ts';
import type { Database } from '../../db/index.ts';
import type { Readiness } from './readiness.ts';

export function systemRoutes(database: Database, publicBaseUrl: string) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/health',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['system'],
          summary: 'Liveness and database reachability',
          response: {
            200: z.object({ status: z.literal('ok') }),
            503: z.object({
              status: z.literal('unavailable'),
              error: z.string(),
              code: z.literal('INTERNAL_ERROR'),
              statusCode: z.literal(503),
            }),
          },
        },
      },
      async (_req, reply) => {
        if (await database.ping()) return { status: 'ok' as const };
        return reply.code(503).send({
          status: 'unavailable' as const,
          error: 'The database does not answer',
          code: 'INTERNAL_ERROR' as const,
          statusCode: 503 as const,
        });
      },
    );

    const manifest = mcpManifest(publicBaseUrl);
    app.get(
      '/.well-known/mcp.json',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['discovery'],
          summary:
            'The agent tool server: its remote endpoint and how to sign in, how to run it locally, its tools',
        },
      },
      async (_req, reply) => reply.header('cache-control', 'public, max-age=300').send(manifest),
    );

    const llms = llmsTxt(publicBaseUrl);
    app.get(
      '/llms.txt',
      {
        config: { auth: 'public' },
        schema: { tags: ['discovery'], summary: 'What Portage is, for language models' },
      },
      async (_req, reply) =>
        reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=300').send(llms),
    );

    // Browsers ask every site for its icon; the pages a person sees (payment, sign-in, account
    // links) get Portage's, and no 404 in their console.
    app.get('/favicon.ico', { config: { auth: 'public' }, schema: { hide: true } }, async (_req, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON),
    );

    app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () =>
      fastify.swagger(),
    );
  };
}

const checkState = z.enum(['ok', 'failed']);
const probeAnswer = (status: 'ok' | 'unavailable') =>
  z.object({
    status: z.literal(status),
    checks: z.object({
      database: checkState,
      migrations: z.enum(['ok', 'failed', 'unknown']),
      redis: checkState.optional().describe('Only when the service shares its rate limits through Redis'),
      search: checkState,
    }),
  });

/**
 * The probes (docs/operations.md "Health checks"): /livez says the process serves, /readyz that
 * it can do its work. Public and unlimited as /health is; logged at warn and above only (a
 * probe every few seconds from each load balancer would be most of an info log): readiness
 * logs its own changes.
 */
export function probeRoutes(readiness: Readiness) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/livez',
      {
        config: { auth: 'public' },
        logLevel: 'warn',
        schema: {
          tags: ['system'],
          summary: 'Liveness: the process answers (the database is not asked)',
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
      },
      async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' as const }),
    );

    app.get(
      '/readyz',
      {
        config: { auth: 'public' },
        logLevel: 'warn',
        schema: {
          tags: ['system'],
          summary:
            'Readiness: the database, its migrations, Redis and the search index; 503 names what failed',
          response: { 200: probeAnswer('ok'), 503: probeAnswer('unavailable') },
        },
      },
      async (_req, reply) => {
        const { ready, checks } = await readiness.check();
        reply.header('cache-control', 'no-store');
        if (ready) return reply.send({ status: 'ok' as const, checks });
        return reply.code(503).send({ status: 'unavailable' as const, checks });
      },
    );
  };
}

/** The protocol revisions /mcp and `portage mcp` serve (the SDK's two eras). */
const PROTOCOL_VERSIONS = ['2025-11-25', '2026-07-28'];

/** The remote endpoint: Streamable HTTP, signed in through OAuth 2.1 (RFC 9728 metadata first). */
function remote(base: string) {
  return {
    type: 'streamable-http',
    url: `${base}/mcp`,
    stateless: true,
    protocolVersions: PROTOCOL_VERSIONS,
    authorization: {
      type: 'oauth2.1',
      description:
        `Connect to ${base}/mcp; its 401 names the protected resource metadata, which names this ` +
        'authorization server (authorization code with PKCE S256; dynamic client registration or a client ID ' +
        `metadata document). Tokens are for the resource ${base}/mcp only; API tokens are refused there.`,
      resource: `${base}/mcp`,
      protectedResourceMetadata: `${base}/.well-known/oauth-protected-resource/mcp`,
      authorizationServerMetadata: `${base}/.well-known/oauth-authorization-server`,
      scopes: Object.fromEntries(MCP_SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]])),
    },
  };
}

/** The tool server's entry in a checkout of Portage (the host fills in where it is). */
const LOCAL_ENTRY = '<your Portage checkout>/bin/portage.js';

function mcpManifest(base: string) {
  return {
    name: TOOL_SERVER.name,
    title: TOOL_SERVER.title,
    version: TOOL_SERVER.version,
    description: TOOL_SERVER.description,
    remotes: [remote(base)],
    // Run locally, as a child process of the agent's host, for one user's API token: from a
    // checkout of Portage (`npm install` there). Never `npx portage`: the registry's `portage`
    // is somebody else's package.
    transport: {
      type: 'stdio',
      command: 'node',
      args: [LOCAL_ENTRY, 'mcp'],
      env: {
        SERVICE_URL: base,
        SERVICE_JWT_TOKEN: '<the signed-in user token>',
      },
    },
    authentication: {
      type: 'bearer',
      description:
        `Get a token with POST ${base}/auth/login {"email","password"} (or POST ${base}/auth/register) and ` +
        'give it as SERVICE_JWT_TOKEN; the tool server renews it through /auth/refresh. Never commit a token.',
      login: `${base}/auth/login`,
      refresh: `${base}/auth/refresh`,
    },
    documentation: { api: `${base}/docs`, openapi: `${base}/openapi.json`, llms: `${base}/llms.txt` },
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: toolJsonSchemas(t).inputSchema,
      annotations: t.annotations,
      scope: TOOL_SCOPES[t.name],
    })),
  };
}

function llmsTxt(base: string): string {
  return [
    '# Portage',
    '',
    `> ${TOOL_SERVER.description}`,
    '',
    'Portage is a Canadian online marketplace (CAD, provinces and territories, GST/HST/PST). ' +
      'Its HTTP JSON API serves buyers, sellers and admins; its tool server (Model Context Protocol) lets ' +
      'an agent act for one signed-in user. Money is integer cents; ids are `<collection>:<key>`; errors ' +
      'are `{error, code, statusCode}`.',
    '',
    '## Connect an agent',
    '',
    `- Remote (hosted agents): the MCP server at ${base}/mcp, Streamable HTTP (stateless; protocol ` +
      `${PROTOCOL_VERSIONS.join(' and ')}). Sign the person in with OAuth 2.1: the 401 from /mcp points at ` +
      `${base}/.well-known/oauth-protected-resource/mcp, which names the authorization server ` +
      `(${base}/.well-known/oauth-authorization-server); authorization code with PKCE S256. Scopes: ` +
      `${MCP_SCOPES.map((s) => `\`${s}\` (${SCOPE_DESCRIPTIONS[s]})`).join('; ')}.`,
    `- Local (stdio): \`node ${LOCAL_ENTRY} mcp\`, run from a checkout of Portage's source (\`npm install\` ` +
      `there first), with SERVICE_URL=${base} and SERVICE_JWT_TOKEN set to the user's token (POST ${base}/auth/login).`,
    '',
    '## Docs',
    '',
    `- [API reference](${base}/docs): every endpoint, interactive`,
    `- [OpenAPI document](${base}/openapi.json): the API as OpenAPI 3.1`,
    `- [Tool server manifest](${base}/.well-known/mcp.json): the remote endpoint and how to sign in, how to run the tool server locally, its tools and inputs`,
    '',
    '## Tools',
    '',
    ...TOOLS.map((t) => `- ${t.name} (scope \`${TOOL_SCOPES[t.name]}\`): ${t.description}`),
    '',
  ].join('\n');
}

/** Portage's icon: a green square with a white P (SVG; browsers take it at /favicon.ico). */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d3b2a"/>' +
  '<path d="M5 12V4h3.5a2.5 2.5 0 0 1 0 5H7" fill="none" stroke="#fff" stroke-width="2"/></svg>';
