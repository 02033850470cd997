// /console/payouts as markup: the seller's balances, their payout account (what is still missing,
// the button that opens it), the next payout with the form of its schedule and minimum, the
// recent payouts with their orders, the disputes with their deadlines and the evidence form, and
// the monthly statements (PDF and CSV). No script; the tables stack on a phone.
import { html } from 'ghtml';
import { formatMoney, type Locale, t } from '../../contract/i18n.ts';
import type { PayoutAccountRow } from '../../modules/payouts/accounts.ts';
import { MINIMUM_CENTS } from '../../modules/payouts/accounts.ts';
import type { myBalance, myDisputes, myPayouts } from '../../modules/payouts/service.ts';
import { monthName, STATEMENT_TIME_ZONE } from '../../modules/payouts/statements.ts';
import { PAYOUT_SCHEDULES } from '../../modules/payouts/tables.ts';
import type { View } from '../core.ts';
import {
  csrfField,
  dateText,
  type FormError,
  field,
  formAlert,
  moneyText,
  selectField,
  textArea,
} from '../layout.ts';
import { consolePage, orderPath, table, th } from './views.ts';

type Balance = Awaited<ReturnType<typeof myBalance>>;
type Payout = Awaited<ReturnType<typeof myPayouts>>['payouts'][number];
export type Dispute = Awaited<ReturnType<typeof myDisputes>>['disputes'][number] & {
  orderNumber: string | null;
  /** Whether the evidence sent had a file. */
  fileSent?: boolean;
};

/** Stripe's limit for a dispute's evidence file (payout-routes.ts reads the file). */
export const EVIDENCE_FILE_MAX_BYTES = 5 * 1024 * 1024;

/** Which form a refusal belongs to, with what was typed in it. */
export type PayoutForm =
  | { name: 'account' }
  | { name: 'settings'; schedule: string; minimum: string }
  | { name: 'evidence'; disputeId: string; text: string };

export interface PayoutsPage {
  balance: Balance;
  account: PayoutAccountRow | undefined;
  payouts: Payout[];
  disputes: Dispute[];
  /** Months with a statement (YYYY-MM), newest first. */
  months: string[];
  provider: 'sandbox' | 'stripe';
  holdDays: number;
  now: Date;
  done?: string;
  error?: FormError;
  form?: PayoutForm;
}

/** Where the statement of `month` is, in the page's language. */
export const statementPath = (month: string, format: 'pdf' | 'csv', l: Locale) =>
  `/console/payouts/statements/${month}.${format}?locale=${l}`;

const moments = new Map<Locale, Intl.DateTimeFormat>();
/** A moment (unix seconds) as a date and time on the marketplace's clock: "November 9, 2026 at 9:00 a.m.". */
function whenText(l: Locale, unix: number): string {
  let format = moments.get(l);
  if (!format) {
    format = new Intl.DateTimeFormat(l, {
      dateStyle: 'long',
      timeStyle: 'short',
      timeZone: STATEMENT_TIME_ZONE,
    });
    moments.set(l, format);
  }
  return format.format(new Date(unix * 1000));
}

/** Cents as a person types dollars: "25.00", "25,00" in French. */
export const dollarsTyped = (l: Locale, cents: number) =>
  (cents / 100).toFixed(2).replace('.', l === 'fr-CA' ? ',' : '.');

/** What a provider's requirement code asks for, in a few kinds a person can act on. */
export function requirementKind(code: string): string {
  if (code === 'payout_account' || code === 'external_account') return code;
  if (code.startsWith('tos_acceptance')) return 'tos_acceptance';
  if (code.includes('verification')) return 'verification';
  if (/^(individual|representative|person)/.test(code)) return 'identity';
  if (/^(business_profile|business_type)/.test(code)) return 'business';
  if (/^(company|owners|directors|executives)/.test(code)) return 'company';
  return 'other';
}

function balances(v: View, o: PayoutsPage) {
  const l = v.p.locale;
  const b = o.balance;
  const tile = (label: string, cents: number, hint: string) =>
    html`<div class="stat"><p>${label}</p><strong>${moneyText(v, cents)}</strong><p class="hint">${hint}</p></div>`;
  const negative = [b.pendingCents, b.availableCents, b.inTransitCents].some((c) => c < 0)
    ? html`<p class="hint">${t(l, 'web.console.payouts.negative')}</p>`
    : '';
  return html`<section aria-labelledby="balances-h"><h2 id="balances-h">${t(l, 'web.console.payouts.balances')}</h2><div class="stats">
!${tile(t(l, 'web.console.payouts.pending'), b.pendingCents, t(l, 'web.console.payouts.pendingHint', { days: o.holdDays }))}
!${tile(t(l, 'web.console.payouts.available'), b.availableCents, t(l, 'web.console.payouts.availableHint'))}
!${tile(t(l, 'web.console.payouts.inTransit'), b.inTransitCents, t(l, 'web.console.payouts.inTransitHint'))}
!${tile(t(l, 'web.console.payouts.paidOut'), b.paidOutCents, t(l, 'web.console.payouts.paidOutHint'))}
</div>!${negative}</section>`;
}

function accountSection(v: View, o: PayoutsPage) {
  const l = v.p.locale;
  const provider = t(l, 'web.console.payouts.provider', { provider: o.provider });
  const error = o.form?.name === 'account' ? formAlert(o.error) : '';
  const finish = (label: string) =>
    html`<p><a class="button" href="/sellers/me/payout-account/refresh">${label}</a></p>`;
  let body: string;
  if (!o.account) {
    body = html`<p>${t(l, 'web.console.payouts.noAccount', { provider })}</p><form method="post" action="/console/payouts/account">!${csrfField(v)}!${error}<button type="submit">${t(l, 'web.console.payouts.open')}</button></form>`;
  } else if (!o.account.payoutsEnabled) {
    const kinds = [...new Set(o.balance.missing.map(requirementKind))];
    const codes = o.balance.missing.filter((c) => requirementKind(c) === 'other').join(', ');
    const needs = kinds.length
      ? kinds.map((kind) => html`<li>${t(l, 'web.console.payouts.requirement', { kind, code: codes })}</li>`)
      : [html`<li>${t(l, 'web.console.payouts.requirement', { kind: 'review', code: '' })}</li>`];
    body = html`<p>${t(l, 'web.console.payouts.missing', { provider })}</p><ul>!${needs}</ul>!${error}!${finish(t(l, 'web.console.payouts.finish', { provider }))}`;
  } else {
    const ready = o.account.bankLast4
      ? t(l, 'web.console.payouts.ready', { last4: o.account.bankLast4 })
      : t(l, 'web.console.payouts.readyNoBank');
    body = html`<p>${ready}</p>!${finish(t(l, 'web.console.payouts.changeBank'))}`;
  }
  return html`<section class="card" aria-labelledby="account-h"><h2 id="account-h" class="first">${t(l, 'web.console.payouts.account')}</h2>!${body}</section>`;
}

function nextPayoutSection(v: View, o: PayoutsPage) {
  const l = v.p.locale;
  if (!o.account) return '';
  const next = o.balance.nextPayout;
  const when = next
    ? html`<p><strong>${t(l, 'web.console.payouts.nextAt', { when: whenText(l, next.at) })}</strong></p><p>${
        next.amountCents > 0
          ? t(l, 'web.console.payouts.nextAmount', { amount: moneyText(v, next.amountCents) })
          : t(l, 'web.console.payouts.belowMinimum', {
              available: moneyText(v, o.balance.availableCents),
              minimum: moneyText(v, next.minimumCents),
            })
      }</p>`
    : html`<p>${t(l, 'web.console.payouts.notYet')}</p>`;
  const typed = o.form?.name === 'settings' ? o.form : undefined;
  const error = typed ? o.error : undefined;
  const schedule = typed?.schedule ?? o.account.schedule;
  const minimum = typed?.minimum ?? dollarsTyped(l, o.account.minimumCents);
  return html`<section class="card" aria-labelledby="next-h"><h2 id="next-h" class="first">${t(l, 'web.console.payouts.next')}</h2>!${when}
<form method="post" action="/console/payouts/settings" novalidate>!${csrfField(v)}!${formAlert(error)}<div class="row">!${selectField(
    {
      name: 'schedule',
      label: t(l, 'web.console.payouts.schedule'),
      value: schedule,
      error,
      options: PAYOUT_SCHEDULES.map((x) => ({
        value: x,
        label: t(l, 'web.console.payouts.scheduleOption', { schedule: x }),
      })),
    },
  )}!${field({
    name: 'minimum',
    label: t(l, 'web.console.payouts.minimum'),
    value: minimum,
    hint: t(l, 'web.console.payouts.minimumHint', {
      from: formatMoney(l, MINIMUM_CENTS.min),
      to: formatMoney(l, MINIMUM_CENTS.max),
    }),
    error,
    attrs: ' inputmode="decimal" maxlength="20" autocomplete="off"',
  })}</div><button type="submit">${t(l, 'web.settings.save')}</button></form></section>`;
}

function payoutsSection(v: View, o: PayoutsPage) {
  const l = v.p.locale;
  const heading = html`<h2 id="payouts-h">${t(l, 'web.console.payouts.history')}</h2>`;
  if (o.payouts.length === 0) {
    return html`<section aria-labelledby="payouts-h">!${heading}<div class="card"><p>${t(l, 'web.console.payouts.noPayouts')}</p></div></section>`;
  }
  const cols = {
    date: t(l, 'web.orders.date'),
    amount: t(l, 'web.console.payouts.amount'),
    status: t(l, 'web.orders.status'),
    orders: t(l, 'web.console.payouts.orders'),
  };
  const rows = o.payouts.map((p) => {
    const transfers = p.transfers.map((tr) => {
      const number = tr.orderNumber ?? tr.orderId;
      const failed =
        tr.status === 'failed'
          ? html`<br><span class="hint">${t(l, 'web.console.payouts.transferFailed', { error: tr.error ?? '' })}</span>`
          : '';
      const reversed = tr.reversedCents
        ? html`<br><span class="hint">${t(l, 'web.console.payouts.reversed', { amount: moneyText(v, tr.reversedCents) })}</span>`
        : '';
      return html`<li>!${t(l, 'web.console.payouts.transfer', {
        number: html`<span class="order-number"><a href="${orderPath(tr.orderId)}">${number}</a></span>`,
        amount: html`${moneyText(v, tr.amountCents)}`,
      })}!${failed}!${reversed}</li>`;
    });
    return html`<tr><td data-label="${cols.date}">${dateText(v, p.createdAt)}</td><td class="num" data-label="${cols.amount}">${moneyText(v, p.amountCents)}</td><td data-label="${cols.status}"><span class="badge ${p.status === 'paid' ? 'paid' : p.status === 'in_transit' ? '' : 'cancelled'}">${t(l, 'web.console.payouts.status', { status: p.status })}</span></td><td data-label="${cols.orders}"><ul>!${transfers}</ul></td></tr>`;
  });
  return html`<section aria-labelledby="payouts-h">!${heading}!${table(
    [th(cols.date), th(cols.amount, true), th(cols.status), th(cols.orders)],
    rows,
    t(l, 'web.console.payouts.history'),
    true,
  )}</section>`;
}

/** Whether a dispute takes evidence now: open, none sent yet, its deadline not passed. */
const takesEvidence = (d: Dispute, now: Date) =>
  d.outcome === 'open' &&
  !d.evidenceSubmittedAt &&
  (d.evidenceDueBy === null || d.evidenceDueBy * 1000 > now.getTime());

function disputeCard(v: View, o: PayoutsPage, d: Dispute) {
  const l = v.p.locale;
  const id = `dispute-${d.id.replace(/[^A-Za-z0-9_-]/g, '')}`;
  const number = d.orderNumber ?? d.orderId;
  const typed = o.form?.name === 'evidence' && o.form.disputeId === d.id ? o.form : undefined;
  const error = typed ? o.error : undefined;
  let state: string;
  if (d.outcome === 'won') state = html`<p><strong>${t(l, 'web.console.payouts.won')}</strong></p>`;
  else if (d.outcome === 'lost') state = html`<p><strong>${t(l, 'web.console.payouts.lost')}</strong></p>`;
  else if (d.evidenceSubmittedAt) {
    const date = dateText(v, d.evidenceSubmittedAt);
    state = html`<p>${t(l, d.fileSent ? 'web.console.payouts.evidenceFileSent' : 'web.console.payouts.evidenceSent', { date })}</p>`;
  } else if (d.evidenceDueBy !== null && d.evidenceDueBy * 1000 <= o.now.getTime()) {
    state = html`<p><strong>${t(l, 'web.console.payouts.pastDue')}</strong></p>`;
  } else {
    const deadline =
      d.evidenceDueBy !== null
        ? html`<p><strong>${t(l, 'web.console.payouts.deadline', { when: whenText(l, d.evidenceDueBy) })}</strong></p>`
        : '';
    state = html`!${deadline}<form method="post" enctype="multipart/form-data" action="/console/payouts/disputes/${encodeURIComponent(d.id)}/evidence?csrf=${encodeURIComponent(v.csrf)}" novalidate>!${formAlert(error)}!${textArea(
      {
        name: 'text',
        label: t(l, 'web.console.payouts.evidence', { number }),
        value: typed?.text ?? '',
        hint: t(l, 'web.console.payouts.evidenceHint', {
          provider: t(l, 'web.console.payouts.provider', { provider: o.provider }),
        }),
        required: true,
        error,
        attrs: ' rows="6" maxlength="20000"',
      },
    )}!${field({
      name: 'file',
      type: 'file',
      label: t(l, 'web.console.payouts.evidenceFile'),
      hint: t(l, 'web.console.payouts.evidenceFileHint', { max: EVIDENCE_FILE_MAX_BYTES / 1024 / 1024 }),
      error,
      attrs: ' accept="application/pdf,image/jpeg,image/png"',
    })}<button type="submit">${t(l, 'web.console.payouts.send')}</button></form>`;
  }
  return html`<section class="card" id="${id}" aria-labelledby="${id}-h"><h3 id="${id}-h" class="first">!${t(l, 'web.console.payouts.dispute', { number: html`<span class="order-number"><a href="${orderPath(d.orderId)}">${number}</a></span>` })}</h3>
<p>${t(l, 'web.console.payouts.reason', { reason: d.reason })}</p>
<p>${t(l, 'web.console.payouts.disputed', { amount: moneyText(v, d.amountCents), fee: moneyText(v, d.feeCents), date: dateText(v, d.createdAt) })}</p>
!${state}</section>`;
}

function disputesSection(v: View, o: PayoutsPage) {
  const l = v.p.locale;
  const body = o.disputes.length
    ? o.disputes.map((d) => disputeCard(v, o, d)).join('\n')
    : html`<div class="card"><p>${t(l, 'web.console.payouts.noDisputes')}</p></div>`;
  // Evidence refused for a dispute that shows no form (not theirs, closed meanwhile): said on top.
  const form = o.form?.name === 'evidence' ? o.form : undefined;
  const orphan =
    form && !o.disputes.some((d) => d.id === form.disputeId && takesEvidence(d, o.now))
      ? formAlert(o.error)
      : '';
  return html`<section aria-labelledby="disputes-h"><h2 id="disputes-h">${t(l, 'web.console.payouts.disputes')}</h2>!${orphan}!${body}</section>`;
}

function statementsSection(v: View, o: PayoutsPage) {
  const l = v.p.locale;
  const body = o.months.length
    ? html`<p class="hint">${t(l, 'web.console.payouts.statementsHint')}</p><ul>!${o.months.map((m) => {
        const month = monthName(l, m);
        return html`<li><strong>${month}</strong> — <a href="${statementPath(m, 'pdf', l)}">${t(l, 'web.console.payouts.statementPdf', { month })}</a> · <a href="${statementPath(m, 'csv', l)}">${t(l, 'web.console.payouts.statementCsv', { month })}</a></li>`;
      })}</ul>`
    : html`<p>${t(l, 'web.console.payouts.noStatements')}</p>`;
  return html`<section class="card" aria-labelledby="statements-h"><h2 id="statements-h" class="first">${t(l, 'web.console.payouts.statements')}</h2>!${body}</section>`;
}

/** /console/payouts. */
export function payoutsView(v: View, o: PayoutsPage) {
  const l = v.p.locale;
  return consolePage(
    v,
    t(l, 'web.console.payouts.title'),
    html`!${balances(v, o)}
!${accountSection(v, o)}
!${nextPayoutSection(v, o)}
!${payoutsSection(v, o)}
!${disputesSection(v, o)}
!${statementsSection(v, o)}`,
    o.done,
  );
}
