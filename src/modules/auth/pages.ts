// The pages a person reaches from an account email: plain HTML and CSS (no script: the CSP
// forbids any), a form that posts to the API's own route. Opening a page never uses the link
// (mail scanners open links); only posting the form does. The token in the form is the
// secret: a cross-site page cannot post a form it does not know. Every value is escaped.
import { escapeHtml } from '../../contract/format.ts';

export const ACCOUNT_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

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
  .hint { font-size: .85rem; color: #5b6470; }
  .error { color: #8c1d18; background: #fdecea; border: 1px solid #f1b9b4; border-radius: 8px; padding: 10px 12px; font-weight: 600; }
  .ok { color: #175; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>
<header>Portage</header>
<main><section>${body}</section></main>
</body></html>`;
}

const tokenField = (token: string) => `<input type="hidden" name="token" value="${escapeHtml(token)}">`;
const errorLine = (error?: string) =>
  error ? `<p class="error" role="alert" id="form-error">${escapeHtml(error)}</p>` : '';

export function verifyEmailPage(token: string): string {
  return layout(
    'Confirm your email address',
    `<h1>Confirm your email address</h1>
      <p>Press the button to confirm that this email address is yours.</p>
      <form method="post" action="/auth/email/verify">${tokenField(token)}
        <button type="submit">Confirm my email address</button>
      </form>`,
  );
}

export function resetPasswordPage(token: string, error?: string): string {
  const invalid = error
    ? ' aria-invalid="true" aria-describedby="form-error password-hint"'
    : ' aria-describedby="password-hint"';
  return layout(
    'Choose a new password',
    `<h1>Choose a new password</h1>${errorLine(error)}
      <form method="post" action="/auth/password/reset">${tokenField(token)}
        <label for="password">New password</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="256"${invalid}>
        <p class="hint" id="password-hint">At least 8 characters.</p>
        <label for="confirmPassword">New password, again</label>
        <input id="confirmPassword" name="confirmPassword" type="password" autocomplete="new-password" required minlength="8" maxlength="256">
        <button type="submit">Set my new password</button>
      </form>
      <p class="hint">Every device signed in to your account will be signed out.</p>`,
  );
}

export function donePage(title: string, message: string): string {
  return layout(title, `<h1 class="ok">${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

export function linkErrorPage(title: string, message: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p>`,
  );
}
