// ACP's skin, registered whole: its routes (discovery, the five session operations, the
// sandbox's delegate payment) on the app, and what it gives the core's outbox (its order events'
// body, and its deliverer that signs and POSTs them). app.ts calls this once.
import type { FastifyInstance } from 'fastify';
import type { OutboxSkin } from '../agent-checkout/outbox.ts';
import { type AcpRouteDeps, acpRoutes } from './routes.ts';
import { acpDeliverer, acpOrderEventBody } from './webhooks.ts';

export type AcpPluginDeps = AcpRouteDeps & {
  /** Whether webhooks may reach loopback and private addresses (APP_ENV=development). */
  development: boolean;
};

export async function acpPlugin(app: FastifyInstance, deps: AcpPluginDeps): Promise<OutboxSkin> {
  await app.register(acpRoutes(deps));
  return { body: acpOrderEventBody, deliver: acpDeliverer(deps) };
}
