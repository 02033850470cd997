// The shop's discounts in the console (/console/discounts): its automatic discount (PUT and
// DELETE /sellers/me/automatic-discount's forms) and its coupons (POST /sellers/me/coupons'
// form), read with the API's own schemas. The markup is discount-views.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { shopDiscountBody } from '../../contract/cart.ts';
import { t } from '../../contract/i18n.ts';
import {
  createCoupon,
  getShopDiscount,
  listCoupons,
  MAX_SHOP_COUPONS,
  removeShopDiscount,
  setShopDiscount,
} from '../../modules/coupons/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { readCouponForm } from '../coupon-form.ts';
import { centsOf, filled, numberOf, one } from '../desk/form.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, readForm, sendHtml } from '../layout.ts';
import { type AutomaticForm, discountsView } from './discount-views.ts';
import { type Body, doneOf } from './form.ts';

const SELLERS = ['seller'] as const;
const DONE = ['saved', 'removed', 'created'] as const;

export function consoleDiscountPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const postRoute = { config: { auth: 'public', limit: 'orders' }, schema: { hide: true } } as const;

  const discountsPage = async (
    req: FastifyRequest,
    v: View,
    o: {
      automatic?: AutomaticForm;
      automaticError?: FormError;
      couponForm?: Body;
      couponError?: FormError;
      done?: string;
    } = {},
  ) => {
    const me = signedIn(req, SELLERS).id;
    const [discount, coupons] = await Promise.all([
      getShopDiscount(req.ctx, me),
      listCoupons(req.ctx, MAX_SHOP_COUPONS, me),
    ]);
    return discountsView(v, { ...o, discount, coupons });
  };

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/console/discounts',
    pageRoute,
    async (req, reply) => {
      signedIn(req, SELLERS);
      const v = viewOf(req, reply, s);
      const done = doneOf(DONE, req.query.done);
      const code = filled(req.query.code)?.slice(0, 40) ?? '';
      const words = {
        saved: t(v.p.locale, 'web.console.discounts.saved'),
        removed: t(v.p.locale, 'web.console.discounts.removed'),
        created: t(v.p.locale, 'web.desk.coupons.created', { code }),
      };
      return sendHtml(reply, await discountsPage(req, v, { done: done && words[done] }));
    },
  );

  app.post<{ Body: Body }>('/console/discounts/automatic', postRoute, async (req, reply) => {
    const me = signedIn(req, SELLERS).id;
    const b = req.body ?? {};
    const automatic: AutomaticForm = {
      percent: one(b.percent) ?? '',
      minSubtotal: one(b.minSubtotal) ?? '',
      startsOn: one(b.startsOn) ?? '',
      endsOn: one(b.endsOn) ?? '',
    };
    try {
      const input = readForm(shopDiscountBody, {
        percent: numberOf(b.percent),
        minSubtotalCents: centsOf(b.minSubtotal),
        startsOn: filled(b.startsOn) ?? null,
        endsOn: filled(b.endsOn) ?? null,
      });
      await setShopDiscount(req.ctx, me, input);
    } catch (err) {
      return answerRefusal(req, reply, s, err, (v, automaticError) =>
        discountsPage(req, v, { automatic, automaticError }),
      );
    }
    return seeOther(reply, '/console/discounts?done=saved');
  });

  app.post('/console/discounts/automatic/remove', postRoute, async (req, reply) => {
    const me = signedIn(req, SELLERS).id;
    await removeShopDiscount(req.ctx, me);
    return seeOther(reply, '/console/discounts?done=removed');
  });

  app.post<{ Body: Body }>('/console/discounts/coupons', postRoute, async (req, reply) => {
    const me = signedIn(req, SELLERS).id;
    const b = req.body ?? {};
    let code: string;
    try {
      code = (await createCoupon(req.ctx, readCouponForm(b), me)).code;
    } catch (err) {
      return answerRefusal(req, reply, s, err, (v, couponError) =>
        discountsPage(req, v, { couponForm: b, couponError }),
      );
    }
    return seeOther(reply, `/console/discounts?done=created&code=${encodeURIComponent(code)}`);
  });
}
