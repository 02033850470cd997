// Who calls a UCP route (docs/ucp.md "Identity linking"): a platform by its key (buying for the
// buyer its session names, a guest account if new), or a platform linked to a person's account
// through our OAuth server, with the person's token and UCP's scopes: checkout:manage to buy as
// the person, order:read (or :manage) to read their orders. The agents' own `shop` and `orders`
// scopes count as those.

import { AppError } from '../../contract/errors.ts';
import { type Text, text } from '../../contract/i18n.ts';
import { BUYING_SCOPES, ORDER_READING_SCOPES } from '../../contract/scopes.ts';
import type { AgentCaller } from '../agent-checkout/caller.ts';

import type { AuthService } from '../auth/service.ts';
import type { AuthUser, RequestContext } from '../context.ts';
import type { PlatformKeys } from '../platforms/service.ts';
import { UcpFailure } from './errors.ts';

export type UcpNeed = 'checkout' | 'order' | 'catalog';

/** The scopes each kind of operation takes; a missing one is asked for as the first. */
const SCOPES: Record<UcpNeed, readonly string[]> = {
  checkout: BUYING_SCOPES,
  order: ORDER_READING_SCOPES,
  // The catalog is public to any linked platform: whatever it was granted.
  catalog: [...BUYING_SCOPES, ...ORDER_READING_SCOPES],
};

/** A refusal with the challenge RFC 6750 (and UCP's identity linking) asks of a 401 or 403. */
export class UcpAuthFailure extends UcpFailure {
  constructor(
    status: 401 | 403,
    code: string,
    said: Text,
    readonly challenge: string,
  ) {
    super(status, code, said);
  }
}

export async function ucpCallerOf(
  ctx: RequestContext,
  auth: Pick<AuthService, 'authenticate'>,
  platforms: PlatformKeys,
  token: string | undefined,
  need: UcpNeed,
): Promise<AgentCaller> {
  if (!token) {
    throw new UcpAuthFailure(401, 'unauthorized', text('ucp.error.noCredential'), 'Bearer realm="ucp"');
  }
  if (token.startsWith('acp_')) {
    const platform = await platforms.authenticate(ctx, token);
    if (!platform)
      throw new UcpAuthFailure(401, 'unauthorized', text('ucp.error.unknownKey'), 'Bearer realm="ucp"');
    return { platform };
  }
  let user: AuthUser & { agent?: { scopes: readonly string[] } };
  try {
    user = await auth.authenticate(ctx, token);
  } catch (err) {
    // A refused token; anything else (the database unreachable) is not the caller's fault.
    if (!(err instanceof AppError)) throw err;
    throw new UcpAuthFailure(
      401,
      'identity_required',
      text('ucp.error.linkAgain'),
      'Bearer realm="ucp", error="invalid_token"',
    );
  }
  if (!user.agent || user.role !== 'buyer') {
    throw new UcpAuthFailure(403, 'forbidden', text('ucp.error.wrongCaller'), 'Bearer realm="ucp"');
  }
  const scopes = user.agent.scopes;
  if (!SCOPES[need].some((s) => scopes.includes(s))) {
    const wanted = [...new Set([...scopes, SCOPES[need][0]!])].join(' ');
    throw new UcpAuthFailure(
      403,
      'insufficient_scope',
      text('ucp.error.scopeNeeded', { scope: SCOPES[need][0]! }),
      `Bearer realm="ucp", error="insufficient_scope", scope="${wanted}"`,
    );
  }
  return { user };
}
