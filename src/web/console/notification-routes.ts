// The seller's notifications in the console (/console/notifications): the inbox (GET
// /sellers/me/notifications's service, its page by `before`), its read marks, and the form of
// what the seller is told of (PUT /sellers/me/notification-settings's schema). The markup is
// notification-views.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { t } from '../../contract/i18n.ts';
import {
  MAX_NOTIFICATIONS_PAGE,
  markReadBody,
  NOTIFICATION_KINDS,
  notificationSettingsBody,
} from '../../contract/notifications.ts';
import * as notices from '../../modules/notifications/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, readForm, sendHtml } from '../layout.ts';
import { type Body, doneOf, one } from './form.ts';
import { NOTICES_PATH, noticesView } from './notification-views.ts';

const SELLERS = ['seller'] as const;
const DONE = ['read', 'allRead', 'saved'] as const;
const PAGE = 20;

type Query = Record<string, string | undefined>;

export function consoleNotificationPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const postRoute = { config: { auth: 'public', limit: 'productWrites' }, schema: { hide: true } } as const;

  const noticesPage = async (req: FastifyRequest, v: View, o: { error?: FormError; done?: string } = {}) => {
    const q = req.query as Query;
    const unreadOnly = q.unread === '1';
    const before = one(q.before).slice(0, 100) || undefined;
    const [list, settings] = await Promise.all([
      notices.myNotifications(req.ctx, {
        limit: Math.min(PAGE, MAX_NOTIFICATIONS_PAGE),
        unread: unreadOnly,
        before,
      }),
      notices.myNotificationSettings(req.ctx),
    ]);
    return noticesView(v, {
      ...list,
      unreadOnly,
      ...(before ? { before } : {}),
      settings: settings.settings,
      ...o,
    });
  };

  app.get<{ Querystring: Query }>(NOTICES_PATH, pageRoute, async (req, reply) => {
    signedIn(req, SELLERS);
    const v = viewOf(req, reply, s);
    const done = doneOf(DONE, req.query.done);
    return sendHtml(
      reply,
      await noticesPage(req, v, done ? { done: t(v.p.locale, 'web.console.notices.done', { done }) } : {}),
    );
  });

  app.post<{ Body: Body }>(`${NOTICES_PATH}/read`, postRoute, async (req, reply) => {
    signedIn(req, SELLERS);
    const all = one(req.body?.all) === '1';
    try {
      await notices.markMyNotificationsRead(
        req.ctx,
        readForm(markReadBody, all ? { all: true } : { ids: [one(req.body?.id)] }),
      );
    } catch (err) {
      return answerRefusal(req, reply, s, err, (v, error) => noticesPage(req, v, { error }));
    }
    const back = one(req.body?.unread) === '1' ? '&unread=1' : '';
    return seeOther(reply, `${NOTICES_PATH}?done=${all ? 'allRead' : 'read'}${back}`);
  });

  app.post<{ Body: Body }>(`${NOTICES_PATH}/settings`, postRoute, async (req, reply) => {
    signedIn(req, SELLERS);
    // A checkbox left unticked is not sent: every kind is in the form, so its absence is "off".
    const settings = NOTIFICATION_KINDS.map((kind) => ({
      kind,
      email: one(req.body?.[`email.${kind}`]) === 'on',
      inbox: one(req.body?.[`inbox.${kind}`]) === 'on',
    }));
    try {
      await notices.saveMyNotificationSettings(
        req.ctx,
        readForm(notificationSettingsBody, { settings }).settings,
      );
    } catch (err) {
      return answerRefusal(req, reply, s, err, (v, error) => noticesPage(req, v, { error }));
    }
    return seeOther(reply, `${NOTICES_PATH}?done=saved#settings`);
  });
}
