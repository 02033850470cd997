import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { testKeyPem, testUcpKeyPem } from './helpers/app.ts';

/** The problems loadConfig reports for env; fails the test when it loads instead. */
function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(Object.keys(env))}`);
}

const deployed = (appEnv: string) => ({
  APP_ENV: appEnv,
  JWT_PRIVATE_KEY: testKeyPem(),
  UCP_SIGNING_KEY: testUcpKeyPem(),
  PUBLIC_BASE_URL: 'https://shop.example.ca',
  PAYMENT_WEBHOOK_SECRET: 'whsec_deployed_secret_0123456789',
  ...(appEnv === 'production'
    ? { STRIPE_SECRET_KEY: 'sk_test_production1', STRIPE_PUBLISHABLE_KEY: 'pk_test_production1' }
    : {}),
});

describe('loadConfig', () => {
  it('answers the documented defaults for an empty environment', () => {
    expect(loadConfig({})).toEqual({
      appEnv: 'development',
      port: 3000,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      feeds: { dir: path.resolve('./data/feeds'), fileHours: 24 },
      databaseUrl: undefined,
      databasePoolSize: 20,
      redisUrl: undefined,
      publicBaseUrl: 'http://localhost:3000',
      jwtPrivateKey: undefined,
      jwtPreviousPublicKeys: [],
      ucpSigningKey: undefined,
      ucpPreviousPublicKeys: [],
      accessTokenTtlSeconds: 3600,
      agentTokenTtlSeconds: 3600,
      refreshWindowSeconds: 604_800,
      sessionMaxAgeSeconds: 2_592_000,
      rateLimits: true,
      shopApproval: false,
      corsOrigins: [],
      mcpAllowedOrigins: [],
      viewImageOrigins: [],
      // Development logs warnings and errors: the README's `npm start &` shares its terminal.
      logLevel: 'warn',
      trustProxy: false,
      authCacheMs: 1000,
      searchIndex: 'memory',
      shipping: {
        canadaPost: undefined,
        rateBudgetMs: 1500,
        rateCacheMs: 600_000,
        labels: {
          sandboxDeliveryMs: 600_000,
          trackingRecheckMs: 14_400_000,
          senderPhone: '',
          timeoutMs: 30_000,
        },
      },
      oidc: undefined,
      authRedirectOrigins: ['http://localhost:3000'],
      payments: {
        provider: 'sandbox',
        webhookSecret: 'whsec_portage_sandbox_development_only',
        stripeSecretKey: undefined,
        publishableKey: 'pk_sandbox_portage',
        stripeApiBase: undefined,
        platformFeeBps: 250,
        payoutHoldDays: 7,
        disputeFeeCents: 1500,
        connectWebhookSecret: 'whsec_portage_sandbox_development_only',
      },
      mail: { smtpUrl: undefined, from: 'Portage <orders@portage.localhost>' },
      jobs: true,
      returnWindowDays: 30,
      returnEscalationBusinessDays: 2,
      feedSettleMs: 30_000,
      defaultLocale: 'en-CA',
      platformMaxHolds: 1000,
      invoiceRender: { threads: 1, queue: 8 },
    });
  });

  it('reads Canada Post’s settings, and refuses a key without its password or a customer number', () => {
    expect(
      loadConfig({
        CANADA_POST_API_KEY: 'user:pass:word',
        CANADA_POST_CUSTOMER_NUMBER: '2004381',
        CANADA_POST_BASE_URL: 'https://ct.soa-gw.canadapost.ca',
        CANADA_POST_SENDER_PHONE: '416 555 0199',
        SHIPPING_RATE_BUDGET_MS: '800',
      }).shipping,
    ).toEqual({
      canadaPost: {
        baseUrl: 'https://ct.soa-gw.canadapost.ca',
        username: 'user',
        password: 'pass:word',
        customerNumber: '2004381',
      },
      rateBudgetMs: 800,
      rateCacheMs: 600_000,
      labels: {
        sandboxDeliveryMs: 600_000,
        trackingRecheckMs: 14_400_000,
        senderPhone: '416 555 0199',
        timeoutMs: 30_000,
      },
    });
    expect(() => loadConfig({ CANADA_POST_API_KEY: 'justakey', SHIPPING_RATE_CACHE_MS: '0' })).toThrow(
      [
        'Invalid configuration:',
        '- SHIPPING_RATE_CACHE_MS: must be between 10000 and 86400000 (got "0")',
        '- CANADA_POST_API_KEY: must be the API key as user:password',
        '- CANADA_POST_CUSTOMER_NUMBER: required when CANADA_POST_API_KEY is set',
        '- CANADA_POST_SENDER_PHONE: required when CANADA_POST_API_KEY is set (10 digits or more)',
      ].join('\n'),
    );
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', APP_ENV: '', RATE_LIMITS: '', DATABASE_URL: '' })).toMatchObject({
      port: 3000,
      appEnv: 'development',
      rateLimits: true,
      databaseUrl: undefined,
    });
  });

  it('derives the default public URL from PORT and strips a trailing slash from a given one', () => {
    expect(loadConfig({ PORT: '8080' })).toMatchObject({
      publicBaseUrl: 'http://localhost:8080',
      authRedirectOrigins: ['http://localhost:8080'],
    });
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://shop.example.ca/' })).toMatchObject({
      publicBaseUrl: 'https://shop.example.ca',
      authRedirectOrigins: ['https://shop.example.ca'],
    });
  });

  it('reads the values it is given', () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/portage',
      DATABASE_URL: 'postgresql://app:pw@db.internal:5432/portage',
      DATABASE_POOL_SIZE: '40',
      REDIS_URL: 'rediss://cache.internal:6380',
      ACCESS_TOKEN_TTL_SECONDS: '900',
      REFRESH_WINDOW_SECONDS: '0',
      RATE_LIMITS: 'off',
      CORS_ORIGINS: ' https://a.example.ca , https://b.example.ca ',
      LOG_LEVEL: 'debug',
      TRUST_PROXY: '1',
      SESSION_MAX_AGE_SECONDS: '86400',
      AUTH_REDIRECT_ORIGINS: 'https://app.example.ca',
    });
    expect(config).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      dataDir: '/var/lib/portage',
      databaseUrl: 'postgresql://app:pw@db.internal:5432/portage',
      databasePoolSize: 40,
      redisUrl: 'rediss://cache.internal:6380',
      accessTokenTtlSeconds: 900,
      refreshWindowSeconds: 0,
      rateLimits: false,
      corsOrigins: ['https://a.example.ca', 'https://b.example.ca'],
      logLevel: 'debug',
      trustProxy: 1,
      sessionMaxAgeSeconds: 86_400,
      authRedirectOrigins: ['https://app.example.ca'],
    });
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ SHOP_APPROVAL: 'on' }).shopApproval).toBe(true);
    expect(problemsOf({ SHOP_APPROVAL: 'yes' })).toEqual(['SHOP_APPROVAL: must be on or off (got "yes")']);
    expect(
      loadConfig({ MCP_ALLOWED_ORIGINS: 'https://agent.example.com/, http://127.0.0.1:6274' })
        .mcpAllowedOrigins,
    ).toEqual(['https://agent.example.com', 'http://127.0.0.1:6274']);
    expect(problemsOf({ MCP_ALLOWED_ORIGINS: 'agent.example.com' })).toEqual([
      'MCP_ALLOWED_ORIGINS: "agent.example.com" is not an origin like https://agent.example.com',
    ]);
    expect(
      loadConfig({ VIEW_IMAGE_ORIGINS: 'https://img.example.ca/, https://cdn.example.com' }).viewImageOrigins,
    ).toEqual(['https://img.example.ca', 'https://cdn.example.com']);
    expect(problemsOf({ VIEW_IMAGE_ORIGINS: 'https://img.example.ca/photos' })).toEqual([
      'VIEW_IMAGE_ORIGINS: "https://img.example.ca/photos" is not an origin like https://images.example.com',
    ]);
  });

  it('trusts named proxies only: a hop count or addresses/CIDRs, never every hop', () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,::1,fd00::/8,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    expect(problemsOf({ TRUST_PROXY: 'true' })).toEqual([
      expect.stringMatching(/^TRUST_PROXY: "true" would trust every hop/),
    ]);
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/33,proxy.internal' })).toEqual([
      'TRUST_PROXY: "10.0.0.0/33" is not a hop count, an address, a CIDR or one of loopback, linklocal, uniquelocal',
      'TRUST_PROXY: "proxy.internal" is not a hop count, an address, a CIDR or one of loopback, linklocal, uniquelocal',
    ]);
  });

  it('reports every bad value at once, one line per variable, each naming it', () => {
    const problems = problemsOf({
      PORT: 'abc',
      APP_ENV: 'prod',
      RATE_LIMITS: 'maybe',
      LOG_LEVEL: 'loud',
      CORS_ORIGINS: 'not-a-url',
      DEFAULT_LOCALE: 'fr-FR',
    });
    expect(problems).toHaveLength(6);
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'APP_ENV',
      'CORS_ORIGINS',
      'DEFAULT_LOCALE',
      'LOG_LEVEL',
      'PORT',
      'RATE_LIMITS',
    ]);
    expect(problems).toEqual(
      expect.arrayContaining([
        'APP_ENV: must be one of development, staging, production (got "prod")',
        'PORT: must be a whole number (got "abc")',
        'RATE_LIMITS: must be on or off (got "maybe")',
        'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
        'CORS_ORIGINS: "not-a-url" is not an origin like https://shop.example.ca',
        'DEFAULT_LOCALE: must be one of en-CA, fr-CA (got "fr-FR")',
      ]),
    );
    for (const p of problems) expect(p).not.toContain('\n');
  });

  it('chooses Stripe when its secret key is set, requires its other keys, and never echoes a key', () => {
    const stripe = {
      STRIPE_SECRET_KEY: 'sk_test_abc123',
      STRIPE_PUBLISHABLE_KEY: 'pk_test_abc123',
      PAYMENT_WEBHOOK_SECRET: 'whsec_abcdefghijklmnop',
    };
    expect(loadConfig(stripe).payments).toMatchObject({
      provider: 'stripe',
      stripeSecretKey: 'sk_test_abc123',
      publishableKey: 'pk_test_abc123',
      webhookSecret: 'whsec_abcdefghijklmnop',
    });
    expect(problemsOf({ STRIPE_SECRET_KEY: 'sk_test_abc123' })).toEqual([
      'PAYMENT_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY (the whsec_… of the webhook endpoint)',
      'STRIPE_PUBLISHABLE_KEY: required with STRIPE_SECRET_KEY',
    ]);
    const problems = problemsOf({ ...stripe, STRIPE_SECRET_KEY: 'sk_test_has space' });
    expect(problems).toEqual(['STRIPE_SECRET_KEY: must be a Stripe secret key (sk_test_…, sk_live_…)']);
    expect(problems.join()).not.toContain('has space');
  });

  it('takes METRICS_TOKEN of 32 characters or more, and never echoes a shorter one', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    const token = 'a'.repeat(32);
    expect(loadConfig({ METRICS_TOKEN: token }).metricsToken).toBe(token);
    expect(problemsOf({ METRICS_TOKEN: 'short-secret' })).toEqual([
      'METRICS_TOKEN: must be at least 32 characters',
    ]);
  });

  it('refuses numbers out of range', () => {
    expect(problemsOf({ PORT: '65536', ACCESS_TOKEN_TTL_SECONDS: '0', DATABASE_POOL_SIZE: '0' })).toEqual([
      'PORT: must be between 0 and 65535 (got "65536")',
      'DATABASE_POOL_SIZE: must be between 1 and 200 (got "0")',
      'ACCESS_TOKEN_TTL_SECONDS: must be between 1 and 86400 (got "0")',
    ]);
    expect(problemsOf({ DATABASE_POOL_SIZE: '201' })).toEqual([
      'DATABASE_POOL_SIZE: must be between 1 and 200 (got "201")',
    ]);
    expect(problemsOf({ INVOICE_RENDER_THREADS: '0', INVOICE_RENDER_QUEUE: '1001' })).toEqual([
      'INVOICE_RENDER_THREADS: must be between 1 and 16 (got "0")',
      'INVOICE_RENDER_QUEUE: must be between 1 and 1000 (got "1001")',
    ]);
    expect(loadConfig({ INVOICE_RENDER_THREADS: '2', INVOICE_RENDER_QUEUE: '1' }).invoiceRender).toEqual({
      threads: 2,
      queue: 1,
    });
  });

  it.each(['staging', 'production'])(
    'refuses APP_ENV=%s without a signing key and a public URL, and loads with them',
    (appEnv) => {
      const problems = problemsOf({ APP_ENV: appEnv });
      const sandboxRefused =
        appEnv === 'production'
          ? ['STRIPE_SECRET_KEY: required when APP_ENV=production (the sandbox takes no money)']
          : [];
      expect(problems).toHaveLength(4 + sandboxRefused.length);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^JWT_PRIVATE_KEY\b.*required when APP_ENV=/),
          expect.stringMatching(/^UCP_SIGNING_KEY\b.*required when APP_ENV=/),
          `PUBLIC_BASE_URL: required when APP_ENV=${appEnv}`,
          `PAYMENT_WEBHOOK_SECRET: required when APP_ENV=${appEnv}`,
          ...sandboxRefused,
        ]),
      );

      const config = loadConfig(deployed(appEnv));
      expect(config).toMatchObject({
        appEnv,
        jwtPrivateKey: testKeyPem(),
        logLevel: 'info',
        publicBaseUrl: 'https://shop.example.ca',
        authRedirectOrigins: ['https://shop.example.ca'],
      });
    },
  );

  it("takes UCP's signing key only as an EC P-256 key, and keeps the retired public keys given", () => {
    const rsa = testKeyPem();
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const refusal =
      'UCP_SIGNING_KEY: must be an EC P-256 private key in PKCS#8 PEM form (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)';
    expect(problemsOf({ UCP_SIGNING_KEY: rsa })).toEqual([refusal]);
    expect(problemsOf({ UCP_SIGNING_KEY: p384 })).toEqual([refusal]);
    const old = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    const config = loadConfig({ UCP_SIGNING_KEY: testUcpKeyPem(), UCP_PREVIOUS_PUBLIC_KEYS: old });
    expect(config.ucpSigningKey).toBe(testUcpKeyPem());
    expect(config.ucpPreviousPublicKeys).toEqual([old.trim()]);
  });

  it('reads the signing key from JWT_PRIVATE_KEY_FILE, and names a file it cannot read', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'portage-config-'));
    try {
      const file = path.join(dir, 'key.pem');
      writeFileSync(file, testKeyPem());
      const { JWT_PRIVATE_KEY: _, ...env } = deployed('production');
      expect(loadConfig({ ...env, JWT_PRIVATE_KEY_FILE: file }).jwtPrivateKey).toBe(testKeyPem());
      const missing = path.join(dir, 'missing.pem');
      expect(problemsOf({ ...env, JWT_PRIVATE_KEY_FILE: missing })).toContain(
        `JWT_PRIVATE_KEY_FILE: cannot read ${missing}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a signing key that is not a PKCS#8 PEM', () => {
    const problems = problemsOf({ JWT_PRIVATE_KEY: 'not a key' });
    expect(problems).toEqual([
      'JWT_PRIVATE_KEY: must be an RSA private key in PKCS#8 PEM form (as openssl genpkey writes it)',
    ]);
  });

  it('reports an invalid DATABASE_URL or REDIS_URL without echoing its secret', () => {
    let error: unknown;
    try {
      loadConfig({ DATABASE_URL: 'mysql://user:secret@h/db', REDIS_URL: 'http://:hunter2@cache/0' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems).toEqual([
      'DATABASE_URL: must be a postgres:// URL',
      'REDIS_URL: must be a redis:// URL',
    ]);
    for (const text of [message, ...problems]) {
      expect(text).not.toContain('secret');
      expect(text).not.toContain('hunter2');
    }
  });

  it('needs GOOGLE_CLIENT_SECRET with GOOGLE_CLIENT_ID', () => {
    expect(problemsOf({ GOOGLE_CLIENT_ID: 'client-id' })).toEqual([
      'GOOGLE_CLIENT_SECRET: required when GOOGLE_CLIENT_ID is set',
    ]);
    expect(loadConfig({ GOOGLE_CLIENT_ID: 'client-id', GOOGLE_CLIENT_SECRET: 'shh' }).oidc).toEqual({
      clientId: 'client-id',
      clientSecret: 'shh',
      issuer: 'https://accounts.google.com',
      authorizationEndpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenEndpoint: 'https://oauth2.googleapis.com/token',
      jwksUri: 'https://www.googleapis.com/oauth2/v3/certs',
    });
  });

  it('refuses an http:// OIDC endpoint in production, accepts it in development', () => {
    const oidc = {
      GOOGLE_CLIENT_ID: 'client-id',
      GOOGLE_CLIENT_SECRET: 'shh',
      OIDC_TOKEN_ENDPOINT: 'http://idp.example.ca/token',
    };
    expect(problemsOf({ ...deployed('production'), ...oidc })).toEqual([
      'OIDC_TOKEN_ENDPOINT: must use https when APP_ENV=production',
    ]);
    expect(loadConfig(oidc).oidc?.tokenEndpoint).toBe('http://idp.example.ca/token');
  });
});
