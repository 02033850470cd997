// A span for every request when tracing is on (docs/operations.md "Traces"): @fastify/otel's,
// a child of the caller's `traceparent`, and Fastify's "incoming request" line written inside
// it, so that the line carries the trace's ids like every other (Fastify writes its own before
// any hook, outside every span).
import { type FastifyInstance, LogController } from 'fastify';
import { fastifyTracing, tracingOn } from '../telemetry/tracing.ts';

class LogIncomingInSpan extends LogController {
  override incomingRequest() {}
}

/** Fastify's logController option: undefined (Fastify's own) when tracing is off. */
export const tracingLogController = () => (tracingOn() ? new LogIncomingInSpan() : undefined);

/** Registers the request spans; first, so that every route and hook runs inside them. */
export async function registerTracing(app: FastifyInstance): Promise<void> {
  const plugin = fastifyTracing();
  if (!plugin) return;
  await app.register(plugin);
  app.addHook('onRequest', async (req) => {
    req.log.info({ req }, 'incoming request');
  });
}
