// The seller's shipping profile in the console (/console/shipping): the form of PUT
// /sellers/me/shipping, read with the API's own schema so that a refusal says what the API's 400
// would (in the form's words: shipping-form.ts), and the removal that brings back the platform's
// flat rate (DELETE). The markup is shipping-views.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../contract/errors.ts';
import { t } from '../../contract/i18n.ts';
import { shippingProfileBody } from '../../contract/shipping.ts';
import { withProfile } from '../../modules/auth/sellers.ts';
import {
  deleteShippingProfile,
  getShippingProfile,
  putShippingProfile,
} from '../../modules/shipping/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, readForm, sendHtml } from '../layout.ts';
import { type Body, doneOf } from './form.ts';
import {
  onShippingForm,
  type ShippingForm,
  shippingBody,
  shippingFormOf,
  shippingFormOfBody,
} from './shipping-form.ts';
import { shippingView } from './shipping-views.ts';

const SELLERS = ['seller'] as const;
const DONE = ['saved', 'removed'] as const;

/** The seller's profile, or undefined while they have none (the API's 404). */
async function profileOf(req: FastifyRequest) {
  try {
    return await getShippingProfile(req.ctx);
  } catch (err) {
    if (err instanceof AppError && err.statusCode === 404) return undefined;
    throw err;
  }
}

export function consoleShippingPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const postRoute = { config: { auth: 'public', limit: 'orders' }, schema: { hide: true } } as const;

  /** The page: the form as typed (after a refusal), else the profile's, else a new one's. */
  const shippingPage = async (
    req: FastifyRequest,
    v: View,
    o: { values?: ShippingForm; error?: FormError; done?: string } = {},
  ) => {
    const profile = await profileOf(req);
    const shop =
      o.values || profile ? undefined : (await withProfile(req.ctx, await deps.auth.me(req.ctx))).seller;
    const values = o.values ?? shippingFormOf(v.p.locale, profile, shop?.province ?? '');
    return shippingView(v, { ...o, values, hasProfile: profile !== undefined });
  };

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/shipping',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      const done = doneOf(DONE, req.query.done);
      return sendHtml(
        reply,
        await shippingPage(req, v, {
          done:
            done &&
            t(v.p.locale, done === 'saved' ? 'web.console.shipping.saved' : 'web.console.shipping.removed'),
        }),
      );
    },
  );

  app.post<{ Body: Body }>('/console/shipping', postRoute, async (req, reply) => {
    signedIn(req, SELLERS);
    const values = shippingFormOfBody(req.body ?? {});
    try {
      await putShippingProfile(req.ctx, readForm(shippingProfileBody, shippingBody(values)));
    } catch (err) {
      return answerRefusal(req, reply, s, onShippingForm(req.ctx.locale ?? 'en-CA', err), (v, error) =>
        shippingPage(req, v, { values, error }),
      );
    }
    return seeOther(reply, '/console/shipping?done=saved');
  });

  app.post('/console/shipping/remove', postRoute, async (req, reply) => {
    signedIn(req, SELLERS);
    try {
      await deleteShippingProfile(req.ctx);
    } catch (err) {
      return answerRefusal(req, reply, s, err, (v, error) => shippingPage(req, v, { error }));
    }
    return seeOther(reply, '/console/shipping?done=removed');
  });
}
