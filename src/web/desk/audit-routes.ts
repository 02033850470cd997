// The desk's audit log (/desk/audit): the admins' actions, newest first, 50 a page, of one kind
// when chosen (GET /admin/audit's service), and its CSV export (/desk/audit.csv).
import type { FastifyInstance } from 'fastify';
import { html } from 'ghtml';
import { t } from '../../contract/i18n.ts';
import { type AdminActionAnswer, auditCsv, auditPage } from '../../modules/audit/service.ts';
import { empty, table, th } from '../console/views.ts';
import { signedIn, type View, viewOf, type WebDeps } from '../core.ts';
import { dateText, sendHtml } from '../layout.ts';
import { deskPage } from './views.ts';

const ADMINS = ['admin'] as const;
const PAGE = 50;
const ACTION = /^[a-z-]+\.[a-zA-Z-]+$/;

export function deskAuditPages(app: FastifyInstance, deps: WebDeps) {
  const s = deps.settings;
  const pageRoute = { config: { auth: 'public', limit: 'pages' }, schema: { hide: true } } as const;

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/desk/audit',
    pageRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const v = viewOf(req, reply, s);
      const action = ACTION.test(req.query.action ?? '') ? req.query.action : undefined;
      const before = Number.parseInt(req.query.before ?? '', 10);
      const page = await auditPage(req.ctx, {
        limit: PAGE,
        ...(before > 0 && before <= Number.MAX_SAFE_INTEGER ? { before } : {}),
        ...(action ? { action } : {}),
      });
      return sendHtml(
        reply,
        auditView(v, { ...page, action, later: before > 0 && before <= Number.MAX_SAFE_INTEGER }),
      );
    },
  );

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/desk/audit.csv',
    pageRoute,
    async (req, reply) => {
      signedIn(req, ADMINS);
      const action = ACTION.test(req.query.action ?? '') ? req.query.action : undefined;
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="portage-audit.csv"')
        .send(await auditCsv(req.ctx, action ? { action } : {}));
    },
  );
}

function auditView(
  v: View,
  o: { actions: AdminActionAnswer[]; nextBefore: number | null; action: string | undefined; later: boolean },
): string {
  const l = v.p.locale;
  const title = t(l, 'web.desk.audit.title');
  const json = (x: unknown) => (x === null ? '' : JSON.stringify(x));
  const cell = (label: string, content: string) => html`<td data-label="${label}">!${content}</td>`;
  const rows = o.actions.map(
    (a) =>
      html`<tr>!${cell(t(l, 'web.desk.audit.when'), html`<time datetime="${new Date(a.createdAt * 1000).toISOString()}">${dateText(v, a.createdAt)}</time>`)}!${cell(t(l, 'web.desk.audit.who'), html`${a.actorEmail}`)}!${cell(t(l, 'web.desk.audit.what'), html`<a href="/desk/audit?action=${encodeURIComponent(a.action)}">${a.action}</a>`)}!${cell(t(l, 'web.desk.audit.subject'), html`${a.subject}`)}!${cell(t(l, 'web.desk.audit.before'), html`<code>${json(a.before)}</code>`)}!${cell(t(l, 'web.desk.audit.after'), html`<code>${json(a.after)}</code>`)}</tr>`,
  );
  const list = rows.length
    ? table(
        ['when', 'who', 'what', 'subject', 'before', 'after'].map((k) =>
          th(t(l, `web.desk.audit.${k as 'when'}`)),
        ),
        rows,
        title,
        true,
      )
    : empty(l, 'web.desk.audit.none');
  const q = (more: Record<string, string>) => {
    const p = new URLSearchParams({ ...(o.action ? { action: o.action } : {}), ...more });
    return p.size ? `?${p}` : '';
  };
  const pager =
    o.later || o.nextBefore
      ? html`<nav class="pager" aria-label="${t(l, 'web.search.pages')}">!${o.later ? html`<a href="/desk/audit${q({})}">${t(l, 'web.console.notices.newest')}</a>` : ''}!${o.nextBefore ? html`<a href="/desk/audit${q({ before: String(o.nextBefore) })}" rel="next">${t(l, 'web.console.notices.older')}</a>` : ''}</nav>`
      : '';
  return deskPage(
    v,
    title,
    html`<p class="hint">${t(l, 'web.desk.audit.intro')}</p><p>!${o.action ? html`${t(l, 'web.desk.audit.only', { action: o.action })} <a href="/desk/audit">${t(l, 'web.desk.audit.all')}</a> · ` : ''}<a href="/desk/audit.csv${q({})}">${t(l, 'web.desk.audit.export')}</a></p>!${list}!${pager}`,
  );
}
