// The console's form of the shop's page (on /console/shop, under the invoice identity): the logo's
// address and, in each language, the description and the return and shipping policies. It is
// PUT /sellers/me/shop (read with the API's schema, refusals under their fields).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html } from 'ghtml';
import { t } from '../../contract/i18n.ts';
import { putShopBody, SHOP_DESCRIPTION_MAX, SHOP_POLICY_MAX } from '../../contract/shops.ts';
import { myShop, saveMyShop } from '../../modules/shops/service.ts';
import { wordsWith } from '../../views/words.ts';
import { seeOther, signedIn, type View, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { csrfField, type FormError, field, formAlert, readForm, textArea } from '../layout.ts';
import { type Body, one } from './form.ts';

const SELLERS = ['seller'] as const;
const LANGUAGES = [
  { code: 'en-CA', key: 'en' },
  { code: 'fr-CA', key: 'fr' },
] as const;
const TEXTS = ['description', 'returnPolicy', 'shippingPolicy'] as const;

/** The form as typed: `logoUrl`, and `<en|fr>.<text>`. */
export type ShopPageForm = Record<string, string>;

export async function shopPageFormOf(req: FastifyRequest): Promise<{ values: ShopPageForm; path: string }> {
  const shop = await myShop(req.ctx);
  const values: ShopPageForm = { logoUrl: shop.logoUrl ?? '' };
  for (const { code, key } of LANGUAGES) for (const n of TEXTS) values[`${key}.${n}`] = shop.texts[code][n];
  return { values, path: shop.url };
}

const formOfBody = (body: Body): ShopPageForm =>
  Object.fromEntries(
    ['logoUrl', ...LANGUAGES.flatMap(({ key }) => TEXTS.map((n) => `${key}.${n}`))].map((k) => [
      k,
      one(body[k]).slice(0, 6000),
    ]),
  );

export function shopPageForm(v: View, o: { values: ShopPageForm; path: string; error?: FormError }): string {
  const l = v.p.locale;
  const error = o.error;
  const languages = LANGUAGES.map(({ code, key }) => {
    const lang = html` lang="${code}"`;
    const area = (n: (typeof TEXTS)[number], max: number) =>
      textArea({
        name: `${key}.${n}`,
        problemField: `texts.${code}.${n}`,
        label: t(l, `web.console.shop.${n}`),
        value: o.values[`${key}.${n}`] ?? '',
        error,
        attrs: html` maxlength="${max}" rows="${n === 'description' ? 4 : 6}"!${lang}`,
      });
    return html`<fieldset><legend>${t(l, 'web.console.shop.inLanguage', { language: key })}</legend>!${area('description', SHOP_DESCRIPTION_MAX)}!${area('returnPolicy', SHOP_POLICY_MAX)}!${area('shippingPolicy', SHOP_POLICY_MAX)}</fieldset>`;
  });
  return html`<form method="post" action="/console/shop/page" class="card" id="page" novalidate>!${csrfField(v)}<h2>${t(l, 'web.console.shop.page')}</h2>
<p class="hint">!${wordsWith(l, 'web.console.shop.pageIntro', {}, { address: html`<a href="${o.path}">${o.path}</a>` })}</p>!${formAlert(error)}
!${field({ name: 'logoUrl', type: 'url', label: t(l, 'web.console.shop.logoUrl'), hint: t(l, 'web.console.shop.logoHint'), value: o.values.logoUrl ?? '', error, attrs: ' maxlength="2048"' })}
!${languages}
<button type="submit">${t(l, 'web.console.shop.savePage')}</button></form>`;
}

/** POST /console/shop/page; `shopPage` draws the console's shop page again after a refusal. */
export function consoleShopPageForm(
  app: FastifyInstance,
  deps: WebDeps,
  shopPage: (
    req: FastifyRequest,
    v: View,
    o: { pageForm: { values: ShopPageForm; error: FormError } },
  ) => Promise<string>,
) {
  const postRoute = { config: { auth: 'public', limit: 'productWrites' }, schema: { hide: true } } as const;
  app.post<{ Body: Body }>('/console/shop/page', postRoute, async (req, reply) => {
    signedIn(req, SELLERS);
    const values = formOfBody(req.body ?? {});
    try {
      const texts = Object.fromEntries(
        LANGUAGES.map(({ code, key }) => [
          code,
          Object.fromEntries(TEXTS.map((n) => [n, values[`${key}.${n}`] ?? ''])),
        ]),
      );
      await saveMyShop(req.ctx, readForm(putShopBody, { logoUrl: values.logoUrl?.trim() || null, texts }));
    } catch (err) {
      return answerRefusal(req, reply, deps.settings, err, (v, error) =>
        shopPage(req, v, { pageForm: { values, error } }),
      );
    }
    return seeOther(reply, '/console/shop?done=page#page');
  });
}
