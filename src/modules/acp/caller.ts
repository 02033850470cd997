// Who calls the ACP routes: a platform with the key an admin issued (acting for the buyer its
// session names), or an agent with a person's OAuth token (scope shop: buying as that person).
import type { AuthUser } from '../context.ts';
import type { PlatformCaller } from '../platforms/service.ts';

export type AcpCaller = { platform: PlatformCaller } | { user: AuthUser };

/** Whose vault tokens and sessions: a platform's, or an agent's person's. */
export const vaultOwner = (who: AcpCaller) => ('platform' in who ? who.platform.id : `user:${who.user.id}`);
