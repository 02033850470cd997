// The auth module's service: accounts (accounts.ts), sessions and their tokens (tokens.ts),
// external login (external-login.ts) and the links of account emails (email-links.ts), built
// together from one set of dependencies. Every rule of authentication lives in those files;
// routes only translate HTTP to these calls.
import { createAccounts } from './accounts.ts';
import { createEmailLinks, type EmailLinkDeps } from './email-links.ts';
import { createExternalLogin, type ExternalLoginDeps } from './external-login.ts';
import type { OidcClient } from './oidc.ts';
import { createTokens, type TokenDeps } from './tokens.ts';

export interface AuthDeps extends TokenDeps {
  /** Absent when no external identity provider is configured. */
  oidc: OidcClient | undefined;
  redirectOrigins: ExternalLoginDeps['redirectOrigins'];
  /** Account emails (verification, password reset); absent on the command line, which sends none. */
  emailLinks?: EmailLinkDeps;
  /** SHOP_APPROVAL: a shop opened with POST /me/seller waits for an admin's approval. */
  shopApproval?: boolean;
}

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(deps: AuthDeps) {
  const tokens = createTokens(deps);
  const links = createEmailLinks(tokens, deps.emailLinks);
  return {
    authenticate: tokens.authenticate,
    refresh: tokens.refresh,
    logoutAll: tokens.logoutAll,
    /** After a change to what a token's user carries (PATCH /me's locale): this instance reads it afresh. */
    forget: tokens.forget,
    ...createAccounts(tokens, links, { shopApproval: deps.shopApproval ?? false }),
    linkIsLive: links.linkIsLive,
    verifyEmail: links.verifyEmail,
    resendVerification: links.resendVerification,
    forgotPassword: links.forgotPassword,
    resetPassword: links.resetPassword,
    ...createExternalLogin(
      { oidc: deps.oidc, redirectOrigins: deps.redirectOrigins, keys: deps.tokens?.keys },
      tokens,
    ),
  };
}
