// The pages a person reaches from an account email: plain HTML and CSS (no script: the CSP
// forbids any), a form that posts to the API's own route. Opening a page never uses the link
// (mail scanners open links); only posting the form does. The token in the form is the
// secret: a cross-site page cannot post a form it does not know. Every value is escaped.
import { escapeHtml } from '../../contract/format.ts';
import { pageLayout } from '../page-layout.ts';

export const ACCOUNT_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const STYLE = `
  .ok { color: #175; }
`;

const layout = (title: string, body: string) => pageLayout(title, body, STYLE);

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
