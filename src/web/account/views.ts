// The account's pages as markup, but its orders (./order-views.ts): signing in, registering, the
// overview, the agents with access and the settings. Pure: data in, HTML out.
import { html } from 'ghtml';
import { LOCALES, t } from '../../contract/i18n.ts';
import type { WebUser } from '../../modules/auth/web-sessions.ts';
import type { View } from '../core.ts';
import {
  actionButton,
  csrfField,
  dateText,
  type FormError,
  field,
  formAlert,
  notice,
  page,
  selectField,
} from '../layout.ts';
import { type OrderRow, orderTable } from './order-views.ts';
import { type Pending, pendingQuery } from './pending.ts';
import { accountTabs } from './tabs.ts';

// ---- signing in and registering ------------------------------------------------------------

const pendingFields = (add?: Pending) =>
  add
    ? html`<input type="hidden" name="add" value="${add.productId}"><input type="hidden" name="quantity" value="${add.quantity}">`
    : '';

export interface SignInForm {
  email?: string;
  /** Where the person goes once signed in. */
  next: string;
  add?: Pending;
  error?: FormError;
}

export function signInPage(v: View, o: SignInForm): string {
  const l = v.p.locale;
  return page(v, {
    title: t(l, 'web.signIn.title'),
    narrow: true,
    body: html`<h1>${t(l, 'web.signIn.title')}</h1>!${o.add ? notice(t(l, 'web.signIn.toAdd')) : ''}<form method="post" action="/account/sign-in" class="card">!${csrfField(v)}<input type="hidden" name="next" value="${o.next}">!${pendingFields(o.add)}!${formAlert(o.error)}
!${field({ name: 'email', label: t(l, 'web.signIn.email'), type: 'email', value: o.email, required: true, autocomplete: 'username', error: o.error })}
!${field({ name: 'password', label: t(l, 'web.signIn.password'), type: 'password', required: true, autocomplete: 'current-password', error: o.error })}
<button type="submit">${t(l, 'web.signIn.submit')}</button></form>
<p>${t(l, 'web.signIn.noAccount')} <a href="/account/register?${pendingQuery(o.next, o.add)}">${t(l, 'web.nav.register')}</a></p>`,
  });
}

export function registerPage(v: View, o: SignInForm & { name?: string }): string {
  const l = v.p.locale;
  return page(v, {
    title: t(l, 'web.register.title'),
    narrow: true,
    body: html`<h1>${t(l, 'web.register.title')}</h1><form method="post" action="/account/register" class="card">!${csrfField(v)}<input type="hidden" name="next" value="${o.next}">!${pendingFields(o.add)}!${formAlert(o.error)}
!${field({ name: 'name', label: t(l, 'web.register.name'), value: o.name, required: true, autocomplete: 'name', error: o.error })}
!${field({ name: 'email', label: t(l, 'web.signIn.email'), type: 'email', value: o.email, required: true, autocomplete: 'email', error: o.error })}
!${field({ name: 'password', label: t(l, 'web.signIn.password'), type: 'password', required: true, autocomplete: 'new-password', hint: t(l, 'web.register.passwordHint'), error: o.error })}
<button type="submit">${t(l, 'web.register.submit')}</button></form>`,
  });
}

// ---- the overview ----------------------------------------------------------------------------

/** The overview: who is signed in, the verification email again, and (a buyer's) recent orders. */
export function overviewPage(v: View, user: WebUser, recent: readonly OrderRow[] | undefined): string {
  const l = v.p.locale;
  const unverified = user.emailVerified
    ? ''
    : html`<div class="card"><p>${t(l, 'web.account.unverified', { email: user.email })}</p>!${actionButton(v, { action: '/account/verification', label: t(l, 'web.account.resend'), kind: 'secondary' })}</div>`;
  return page(v, {
    title: t(l, 'web.account.title'),
    body: html`<h1>${t(l, 'web.account.hello', { name: user.name })}</h1>!${accountTabs(v)}
!${unverified}
<div class="card"><p>${t(l, 'web.account.signedInAs', { email: user.email, role: user.role })}</p></div>
!${recent ? html`<h2>${t(l, 'web.account.recentOrders')}</h2>!${orderTable(v, recent)}` : ''}`,
  });
}

/** What asking for the verification email again did (sent, or why not). */
export function verificationPage(v: View, message: string): string {
  const l = v.p.locale;
  return page(v, {
    title: t(l, 'web.account.title'),
    narrow: true,
    body: html`!${notice(message)}<p><a href="/account">${t(l, 'web.account.back')}</a></p>`,
  });
}

// ---- agents ----------------------------------------------------------------------------------

export interface AgentRow {
  clientId: string;
  name: string;
  scopes: string[];
  lastUsedAt: number | null;
}

export function agentsPage(v: View, agents: readonly AgentRow[], revoked: boolean): string {
  const l = v.p.locale;
  const rows = agents.map(
    (a) =>
      html`<tr><td>${a.name}</td><td>${a.scopes.join(', ')}</td><td>${a.lastUsedAt ? dateText(v, a.lastUsedAt) : t(l, 'web.agents.never')}</td><td>!${actionButton(v, { action: '/account/agents/revoke', label: t(l, 'web.agents.revoke'), kind: 'danger', fields: { clientId: a.clientId } })}</td></tr>`,
  );
  const list = agents.length
    ? html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">${t(l, 'web.agents.name')}</th><th scope="col">${t(l, 'web.agents.scopes')}</th><th scope="col">${t(l, 'web.agents.lastUsed')}</th><th scope="col"><span class="visually-hidden">${t(l, 'web.agents.actions')}</span></th></tr></thead><tbody>!${rows}</tbody></table></div>`
    : html`<div class="card"><p>${t(l, 'web.agents.none')}</p></div>`;
  return page(v, {
    title: t(l, 'web.account.agents'),
    body: html`<h1>${t(l, 'web.account.agents')}</h1>!${accountTabs(v)}!${revoked ? notice(t(l, 'web.agents.revoked')) : ''}<p>${t(l, 'web.agents.intro')}</p>!${list}`,
  });
}

// ---- settings --------------------------------------------------------------------------------

export function settingsPage(v: View, o: { error?: FormError; done?: string } = {}): string {
  const l = v.p.locale;
  return page(v, {
    title: t(l, 'web.account.settings'),
    body: html`<h1>${t(l, 'web.account.settings')}</h1>!${accountTabs(v)}!${notice(o.done)}
<form method="post" action="/account/settings/locale" class="card">!${csrfField(v)}<h2>${t(l, 'web.settings.language')}</h2>
!${selectField({ name: 'locale', label: t(l, 'web.settings.languageLabel'), value: v.user?.locale ?? l, options: LOCALES.map((x) => ({ value: x, label: t(l, `page.language.${x}`) })) })}
<p class="hint">${t(l, 'web.settings.languageHint')}</p><button type="submit">${t(l, 'web.settings.save')}</button></form>
<form method="post" action="/account/settings/password" class="card">!${csrfField(v)}<h2>${t(l, 'web.settings.password')}</h2>!${formAlert(o.error)}
!${field({ name: 'currentPassword', label: t(l, 'web.settings.currentPassword'), type: 'password', required: true, autocomplete: 'current-password', error: o.error })}
!${field({ name: 'newPassword', label: t(l, 'web.settings.newPassword'), type: 'password', required: true, autocomplete: 'new-password', hint: t(l, 'web.register.passwordHint'), error: o.error })}
<p class="hint">${t(l, 'web.settings.passwordHint')}</p><button type="submit">${t(l, 'web.settings.changePassword')}</button></form>`,
  });
}
