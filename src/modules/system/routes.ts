// Health and the machine-readable API reference.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { TOOL_SERVER, TOOLS, toolJsonSchemas } from '../../contract/tools.ts';
import type { Database } from '../../db/index.ts';

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
          summary: 'The agent tool server: how to run it, its tools and their inputs',
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

    app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () =>
      fastify.swagger(),
    );
  };
}

function mcpManifest(base: string) {
  return {
    name: TOOL_SERVER.name,
    title: TOOL_SERVER.title,
    version: TOOL_SERVER.version,
    description: TOOL_SERVER.description,
    transport: {
      type: 'stdio',
      command: 'npx',
      args: ['portage', 'mcp'],
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
      'Its HTTP JSON API serves buyers, sellers and admins; its tool server (Model Context Protocol over ' +
      'stdio, `npx portage mcp` with SERVICE_URL and SERVICE_JWT_TOKEN) lets an agent act for one ' +
      'signed-in user. Money is integer cents; ids are `<collection>:<key>`; errors are ' +
      '`{error, code, statusCode}`.',
    '',
    '## Docs',
    '',
    `- [API reference](${base}/docs): every endpoint, interactive`,
    `- [OpenAPI document](${base}/openapi.json): the API as OpenAPI 3.1`,
    `- [Tool server manifest](${base}/.well-known/mcp.json): how to run the tool server, its tools and inputs`,
    '',
    '## Tools',
    '',
    ...TOOLS.map((t) => `- ${t.name}: ${t.description}`),
    '',
  ].join('\n');
}
