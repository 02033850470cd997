// The desk's shops (/desk/shops): the shops waiting for approval (approve, or refuse with a
// reason) and the suspended ones, a page of each; and a shop's card (/desk/shops/<seller id>),
// reached from either list or from its seller's user card, with its state and the form that
// suspends it (a reason told to its seller) or reinstates it. The services are the API's
// (POST /admin/shops/:sellerId/...): each move audited, the seller emailed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html } from 'ghtml';
import { t } from '../../contract/i18n.ts';
import { SHOP_ACTIONS, SHOP_REASON_MAX, type ShopAction, shopReasonBody } from '../../contract/shops.ts';
import { listShops, moveShop, type ShopState, shopStateOf } from '../../modules/shops/status.ts';
import { pager, table, th } from '../console/views.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import {
  actionButton,
  csrfField,
  dateText,
  type FormError,
  formAlert,
  notice,
  readForm,
  sendHtml,
  textArea,
} from '../layout.ts';
import { type Form, one, pageNumber, queryOf } from './form.ts';
import { deskPage } from './views.ts';

const ADMINS = ['admin'] as const;
const PATH = '/desk/shops';
const PER_PAGE = 20;

const isAction = (v: string | undefined): v is ShopAction => SHOP_ACTIONS.some((a) => a === v);
const cardPath = (sellerId: string) => `${PATH}/${encodeURIComponent(sellerId)}`;

export function deskShopPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const writeRoute = { config: { auth: 'public', limit: 'productWrites' }, schema: { hide: true } } as const;

  const listPage = async (req: FastifyRequest, v: View, o: { error?: FormError; done?: string } = {}) => {
    const at = {
      pending: pageNumber(queryOf(req, 'pending')),
      suspended: pageNumber(queryOf(req, 'suspended')),
    };
    const [pending, suspended] = await Promise.all(
      (['pending', 'suspended'] as const).map((status) =>
        listShops(req.ctx, { status, limit: PER_PAGE, offset: (at[status] - 1) * PER_PAGE }),
      ),
    );
    return listView(v, { pending: pending!, suspended: suspended!, at, ...o });
  };

  app.get(PATH, pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = queryOf(req, 'done');
    return sendHtml(
      reply,
      await listPage(
        req,
        v,
        isAction(done) ? { done: t(v.p.locale, 'web.desk.shops.done', { action: done }) } : {},
      ),
    );
  });

  const cardPage = async (
    req: FastifyRequest,
    v: View,
    sellerId: string,
    o: { error?: FormError; typed?: Form; done?: string } = {},
  ) => cardView(v, { shop: await shopStateOf(req.ctx, sellerId), ...o });

  app.get<{ Params: { sellerId: string } }>(`${PATH}/:sellerId`, pageRoute, async (req, reply) => {
    signedIn(req, ADMINS);
    const v = viewOf(req, reply, s);
    const done = queryOf(req, 'done');
    return sendHtml(
      reply,
      await cardPage(
        req,
        v,
        req.params.sellerId,
        isAction(done) ? { done: t(v.p.locale, 'web.desk.shops.done', { action: done }) } : {},
      ),
    );
  });

  for (const action of SHOP_ACTIONS) {
    const withReason = action === 'suspend' || action === 'refuse';
    app.post<{ Params: { sellerId: string }; Body: Form }>(
      `${PATH}/:sellerId/${action}`,
      writeRoute,
      async (req, reply) => {
        signedIn(req, ADMINS);
        const f = req.body ?? {};
        const id = req.params.sellerId;
        // Approving and refusing are the queue's (the list answers them); the others the card's.
        const fromList = one(f.from) === 'list';
        try {
          const reason = withReason ? readForm(shopReasonBody, { reason: one(f.reason) ?? '' }).reason : null;
          await moveShop(req.ctx, id, action, reason);
        } catch (err) {
          return answerRefusal(req, reply, s, err, (v, error) =>
            fromList ? listPage(req, v, { error }) : cardPage(req, v, id, { error, typed: f }),
          );
        }
        return seeOther(reply, fromList ? `${PATH}?done=${action}` : `${cardPath(id)}?done=${action}`);
      },
    );
  }
}

type ShopPage = Awaited<ReturnType<typeof listShops>>;

function listView(
  v: View,
  o: {
    pending: ShopPage;
    suspended: ShopPage;
    at: { pending: number; suspended: number };
    error?: FormError;
    done?: string;
  },
) {
  const l = v.p.locale;
  const shopCell = (x: ShopState) =>
    html`<td><a href="${cardPath(x.sellerId)}">${x.shopName}</a></td><td>${x.seller.name}<br><span class="hint">${x.seller.email}</span></td>`;
  const pendingRows = o.pending.shops.map(
    (x) =>
      html`<tr>!${shopCell(x)}<td>${dateText(v, x.createdAt)}</td><td>!${actionButton(v, {
        action: `${cardPath(x.sellerId)}/approve`,
        label: t(l, 'web.desk.shops.approve'),
        fields: { from: 'list' },
      })} <a href="${cardPath(x.sellerId)}#refuse">${t(l, 'web.desk.shops.refuse')}</a></td></tr>`,
  );
  const suspendedRows = o.suspended.shops.map(
    (x) =>
      html`<tr>!${shopCell(x)}<td>${x.suspendedAt ? dateText(v, x.suspendedAt) : ''}</td><td>${x.reason ?? ''}</td><td><a href="${cardPath(x.sellerId)}">${t(l, 'web.desk.shops.manage')}</a></td></tr>`,
  );
  const at = (key: 'pending' | 'suspended') => ({
    pending: key === 'pending' ? undefined : String(o.at.pending),
    suspended: key === 'suspended' ? undefined : String(o.at.suspended),
  });
  const body = html`<p>${t(l, 'web.desk.shops.intro')}</p>!${notice(o.done)}!${formAlert(o.error)}
<section aria-labelledby="pending-h"><h2 id="pending-h">${t(l, 'web.desk.shops.pending', { count: o.pending.total })}</h2>
!${
    pendingRows.length
      ? table(
          [
            th(t(l, 'web.desk.shops.shop')),
            th(t(l, 'web.desk.shops.seller')),
            th(t(l, 'web.desk.shops.opened')),
            th(t(l, 'web.desk.shops.manage')),
          ],
          pendingRows,
          t(l, 'web.desk.shops.pending', { count: o.pending.total }),
          true,
        )
      : html`<p>${t(l, 'web.desk.shops.noPending')}</p>`
  }!${pager(l, PATH, at('pending'), o.at.pending, o.at.pending * PER_PAGE < o.pending.total)}</section>
<section aria-labelledby="suspended-h"><h2 id="suspended-h">${t(l, 'web.desk.shops.suspended', { count: o.suspended.total })}</h2>
!${
    suspendedRows.length
      ? table(
          [
            th(t(l, 'web.desk.shops.shop')),
            th(t(l, 'web.desk.shops.seller')),
            th(t(l, 'web.desk.shops.since')),
            th(t(l, 'web.desk.shops.reason')),
            th(t(l, 'web.desk.shops.manage')),
          ],
          suspendedRows,
          t(l, 'web.desk.shops.suspended', { count: o.suspended.total }),
          true,
        )
      : html`<p>${t(l, 'web.desk.shops.noSuspended')}</p>`
  }</section>`;
  return deskPage(v, t(l, 'web.desk.shops.title'), body);
}

/** A shop's card: its state, and the forms its state allows (a waiting shop is approved or refused). */
function cardView(v: View, o: { shop: ShopState; error?: FormError; typed?: Form; done?: string }) {
  const l = v.p.locale;
  const x = o.shop;
  const base = cardPath(x.sellerId);
  const reasonForm = (action: 'suspend' | 'refuse', label: string) =>
    html`<form method="post" action="${base}/${action}" class="card" id="${action}" novalidate>!${csrfField(v)}<h2>${label}</h2>!${formAlert(o.error)}
!${textArea({
      name: 'reason',
      label: t(l, 'web.desk.shops.reason'),
      value: one(o.typed?.reason) ?? '',
      required: true,
      hint: t(l, 'web.desk.shops.reasonHint', { max: SHOP_REASON_MAX }),
      error: o.error,
      attrs: html` maxlength="${SHOP_REASON_MAX}"`,
    })}
<button type="submit" class="danger">${label}</button></form>`;
  const forms =
    x.status === 'pending'
      ? html`<div class="card">!${actionButton(v, { action: `${base}/approve`, label: t(l, 'web.desk.shops.approve') })}</div>!${reasonForm('refuse', t(l, 'web.desk.shops.refuse'))}`
      : x.status === 'active'
        ? reasonForm('suspend', t(l, 'web.desk.shops.suspend'))
        : html`<div class="card">!${actionButton(v, { action: `${base}/reinstate`, label: t(l, 'web.desk.shops.reinstate'), kind: 'secondary' })}</div>`;
  const body = html`!${notice(o.done)}<section class="card" aria-labelledby="shop-h" data-shop-status="${x.status}"><h2 id="shop-h">${t(l, 'web.desk.shops.status', { status: x.status })}</h2><dl class="specs">
<dt>${t(l, 'web.desk.shops.seller')}</dt><dd><a href="/desk/users?user=${encodeURIComponent(x.sellerId)}">${x.seller.name}</a> (${x.seller.email})</dd>
<dt>${t(l, 'web.desk.shops.opened')}</dt><dd>${dateText(v, x.createdAt)}</dd>
!${x.suspendedAt ? html`<dt>${t(l, 'web.desk.shops.since')}</dt><dd>${dateText(v, x.suspendedAt)}</dd>` : ''}
!${x.reason ? html`<dt>${t(l, 'web.desk.shops.reason')}</dt><dd>${x.reason}</dd>` : ''}
</dl>!${x.seller.suspended ? html`<p class="alert">${t(l, 'web.desk.shops.accountSuspended')}</p>` : ''}</section>
!${forms}`;
  return deskPage(v, x.shopName, body);
}
