// The pages of an authorization: sign in, then consent (which names the agent and what it may
// do), in the small-page frame. Plain HTML forms and CSS: no script (the CSP allows none), no
// frames. Every value is escaped by html`...`; the agent's name and logo are whatever it
// declared, shown as such. Each form carries the pending authorization's CSRF token (beside its
// HttpOnly, SameSite=Lax cookie). Every word is the catalogues' (`page.oauth.*`,
// `page.consent.*`) in the page's language.
import { html } from 'ghtml';
import { type Locale, type MessageKey, t } from '../../contract/i18n.ts';
import type { AgentScope } from '../../contract/scopes.ts';
import { csrfField } from '../../views/forms.ts';
import { langField, type PageLang } from '../../views/language.ts';
import { smallPage } from '../../views/small-page.ts';
import { words, wordsWith } from '../../views/words.ts';

/**
 * Styles inline, images only over https (the agent's logo), forms only to this site, or (the
 * consent's answer redirects there) to the agent's redirect URI.
 */
export function oauthPageCsp(formTarget?: string): string {
  const extra = formTarget ? ` ${new URL(formTarget).origin}` : '';
  return `default-src 'none'; style-src 'unsafe-inline'; img-src https:; form-action 'self'${extra}; frame-ancestors 'none'; base-uri 'none'`;
}

/** What each scope lets the agent do, as the consent page says it (the metadata's words are scopes.ts's). */
export const SCOPE_WORDS: Record<AgentScope, MessageKey> = {
  shop: 'page.consent.scope.shop',
  orders: 'page.consent.scope.orders',
  analytics: 'page.consent.scope.analytics',
  'dev.ucp.shopping.checkout:manage': 'page.consent.scope.ucpCheckoutManage',
  'dev.ucp.shopping.order:read': 'page.consent.scope.ucpOrderRead',
  'dev.ucp.shopping.order:manage': 'page.consent.scope.ucpOrderManage',
};

const STYLE = `
  button.secondary { background: #fff; color: #1d3b2a; border: 1px solid #1d3b2a; margin-top: 10px; }
  .agent { display: flex; gap: 12px; align-items: center; margin-bottom: 12px; }
  .agent img { width: 48px; height: 48px; border-radius: 10px; object-fit: cover; border: 1px solid #e3e1da; }
  ul.scopes { padding-left: 0; list-style: none; }
  ul.scopes li { border: 1px solid #e3e1da; border-radius: 8px; padding: 10px 12px; margin: 8px 0; }
  ul.scopes strong { display: block; }
`;

const layout = (p: PageLang, title: string, body: string) => smallPage(p, title, body, STYLE);

export interface AgentView {
  clientId: string;
  clientName: string | null | undefined;
  logoUri: string | null | undefined;
}

const agentName = (l: Locale, a: AgentView) => a.clientName || t(l, 'page.oauth.unnamedAgent');

/** Where the agent's claims come from: a metadata document's host is checked; a registered name is not. */
function provenance(l: Locale, a: AgentView): string {
  if (/^https?:\/\//.test(a.clientId)) {
    return words(l, 'page.oauth.describedBy', { host: new URL(a.clientId).host });
  }
  return words(l, 'page.oauth.selfRegistered');
}

/** The sign-in form; `error` is a catalogue key (the wrong password's). */
export function signInPage(
  p: PageLang,
  o: { agent: AgentView; csrf: string; email?: string; error?: MessageKey },
): string {
  const l = p.locale;
  const agent = agentName(l, o.agent);
  return layout(
    p,
    t(l, 'page.oauth.signInTitle'),
    html`<h1>${words(l, 'page.oauth.signInHeading', { agent })}</h1>
      <p class="hint">${words(l, 'page.oauth.signInIntro', { agent })}</p>
      !${o.error ? html`<p class="error" role="alert" id="form-error">${words(l, o.error)}</p>` : ''}
      <form method="post" action="/oauth/sign-in">!${csrfField(o)}!${langField(p)}
        <label for="email">${words(l, 'page.oauth.email')}</label>
        <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${o.email ?? ''}">
        <label for="password">${words(l, 'page.oauth.password')}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
        <button type="submit">${words(l, 'page.oauth.signIn')}</button>
      </form>`,
  );
}

export function consentPage(
  p: PageLang,
  o: {
    agent: AgentView;
    csrf: string;
    email: string;
    scopes: AgentScope[];
    redirectUri: string;
  },
): string {
  const l = p.locale;
  const logo = o.agent.logoUri?.startsWith('https://')
    ? html`<img src="${o.agent.logoUri}" alt="" referrerpolicy="no-referrer">`
    : '';
  const agent = agentName(l, o.agent);
  return layout(
    p,
    t(l, 'page.consent.title', { agent }),
    html`<div class="agent">!${logo}<div><h1>${words(l, 'page.consent.heading', { agent })}</h1><p class="hint">${provenance(l, o.agent)}</p></div></div>
      <p>!${wordsWith(l, 'page.consent.signedInAs', { agent }, { email: html`<strong>${o.email}</strong>` })}</p>
      <ul class="scopes">!${o.scopes
        .filter((s) => s in SCOPE_WORDS)
        .map((s) => html`<li><strong>${s}</strong>${words(l, SCOPE_WORDS[s])}</li>`)}</ul>
      <p class="hint">${words(l, 'page.consent.returnTo', { host: new URL(o.redirectUri).host })} <a href="/account/agents">${words(l, 'page.consent.manageAgents')}</a></p>
      <form method="post" action="/oauth/consent">!${csrfField(o)}!${langField(p)}
        <button type="submit" name="decision" value="allow">${words(l, 'page.consent.allow')}</button>
        <button type="submit" name="decision" value="deny" class="secondary">${words(l, 'page.consent.deny')}</button>
      </form>`,
  );
}

/** A page that says what went wrong: `title` and `message` already in the page's language. */
export function errorPage(p: PageLang, title: string, message: string): string {
  return layout(p, title, html`<h1>${title}</h1><p class="error" role="alert">${message}</p>`);
}
