// The sandbox's onboarding page (GET and POST /sandbox/connect/:accountId), where a seller gives
// the bank account their payouts go to, as Stripe's hosted onboarding asks for it: the holder's
// name, the institution, transit and account numbers. Plain HTML in the small-page frame, no
// script (its CSP forbids any), a form that posts form fields, every word the catalogues'
// (`page.payoutConnect.*`) in the page's language, every value escaped by html`...`.
import { html } from 'ghtml';
import { type Locale, type MessageKey, type Text, t } from '../../contract/i18n.ts';
import { langField, type PageLang } from '../../views/language.ts';
import { smallPage } from '../../views/small-page.ts';
import { words, wordsWith } from '../../views/words.ts';
import { SANDBOX_BANK, sandboxConnectPath } from './providers/sandbox.ts';

export { PAGE_CSP } from '../payments/sandbox-page.ts';

const STYLE = `
  .badge { display: inline-block; background: #f4c542; color: #3a2c00; font-size: .78rem; font-weight: 600; padding: 3px 10px; border-radius: 999px; margin: 0 0 10px; }
  .row { display: grid; grid-template-columns: 1fr 1.4fr; gap: 12px; }
  /* On a phone a label wraps, and the two fields would no longer line up: one under the other. */
  @media (max-width: 480px) { .row { grid-template-columns: 1fr; gap: 0; } }
  input[aria-invalid="true"] { border-color: #b3261e; }
  .problem { color: #8c1d18; font-size: .85rem; margin: 4px 0 0; }
  .note { font-size: .85rem; color: #5b6470; background: #f7f7f4; border: 1px solid #e3e1da; border-radius: 8px; padding: 10px 12px; margin: 18px 0 0; }
  .note code { font-size: .85rem; color: #1f2328; }
  .account { font-size: .82rem; color: #5b6470; word-break: break-all; }
  .ok { color: #175; }
`;

/** The form's fields, as the person typed them. */
export const BANK_FIELDS = ['holder', 'institution', 'transit', 'account'] as const;
export type BankField = (typeof BANK_FIELDS)[number];
export type BankForm = Record<BankField, string>;

/** Each refused field's problem, before it is put into words. */
export type BankProblems = Partial<Record<BankField, Text>>;

const LABELS: Record<BankField, MessageKey> = {
  holder: 'page.payoutConnect.holder',
  institution: 'page.payoutConnect.institution',
  transit: 'page.payoutConnect.transit',
  account: 'page.payoutConnect.account',
};

// No `pattern`: the browser would stop the form with its own bubble ("match the requested
// format", in the browser's language) and the page's words under the field would never show.
const INPUTS: Record<BankField, string> = {
  holder: 'autocomplete="name" maxlength="100"',
  institution: 'inputmode="numeric" maxlength="3"',
  transit: 'inputmode="numeric" maxlength="5"',
  account: 'inputmode="numeric" maxlength="12"',
};

const code = (digits: string) => html`<code>${digits}</code>`;

/** The page's address with its "continue" path: what the language switch and a re-shown form keep. */
export function connectPagePath(accountId: string, back: string | undefined): string {
  return back
    ? `${sandboxConnectPath(accountId)}?return=${encodeURIComponent(back)}`
    : sandboxConnectPath(accountId);
}

export interface ConnectForm {
  accountId: string;
  /** The form's token (bound to the seller's session and the account). */
  csrf: string;
  /** Where "continue" goes after (a path of ours). */
  back?: string | undefined;
  /** The bank account recorded now, when there is one. */
  bankLast4?: string | null;
  values?: Partial<BankForm>;
  problems?: BankProblems;
}

function field(l: Locale, name: BankField, f: ConnectForm): string {
  const problem = f.problems?.[name];
  const id = `f-${name}`;
  const describedBy = problem ? ` aria-describedby="${id}-problem"` : '';
  return html`<div><label for="${id}">${words(l, LABELS[name])}</label><input id="${id}" name="${name}" required value="${f.values?.[name] ?? ''}" !${INPUTS[name]}!${describedBy}!${problem ? ' aria-invalid="true"' : ''}>!${problem ? html`<p class="problem" id="${id}-problem">${t(l, problem.key, problem.values)}</p>` : ''}</div>`;
}

/** The form; with `problems`, the fields that were refused say why. */
export function connectPage(p: PageLang, f: ConnectForm): string {
  const l = p.locale;
  const refused = f.problems && Object.keys(f.problems).length > 0;
  const note = wordsWith(
    l,
    'page.payoutConnect.testNumbers',
    {},
    {
      institution: code(SANDBOX_BANK.institution),
      transit: code(SANDBOX_BANK.transit),
      pays: code(SANDBOX_BANK.pays),
      fails: code(SANDBOX_BANK.fails),
    },
  );
  return smallPage(
    p,
    t(l, 'page.payoutConnect.title'),
    html`<span class="badge">${words(l, 'page.sandbox.badge')}</span>
<h1>${words(l, 'page.payoutConnect.heading')}</h1>
<p>${words(l, 'page.payoutConnect.intro')}</p>
!${f.bankLast4 ? html`<p>${words(l, 'page.payoutConnect.current', { last4: f.bankLast4 })}</p>` : ''}
!${refused ? html`<p class="error" role="alert">${words(l, 'page.payoutConnect.fix')}</p>` : ''}
<form method="post" action="${sandboxConnectPath(f.accountId)}">!${langField(p)}<input type="hidden" name="csrf" value="${f.csrf}">!${f.back ? html`<input type="hidden" name="return" value="${f.back}">` : ''}
!${field(l, 'holder', f)}
<div class="row">!${field(l, 'institution', f)}!${field(l, 'transit', f)}</div>
!${field(l, 'account', f)}
<button type="submit">${words(l, 'page.payoutConnect.submit')}</button>
</form>
<p class="note" id="test-accounts">!${note}</p>
<p class="account">${words(l, 'page.payoutConnect.accountId', { accountId: f.accountId })}</p>`,
    STYLE,
  );
}

/** After the form: where payouts now go, and the way back. */
export function connectedPage(p: PageLang, done: { last4: string; fails: boolean; back: string }): string {
  const l = p.locale;
  return smallPage(
    p,
    t(l, 'page.payoutConnect.savedTitle'),
    html`<span class="badge">${words(l, 'page.sandbox.badge')}</span>
<h1 class="ok">${words(l, 'page.payoutConnect.savedTitle')}</h1>
<p>${words(l, done.fails ? 'page.payoutConnect.savedFails' : 'page.payoutConnect.savedPays', { last4: done.last4 })}</p>
<p><a href="${done.back}">${words(l, 'page.payoutConnect.continue')}</a></p>`,
    STYLE,
  );
}

/** A page that only says something (a refusal), with a link onward when there is one. */
export function messagePage(
  p: PageLang,
  title: string,
  message: string,
  link?: { href: string; label: string },
): string {
  return smallPage(
    p,
    title,
    html`<h1>${title}</h1><p role="alert">${message}</p>!${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}`,
    STYLE,
  );
}
