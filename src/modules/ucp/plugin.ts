// UCP's skin, registered whole: its routes (the business profile, the checkout's REST
// operations, the catalog, orders) on the app, and what it gives the core's outbox (its order
// events' body, and its deliverer that signs with our key and POSTs them). app.ts calls this once.
import type { FastifyInstance } from 'fastify';
import type { OutboxSkin } from '../agent-checkout/outbox.ts';
import { type UcpRouteDeps, ucpRoutes } from './routes.ts';
import { ucpDeliverer, ucpOrderEventBody } from './webhooks.ts';

export async function ucpPlugin(app: FastifyInstance, deps: UcpRouteDeps): Promise<OutboxSkin> {
  await app.register(ucpRoutes(deps));
  return { body: ucpOrderEventBody, deliver: ucpDeliverer(deps) };
}
