// The pages of an authorization: sign in, then consent (which names the agent and what it may
// do). Plain HTML forms and CSS: no script (the CSP allows none), no frames. Every value is
// escaped; the agent's name and logo are whatever it declared, shown as such. Each form carries
// the pending authorization's CSRF token (beside its HttpOnly, SameSite=Lax cookie).
import { escapeHtml } from '../../contract/format.ts';
import { type AgentScope, SCOPE_DESCRIPTIONS } from '../../contract/scopes.ts';
import { pageLayout } from '../page-layout.ts';

/**
 * Styles inline, images only over https (the agent's logo), forms only to this site, or (the
 * consent's answer redirects there) to the agent's redirect URI.
 */
export function oauthPageCsp(formTarget?: string): string {
  const extra = formTarget ? ` ${new URL(formTarget).origin}` : '';
  return `default-src 'none'; style-src 'unsafe-inline'; img-src https:; form-action 'self'${extra}; frame-ancestors 'none'; base-uri 'none'`;
}

const STYLE = `
  button.secondary { background: #fff; color: #1d3b2a; border: 1px solid #1d3b2a; margin-top: 10px; }
  .agent { display: flex; gap: 12px; align-items: center; margin-bottom: 12px; }
  .agent img { width: 48px; height: 48px; border-radius: 10px; object-fit: cover; border: 1px solid #e3e1da; }
  ul.scopes { padding-left: 0; list-style: none; }
  ul.scopes li { border: 1px solid #e3e1da; border-radius: 8px; padding: 10px 12px; margin: 8px 0; }
  ul.scopes strong { display: block; }
`;

const layout = (title: string, body: string) => pageLayout(title, body, STYLE);

const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;

export interface AgentView {
  clientId: string;
  clientName: string | null | undefined;
  logoUri: string | null | undefined;
}

const agentName = (a: AgentView) => a.clientName || 'An unnamed agent';

/** Where the agent's claims come from: a metadata document's host is checked; a registered name is not. */
function provenance(a: AgentView): string {
  if (/^https?:\/\//.test(a.clientId)) {
    return `Described by ${escapeHtml(new URL(a.clientId).host)}.`;
  }
  return 'This agent registered itself: Portage has not checked its name.';
}

export function signInPage(o: { agent: AgentView; csrf: string; email?: string; error?: string }): string {
  return layout(
    'Sign in to Portage',
    `<h1>Sign in to connect ${escapeHtml(agentName(o.agent))}</h1>
      <p class="hint">${escapeHtml(agentName(o.agent))} asks to use your Portage account. Sign in first; you will see what it asks for before anything is shared.</p>
      ${o.error ? `<p class="error" role="alert" id="form-error">${escapeHtml(o.error)}</p>` : ''}
      <form method="post" action="/oauth/sign-in">${csrfField(o.csrf)}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${escapeHtml(o.email ?? '')}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
        <button type="submit">Sign in</button>
      </form>`,
  );
}

export function consentPage(o: {
  agent: AgentView;
  csrf: string;
  email: string;
  scopes: AgentScope[];
  redirectUri: string;
}): string {
  const logo = o.agent.logoUri?.startsWith('https://')
    ? `<img src="${escapeHtml(o.agent.logoUri)}" alt="" referrerpolicy="no-referrer">`
    : '';
  const name = escapeHtml(agentName(o.agent));
  return layout(
    `Allow ${agentName(o.agent)}?`,
    `<div class="agent">${logo}<div><h1>Allow ${name} to use your account?</h1><p class="hint">${provenance(o.agent)}</p></div></div>
      <p>Signed in as <strong>${escapeHtml(o.email)}</strong>. ${name} will be able to:</p>
      <ul class="scopes">${o.scopes
        .map((s) => `<li><strong>${escapeHtml(s)}</strong>${escapeHtml(SCOPE_DESCRIPTIONS[s])}</li>`)
        .join('')}</ul>
      <p class="hint">You will go back to ${escapeHtml(new URL(o.redirectUri).host)}. You can take this access back at any time from your account (agents).</p>
      <form method="post" action="/oauth/consent">${csrfField(o.csrf)}
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p>`,
  );
}
