// Builds the Fastify app from configuration: cross-cutting plugins first, then the modules.
import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { jsonSchemaTransformObject, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import { observeTransactions } from './db/transactions.ts';
import { registerAuthGuard } from './http/auth.ts';
import { registerContentLanguage } from './http/content-language.ts';
import { registerDocs } from './http/docs.ts';
import {
  clientErrorHandler,
  frameworkErrors,
  MAX_PARAM_LENGTH,
  registerErrorHandling,
} from './http/errors.ts';
import { idempotency, idempotencyCleanupJob } from './http/idempotency.ts';
import { refuseUnsafeInput } from './http/input.ts';
import { countRefusal, createMetrics, registerMetrics } from './http/metrics.ts';
import { dropSentinels, openApiTransform } from './http/openapi.ts';
import { registerRateLimits } from './http/rate-limit.ts';
import { registerRouteDefaults } from './http/route-defaults.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { registerTracing, tracingLogController } from './http/tracing.ts';
import './http/types.ts';
import { commerceJobs, payoutJobs } from './jobs/index.ts';
import { createJobRunner, type JobRunner } from './jobs/runner.ts';
import { injectExchange, mcpHttpRoutes } from './mcp/http.ts';
import { ucpMcpRoutes } from './mcp/ucp.ts';
import { acpPlugin } from './modules/acp/plugin.ts';
import { adminListRoutes } from './modules/admin-lists/routes.ts';
import { agentCheckoutCleanupJob } from './modules/agent-checkout/cleanup.ts';
import { outboxJob } from './modules/agent-checkout/outbox.ts';
import { analyticsRoutes } from './modules/analytics/routes.ts';
import { auditRoutes } from './modules/audit/routes.ts';
import { emailTokenCleanupJob } from './modules/auth/email-links.ts';
import { developmentKeyPem, type KeyRing, loadKeyRing } from './modules/auth/keys.ts';
import { createOidcClient } from './modules/auth/oidc.ts';
import { authRoutes } from './modules/auth/routes.ts';
import { createAuthService } from './modules/auth/service.ts';
import { webSessionCleanupJob } from './modules/auth/web-sessions.ts';
import { cartRoutes } from './modules/cart/routes.ts';
import { catalogRoutes } from './modules/catalog/routes.ts';
import { checkoutRoutes } from './modules/checkout/routes.ts';
import type { Clock } from './modules/context.ts';
import { conversationRoutes } from './modules/conversations/routes.ts';
import { couponRoutes } from './modules/coupons/routes.ts';
import { subscribeCommitted } from './modules/events.ts';
import { feedFileJob } from './modules/feeds/file-feed.ts';
import { fileFeedRoutes } from './modules/feeds/file-routes.ts';
import { feedPushJob } from './modules/feeds/push.ts';
import { imageRoutes } from './modules/images/routes.ts';
import { imageStoreFor } from './modules/images/store.ts';
import { inventoryRoutes } from './modules/inventory/routes.ts';
import { createInvoiceLinks } from './modules/invoices/links.ts';
import { createInvoiceRenderer } from './modules/invoices/renderer.ts';
import { invoiceRoutes } from './modules/invoices/routes.ts';
import { createMailTransport } from './modules/mail/transports.ts';
import { mailJob } from './modules/mail/worker.ts';
import { notificationRoutes } from './modules/notifications/routes.ts';
import { oauthCleanupJob } from './modules/oauth/cleanup.ts';
import { grantIsLive } from './modules/oauth/grants.ts';
import { oauthRoutes } from './modules/oauth/routes.ts';
import { orderRoutes } from './modules/orders/routes.ts';
import { createProvider } from './modules/payments/providers/index.ts';
import { paymentRoutes } from './modules/payments/routes.ts';
import { payoutAccountRoutes } from './modules/payouts/account-routes.ts';
import type { PayoutsDeps } from './modules/payouts/deps.ts';
import { createPayoutProvider } from './modules/payouts/providers/index.ts';
import { reconcileRoutes } from './modules/payouts/reconcile-routes.ts';
import { payoutRoutes } from './modules/payouts/routes.ts';
import { statementRoutes } from './modules/payouts/statement-routes.ts';
import { platformRoutes } from './modules/platforms/routes.ts';
import { platformKeys } from './modules/platforms/service.ts';
import { returnRoutes } from './modules/returns/routes.ts';
import { reviewRoutes } from './modules/reviews/routes.ts';
import { MemorySearchIndex } from './modules/search/memory-index.ts';
import { searchRoutes } from './modules/search/routes.ts';
import { createSearch } from './modules/search/service.ts';
import { canadaPost } from './modules/shipping/canada-post.ts';
import { canadaPostLabels } from './modules/shipping/labels.ts';
import { carrierRates } from './modules/shipping/rates.ts';
import { shippingRoutes } from './modules/shipping/routes.ts';
import { sandboxLabels } from './modules/shipping/sandbox-labels.ts';
import { shopRoutes } from './modules/shops/routes.ts';
import { subscribeModules } from './modules/subscriptions.ts';
import { backupRoutes } from './modules/system/backup-routes.ts';
import { registerDatabaseMetrics } from './modules/system/metrics.ts';
import { createReadiness } from './modules/system/readiness.ts';
import { probeRoutes, systemRoutes } from './modules/system/routes.ts';
import { createProfiles } from './modules/ucp/agent.ts';
import { developmentUcpKeyPem, loadUcpKeyRing } from './modules/ucp/keys.ts';
import { ucpPlugin } from './modules/ucp/plugin.ts';
import { traceFields, tracingOn } from './telemetry/tracing.ts';
import { webRoutes } from './web/routes.ts';

export const BODY_LIMIT = 1024 * 1024;

export interface AppOptions {
  config: Config;
  database: Database;
  /** Shared rate-limit counters; the caller owns the connection. */
  redis?: Redis;
  /** Key prefix of the rate-limit counters (tests isolate runs with it). */
  rateLimitNamespace?: string;
  /** The clock; tests move it instead of sleeping. */
  now?: Clock;
  /** Fastify logger options; defaults from config. */
  logger?: FastifyServerOptions['logger'];
  /** Request and header time limits (ms); tests shorten them. */
  timeouts?: { requestMs?: number; headersMs?: number };
  /** Signing keys, when already loaded (tests share one to save key generation). */
  keys?: KeyRing;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config, database } = opts;
  const now = opts.now ?? (() => new Date());
  // Each module's handlers of the others' domain events (subscribing again changes nothing).
  subscribeModules();
  const keys =
    opts.keys ??
    (await loadKeyRing(
      config.jwtPrivateKey ?? developmentKeyPem(config.dataDir),
      config.jwtPreviousPublicKeys,
    ));

  const ucpKeys = await loadUcpKeyRing(
    config.ucpSigningKey ?? developmentUcpKeyPem(config.dataDir),
    config.ucpPreviousPublicKeys,
  );

  const requestMs = opts.timeouts?.requestMs ?? 30_000;
  const app = Fastify({
    logger: opts.logger ?? loggerOptions(config.logLevel),
    logController: tracingLogController(),
    bodyLimit: BODY_LIMIT,
    // Requests that stall are cut (docs/decisions.md "Security"): the whole
    // request within 30 s, its headers within 10 s; idle keep-alive connections after 72 s.
    requestTimeout: requestMs,
    keepAliveTimeout: 72_000,
    http: {
      headersTimeout: Math.min(requestMs, opts.timeouts?.headersMs ?? 10_000),
      // How often Node looks for stalled requests (its default, 30 s, would double the limit).
      connectionsCheckingInterval: 1_000,
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
    // onReady loads the search index: about 10 s for a million products.
    pluginTimeout: 300_000,
    trustProxy: trustProxyOption(config.trustProxy),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    },
  });
  await registerTracing(app);
  // Metrics of this app alone (docs/operations.md "Metrics"): every request timed; /metrics with METRICS_TOKEN.
  const metrics = createMetrics();
  app.decorate('metrics', metrics);
  registerMetrics(app, metrics, config.metricsToken);
  registerDatabaseMetrics(metrics.registry, { database, now, log: app.log.child({ component: 'metrics' }) });
  // Counted once the purchase or refund committed: a rolled-back one never counts.
  const unsubscribeMetrics = [
    subscribeCommitted('checkout.completed', (event) => metrics.orders.inc(event.orderIds.length)),
    subscribeCommitted('refund.succeeded', () => metrics.refunds.inc()),
    observeTransactions((ms, committed) =>
      metrics.transactionDuration.observe({ outcome: committed ? 'committed' : 'rolled_back' }, ms / 1000),
    ),
  ];
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  registerRouteDefaults(app);
  refuseUnsafeInput(app);
  await app.register(idempotency);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  registerSecurityHeaders(app);
  registerContentLanguage(app);
  // Every cookie (the pages' session, language and visit; OAuth's pending request; the external
  // login's binding) is read and written through it; no signing: each value carries its own proof.
  await app.register(cookie);
  await app.register(cors, {
    origin: config.corsOrigins === '*' ? '*' : config.corsOrigins.length ? config.corsOrigins : false,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // The MCP headers let browser-based agents reach /mcp (2026-07-28 requests carry Mcp-Method).
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Idempotency-Key',
      'X-Request-Id',
      'API-Version',
      'Request-Id',
      'X-API-Key',
      'UCP-Agent',
      'Signature',
      'Signature-Input',
      'Content-Digest',
      'Mcp-Protocol-Version',
      'Mcp-Method',
      'Mcp-Name',
      'Last-Event-ID',
    ],
    exposedHeaders: [
      'Retry-After',
      'X-Request-Id',
      'Idempotent-Replayed',
      'WWW-Authenticate',
      'Idempotency-Key',
      'Request-Id',
    ],
    maxAge: 600,
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Portage API',
        version: '1.0.0',
        description:
          'Canadian marketplace: accounts, catalog, cart, checkout, orders. Money is integer cents (CAD); ' +
          'timestamps are Unix seconds; errors are `{error, code, statusCode}`.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    transform: openApiTransform,
    transformObject: (doc) => {
      const out = jsonSchemaTransformObject(doc);
      dropSentinels(out);
      return out;
    },
  });
  registerDocs(app);

  let jobs: JobRunner | undefined;
  const auth = createAuthService({
    tokens: { keys, audience: config.publicBaseUrl, ttlSeconds: config.accessTokenTtlSeconds },
    refreshWindowSeconds: config.refreshWindowSeconds,
    sessionMaxAgeSeconds: config.sessionMaxAgeSeconds,
    oidc: config.oidc
      ? createOidcClient(config.oidc, `${config.publicBaseUrl}/auth/google/callback`)
      : undefined,
    redirectOrigins: config.authRedirectOrigins,
    authCacheMs: config.authCacheMs,
    emailLinks: { publicBaseUrl: config.publicBaseUrl, nudgeMail: () => jobs?.nudge('mail') },
    agentGrants: { isLive: grantIsLive },
    shopApproval: config.shopApproval,
  });
  const guard = registerAuthGuard(app, { db: database.db, now, auth, defaultLocale: config.defaultLocale });
  const limits = config.rateLimits
    ? await registerRateLimits(app, {
        redis: opts.redis,
        nameSpace: opts.rateLimitNamespace,
        onRefused: countRefusal(metrics),
      })
    : undefined;

  await app.register(systemRoutes(database, config.publicBaseUrl));
  await app.register(authRoutes(auth, keys));
  await app.register(catalogRoutes);
  await app.register(inventoryRoutes);
  await app.register(cartRoutes);
  await app.register(couponRoutes);
  // Platforms' keys, remembered for AUTH_CACHE_MS as a token's user is (every ACP/UCP request asks).
  const platforms = platformKeys(config.authCacheMs);
  await app.register(platformRoutes(platforms));
  const search = createSearch({
    index: config.searchIndex === 'memory' ? new MemorySearchIndex() : undefined,
  });
  // The search index loads before the server takes requests (listen waits for ready).
  app.addHook('onReady', async () => {
    const started = Date.now();
    const loaded = await search.prepare(database.db);
    if (loaded) app.log.info({ ...loaded, ms: Date.now() - started }, 'search index loaded');
  });
  await app.register(searchRoutes(search));
  await app.register(
    probeRoutes(
      createReadiness({
        database,
        redis: opts.redis,
        search,
        log: app.log.child({ component: 'readiness' }),
      }),
    ),
  );
  await app.register(backupRoutes(database));

  const { provider, connect, sandbox } = await createProvider(config.payments, config.publicBaseUrl);
  const invoiceLinks = createInvoiceLinks(keys.derive('invoice-links'), config.publicBaseUrl);
  const commerce = {
    provider,
    publicBaseUrl: config.publicBaseUrl,
    invoiceLinks,
    platformFeeBps: config.payments.platformFeeBps,
    disputeFeeCents: config.payments.disputeFeeCents,
    maxPlatformHolds: config.platformMaxHolds,
    nudge: (job: 'mail' | 'refunds' | 'payouts') => jobs?.nudge(job),
    rates: config.shipping.canadaPost
      ? carrierRates(canadaPost(config.shipping.canadaPost), {
          budgetMs: config.shipping.rateBudgetMs,
          cacheMs: config.shipping.rateCacheMs,
          log: app.log,
        })
      : undefined,
    // Labels and tracking (docs/shipping.md "Labels"): Canada Post's shipment API, else the sandbox.
    labels: labelDeps(config.shipping),
  };
  await app.register(checkoutRoutes({ ...commerce, publishableKey: config.payments.publishableKey }));
  await app.register(paymentRoutes({ ...commerce, sandbox, connect }));
  // Sellers' payout accounts, balances, payouts and disputes (docs/payouts.md).
  const payoutDeps: PayoutsDeps = {
    payouts: createPayoutProvider(config.payments, config.publicBaseUrl),
    provider,
    publicBaseUrl: config.publicBaseUrl,
    payoutHoldDays: config.payments.payoutHoldDays,
    disputeFeeCents: config.payments.disputeFeeCents,
    nudge: commerce.nudge,
    sandbox,
  };
  await app.register(payoutAccountRoutes(payoutDeps));
  await app.register(payoutRoutes(payoutDeps));
  await app.register(statementRoutes(payoutDeps));
  await app.register(reconcileRoutes(payoutDeps));
  await app.register(notificationRoutes);
  await app.register(auditRoutes);
  await app.register(adminListRoutes);
  await app.register(shopRoutes({ publicBaseUrl: config.publicBaseUrl }));
  await app.register(conversationRoutes({ publicBaseUrl: config.publicBaseUrl }));
  const invoices = createInvoiceRenderer(
    { ...config.invoiceRender, samples: config.appEnv === 'development' },
    app.log.child({ component: 'invoices' }),
  );
  app.decorate('invoices', invoices);
  await app.register(orderRoutes(commerce, invoices));
  await app.register(invoiceRoutes(invoiceLinks, invoices));
  const development = config.appEnv === 'development';
  // The agent checkout's two protocol skins; each gives the outbox its deliverer.
  // The file feed (docs/acp.md "File feed"): its links, signed under a key of their own.
  const feedLinks = {
    secret: keys.derive('feed-files'),
    publicBaseUrl: config.publicBaseUrl,
    dir: config.feeds.dir,
  };
  await app.register(fileFeedRoutes(feedLinks));
  const acp = await acpPlugin(app, { ...commerce, sandbox, auth, platforms, limits, development, feedLinks });
  const ucp = await ucpPlugin(app, {
    ...commerce,
    sandbox,
    auth,
    platforms,
    search,
    keys: ucpKeys,
    profiles: createProfiles({ development, now }),
    development,
    limits,
  });
  await app.register(returnRoutes({ ...commerce, returnWindowDays: config.returnWindowDays }));
  await app.register(reviewRoutes);
  const imageDeps = {
    store: imageStoreFor({ bucket: config.imageBucket, database, dataDir: config.dataDir }),
    baseUrl: config.publicBaseUrl,
  };
  await app.register(imageRoutes(imageDeps));
  await app.register(analyticsRoutes);
  await app.register(shippingRoutes);
  await app.register(
    oauthRoutes({
      publicBaseUrl: config.publicBaseUrl,
      development,
      tokens: { keys, audience: config.publicBaseUrl, ttlSeconds: config.accessTokenTtlSeconds },
      agentTokenTtlSeconds: config.agentTokenTtlSeconds,
      sessionMaxAgeSeconds: config.sessionMaxAgeSeconds,
      auth,
    }),
  );
  // The tools over Streamable HTTP; their API calls come back into this app in process.
  await app.register(
    mcpHttpRoutes({
      authenticate: async (req, token) => {
        req.ctx.user = await auth.authenticate(req.ctx, token);
        return req.ctx.user;
      },
      exchange: (outer, reply) =>
        injectExchange(app, { id: outer.id, ip: outer.ip, voucher: guard.vouchFor(outer, reply) }),
      publicBaseUrl: config.publicBaseUrl,
      viewImageOrigins: config.viewImageOrigins,
      // Pages of an origin the API already lets call it (CORS_ORIGINS, when listed) may call /mcp too.
      allowedOrigins: [
        ...config.mcpAllowedOrigins,
        ...(config.corsOrigins === '*' ? [] : config.corsOrigins),
      ],
    }),
  );

  // UCP's MCP binding on its own endpoint; its tools call /ucp/v1 in process.
  await app.register(
    ucpMcpRoutes({
      exchange: (outer) => injectExchange(app, { id: outer.id, ip: outer.ip }),
      publicBaseUrl: config.publicBaseUrl,
      allowedOrigins: [
        ...config.mcpAllowedOrigins,
        ...(config.corsOrigins === '*' ? [] : config.corsOrigins),
      ],
    }),
  );

  // The pages for people: storefront, account, seller's console, admin's desk (src/web).
  await app.register(
    webRoutes({
      auth,
      search,
      commerce: { ...commerce, publishableKey: config.payments.publishableKey },
      invoices,
      platforms,
      returnWindowDays: config.returnWindowDays,
      images: imageDeps,
      payouts: payoutDeps,
      settings: {
        secure: config.publicBaseUrl.startsWith('https:'),
        csrfKey: keys.derive('web-csrf'),
        sessionMaxAgeSeconds: config.sessionMaxAgeSeconds,
      },
    }),
  );

  const mailTransport = createMailTransport(config.mail, config.dataDir);
  jobs = createJobRunner(
    [
      ...commerceJobs({ ...commerce, returnEscalationBusinessDays: config.returnEscalationBusinessDays }),
      ...payoutJobs(payoutDeps),
      mailJob({ transport: mailTransport, from: config.mail.from }),
      idempotencyCleanupJob(),
      outboxJob({ deliverers: { acp: acp.deliver, ucp: ucp.deliver } }),
      feedPushJob({ publicBaseUrl: config.publicBaseUrl, development, settleMs: config.feedSettleMs }),
      agentCheckoutCleanupJob(),
      emailTokenCleanupJob(),
      oauthCleanupJob(),
      webSessionCleanupJob(),
      feedFileJob({
        dir: config.feeds.dir,
        publicBaseUrl: config.publicBaseUrl,
        fileHours: config.feeds.fileHours,
      }),
    ],
    {
      db: database.db,
      now,
      log: app.log.child({ component: 'jobs' }),
      defaultLocale: config.defaultLocale,
      observe: (job, outcome) => {
        metrics.jobRuns.inc({ name: job, outcome });
        if (outcome === 'ok') metrics.jobLastSuccess.set({ name: job }, Date.now() / 1000);
      },
    },
  );
  app.decorate('jobs', jobs);
  if (config.jobs) {
    app.addHook('onListen', async () => {
      jobs?.start();
    });
  }
  app.addHook('onClose', async () => {
    for (const unsubscribe of unsubscribeMetrics) unsubscribe();
    await jobs?.stop();
    mailTransport.close();
    await invoices.close();
  });
  return app;
}

function labelDeps(shipping: Config['shipping']) {
  const sandbox = sandboxLabels({ deliveryMs: shipping.labels.sandboxDeliveryMs });
  return {
    carrier: shipping.canadaPost ? canadaPostLabels(shipping.canadaPost) : sandbox,
    sandbox,
    senderPhone: shipping.labels.senderPhone,
    recheckMs: shipping.labels.trackingRecheckMs,
    sandboxDeliveryMs: shipping.labels.sandboxDeliveryMs,
    timeoutMs: shipping.labels.timeoutMs,
  };
}

/**
 * A hop count trusts that many proxies nearest to us (hop 0 is the socket's peer), as
 * Express does: the client address is the first untrusted hop from the right. (Fastify
 * itself ignores a number.) Addresses and CIDRs go to Fastify as they are.
 */
function trustProxyOption(trust: Config['trustProxy']): FastifyServerOptions['trustProxy'] {
  if (typeof trust !== 'number') return trust;
  return (_address: string, hop: number) => hop < trust;
}

const REDACTED_QUERY = /([?&](?:code|state|token|id_token|access_token)=)[^&]*/g;
/** A path that is itself a credential: an invoice's signed link (GET /invoices/:token). */
const REDACTED_PATH = /^(\/invoices\/)[^/?]+/;

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    // The trace's ids on every line written inside a span (docs/operations.md "Traces").
    ...(tracingOn() ? { mixin: traceFields } : {}),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.token',
        '*.passwordHash',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (req) => ({
        method: req.method,
        url: req.url?.replace(REDACTED_QUERY, '$1[redacted]').replace(REDACTED_PATH, '$1[redacted]'),
        remoteAddress: req.ip,
      }),
    },
  };
}
