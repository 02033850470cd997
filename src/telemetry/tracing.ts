// Traces (docs/operations.md "Traces"): OpenTelemetry, started only when the standard OTEL_*
// variables name an OTLP endpoint. Off, every helper here is a branch on one boolean and runs
// its function as it is: no span, no context, no SDK loaded (the SDK and the instrumentations are
// imported only by startTracing). On, the SDK reads the rest of its configuration (protocol,
// headers, sampler, resource) from the environment itself.
// Even the API is loaded only then: it costs a start about 25 ms.
import type { Attributes, Span, SpanKind } from '@opentelemetry/api';
import type { FastifyPluginCallback } from 'fastify';

type Api = typeof import('@opentelemetry/api');
/** The OpenTelemetry API, once tracing is on; undefined means off. */
let api: Api | undefined;
let fastifyPlugin: FastifyPluginCallback | undefined;
let sdkShutdown: (() => Promise<void>) | undefined;

const tracer = (a: Api) => a.trace.getTracer('portage');

/**
 * Whether the environment asks for traces: an OTLP endpoint (all signals' or the traces' own),
 * the SDK not disabled, and the traces' exporter not `none`.
 */
export function tracingWanted(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (exporters?.length && exporters.every((e) => e === 'none')) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the SDK when the environment asks for it; before the database driver, Redis client
 * and Fastify are loaded, so that their instrumentations see them (the drivers are required, not
 * imported, for that: src/db/index.ts, src/http/redis.ts). `service` names the process when
 * OTEL_SERVICE_NAME does not.
 */
export async function startTracing(
  service: string,
  env: Record<string, string | undefined> = process.env,
): Promise<boolean> {
  if (api || !tracingWanted(env)) return Boolean(api);
  const [
    otel,
    { NodeSDK },
    { FastifyOtelInstrumentation },
    { PgInstrumentation },
    { IORedisInstrumentation },
    { UndiciInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-node'),
    import('@fastify/otel'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-undici'),
  ]);
  // Hooks' spans are left out: a request passes a dozen of them, each a span of next to nothing.
  // The handler's own span is left out too: the request's span covers it, named by its route.
  const fastify = new FastifyOtelInstrumentation({
    instrumentHooks: false,
    instrumentHandler: false,
    requestHook: (span, request) => {
      span.updateName(`${request.method} ${request.routeOptions.url ?? ''}`.trim());
      // The route's pattern, not the path: a path may carry a credential (an invoice's signed
      // link), as a query may (OAuth's code); an unrouted path without its query.
      span.setAttribute('url.path', request.routeOptions.url ?? request.url.split('?')[0]!);
    },
  });
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: service }),
    instrumentations: [
      fastify,
      // Statements and Redis commands outside any request or job (a pool's idle probe) are noise.
      // A wait for a pool connection shows in its transaction's span and in the pool's metrics.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      // A command's name only: its keys name who is counted (an address, a user).
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  fastifyPlugin = fastify.plugin() as FastifyPluginCallback;
  sdkShutdown = () => sdk.shutdown();
  api = otel;
  return true;
}

/** Sends the spans not yet exported (a process stopping); nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  await sdkShutdown?.().catch(() => {});
}

export const tracingOn = () => api !== undefined;

/** @fastify/otel's plugin (a span per request, its parent from `traceparent`), when tracing is on. */
export const fastifyTracing = () => fastifyPlugin;

function run<T>(span: Span, fn: () => Promise<T>, after?: (value: T) => Attributes): Promise<T> {
  return fn().then(
    (value) => {
      if (after) span.setAttributes(after(value));
      span.end();
      return value;
    },
    (err: unknown) => {
      // The error's kind only: a message may quote what a person typed. (2: SpanStatusCode.ERROR)
      span.setStatus({ code: 2, message: (err as Error)?.name ?? 'Error' });
      span.end();
      throw err;
    },
  );
}

/**
 * Runs `fn` in a span of its own only inside another (a statement, a transaction): outside every
 * request and job (a start's migrations, a pool's probe) such spans would each be a trace of noise.
 */
export function inChildSpan<T>(name: string, fn: () => Promise<T>, attributes?: Attributes): Promise<T> {
  if (!api?.trace.getActiveSpan()) return fn();
  return tracer(api).startActiveSpan(name, { attributes }, (span) => run(span, fn));
}

/**
 * Runs `fn` as the root of a trace of its own (a job's pass: no request caused it); `after`
 * answers attributes of what it returned.
 */
export function inRootSpan<T>(
  name: string,
  fn: () => Promise<T>,
  after?: (value: T) => Attributes,
): Promise<T> {
  if (!api) return fn();
  return tracer(api).startActiveSpan(name, { root: true }, api.ROOT_CONTEXT, (span) => run(span, fn, after));
}

/**
 * Runs `send` in a client span of an HTTP request (a webhook, a feed's push: sent with node:http,
 * which no instrumentation here sees), giving it the headers that carry the span on. The URL is
 * named without its query, which may hold a credential.
 */
export function inClientSpan<T extends { status: number }>(
  method: string,
  url: URL,
  send: (trace: Record<string, string>) => Promise<T>,
): Promise<T> {
  if (!api) return send({});
  const a = api;
  const attributes = {
    'http.request.method': method,
    'server.address': url.hostname,
    'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    'url.full': `${url.origin}${url.pathname}`,
  };
  // 2: SpanKind.CLIENT
  return tracer(a).startActiveSpan(method, { kind: 2, attributes }, (span) => {
    const headers: Record<string, string> = {};
    a.propagation.inject(a.trace.setSpan(a.context.active(), span), headers);
    return run(
      span,
      () =>
        send(headers).then((answer) => {
          if (answer.status >= 400) span.setStatus({ code: 2 });
          return answer;
        }),
      (answer) => ({ 'http.response.status_code': answer.status }),
    );
  });
}

/** What a trace's context is carried in: W3C Trace Context's two fields. */
interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The current span's context as W3C fields, to resume later (an outbox's message); undefined when none. */
export function currentTraceparent(): string | undefined {
  if (!api) return undefined;
  const carrier: TraceCarrier = {};
  api.propagation.inject(api.context.active(), carrier);
  return carrier.traceparent;
}

/** Adds `traceparent` (and `tracestate`) of the current span to outgoing headers. */
export function injectTrace(headers: Record<string, string>): void {
  api?.propagation.inject(api.context.active(), headers);
}

/**
 * Runs `fn` in a span whose parent is the context `carrier` holds (an MCP request's `_meta`, a
 * stored `traceparent`), or the current span when it holds none that parses.
 */
export function inSpanFrom<T>(
  carrier: unknown,
  name: string,
  fn: () => Promise<T>,
  options: { attributes?: Attributes; kind?: SpanKind } = {},
): Promise<T> {
  if (!api) return fn();
  let parent = api.context.active();
  if (carrier && typeof carrier === 'object') {
    const given = carrier as Record<string, unknown>;
    const fields: TraceCarrier = {};
    if (typeof given.traceparent === 'string') fields.traceparent = given.traceparent;
    if (typeof given.tracestate === 'string') fields.tracestate = given.tracestate;
    const extracted = api.propagation.extract(api.ROOT_CONTEXT, fields);
    if (api.trace.getSpanContext(extracted)) parent = extracted;
  }
  return tracer(api).startActiveSpan(name, options, parent, (span) => run(span, fn));
}

/** SpanKind's values, without loading the API (a const enum to it). */
export const SERVER_SPAN = 1 as SpanKind;
export const PRODUCER_SPAN = 3 as SpanKind;

/** The current trace's ids for a log line (pino's mixin); nothing outside a span. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = api?.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
