// The one place where the environment is read. Everything else receives a typed Config.
// Long because it is one place: every variable's parsing and its error message stay together.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { isOrigin } from './contract/format.ts';
import { LOCALES, type Locale } from './contract/i18n.ts';

export const APP_ENVS = ['development', 'staging', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

/**
 * Connections of an instance's PostgreSQL pool unless DATABASE_POOL_SIZE says otherwise: no
 * fewer than the requests one instance serves at once. A transaction waits on this process
 * between its statements; with 10 connections and 16 checkouts at a time, about half the
 * connections sat idle in a transaction, waiting on the event loop, while other requests queued
 * for one (docs/performance.md "Checkout").
 */
export const DEFAULT_POOL_SIZE = 20;

export interface OidcConfig {
  clientId: string;
  clientSecret: string;
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
}

export interface Config {
  appEnv: AppEnv;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Connections of the PostgreSQL pool (DATABASE_URL only; the embedded database has one). */
  databasePoolSize: number;
  redisUrl: string | undefined;
  publicBaseUrl: string;
  /** PEM (PKCS#8) of the token signing key; undefined in development means "generate in dataDir". */
  jwtPrivateKey: string | undefined;
  /** PEMs (SPKI) of retired signing keys whose tokens are still accepted. */
  jwtPreviousPublicKeys: string[];
  /** PEM (PKCS#8, EC P-256) of the key that signs UCP webhooks; undefined in development means "generate in dataDir". */
  ucpSigningKey: string | undefined;
  /** PEMs (SPKI) of retired UCP signing keys still published in /.well-known/ucp (rotation). */
  ucpPreviousPublicKeys: string[];
  accessTokenTtlSeconds: number;
  /** Lifetime of an agent's access token (OAuth, for /mcp); its refresh token renews it. */
  agentTokenTtlSeconds: number;
  refreshWindowSeconds: number;
  /** Sign in again after this long, however often the token was refreshed. */
  sessionMaxAgeSeconds: number;
  rateLimits: boolean;
  corsOrigins: string[] | '*';
  /** Browser origins besides PUBLIC_BASE_URL's that may call /mcp (its Origin check). */
  mcpAllowedOrigins: string[];
  /** Where the views' product images may come from: the only origins in their CSP (VIEW_IMAGE_ORIGINS). */
  viewImageOrigins: string[];
  logLevel: string;
  /**
   * Which proxies in front of the service to believe about the client address: none
   * (false), the nearest N hops, or these addresses/CIDRs. Never every hop.
   */
  trustProxy: false | number | string[];
  /** How long an instance may trust what it last read of a token's user (ms). */
  authCacheMs: number;
  /** Search engine: the in-process index (memory) or plain SQL. */
  searchIndex: 'memory' | 'sql';
  oidc: OidcConfig | undefined;
  authRedirectOrigins: string[];
  payments: PaymentsConfig;
  mail: MailConfig;
  /** Whether this instance runs the background jobs (reservation expiry, pending orders, outbox, refunds). */
  jobs: boolean;
  /** A delivered order may be returned until this many days after its delivery (docs/api.md "Returns"). */
  returnWindowDays: number;
  /** Live holds (checkout sessions holding stock) one agent platform may keep at once. */
  platformMaxHolds: number;
  /** The locale of a person with no saved preference and no Accept-Language we speak. */
  defaultLocale: Locale;
  /** Invoices drawn at once in worker threads, and how many more may wait before a 503. */
  invoiceRender: { threads: number; queue: number };
}

export interface PaymentsConfig {
  /** Stripe when STRIPE_SECRET_KEY is set; the built-in sandbox otherwise. */
  provider: 'sandbox' | 'stripe';
  /** The secret webhook events are signed with (Stripe's `whsec_…`, or the sandbox's). */
  webhookSecret: string;
  stripeSecretKey: string | undefined;
  publishableKey: string;
  /** Where the Stripe SDK sends its requests (tests point it at a local server); undefined: Stripe's own. */
  stripeApiBase: URL | undefined;
  /** Platform fee in basis points of (items - discount) per order. */
  platformFeeBps: number;
}

export interface MailConfig {
  /** SMTP server URL (smtp:// or smtps://); undefined writes .eml files under $DATA_DIR/mail/. */
  smtpUrl: string | undefined;
  from: string;
}

/** The sandbox's webhook secret in development when PAYMENT_WEBHOOK_SECRET is not set. */
export const SANDBOX_DEV_WEBHOOK_SECRET = 'whsec_portage_sandbox_development_only';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `- ${p}`).join('\n')}`);
  }
}

type Env = Record<string, string | undefined>;

const GOOGLE = {
  issuer: 'https://accounts.google.com',
  authorizationEndpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenEndpoint: 'https://oauth2.googleapis.com/token',
  jwksUri: 'https://www.googleapis.com/oauth2/v3/certs',
};

// Spelled in two parts so that secret scanners do not take this pattern for a key.
/** Whether a PEM is a PKCS#8 EC private key on P-256 (UCP signs with ES256 only). */
function isP256PrivateKey(pem: string): boolean {
  if (!PKCS8_PEM.test(pem)) return false;
  try {
    const key = createPrivateKey(pem);
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

const PKCS8_PEM = new RegExp(`-----BEGIN ${'PRIVATE'} KEY-----`);

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);

const httpUrl = z.string().refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Reads and validates the environment. Collects every problem before failing so that an
 * operator fixes a bad deployment in one pass; throws ConfigError with one line per problem.
 */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const pick = <T>(name: string, schema: z.ZodType<T>, fallback: T): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const r = schema.safeParse(raw);
    if (r.success) return r.data;
    // URLs may hold credentials: never echo them.
    const shown = /URL|KEY|SECRET/.test(name) ? '' : ` (got "${truncate(raw)}")`;
    problems.push(`${name}: ${r.error.issues[0]?.message ?? 'invalid'}${shown}`);
    return fallback;
  };

  const appEnv = pick(
    'APP_ENV',
    z.enum(APP_ENVS, { message: `must be one of ${APP_ENVS.join(', ')}` }),
    'development',
  );
  const deployed = appEnv !== 'development';
  const port = pick('PORT', intIn(0, 65535), 3000);
  const host = pick('HOST', z.string().min(1), '127.0.0.1');
  const dataDir = path.resolve(pick('DATA_DIR', z.string().min(1), './data'));
  const databaseUrl = pick<string | undefined>(
    'DATABASE_URL',
    z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
    undefined,
  );
  const databasePoolSize = pick('DATABASE_POOL_SIZE', intIn(1, 200), DEFAULT_POOL_SIZE);
  const redisUrl = pick<string | undefined>(
    'REDIS_URL',
    z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL'),
    undefined,
  );
  let publicBaseUrl = pick<string | undefined>('PUBLIC_BASE_URL', httpUrl, undefined);
  if (!publicBaseUrl) {
    if (deployed) problems.push(`PUBLIC_BASE_URL: required when APP_ENV=${appEnv}`);
    publicBaseUrl = `http://localhost:${port}`;
  }
  publicBaseUrl = publicBaseUrl.replace(/\/+$/, '');

  let jwtPrivateKey = env.JWT_PRIVATE_KEY || undefined;
  if (!jwtPrivateKey && env.JWT_PRIVATE_KEY_FILE) {
    try {
      jwtPrivateKey = readFileSync(env.JWT_PRIVATE_KEY_FILE, 'utf8');
    } catch {
      problems.push(`JWT_PRIVATE_KEY_FILE: cannot read ${env.JWT_PRIVATE_KEY_FILE}`);
    }
  }
  if (jwtPrivateKey && !PKCS8_PEM.test(jwtPrivateKey)) {
    problems.push(
      'JWT_PRIVATE_KEY: must be an RSA private key in PKCS#8 PEM form (as openssl genpkey writes it)',
    );
  }
  if (!jwtPrivateKey && deployed) {
    problems.push(
      `JWT_PRIVATE_KEY (or JWT_PRIVATE_KEY_FILE): required when APP_ENV=${appEnv}; no default key is used`,
    );
  }
  const jwtPreviousPublicKeys =
    (env.JWT_PREVIOUS_PUBLIC_KEYS ?? '').match(
      /-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g,
    ) ?? [];

  // UCP's signing key is its own (not the token key): UCP requires ES256, and it rotates apart.
  let ucpSigningKey = env.UCP_SIGNING_KEY || undefined;
  if (!ucpSigningKey && env.UCP_SIGNING_KEY_FILE) {
    try {
      ucpSigningKey = readFileSync(env.UCP_SIGNING_KEY_FILE, 'utf8');
    } catch {
      problems.push(`UCP_SIGNING_KEY_FILE: cannot read ${env.UCP_SIGNING_KEY_FILE}`);
    }
  }
  if (ucpSigningKey && !isP256PrivateKey(ucpSigningKey)) {
    problems.push(
      'UCP_SIGNING_KEY: must be an EC P-256 private key in PKCS#8 PEM form (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)',
    );
  }
  if (!ucpSigningKey && deployed) {
    problems.push(
      `UCP_SIGNING_KEY (or UCP_SIGNING_KEY_FILE): required when APP_ENV=${appEnv}; no default key is used`,
    );
  }
  const ucpPreviousPublicKeys =
    (env.UCP_PREVIOUS_PUBLIC_KEYS ?? '').match(
      /-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g,
    ) ?? [];

  const accessTokenTtlSeconds = pick('ACCESS_TOKEN_TTL_SECONDS', intIn(1, 86_400), 3600);
  const agentTokenTtlSeconds = pick('AGENT_TOKEN_TTL_SECONDS', intIn(60, 86_400), 3600);
  const refreshWindowSeconds = pick('REFRESH_WINDOW_SECONDS', intIn(0, 90 * 86_400), 7 * 86_400);
  const sessionMaxAgeSeconds = pick('SESSION_MAX_AGE_SECONDS', intIn(60, 365 * 86_400), 30 * 86_400);
  const rateLimits =
    pick('RATE_LIMITS', z.enum(['on', 'off'], { message: 'must be on or off' }), 'on') === 'on';
  const corsRaw = env.CORS_ORIGINS?.trim();
  let corsOrigins: string[] | '*' = '*';
  if (corsRaw !== '*') {
    const given = list(corsRaw);
    for (const o of given)
      if (!isOrigin(o))
        problems.push(`CORS_ORIGINS: "${truncate(o)}" is not an origin like https://shop.example.ca`);
    // Browsers send origins without a trailing slash: keep them in that form to compare.
    corsOrigins = given.map(normalOrigin);
  }
  const mcpAllowedOrigins = list(env.MCP_ALLOWED_ORIGINS?.trim());
  for (const o of mcpAllowedOrigins)
    if (!isOrigin(o))
      problems.push(`MCP_ALLOWED_ORIGINS: "${truncate(o)}" is not an origin like https://agent.example.com`);
  const viewImageOrigins = list(env.VIEW_IMAGE_ORIGINS?.trim());
  for (const o of viewImageOrigins)
    if (!isOrigin(o))
      problems.push(`VIEW_IMAGE_ORIGINS: "${truncate(o)}" is not an origin like https://images.example.com`);
  const logLevel = pick(
    'LOG_LEVEL',
    z.enum(LOG_LEVELS as [string, ...string[]], { message: `must be one of ${LOG_LEVELS.join(', ')}` }),
    // A request log in the terminal of `npm start &` buries the README's answers.
    deployed ? 'info' : 'warn',
  );
  const trustProxy = trustedProxies(env.TRUST_PROXY, problems);

  const authCacheMs = pick('AUTH_CACHE_MS', intIn(0, 60_000), 1000);
  const searchIndex = pick(
    'SEARCH_INDEX',
    z.enum(['memory', 'sql'], { message: 'must be memory or sql' }),
    'memory',
  );

  let oidc: OidcConfig | undefined;
  const clientId = env.GOOGLE_CLIENT_ID?.trim();
  if (clientId) {
    const clientSecret = env.GOOGLE_CLIENT_SECRET?.trim();
    if (!clientSecret) problems.push('GOOGLE_CLIENT_SECRET: required when GOOGLE_CLIENT_ID is set');
    const endpoint = (name: string, fallback: string) => {
      const v = pick(name, httpUrl, fallback);
      if (deployed && v.startsWith('http:')) problems.push(`${name}: must use https when APP_ENV=${appEnv}`);
      return v;
    };
    oidc = {
      clientId,
      clientSecret: clientSecret ?? '',
      issuer: endpoint('OIDC_ISSUER', GOOGLE.issuer),
      authorizationEndpoint: endpoint('OIDC_AUTHORIZATION_ENDPOINT', GOOGLE.authorizationEndpoint),
      tokenEndpoint: endpoint('OIDC_TOKEN_ENDPOINT', GOOGLE.tokenEndpoint),
      jwksUri: endpoint('OIDC_JWKS_URI', GOOGLE.jwksUri),
    };
  }
  const givenRedirectOrigins = list(env.AUTH_REDIRECT_ORIGINS);
  for (const o of givenRedirectOrigins) {
    if (!isOrigin(o))
      problems.push(`AUTH_REDIRECT_ORIGINS: "${truncate(o)}" is not an origin like https://app.example.ca`);
  }
  const authRedirectOrigins = givenRedirectOrigins.map(normalOrigin);
  if (authRedirectOrigins.length === 0 && isOrigin(new URL(publicBaseUrl).origin)) {
    authRedirectOrigins.push(new URL(publicBaseUrl).origin);
  }

  const payments = paymentsConfig(pick, problems, deployed, appEnv);
  const mail: MailConfig = {
    smtpUrl: pick<string | undefined>(
      'SMTP_URL',
      z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL'),
      undefined,
    ),
    from: pick('MAIL_FROM', z.string().min(3).max(200), 'Portage <orders@portage.localhost>'),
  };
  const jobs = pick('JOBS', z.enum(['on', 'off'], { message: 'must be on or off' }), 'on') === 'on';
  const platformMaxHolds = pick('PLATFORM_MAX_HOLDS', intIn(1, 1_000_000), 1000);
  const returnWindowDays = pick('RETURN_WINDOW_DAYS', intIn(1, 365), 30);
  const defaultLocale = pick(
    'DEFAULT_LOCALE',
    z.enum(LOCALES, { message: `must be one of ${LOCALES.join(', ')}` }),
    'en-CA',
  );

  const invoiceRender = {
    threads: pick('INVOICE_RENDER_THREADS', intIn(1, 16), 1),
    queue: pick('INVOICE_RENDER_QUEUE', intIn(1, 1000), 8),
  };

  if (problems.length) throw new ConfigError(problems);
  return {
    appEnv,
    port,
    host,
    dataDir,
    databaseUrl,
    databasePoolSize,
    redisUrl,
    publicBaseUrl,
    jwtPrivateKey,
    jwtPreviousPublicKeys,
    ucpSigningKey,
    ucpPreviousPublicKeys,
    accessTokenTtlSeconds,
    agentTokenTtlSeconds,
    refreshWindowSeconds,
    sessionMaxAgeSeconds,
    rateLimits,
    corsOrigins,
    mcpAllowedOrigins: mcpAllowedOrigins.map(normalOrigin),
    viewImageOrigins: viewImageOrigins.map(normalOrigin),
    logLevel,
    trustProxy,
    authCacheMs,
    searchIndex,
    oidc,
    authRedirectOrigins,
    payments,
    mail,
    jobs,
    returnWindowDays,
    platformMaxHolds,
    defaultLocale,
    invoiceRender,
  };
}

function paymentsConfig(
  pick: <T>(name: string, schema: z.ZodType<T>, fallback: T) => T,
  problems: string[],
  deployed: boolean,
  appEnv: AppEnv,
): PaymentsConfig {
  const stripeSecretKey = pick<string | undefined>(
    'STRIPE_SECRET_KEY',
    z
      .string()
      .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, 'must be a Stripe secret key (sk_test_…, sk_live_…)'),
    undefined,
  );
  const provider = stripeSecretKey ? 'stripe' : 'sandbox';
  // The sandbox takes no money: anyone holding a session's page could "pay" with a test card.
  if (provider === 'sandbox' && appEnv === 'production') {
    problems.push('STRIPE_SECRET_KEY: required when APP_ENV=production (the sandbox takes no money)');
  }
  let webhookSecret = pick<string | undefined>(
    'PAYMENT_WEBHOOK_SECRET',
    z.string().min(16, 'must be at least 16 characters').max(200),
    undefined,
  );
  if (!webhookSecret) {
    if (provider === 'stripe' || deployed) {
      problems.push(
        provider === 'stripe'
          ? 'PAYMENT_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY (the whsec_… of the webhook endpoint)'
          : `PAYMENT_WEBHOOK_SECRET: required when APP_ENV=${appEnv}`,
      );
    }
    webhookSecret = SANDBOX_DEV_WEBHOOK_SECRET;
  }
  const publishableKey = pick<string | undefined>(
    'STRIPE_PUBLISHABLE_KEY',
    z.string().regex(/^pk_(test|live)_[A-Za-z0-9]+$/, 'must be a Stripe publishable key (pk_test_…)'),
    undefined,
  );
  if (provider === 'stripe' && !publishableKey) {
    problems.push('STRIPE_PUBLISHABLE_KEY: required with STRIPE_SECRET_KEY');
  }
  const apiBase = pick<string | undefined>('STRIPE_API_BASE', httpUrl, undefined);
  return {
    provider,
    webhookSecret,
    stripeSecretKey,
    publishableKey: publishableKey ?? 'pk_sandbox_portage',
    stripeApiBase: apiBase ? new URL(apiBase) : undefined,
    platformFeeBps: pick('PLATFORM_FEE_BPS', intIn(0, 10_000), 250),
  };
}

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: `false`, a hop count (`1`: the one proxy in front), or addresses/CIDRs of the
 * proxies. `true` is refused: trusting every hop lets a caller pick their own address by
 * sending X-Forwarded-For, and with it escape every per-address limit.
 */
function trustedProxies(raw: string | undefined, problems: string[]): Config['trustProxy'] {
  const v = raw?.trim() ?? '';
  if (v === '' || v === 'false' || v === '0') return false;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops <= 10) return hops;
    problems.push('TRUST_PROXY: a hop count must be between 0 and 10');
    return false;
  }
  if (v === 'true') {
    problems.push(
      'TRUST_PROXY: "true" would trust every hop (any client could choose its address); give the number of proxies in front (e.g. 1) or their addresses/CIDRs',
    );
    return false;
  }
  const entries = list(v);
  for (const e of entries) {
    const [addr, bits, extra] = e.split('/');
    const family = isIP(addr ?? '');
    const bitsOk =
      bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!PROXY_KEYWORDS.includes(e) && (!family || !bitsOk || extra !== undefined)) {
      problems.push(
        `TRUST_PROXY: "${truncate(e)}" is not a hop count, an address, a CIDR or one of ${PROXY_KEYWORDS.join(', ')}`,
      );
    }
  }
  return entries;
}

function normalOrigin(v: string): string {
  return isOrigin(v) ? new URL(v).origin : v;
}

function truncate(v: string): string {
  return v.length > 40 ? `${v.slice(0, 37)}...` : v;
}
