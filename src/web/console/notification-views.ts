// The seller's notifications in the console (/console/notifications): the inbox, newest first,
// with its read marks and pages, and the form of what the seller is told of. Markup only.
import { html } from 'ghtml';
import { t } from '../../contract/i18n.ts';
import { NOTIFICATION_KINDS, type NotificationSetting } from '../../contract/notifications.ts';
import { kindLabel, type NotificationAnswer } from '../../modules/notifications/service.ts';
import type { View } from '../core.ts';
import { actionButton, csrfField, dateText, type FormError, formAlert } from '../layout.ts';
import { consolePage, empty } from './views.ts';

export const NOTICES_PATH = '/console/notifications';

export interface NoticesPage {
  notifications: NotificationAnswer[];
  unread: number;
  nextBefore: string | null;
  /** Only the unread ones are listed. */
  unreadOnly: boolean;
  /** The list starts after this notification (a later page). */
  before?: string;
  settings: NotificationSetting[];
  error?: FormError;
  done?: string;
}

export function noticesView(v: View, o: NoticesPage): string {
  const l = v.p.locale;
  const here = (q: Record<string, string | undefined>) => {
    const params = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => Boolean(e[1])));
    return params.size ? `${NOTICES_PATH}?${params}` : NOTICES_PATH;
  };
  const filter = html`<nav aria-label="${t(l, 'web.console.notices.filter')}"><ul class="tabs">!${[
    { href: here({}), label: t(l, 'web.console.notices.everything'), on: !o.unreadOnly },
    { href: here({ unread: '1' }), label: t(l, 'web.console.notices.unreadOnly'), on: o.unreadOnly },
  ].map(
    (i) => html`<li><a href="${i.href}"!${i.on ? ' aria-current="page"' : ''}>${i.label}</a></li>`,
  )}</ul></nav>`;
  const markAll =
    o.unread > 0
      ? actionButton(v, {
          action: `${NOTICES_PATH}/read`,
          label: t(l, 'web.console.notices.markAllRead'),
          kind: 'secondary',
          fields: { all: '1' },
        })
      : '';
  const items = o.notifications.map((n) => {
    const unread = n.readAt === null;
    const mark = unread
      ? actionButton(v, {
          action: `${NOTICES_PATH}/read`,
          label: t(l, 'web.console.notices.markRead'),
          kind: 'secondary',
          fields: { id: n.id, ...(o.unreadOnly ? { unread: '1' } : {}) },
        })
      : '';
    return html`<li!${unread ? ' class="unread"' : ''}>!${unread ? html`<span class="badge">${t(l, 'web.console.notices.unread')}</span> ` : ''}<a href="${n.link}">${n.message}</a> <span class="hint"><time datetime="${new Date(n.createdAt * 1000).toISOString()}">${dateText(v, n.createdAt)}</time></span> !${mark}</li>`;
  });
  const list = items.length
    ? html`<div class="card"><ul class="notices" aria-label="${t(l, 'web.console.notices.list')}">!${items}</ul></div>`
    : empty(l, o.unreadOnly ? 'web.console.notices.noneUnread' : 'web.console.notices.none');
  const newest = o.before
    ? html`<a href="${here({ unread: o.unreadOnly ? '1' : undefined })}">${t(l, 'web.console.notices.newest')}</a>`
    : '';
  const older = o.nextBefore
    ? html`<a href="${here({ unread: o.unreadOnly ? '1' : undefined, before: o.nextBefore })}" rel="next">${t(l, 'web.console.notices.older')}</a>`
    : '';
  const pager =
    newest || older
      ? html`<nav class="pager" aria-label="${t(l, 'web.search.pages')}">!${newest}!${older}</nav>`
      : '';
  return consolePage(
    v,
    t(l, 'web.console.notifications'),
    html`!${filter}<p>!${markAll}</p>!${list}!${pager}!${settingsForm(v, o.settings, o.error)}`,
    o.done,
  );
}

/** What the seller is told of: each kind by email and in the inbox, two checkboxes a row. */
function settingsForm(v: View, settings: NotificationSetting[], error?: FormError): string {
  const l = v.p.locale;
  const chosen = new Map(settings.map((s) => [s.kind, s]));
  const box = (name: string, label: string, checked: boolean) =>
    html`<input type="checkbox" id="f-${name}" name="${name}" value="on" aria-label="${label}"!${checked ? ' checked' : ''}>`;
  const rows = NOTIFICATION_KINDS.map((kind) => {
    const s = chosen.get(kind) ?? { email: true, inbox: true };
    const label = kindLabel(l, kind);
    return html`<tr><th scope="row">${label}</th><td data-label="${t(l, 'web.console.notices.byEmail')}">!${box(`email.${kind}`, t(l, 'web.console.notices.byEmailOf', { kind: label }), s.email)}</td><td data-label="${t(l, 'web.console.notices.inInbox')}">!${box(`inbox.${kind}`, t(l, 'web.console.notices.inInboxOf', { kind: label }), s.inbox)}</td></tr>`;
  });
  return html`<section class="card" id="settings" aria-labelledby="settings-title"><h2 id="settings-title" class="first">${t(l, 'web.console.notices.settings')}</h2>
<p class="hint">${t(l, 'web.console.notices.settingsHint')}</p>
<form method="post" action="${NOTICES_PATH}/settings">!${csrfField(v)}!${formAlert(error)}
<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${t(l, 'web.console.notices.kind')}</th><th scope="col">${t(l, 'web.console.notices.byEmail')}</th><th scope="col">${t(l, 'web.console.notices.inInbox')}</th></tr></thead><tbody>!${rows}</tbody></table></div>
<button type="submit">${t(l, 'web.console.notices.save')}</button></form></section>`;
}

/** The product page's low-stock form: a threshold, or empty for none. */
export function lowStockForm(v: View, productId: string, threshold: string, error?: FormError): string {
  const l = v.p.locale;
  const problem = error?.fields.threshold;
  const described = problem
    ? ' aria-describedby="f-threshold-hint f-threshold-error" aria-invalid="true"'
    : ' aria-describedby="f-threshold-hint"';
  return html`<form method="post" action="/console/products/${encodeURIComponent(productId)}/low-stock" class="card" id="low-stock" novalidate>!${csrfField(v)}!${formAlert(error)}
<h2 class="first">${t(l, 'web.console.lowStock.legend')}</h2>
<div><label for="f-threshold">${t(l, 'web.console.lowStock.threshold')}</label><input id="f-threshold" name="threshold" type="number" min="0" max="1000000" step="1" inputmode="numeric" value="${threshold}"!${described}><p class="hint" id="f-threshold-hint">${t(l, 'web.console.lowStock.hint')}</p>!${problem ? html`<p class="field-error" id="f-threshold-error">${problem}</p>` : ''}</div>
<button type="submit" class="secondary">${t(l, 'web.console.lowStock.save')}</button></form>`;
}
