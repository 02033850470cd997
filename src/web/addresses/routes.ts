// /account/addresses: the buyer's saved addresses (add, make one the default, delete), over the
// addresses service, which keeps each buyer to their own addresses.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { t } from '../../contract/i18n.ts';
import * as addresses from '../../modules/addresses/service.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import { type FormError, sendHtml } from '../layout.ts';
import { type AddressForm, readAddress, typedAddress } from './form.ts';
import { addressesView } from './views.ts';

const DONE = ['added', 'default', 'deleted'] as const;
const BUYERS = ['buyer'] as const;

export function addressPages(app: FastifyInstance, deps: WebDeps, accountTabs: (v: View) => string) {
  const s = deps.settings;
  const postRoute = { config: { auth: 'public', limit: 'orders' }, schema: { hide: true } } as const;

  const addressesPage = async (
    req: FastifyRequest,
    v: View,
    o: { typed?: AddressForm; error?: FormError; done?: string } = {},
  ) => {
    const me = signedIn(req, BUYERS);
    const saved = await addresses.listAddresses(req.ctx, me.id);
    return addressesView(v, { ...o, tabs: accountTabs(v), saved, max: addresses.MAX_ADDRESSES });
  };

  app.get<{ Querystring: { done?: string } }>(
    '/account/addresses',
    { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } },
    async (req, reply) => {
      signedIn(req, BUYERS);
      const v = viewOf(req, reply, s);
      const done = DONE.find((d) => d === req.query.done);
      return sendHtml(
        reply,
        await addressesPage(req, v, { done: done && t(v.p.locale, 'web.addresses.done', { done }) }),
      );
    },
  );

  app.post<{ Body: Record<string, unknown> }>('/account/addresses', postRoute, async (req, reply) => {
    const me = signedIn(req, BUYERS);
    const typed = typedAddress(req.body ?? {});
    try {
      const form = readAddress(typed);
      await addresses.saveAddress(
        req.ctx,
        me.id,
        { recipientName: form.recipientName, line2: form.line2, address: form.shipping_address },
        { makeDefault: req.body?.default === 'on' },
      );
    } catch (err) {
      return answerRefusal(req, reply, s, err, (v, error) => addressesPage(req, v, { typed, error }));
    }
    return seeOther(reply, '/account/addresses?done=added');
  });

  app.post<{ Params: { addressId: string } }>(
    '/account/addresses/:addressId/default',
    postRoute,
    async (req, reply) => {
      const me = signedIn(req, BUYERS);
      await addresses.setDefaultAddress(req.ctx, me.id, req.params.addressId);
      return seeOther(reply, '/account/addresses?done=default');
    },
  );

  app.post<{ Params: { addressId: string } }>(
    '/account/addresses/:addressId/delete',
    postRoute,
    async (req, reply) => {
      const me = signedIn(req, BUYERS);
      await addresses.deleteAddress(req.ctx, me.id, req.params.addressId);
      return seeOther(reply, '/account/addresses?done=deleted');
    },
  );
}
