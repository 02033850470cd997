// The scopes an agent's token may carry (docs/api.md "Remote agents"): what a
// person lets an agent do for them. A route that backs a tool names the scope it needs
// (`config.scope`); an agent's token is refused on any other route.
import { z } from 'zod';

export const AGENT_SCOPES = ['shop', 'orders', 'analytics'] as const;
export type AgentScope = (typeof AGENT_SCOPES)[number];
export const agentScope = z.enum(AGENT_SCOPES);

/** What each scope allows, as the consent page and the metadata say it. */
export const SCOPE_DESCRIPTIONS: Record<AgentScope, string> = {
  shop: 'search products, check stock, fill your cart, apply coupons and open checkouts',
  orders: 'see and cancel your orders, ask for returns and write reviews',
  analytics: "read the platform's sales figures (administrators only)",
};

/** Whether a user of `role` can grant `scope` to an agent (analytics: administrators only). */
export const roleCanGrant = (scope: AgentScope, role: string) => scope !== 'analytics' || role === 'admin';

/** A route's need: one scope, or `any` (every agent token: who am I). */
export type RouteScope = AgentScope | 'any';

/** Parses a space-separated `scope` string; unknown names are dropped. */
export function parseScopes(scope: string | undefined): AgentScope[] {
  const given = new Set((scope ?? '').split(' ').filter(Boolean));
  return AGENT_SCOPES.filter((s) => given.has(s));
}
