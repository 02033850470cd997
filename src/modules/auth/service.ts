// The auth module's service: accounts (accounts.ts), sessions and their tokens (tokens.ts) and
// external login (external-login.ts), built together from one set of dependencies. Every rule
// of authentication lives in those files; routes only translate HTTP to these calls.
import { createAccounts } from './accounts.ts';
import { createExternalLogin, type ExternalLoginDeps } from './external-login.ts';
import type { OidcClient } from './oidc.ts';
import { createTokens, type TokenDeps } from './tokens.ts';

export interface AuthDeps extends TokenDeps {
  /** Absent when no external identity provider is configured. */
  oidc: OidcClient | undefined;
  redirectOrigins: ExternalLoginDeps['redirectOrigins'];
}

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(deps: AuthDeps) {
  const tokens = createTokens(deps);
  return {
    authenticate: tokens.authenticate,
    refresh: tokens.refresh,
    logoutAll: tokens.logoutAll,
    ...createAccounts(tokens),
    ...createExternalLogin(
      { oidc: deps.oidc, redirectOrigins: deps.redirectOrigins, keys: deps.tokens?.keys },
      tokens,
    ),
  };
}
