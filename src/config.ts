// The one place where the environment is read. Everything else receives a typed Config.
// loadConfig reads every variable and gathers every problem in one pass; how one variable is read
// is config/parse.ts, and the parts with rules of their own are config/keys.ts (signing keys),
// config/payments.ts and config/proxies.ts (TRUST_PROXY).
import path from 'node:path';
import { z } from 'zod';
import { signingKeys } from './config/keys.ts';
import { type Env, httpUrl, intIn, list, normalOrigin, truncate } from './config/parse.ts';
import { type PaymentsConfig, paymentsConfig } from './config/payments.ts';
import { type TrustProxy, trustedProxies } from './config/proxies.ts';
import { type ShippingConfig, shippingConfig } from './config/shipping.ts';
import { isOrigin } from './contract/format.ts';
import { LOCALES, type Locale } from './contract/i18n.ts';

export { type PaymentsConfig, SANDBOX_DEV_WEBHOOK_SECRET } from './config/payments.ts';

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

/** The S3-compatible bucket of IMAGE_BUCKET_URL (docs/operations.md "Images"). */
export interface BucketSettings {
  /** The service's endpoint, e.g. https://s3.ca-central-1.amazonaws.com or http://minio:9000. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

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
  trustProxy: TrustProxy;
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
  /** A return left pending this many business days after the day it was asked goes to the admins. */
  returnEscalationBusinessDays: number;
  /** Changes go to the platforms' Feed APIs once this old by the database's clock (FEED_SETTLE_MS). */
  feedSettleMs: number;
  /** Whether a new shop waits for an admin's approval before anything of it is on sale (SHOP_APPROVAL). */
  shopApproval: boolean;
  /** Live holds (checkout sessions holding stock) one agent platform may keep at once. */
  platformMaxHolds: number;
  /** The locale of a person with no saved preference and no Accept-Language we speak. */
  defaultLocale: Locale;
  /** Invoices drawn at once in worker threads, and how many more may wait before a 503. */
  invoiceRender: { threads: number; queue: number };
  /** The S3-compatible bucket of uploaded images (IMAGE_BUCKET_URL); undefined: the database or data directory. */
  imageBucket: BucketSettings | undefined;
  /** The carrier rating parcels, and how long a checkout waits for it (docs/shipping.md). */
  shipping: ShippingConfig;
  /** The file feed (docs/acp.md "File feed"): where its snapshots are written, and how often. */
  feeds: FeedsConfig;
  /** The bearer token of GET /metrics (METRICS_TOKEN); undefined: no /metrics route. */
  metricsToken: string | undefined;
}
export interface FeedsConfig {
  /** FEED_DIR: shared storage when several instances run the jobs or serve the files. */
  dir: string;
  /** FEED_FILE_HOURS: a snapshot is written when the last is older than this. */
  fileHours: number;
}
export interface MailConfig {
  /** SMTP server URL (smtp:// or smtps://); undefined writes .eml files under $DATA_DIR/mail/. */
  smtpUrl: string | undefined;
  from: string;
}
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `- ${p}`).join('\n')}`);
  }
}

const GOOGLE = {
  issuer: 'https://accounts.google.com',
  authorizationEndpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenEndpoint: 'https://oauth2.googleapis.com/token',
  jwksUri: 'https://www.googleapis.com/oauth2/v3/certs',
};
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
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
    const shown = /URL|KEY|SECRET|_TOKEN$/.test(name) ? '' : ` (got "${truncate(raw)}")`;
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
  const { jwtPrivateKey, jwtPreviousPublicKeys, ucpSigningKey, ucpPreviousPublicKeys } = signingKeys(
    env,
    problems,
    deployed,
    appEnv,
  );

  const accessTokenTtlSeconds = pick('ACCESS_TOKEN_TTL_SECONDS', intIn(1, 86_400), 3600);
  const agentTokenTtlSeconds = pick('AGENT_TOKEN_TTL_SECONDS', intIn(60, 86_400), 3600);
  const refreshWindowSeconds = pick('REFRESH_WINDOW_SECONDS', intIn(0, 90 * 86_400), 7 * 86_400);
  const sessionMaxAgeSeconds = pick('SESSION_MAX_AGE_SECONDS', intIn(60, 365 * 86_400), 30 * 86_400);
  const rateLimits =
    pick('RATE_LIMITS', z.enum(['on', 'off'], { message: 'must be on or off' }), 'on') === 'on';
  const shopApproval =
    pick('SHOP_APPROVAL', z.enum(['on', 'off'], { message: 'must be on or off' }), 'off') === 'on';
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
  const returnEscalationBusinessDays = pick('RETURN_ESCALATION_BUSINESS_DAYS', intIn(1, 30), 2);
  const feedSettleMs = pick('FEED_SETTLE_MS', intIn(0, 600_000), 30_000);
  const defaultLocale = pick(
    'DEFAULT_LOCALE',
    z.enum(LOCALES, { message: `must be one of ${LOCALES.join(', ')}` }),
    'en-CA',
  );

  const invoiceRender = {
    threads: pick('INVOICE_RENDER_THREADS', intIn(1, 16), 1),
    queue: pick('INVOICE_RENDER_QUEUE', intIn(1, 1000), 8),
  };

  const imageBucket = imageBucketOf(env, problems);
  const shipping = shippingConfig(env, pick, problems, deployed);
  const feeds: FeedsConfig = {
    dir: path.resolve(pick('FEED_DIR', z.string().min(1), path.join(dataDir, 'feeds'))),
    fileHours: pick('FEED_FILE_HOURS', intIn(1, 168), 24),
  };

  // A bearer secret a scraper sends on every scrape: long enough that guessing is hopeless.
  const metricsToken = pick<string | undefined>(
    'METRICS_TOKEN',
    z.string().min(32, 'must be at least 32 characters'),
    undefined,
  );

  if (problems.length) throw new ConfigError(problems);
  return {
    metricsToken,
    imageBucket,
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
    shopApproval,
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
    returnEscalationBusinessDays,
    feedSettleMs,
    platformMaxHolds,
    defaultLocale,
    invoiceRender,
    shipping,
    feeds,
  };
}

/** IMAGE_BUCKET_URL is the endpoint with the bucket as its path: https://s3.ca-central-1.amazonaws.com/portage-images. */
function imageBucketOf(env: Env, problems: string[]): BucketSettings | undefined {
  const raw = env.IMAGE_BUCKET_URL?.trim();
  if (!raw) return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  const bucket = url?.pathname.replace(/^\/+|\/+$/g, '') ?? '';
  if (!url || !/^https?:$/.test(url.protocol) || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    problems.push(
      'IMAGE_BUCKET_URL: must be an http(s) URL whose path is the bucket, like https://s3.example.com/portage-images',
    );
    return undefined;
  }
  const accessKeyId = env.IMAGE_BUCKET_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.IMAGE_BUCKET_SECRET_ACCESS_KEY?.trim();
  if (!accessKeyId) problems.push('IMAGE_BUCKET_ACCESS_KEY_ID: required when IMAGE_BUCKET_URL is set');
  if (!secretAccessKey)
    problems.push('IMAGE_BUCKET_SECRET_ACCESS_KEY: required when IMAGE_BUCKET_URL is set');
  return {
    endpoint: url.origin,
    bucket,
    region: env.IMAGE_BUCKET_REGION?.trim() || 'us-east-1',
    accessKeyId: accessKeyId ?? '',
    secretAccessKey: secretAccessKey ?? '',
  };
}
