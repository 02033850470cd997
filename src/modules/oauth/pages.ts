// The pages of an authorization: sign in, then consent (which names the agent and what it may
// do). Plain HTML forms and CSS: no script (the CSP allows none), no frames. Every value is
// escaped; the agent's name and logo are whatever it declared, shown as such. Each form carries
// the pending authorization's CSRF token (beside its HttpOnly, SameSite=Lax cookie).
import { escapeHtml } from '../../contract/format.ts';
import { type AgentScope, SCOPE_DESCRIPTIONS } from '../../contract/scopes.ts';

/**
 * Styles inline, images only over https (the agent's logo), forms only to this site, or (the
 * consent's answer redirects there) to the agent's redirect URI.
 */
export function oauthPageCsp(formTarget?: string): string {
  const extra = formTarget ? ` ${new URL(formTarget).origin}` : '';
  return `default-src 'none'; style-src 'unsafe-inline'; img-src https:; form-action 'self'${extra}; frame-ancestors 'none'; base-uri 'none'`;
}

const STYLE = `
  * { box-sizing: border-box; }
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f6f4ef; color: #1f2328; margin: 0; line-height: 1.45; }
  header { background: #1d3b2a; color: #fff; padding: 14px 20px; font-weight: 700; font-size: 1.15rem; }
  main { max-width: 480px; margin: 32px auto; padding: 0 16px; }
  section { background: #fff; border: 1px solid #e3e1da; border-radius: 12px; padding: 22px 24px; }
  h1 { font-size: 1.3rem; margin: 0 0 12px; }
  label { display: block; margin: 14px 0 5px; font-size: .92rem; font-weight: 500; }
  input { width: 100%; padding: 11px 12px; font: inherit; border: 1px solid #b9bec6; border-radius: 8px; }
  input:focus { outline: 3px solid #9cc3ad; border-color: #2f5d43; }
  button { margin-top: 20px; width: 100%; padding: 12px; font: inherit; font-weight: 600; background: #1d3b2a; color: #fff; border: 0; border-radius: 8px; cursor: pointer; }
  button:hover { background: #2f5d43; }
  button.secondary { background: #fff; color: #1d3b2a; border: 1px solid #1d3b2a; margin-top: 10px; }
  .agent { display: flex; gap: 12px; align-items: center; margin-bottom: 12px; }
  .agent img { width: 48px; height: 48px; border-radius: 10px; object-fit: cover; border: 1px solid #e3e1da; }
  ul.scopes { padding-left: 0; list-style: none; }
  ul.scopes li { border: 1px solid #e3e1da; border-radius: 8px; padding: 10px 12px; margin: 8px 0; }
  ul.scopes strong { display: block; }
  .hint { font-size: .85rem; color: #5b6470; }
  .error { color: #8c1d18; background: #fdecea; border: 1px solid #f1b9b4; border-radius: 8px; padding: 10px 12px; font-weight: 600; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>
<header>Portage</header>
<main><section>${body}</section></main>
</body></html>`;
}

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
