// Who calls the ACP routes (agent-checkout/caller.ts): a platform by the key an admin issued, or
// an agent by a person's OAuth token (scope shop), found from ACP's Authorization header.

import { AppError } from '../../contract/errors.ts';
import type { MessageKey } from '../../contract/i18n.ts';
import { text } from '../../contract/i18n.ts';
import { BUYING_SCOPES } from '../../contract/scopes.ts';
import type { AgentCaller } from '../agent-checkout/caller.ts';
import type { AuthService } from '../auth/service.ts';
import type { AuthUser, RequestContext } from '../context.ts';
import type { PlatformKeys } from '../platforms/service.ts';
import { AcpFailure } from './errors.ts';

const unauthorized = (key: MessageKey) =>
  new AcpFailure(401, { type: 'invalid_request', code: 'unauthorized' }, text(key));
const forbidden = (key: MessageKey) =>
  new AcpFailure(403, { type: 'invalid_request', code: 'forbidden' }, text(key));

/**
 * Who a bearer token is: a platform by its `acp_` key (unknown or revoked: 401), or an agent's
 * OAuth token of a buyer granted `shop` (anything else: 403).
 */
export async function acpCallerOf(
  ctx: RequestContext,
  auth: Pick<AuthService, 'authenticate'>,
  platforms: PlatformKeys,
  token: string | undefined,
): Promise<AgentCaller> {
  if (!token) throw unauthorized('acp.error.missingKey');
  if (token.startsWith('acp_')) {
    const platform = await platforms.authenticate(ctx, token);
    if (!platform) throw unauthorized('acp.error.unknownKey');
    return { platform };
  }
  let user: AuthUser & { agent?: { scopes: readonly string[] } };
  try {
    user = await auth.authenticate(ctx, token);
  } catch (err) {
    // A refused token; anything else (the database unreachable) is not the caller's fault.
    if (err instanceof AppError) throw unauthorized('acp.error.unknownToken');
    throw err;
  }
  // UCP's checkout:manage is the same permission (a linked platform vaults the sandbox's cards here).
  if (user.agent && !user.agent.scopes.some((s) => BUYING_SCOPES.includes(s))) {
    throw forbidden('acp.error.noShopScope');
  }
  if (!user.agent || user.role !== 'buyer') {
    throw forbidden('acp.error.wrongCaller');
  }
  return { user };
}
