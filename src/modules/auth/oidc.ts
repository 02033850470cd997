// OpenID Connect with the external identity provider (Google by default): authorization
// code flow with state, nonce and PKCE. Building the authorization URL needs no network:
// the provider's endpoints come from configuration, not from discovery.
import * as oidc from 'openid-client';
import type { OidcConfig } from '../../config.ts';

export interface OidcClient {
  /** Our callback as the provider and the browser know it (on PUBLIC_BASE_URL). */
  readonly callbackUri: string;
  authorizationUrl(p: { state: string; nonce: string; codeChallenge: string }): URL;
  /** Exchanges the code and returns the verified ID token's claims. */
  exchange(
    /** The query string the provider sent back to the callback (`?code=…&state=…`). */
    callbackSearch: string,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<{
    subject: string;
    email: string | undefined;
    emailVerified: boolean;
    name: string | undefined;
  }>;
}

export function createOidcClient(cfg: OidcConfig, callbackUri: string): OidcClient {
  const configuration = new oidc.Configuration(
    {
      issuer: cfg.issuer,
      authorization_endpoint: cfg.authorizationEndpoint,
      token_endpoint: cfg.tokenEndpoint,
      jwks_uri: cfg.jwksUri,
    },
    cfg.clientId,
    { redirect_uris: [callbackUri], id_token_signed_response_alg: 'RS256' },
    oidc.ClientSecretPost(cfg.clientSecret),
  );
  // config.ts allows http endpoints only outside staging and production (local providers).
  if (cfg.tokenEndpoint.startsWith('http:')) oidc.allowInsecureRequests(configuration);
  // Verify the ID token's signature against the provider's keys, not only its claims.
  oidc.enableNonRepudiationChecks(configuration);

  return {
    callbackUri,
    authorizationUrl: ({ state, nonce, codeChallenge }) =>
      oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: callbackUri,
        scope: 'openid email profile',
        state,
        nonce,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      }),
    async exchange(callbackSearch, checks) {
      // The callback as the provider knows it (the public URL), whatever host served it here.
      const callbackUrl = new URL(`${callbackUri}${callbackSearch}`);
      const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        pkceCodeVerifier: checks.codeVerifier,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new Error('no ID token');
      return {
        subject: claims.sub,
        email: typeof claims.email === 'string' ? claims.email.toLowerCase() : undefined,
        emailVerified: claims.email_verified === true,
        name: typeof claims.name === 'string' ? claims.name : undefined,
      };
    },
  };
}

export const newLoginSecrets = async () => {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  return {
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    codeVerifier,
    codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
  };
};
