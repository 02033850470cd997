// The scopes an agent's token may carry (docs/api.md "Remote agents"): what a
// person lets an agent do for them. A route that backs a tool names the scope it needs
// (`config.scope`); an agent's token is refused on any other route.
import { z } from 'zod';

export const AGENT_SCOPES = [
  'shop',
  'orders',
  'analytics',
  // UCP's identity linking (docs/ucp.md "Identity linking"): a shopping platform linked to the
  // person's account buys and follows orders as that person.
  'dev.ucp.shopping.checkout:manage',
  'dev.ucp.shopping.order:read',
  'dev.ucp.shopping.order:manage',
] as const;
export type AgentScope = (typeof AGENT_SCOPES)[number];
/** The scopes Portage's own tools need (the /mcp resource's); the rest are UCP's identity linking. */
export const MCP_SCOPES = ['shop', 'orders', 'analytics'] as const satisfies readonly AgentScope[];
export const agentScope = z.enum(AGENT_SCOPES);

/** What each scope allows, as the consent page and the metadata say it. */
export const SCOPE_DESCRIPTIONS: Record<AgentScope, string> = {
  shop: 'search products, check stock, fill your cart, apply coupons and open checkouts',
  orders: 'see and cancel your orders, ask for returns and write reviews',
  analytics: "read the platform's sales figures (administrators only)",
  'dev.ucp.shopping.checkout:manage':
    'buy for you through a shopping platform: open, pay and cancel checkouts in your name',
  'dev.ucp.shopping.order:read': 'see the orders you placed and where they are',
  'dev.ucp.shopping.order:manage': 'see and cancel your orders, ask for returns and write reviews',
};

/**
 * What lets an agent buy as the person through a protocol adapter (ACP, UCP): the agents' `shop`,
 * or UCP's checkout:manage (which grants nothing else of Portage's own routes).
 */
export const BUYING_SCOPES: readonly AgentScope[] = ['dev.ucp.shopping.checkout:manage', 'shop'];
/** What lets an agent read the person's orders through UCP: UCP's order scopes, or `orders`. */
export const ORDER_READING_SCOPES: readonly AgentScope[] = [
  'dev.ucp.shopping.order:read',
  'dev.ucp.shopping.order:manage',
  'orders',
];

/** Scopes that grant what another does on Portage's own routes (UCP's order:manage is `orders`). */
export const IMPLIED_SCOPES: Partial<Record<AgentScope, AgentScope>> = {
  'dev.ucp.shopping.order:manage': 'orders',
};

/** Whether granted scopes cover `need`, itself or through one that implies it. */
export const scopesCover = (granted: readonly string[], need: AgentScope) =>
  granted.includes(need) || granted.some((g) => IMPLIED_SCOPES[g as AgentScope] === need);

/** Whether a user of `role` can grant `scope` to an agent (analytics: administrators only). */
export const roleCanGrant = (scope: AgentScope, role: string) => scope !== 'analytics' || role === 'admin';

/** A route's need: one scope, or `any` (every agent token: who am I). */
export type RouteScope = AgentScope | 'any';

/** Parses a space-separated `scope` string; unknown names are dropped. */
export function parseScopes(scope: string | undefined): AgentScope[] {
  const given = new Set((scope ?? '').split(' ').filter(Boolean));
  return AGENT_SCOPES.filter((s) => given.has(s));
}
