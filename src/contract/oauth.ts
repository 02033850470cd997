// Wire shapes of the agents a person let in (docs/api.md "Remote agents"). The OAuth protocol's own
// endpoints (/oauth/*, /.well-known/oauth-*) answer in the forms their RFCs define and are
// documented in docs/api.md "OAuth authorization server", not here.
import { z } from 'zod';
import { agentScope } from './scopes.ts';

export const agentAccess = z
  .object({
    clientId: z
      .string()
      .describe('The OAuth client_id: a registered id, or the URL of its metadata document'),
    name: z.string().describe('The name the agent gave itself, as shown on the consent page'),
    scopes: z.array(agentScope),
    grantedAt: z.number().int().describe('Unix seconds of the latest authorization still standing'),
    lastUsedAt: z
      .number()
      .int()
      .nullable()
      .describe('Unix seconds of its last call (to the minute), or null'),
  })
  .meta({ id: 'AgentAccess' });

/** The agents with access, wrapped (room for paging later without breaking clients). */
export const agentsAnswer = z.object({ agents: z.array(agentAccess) });

export const agentParams = z.object({ clientId: z.string().min(1).max(100) });
