// The desk's queue of escalated returns (/desk/returns): returns their sellers left pending past
// RETURN_ESCALATION_BUSINESS_DAYS (GET /admin/returns/escalated's service), oldest first, each
// decided here as a seller would (refund, ask for the items back, reject with a note).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html } from 'ghtml';
import { t } from '../../contract/i18n.ts';
import { askForParcelBody, type ReturnRequest, rejectReturnBody } from '../../contract/returns.ts';
import { shopNames } from '../../modules/auth/sellers.ts';
import * as returns from '../../modules/returns/service.ts';
import { empty, rowInput, table, th } from '../console/views.ts';
import { seeOther, signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { answerRefusal } from '../form-refusal.ts';
import {
  csrfField,
  dateText,
  type FormError,
  formAlert,
  moneyText,
  notice,
  readForm,
  sendHtml,
} from '../layout.ts';
import { type Form, one } from './form.ts';
import { deskPage } from './views.ts';

const ADMINS = ['admin'] as const;
const LISTED = 50;
const DONE = ['approved', 'asked', 'rejected', 'received'] as const;

export function deskReturnPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;
  const writeRoute = { config: { auth: 'public', limit: 'returns' }, schema: { hide: true } } as const;
  const returnsDeps = { ...deps.commerce, returnWindowDays: deps.returnWindowDays };

  const queuePage = async (
    req: FastifyRequest,
    v: View,
    o: { error?: FormError; refused?: string; done?: string },
  ) => {
    const list = await returns.escalatedReturns(req.ctx, { limit: LISTED, offset: 0 });
    const shops = await shopNames(req.ctx, [...new Set(list.returns.map((r) => r.seller_id))]);
    return queueView(v, { ...o, returns: list.returns, total: list.total, shops });
  };

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/desk/returns',
    pageRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const v = viewOf(req, reply, s);
      const done = DONE.find((d) => d === req.query.done);
      return sendHtml(
        reply,
        await queuePage(req, v, done ? { done: t(v.p.locale, 'web.desk.returns.done', { done }) } : {}),
      );
    },
  );

  const decision = (
    path: 'approve' | 'ask' | 'reject' | 'receive',
    act: (req: FastifyRequest<{ Params: { returnId: string }; Body: Form }>) => Promise<unknown>,
    done: (typeof DONE)[number],
  ) =>
    app.post<{ Params: { returnId: string }; Body: Form }>(
      `/desk/returns/:returnId/${path}`,
      writeRoute,
      async (req, reply) => {
        signedIn(req, ADMINS);
        try {
          await act(req);
        } catch (err) {
          return answerRefusal(req, reply, s, err, (v, error) =>
            queuePage(req, v, { error, refused: req.params.returnId }),
          );
        }
        return seeOther(reply, `/desk/returns?done=${done}`);
      },
    );
  // A parcel that never came (or a seller who never said): the platform refunds, nothing back on sale.
  decision(
    'receive',
    (req) => returns.receiveReturn(req.ctx, returnsDeps, req.params.returnId, {}),
    'received',
  );
  decision(
    'approve',
    (req) => returns.approveReturn(req.ctx, returnsDeps, req.params.returnId, undefined),
    'approved',
  );
  decision(
    'ask',
    (req) =>
      returns.approveReturn(
        req.ctx,
        returnsDeps,
        req.params.returnId,
        undefined,
        readForm(askForParcelBody, { instructions: one(req.body.instructions) }).instructions,
      ),
    'asked',
  );
  decision(
    'reject',
    (req) =>
      returns.rejectReturn(
        req.ctx,
        returnsDeps,
        req.params.returnId,
        readForm(rejectReturnBody, { note: one(req.body.note) }).note,
      ),
    'rejected',
  );
}

function queueView(
  v: View,
  o: {
    returns: ReturnRequest[];
    total: number;
    shops: Map<string, string>;
    error?: FormError;
    refused?: string;
    done?: string;
  },
): string {
  const l = v.p.locale;
  const title = t(l, 'web.desk.returns.title');
  const rows = o.returns.map((r, i) => {
    const path = `/desk/returns/${encodeURIComponent(r.return_id)}`;
    const error = o.refused === r.return_id ? o.error : undefined;
    const what = r.lines.map((line) => `${line.quantity} × ${line.name}`).join(', ');
    const actions =
      r.status === 'awaiting_parcel'
        ? html`<p class="hint">${t(l, 'web.console.return.sentBackHow', { instructions: r.instructions ?? '' })}</p><form class="inline" method="post" action="${path}/receive">!${csrfField(v)}<button type="submit" class="small">${t(l, 'web.desk.returns.refundAnyway')}</button></form>`
        : html`<form class="inline" method="post" action="${path}/approve">!${csrfField(v)}<button type="submit" class="small">${t(l, 'web.console.return.approve')}</button></form>
<form method="post" action="${path}/ask">!${csrfField(v)}!${rowInput({ id: `ask-${i}-instructions`, name: 'instructions', label: t(l, 'web.console.return.instructions'), of: r.order_id, maxlength: 2000, error })}<button type="submit" class="small secondary">${t(l, 'web.console.return.ask')}</button></form>
<form method="post" action="${path}/reject" class="row">!${csrfField(v)}!${rowInput({ id: `reject-${i}-note`, name: 'note', label: t(l, 'web.console.return.note'), of: r.order_id, maxlength: 1000, error })}<button type="submit" class="small danger">${t(l, 'web.console.return.reject')}</button></form>`;
    const cell = (label: string, content: string, num = false) =>
      html`<td!${num ? html` class="num"` : ''} data-label="${label}">!${content}</td>`;
    return html`<tr>!${cell(t(l, 'web.orders.order'), html`${r.order_id}`)}!${cell(t(l, 'web.desk.returns.shop'), html`${o.shops.get(r.seller_id) ?? r.seller_id}`)}!${cell(t(l, 'web.desk.returns.asked'), html`${dateText(v, r.created_at)}`)}!${cell(t(l, 'web.return.reason'), html`${t(l, 'web.return.reasonName', { reason: r.reason })}!${r.description ? html`<p class="hint">${t(l, 'web.console.return.said', { description: r.description })}</p>` : ''}`)}!${cell(t(l, 'web.console.return.what'), html`${what}`)}!${cell(t(l, 'web.return.refund'), html`${moneyText(v, r.estimated_refund_amount_cents)}`, true)}!${cell(t(l, 'web.console.actions'), actions)}</tr>`;
  });
  const list = rows.length
    ? table(
        [
          th(t(l, 'web.orders.order')),
          th(t(l, 'web.desk.returns.shop')),
          th(t(l, 'web.desk.returns.asked')),
          th(t(l, 'web.return.reason')),
          th(t(l, 'web.console.return.what')),
          th(t(l, 'web.return.refund'), true),
          th(t(l, 'web.console.actions')),
        ],
        rows,
        title,
        true,
      )
    : empty(l, 'web.desk.returns.none');
  return deskPage(
    v,
    title,
    html`!${notice(o.done)}!${formAlert(o.error)}<p class="hint">${t(l, 'web.desk.returns.intro', { n: o.total })}</p>!${list}`,
  );
}
