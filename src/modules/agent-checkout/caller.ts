// Who calls an agent checkout, whichever protocol: a platform with the key an admin issued
// (acting for the buyer its session names), or an agent with a person's OAuth token (buying as
// that person). Each skin finds it from its own headers (acp/caller.ts, ucp/caller.ts).
import type { AuthUser } from '../context.ts';
import type { PlatformCaller } from '../platforms/service.ts';

export type AgentCaller = { platform: PlatformCaller } | { user: AuthUser };

/** Whose vault tokens and sessions: a platform's, or an agent's person's. */
export const vaultOwner = (who: AgentCaller) => ('platform' in who ? who.platform.id : `user:${who.user.id}`);
