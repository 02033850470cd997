// The admin's desk: the platform's analytics with charts, reviews to moderate, a user's role,
// coupons, the agent platforms with their keys, the policies' texts and the platform's tax
// profile. Every page is for admins (`signedIn` with ['admin']); every rule is the services'.
// Each handler reads its form, calls the services the API's routes call, and chooses the answer;
// the markup is in the views. A platform's new key is shown once, on the answer to the form that
// made it (never in a URL, never again).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { changeRoleBody, platformTaxProfileBody } from '../../contract/auth.ts';
import { AppError, notFound } from '../../contract/errors.ts';
import { t } from '../../contract/i18n.ts';
import { createPlatformBody } from '../../contract/platforms.ts';
import { POLICY_KINDS, type PolicyKind, savePolicyBody } from '../../contract/policies.ts';
import { adminReviewsQuery } from '../../contract/reviews.ts';
import { adminUser } from '../../modules/admin-lists/service.ts';
import { platformDashboard } from '../../modules/analytics/service.ts';
import { getPlatformTaxProfile, putPlatformTaxProfile } from '../../modules/auth/sellers.ts';
import { findUserByIdOrEmail } from '../../modules/auth/users.ts';
import { listItemsByIds } from '../../modules/catalog/service.ts';
import { couponUses, createCoupon, findCoupon, listCoupons } from '../../modules/coupons/service.ts';
import { feedStates } from '../../modules/feeds/push.ts';
import {
  createPlatform,
  listPlatforms,
  revokePlatform,
  rotatePlatformKey,
} from '../../modules/platforms/service.ts';
import { listPolicies, savePolicy } from '../../modules/policies/service.ts';
import { listReviewsForModeration, publishReview, rejectReview } from '../../modules/reviews/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { readCouponForm } from '../coupon-form.ts';
import { dashboardBody, PERIODS } from '../dashboard/views.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, readForm, sendHtml } from '../layout.ts';
import { deskAuditPages } from './audit-routes.ts';
import { deskCategoryPages } from './category-routes.ts';
import { type Form, filled, one, oneOf, pageNumber, queryOf, TAX_FIELDS, type TaxForm } from './form.ts';
import { deskMoneyPages } from './money-routes.ts';
import { deskOrderPages } from './order-routes.ts';
import { type Issued, platformsView, policiesView, taxView } from './platform-views.ts';
import { deskReturnPages } from './return-routes.ts';
import { deskShopPages } from './shop-routes.ts';
import { userHistory, usersListPage } from './user-list-routes.ts';
import {
  couponsView,
  deskPage,
  REVIEW_FILTERS,
  REVIEWS_PER_PAGE,
  type ReviewFilter,
  reviewsView,
  usersView,
} from './views.ts';

const ADMINS = ['admin'] as const;

export function deskPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const writeRoute = { config: { auth: 'public', limit: 'productWrites' }, schema: { hide: true } } as const;
  deskMoneyPages(app, deps);
  deskReturnPages(app, deps);
  deskAuditPages(app, deps);
  deskCategoryPages(app, deps);
  deskOrderPages(app, deps);
  deskShopPages(app, deps);

  // ---- analytics ---------------------------------------------------------------------------

  app.get('/desk', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const l = v.p.locale;
    const period = oneOf(PERIODS, queryOf(req, 'period'), 'month');
    const dashboard = await platformDashboard(req.ctx, { period });
    return sendHtml(
      reply,
      deskPage(
        v,
        t(l, 'web.desk.analytics.title'),
        dashboardBody(v, dashboard, {
          action: '/desk',
          period,
          platform: true,
          sellerHref: (id) => `/desk/users?user=${encodeURIComponent(id)}`,
        }),
      ),
    );
  });

  // ---- reviews -----------------------------------------------------------------------------

  const reviewsPage = async (
    req: FastifyRequest,
    v: View,
    o: { filter: ReviewFilter; pageNo: number; done?: string; error?: FormError },
  ) => {
    const list = await listReviewsForModeration(
      req.ctx,
      adminReviewsQuery.parse({
        ...(o.filter === 'all' ? {} : { status: o.filter }),
        limit: REVIEWS_PER_PAGE,
        offset: (o.pageNo - 1) * REVIEWS_PER_PAGE,
      }),
    );
    const products = await listItemsByIds(req.ctx, [...new Set(list.reviews.map((r) => r.product_id))]);
    const titles = new Map(products.map((p) => [p.id, p.title]));
    return reviewsView(v, { ...o, reviews: list.reviews, total: list.total, titles });
  };

  app.get('/desk/reviews', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = queryOf(req, 'done');
    return sendHtml(
      reply,
      await reviewsPage(req, v, {
        filter: oneOf(REVIEW_FILTERS, queryOf(req, 'status'), 'pending'),
        pageNo: pageNumber(queryOf(req, 'page')),
        done:
          done === 'published'
            ? t(v.p.locale, 'web.desk.reviews.published')
            : done === 'hidden'
              ? t(v.p.locale, 'web.desk.reviews.hidden')
              : undefined,
      }),
    );
  });

  const moderation = (path: 'publish' | 'hide', act: typeof publishReview) =>
    app.post<{ Params: { reviewId: string }; Body: Form }>(
      `/desk/reviews/:reviewId/${path}`,
      writeRoute,
      async (req, reply) => {
        signedIn(req, ADMINS);
        const filter = oneOf(REVIEW_FILTERS, one(req.body.filter), 'pending');
        try {
          await act(req.ctx, req.params.reviewId);
        } catch (err) {
          return answerRefusal(req, reply, s, err, (v, error) =>
            reviewsPage(req, v, { filter, pageNo: 1, error }),
          );
        }
        return seeOther(
          reply,
          `/desk/reviews?status=${filter}&done=${path === 'hide' ? 'hidden' : 'published'}`,
        );
      },
    );
  moderation('publish', publishReview);
  moderation('hide', rejectReview);

  // ---- users -------------------------------------------------------------------------------

  const usersPage = async (
    req: FastifyRequest,
    v: View,
    o: { id?: string; done?: string; error?: FormError; form?: Form },
  ) => {
    const user = o.id ? await findUserByIdOrEmail(req.ctx, o.id) : undefined;
    if (!user) return usersView(v, o);
    const answer = await adminUser(req.ctx, user.id);
    const history = userHistory(v, answer);
    const found = { user, hasShop: answer.shop !== null, ...(answer.shop ? { shop: answer.shop.name } : {}) };
    return usersView(v, { ...o, history, found });
  };

  // The list, or (`?user=`, or /desk/users/<id>) one user's card and history.
  app.get<{ Params: { userId?: string } }>('/desk/users', pageRoute, (req, reply) => userPage(req, reply));
  app.get<{ Params: { userId?: string } }>('/desk/users/:userId', pageRoute, (req, reply) =>
    userPage(req, reply),
  );
  const userPage = async (req: FastifyRequest<{ Params: { userId?: string } }>, reply: FastifyReply) => {
    signedIn(req, ADMINS);
    const id = req.params.userId ?? filled(queryOf(req, 'user'));
    if (id === undefined) return usersListPage(req, reply, s);
    const v = viewOf(req, reply, s);
    return sendHtml(
      reply,
      await usersPage(req, v, {
        id,
        done:
          queryOf(req, 'done') === 'role'
            ? t(v.p.locale, 'web.desk.users.changed')
            : queryOf(req, 'done') === 'suspend' || queryOf(req, 'done') === 'reinstate'
              ? t(v.p.locale, 'web.desk.users.suspendDone', {
                  done: queryOf(req, 'done') === 'suspend' ? 'suspended' : 'reinstated',
                })
              : undefined,
      }),
    );
  };

  app.post<{ Params: { userId: string }; Body: Form }>(
    '/desk/users/:userId/role',
    writeRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const id = req.params.userId;
      try {
        const input = readForm(changeRoleBody, {
          role: one(req.body.role),
          shopName: filled(req.body.shopName),
          province: filled(req.body.province),
        });
        await deps.auth.changeRole(req.ctx, id, input);
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) =>
          usersPage(req, v, { id, error, form: req.body }),
        );
      }
      return seeOther(reply, `/desk/users?user=${encodeURIComponent(id)}&done=role`);
    },
  );

  for (const [path, suspend] of [
    ['suspend', true],
    ['reinstate', false],
  ] as const) {
    app.post<{ Params: { userId: string }; Body: Form }>(
      `/desk/users/:userId/${path}`,
      writeRoute,
      async (req, reply) => {
        signedIn(req, ADMINS);
        const id = req.params.userId;
        try {
          await deps.auth.setSuspended(req.ctx, id, suspend);
        } catch (err) {
          return answerRefusal(req, reply, s, err, (v, error) => usersPage(req, v, { id, error }));
        }
        return seeOther(reply, `/desk/users?user=${encodeURIComponent(id)}&done=${path}`);
      },
    );
  }

  // ---- coupons -----------------------------------------------------------------------------

  const couponsPage = async (
    req: FastifyRequest,
    v: View,
    o: { lookup?: string; done?: string; error?: FormError; form?: Form },
  ) => {
    const coupon = o.lookup ? await findCoupon(req.ctx, o.lookup) : undefined;
    const found = coupon && {
      coupon,
      used: (await couponUses(req.ctx, coupon.code, signedIn(req).id)).total,
    };
    const recent = await listCoupons(req.ctx);
    return couponsView(v, { ...o, ...(found ? { found } : {}), recent });
  };

  app.get('/desk/coupons', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const lookup = filled(queryOf(req, 'lookup'))?.slice(0, 40);
    return sendHtml(
      reply,
      await couponsPage(req, v, {
        lookup,
        done:
          lookup && queryOf(req, 'done') === 'created'
            ? t(v.p.locale, 'web.desk.coupons.created', { code: lookup })
            : undefined,
      }),
    );
  });

  app.post<{ Body: Form }>('/desk/coupons', writeRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const b = req.body;
    let code: string;
    try {
      code = (await createCoupon(req.ctx, readCouponForm(b))).code;
    } catch (err) {
      return answerRefusal(req, reply, s, err, (v, error) => couponsPage(req, v, { error, form: b }));
    }
    return seeOther(reply, `/desk/coupons?lookup=${encodeURIComponent(code)}&done=created`);
  });

  // ---- the platform's tax profile ----------------------------------------------------------

  /** What invoices name as the marketplace operator (docs/invoices.md); one profile, replaced whole. */
  const taxPage = async (
    req: FastifyRequest,
    v: View,
    o: { values?: TaxForm; error?: FormError; done?: string } = {},
  ) => {
    const current = await getPlatformTaxProfile(req.ctx).catch((err: { statusCode?: number }) => {
      if (err.statusCode === 404) return undefined;
      throw err;
    });
    const values =
      o.values ?? (Object.fromEntries(TAX_FIELDS.map((k) => [k, current?.[k] ?? ''])) as TaxForm);
    return taxView(v, { ...o, values, ...(current ? { updatedAt: current.updatedAt } : {}) });
  };

  app.get('/desk/tax', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = queryOf(req, 'done') === 'saved' ? t(v.p.locale, 'web.desk.tax.saved') : undefined;
    return sendHtml(reply, await taxPage(req, v, { done }));
  });

  app.post<{ Body: Form }>('/desk/tax', writeRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const values = Object.fromEntries(TAX_FIELDS.map((k) => [k, (one(req.body[k]) ?? '').trim()])) as TaxForm;
    try {
      // PUT /admin/tax-profile with every field: an empty number is none.
      await putPlatformTaxProfile(
        req.ctx,
        readForm(platformTaxProfileBody, {
          ...values,
          gstHstNumber: values.gstHstNumber || null,
          qstNumber: values.qstNumber || null,
        }),
      );
    } catch (err) {
      return answerRefusal(req, reply, s, err, (v, error) => taxPage(req, v, { values, error }));
    }
    return seeOther(reply, '/desk/tax?done=saved');
  });

  // ---- platforms ---------------------------------------------------------------------------

  const platformsPage = async (
    req: FastifyRequest,
    v: View,
    o: { done?: string; error?: FormError; form?: Form; issued?: Issued } = {},
  ) => platformsView(v, { ...o, platforms: await listPlatforms(req.ctx), feeds: await feedStates(req.ctx) });

  app.get('/desk/platforms', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = queryOf(req, 'done') === 'revoked' ? t(v.p.locale, 'web.desk.platforms.revoked') : undefined;
    return sendHtml(reply, await platformsPage(req, v, { done }));
  });

  // The answer to a registration or a rotation is the page itself, with the secrets: a redirect
  // would have to carry them in its URL, or keep them somewhere to show later.
  app.post<{ Body: Form }>('/desk/platforms', writeRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const b = req.body;
    const v = viewOf(req, reply, s);
    try {
      const made = await createPlatform(
        req.ctx,
        readForm(createPlatformBody, {
          name: one(b.name) ?? '',
          webhookUrl: one(b.webhookUrl)?.trim() ?? '',
          ...(filled(b.ucpProfileUrl) ? { ucpProfileUrl: filled(b.ucpProfileUrl) } : {}),
          ...(filled(b.feedUrl) ? { feedUrl: filled(b.feedUrl) } : {}),
          ...(filled(b.feedToken) ? { feedToken: filled(b.feedToken) } : {}),
        }),
      );
      const said = t(v.p.locale, 'web.desk.platforms.issued', { name: made.name });
      return sendHtml(
        reply,
        await platformsPage(req, v, {
          issued: { said, apiKey: made.apiKey, webhookSecret: made.webhookSecret },
        }),
        201,
      );
    } catch (err) {
      return answerRefusal(req, reply, s, err, (v, error) => platformsPage(req, v, { error, form: b }));
    }
  });

  app.post<{ Params: { platformId: string }; Body: Form }>(
    '/desk/platforms/:platformId/rotate',
    writeRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const v = viewOf(req, reply, s);
      try {
        const rotated = await rotatePlatformKey(req.ctx, deps.platforms, req.params.platformId);
        const name = (await listPlatforms(req.ctx)).find((p) => p.id === rotated.id)?.name ?? rotated.id;
        const said = t(v.p.locale, 'web.desk.platforms.rotated', { name });
        return sendHtml(reply, await platformsPage(req, v, { issued: { said, apiKey: rotated.apiKey } }));
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) => platformsPage(req, v, { error }));
      }
    },
  );

  app.post<{ Params: { platformId: string }; Body: Form }>(
    '/desk/platforms/:platformId/revoke',
    writeRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      try {
        await revokePlatform(req.ctx, deps.platforms, req.params.platformId);
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) => platformsPage(req, v, { error }));
      }
      return seeOther(reply, '/desk/platforms?done=revoked');
    },
  );

  // ---- policies ----------------------------------------------------------------------------

  const policiesPage = async (
    req: FastifyRequest,
    v: View,
    o: { done?: PolicyKind; error?: FormError; kind?: PolicyKind; form?: Form } = {},
  ) => policiesView(v, { ...o, policies: await listPolicies(req.ctx, deps.returnWindowDays) });

  app.get('/desk/policies', pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = POLICY_KINDS.find((k) => k === queryOf(req, 'done'));
    return sendHtml(reply, await policiesPage(req, v, done ? { done } : {}));
  });

  app.post<{ Params: { kind: string }; Body: Form }>(
    '/desk/policies/:kind',
    writeRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const kind = POLICY_KINDS.find((k) => k === req.params.kind);
      if (!kind) throw notFound('web.error.notFoundTitle');
      const b = req.body;
      try {
        // Both languages are read before either is saved: a refusal saves neither.
        const texts = (['en', 'fr'] as const).map((lang) => {
          const name = `${kind}-${lang}`;
          try {
            return readForm(savePolicyBody, { kind, locale: `${lang}-CA`, body: one(b[name]) ?? '' });
          } catch (err) {
            // The problem goes under its own language's field.
            if (!(err instanceof AppError) || !err.problems) throw err;
            const problems = err.problems.map((p) => ({ ...p, field: name }));
            throw new AppError(err.code, err.statusCode, err.text, problems);
          }
        });
        for (const input of texts) await savePolicy(req.ctx, input);
      } catch (err) {
        return answerRefusal(req, reply, s, err, (v, error) =>
          policiesPage(req, v, { kind, error, form: b }),
        );
      }
      return seeOther(reply, `/desk/policies?done=${kind}#policy-${kind}`);
    },
  );
}
