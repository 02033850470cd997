// HTTP adapter of a seller's notifications (docs/api.md "Seller notifications"): the inbox, its
// read marks, the choice of kinds, the products' low-stock thresholds.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { productIdParams } from '../../contract/catalog.ts';
import {
  lowStockAnswer,
  lowStockBody,
  lowStockList,
  markReadBody,
  notificationList,
  notificationSettings,
  notificationSettingsBody,
  notificationsQuery,
} from '../../contract/notifications.ts';
import * as service from './service.ts';

const tags = ['notifications'];
const SELLERS = ['seller'] as const;

export async function notificationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/sellers/me/notifications',
    {
      config: { auth: SELLERS },
      schema: {
        tags,
        summary: 'Your notifications, newest first, with how many are unread',
        querystring: notificationsQuery,
        response: { 200: notificationList },
      },
    },
    async (req) => service.myNotifications(req.ctx, req.query),
  );

  app.post(
    '/sellers/me/notifications/read',
    {
      config: { auth: SELLERS },
      schema: {
        tags,
        summary: 'Mark notifications read: some by id, or all',
        body: markReadBody,
        response: { 200: z.object({ unread: z.number().int() }) },
      },
    },
    async (req) => service.markMyNotificationsRead(req.ctx, req.body),
  );

  app.get(
    '/sellers/me/notification-settings',
    {
      config: { auth: SELLERS },
      schema: {
        tags,
        summary: 'What you are told of, by email and in the inbox',
        response: { 200: notificationSettings },
      },
    },
    async (req) => service.myNotificationSettings(req.ctx),
  );

  app.put(
    '/sellers/me/notification-settings',
    {
      config: { auth: SELLERS },
      schema: {
        tags,
        summary: 'Choose, by kind, email and inbox (kinds not given keep their choice)',
        body: notificationSettingsBody,
        response: { 200: notificationSettings },
      },
    },
    async (req) => service.saveMyNotificationSettings(req.ctx, req.body.settings),
  );

  app.get(
    '/sellers/me/low-stock-thresholds',
    {
      config: { auth: SELLERS },
      schema: {
        tags,
        summary: "Your products' low-stock thresholds (those set)",
        response: { 200: lowStockList },
      },
    },
    async (req) => service.myThresholds(req.ctx),
  );

  app.put(
    '/sellers/me/low-stock-thresholds/:productId',
    {
      config: { auth: SELLERS, limit: 'productWrites' },
      schema: {
        tags,
        summary:
          'Tell me when a sale leaves a variant of this product at or below this many units (null: never)',
        params: productIdParams,
        body: lowStockBody,
        response: { 200: lowStockAnswer },
      },
    },
    async (req) => service.setMyThreshold(req.ctx, req.params.productId, req.body.threshold),
  );
}
