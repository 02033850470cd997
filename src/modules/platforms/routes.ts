// HTTP adapter of agent platforms: admins issue, list, rotate and revoke their API keys, set
// their UCP profile and Feed API, and read how their feeds stand.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  createPlatformBody,
  issuedPlatform,
  platform,
  platformFeeds,
  platformList,
  platformParams,
  rotatedKey,
  updatePlatformBody,
} from '../../contract/platforms.ts';
import { platformFeedStates } from '../feeds/push.ts';
import {
  createPlatform,
  listPlatforms,
  type PlatformKeys,
  revokePlatform,
  rotatePlatformKey,
  updatePlatform,
} from './service.ts';

/** `keys`: what this instance remembers of platforms' keys (the changes below forget it). */
export const platformRoutes = (keys: PlatformKeys) => async (fastify: FastifyInstance) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/admin/platforms',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary: 'Register an agent platform: answers its API key and webhook secret, shown once',
        body: createPlatformBody,
        response: { 201: issuedPlatform },
      },
    },
    async (req, reply) => reply.code(201).send(await createPlatform(req.ctx, req.body)),
  );

  app.get(
    '/admin/platforms',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary: 'List agent platforms, newest first (at most 200)',
        response: { 200: platformList },
      },
    },
    async (req) => ({ platforms: await listPlatforms(req.ctx) }),
  );

  app.post(
    '/admin/platforms/:id/rotate-key',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary: "Replace a platform's API key (shown once); the old key stops working at once",
        params: platformParams,
        response: { 200: rotatedKey },
      },
    },
    async (req) => rotatePlatformKey(req.ctx, keys, req.params.id),
  );

  app.patch(
    '/admin/platforms/:id',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary:
          "Set a platform's UCP profile or its Feed API (null takes it away: no UCP, no feed); fields left out are kept",
        params: platformParams,
        body: updatePlatformBody,
        response: { 200: platform },
      },
    },
    async (req) => updatePlatform(req.ctx, keys, req.params.id, req.body),
  );

  app.delete(
    '/admin/platforms/:id',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary: 'Revoke a platform: its key stops working at once (revoking again answers it as it is)',
        params: platformParams,
        response: { 200: platform },
      },
    },
    async (req) => revokePlatform(req.ctx, keys, req.params.id),
  );

  app.get(
    '/admin/platforms/:id/feeds',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary: "The feeds kept on a platform's Feed API, one per language, and how each stands",
        params: platformParams,
        response: { 200: platformFeeds },
      },
    },
    async (req) => platformFeedStates(req.ctx, req.params.id),
  );
};
