// /desk/money as markup: the platform's commission revenue and the GST/HST on it, what it owes
// sellers (pending, available, in transit), its cash at the provider per the ledger, the failed
// transfers with their sellers and orders, the open disputes with their deadlines, and the
// reconciliation of the ledger with the provider's balance transactions over a period (a form
// chooses it). No script; the figures are tiles and the tables stack on a phone.
import { html } from 'ghtml';
import { BOOKS_TIME_ZONE, formatDate, type Locale, t } from '../../contract/i18n.ts';
import {
  MAX_BALANCE_TRANSACTIONS,
  MAX_PERIOD_DAYS,
  type Reconciliation,
} from '../../modules/payouts/reconcile.ts';
import { table, th } from '../console/views.ts';
import type { View } from '../core.ts';
import { type FormError, field, formAlert, moneyText } from '../layout.ts';
import { deskPage } from './views.ts';

export interface FailedTransferRow {
  sellerId: string;
  seller: string;
  orderNumber: string;
  amountCents: number;
  error: string | null;
  failedAt: Date | null;
}

export interface OpenDisputeRow {
  id: string;
  orderNumbers: string[];
  amountCents: number;
  feeCents: number;
  reason: string;
  status: string;
  evidenceDueBy: Date | null;
  createdAt: Date;
}

export interface MoneyPage {
  commissionCents: number;
  commissionTaxCents: number;
  pendingCents: number;
  availableCents: number;
  inTransitCents: number;
  providerCashCents: number;
  holdDays: number;
  failed: FailedTransferRow[];
  disputes: OpenDisputeRow[];
  /** The period asked for (as typed when refused). */
  period: { from: string; to: string };
  /** Absent when the provider keeps no balance, or could not be reached (`providerDown`). */
  reconciliation?: Reconciliation;
  providerDown?: boolean;
  /** The period's refusal. */
  error?: FormError;
}

const moments = new Map<Locale, Intl.DateTimeFormat>();
/** A moment as a date and time on the books' clock: "November 9, 2026 at 9:00 a.m.". */
function whenText(l: Locale, at: Date): string {
  let format = moments.get(l);
  if (!format) {
    format = new Intl.DateTimeFormat(l, { dateStyle: 'long', timeStyle: 'short', timeZone: BOOKS_TIME_ZONE });
    moments.set(l, format);
  }
  return format.format(at);
}

const dayText = (l: Locale, at: Date) => formatDate(l, at, BOOKS_TIME_ZONE);

const tile = (v: View, label: string, cents: number, hint?: string) =>
  html`<div class="stat"><p>${label}</p><strong>${moneyText(v, cents)}</strong>!${hint ? html`<p class="hint">${hint}</p>` : ''}</div>`;

function figures(v: View, o: MoneyPage) {
  const l = v.p.locale;
  const owed = o.pendingCents + o.availableCents + o.inTransitCents;
  return html`<section aria-labelledby="revenue-h"><h2 id="revenue-h">${t(l, 'web.desk.money.revenue')}</h2><div class="stats">
!${tile(v, t(l, 'web.desk.money.commission'), o.commissionCents, t(l, 'web.desk.money.commissionHint'))}
!${tile(v, t(l, 'web.desk.money.commissionTax'), o.commissionTaxCents, t(l, 'web.desk.money.commissionTaxHint'))}
!${tile(v, t(l, 'web.desk.money.cash'), o.providerCashCents, t(l, 'web.desk.money.cashHint'))}
</div></section>
<section aria-labelledby="owed-h"><h2 id="owed-h">${t(l, 'web.desk.money.owed')}</h2><div class="stats">
!${tile(v, t(l, 'web.desk.money.pending'), o.pendingCents, t(l, 'web.desk.money.pendingHint', { days: o.holdDays }))}
!${tile(v, t(l, 'web.desk.money.available'), o.availableCents, t(l, 'web.desk.money.availableHint'))}
!${tile(v, t(l, 'web.desk.money.inTransit'), o.inTransitCents, t(l, 'web.desk.money.inTransitHint'))}
!${tile(v, t(l, 'web.desk.money.owedTotal'), owed, t(l, 'web.desk.money.owedTotalHint'))}
</div></section>`;
}

function failedSection(v: View, o: MoneyPage) {
  const l = v.p.locale;
  const heading = html`<h2 id="failed-h">${t(l, 'web.desk.money.failed')}</h2>`;
  if (o.failed.length === 0) {
    return html`<section aria-labelledby="failed-h">!${heading}<div class="card"><p>${t(l, 'web.desk.money.noFailed')}</p></div></section>`;
  }
  const cols = {
    date: t(l, 'web.orders.date'),
    seller: t(l, 'web.desk.money.seller'),
    order: t(l, 'web.orders.order'),
    amount: t(l, 'web.desk.money.amount'),
    error: t(l, 'web.desk.money.error'),
  };
  const rows = o.failed.map(
    (f) =>
      html`<tr><td data-label="${cols.date}">${f.failedAt ? dayText(l, f.failedAt) : ''}</td><td data-label="${cols.seller}"><a href="/desk/users?user=${encodeURIComponent(f.sellerId)}">${f.seller}</a></td><td data-label="${cols.order}"><span class="order-number">${f.orderNumber}</span></td><td class="num" data-label="${cols.amount}">${moneyText(v, f.amountCents)}</td><td data-label="${cols.error}">${f.error ?? ''}</td></tr>`,
  );
  return html`<section aria-labelledby="failed-h">!${heading}<p class="hint">${t(l, 'web.desk.money.failedHint')}</p>!${table(
    [th(cols.date), th(cols.seller), th(cols.order), th(cols.amount, true), th(cols.error)],
    rows,
    t(l, 'web.desk.money.failed'),
    true,
  )}</section>`;
}

function disputesSection(v: View, o: MoneyPage) {
  const l = v.p.locale;
  const heading = html`<h2 id="disputes-h">${t(l, 'web.desk.money.disputes')}</h2>`;
  if (o.disputes.length === 0) {
    return html`<section aria-labelledby="disputes-h">!${heading}<div class="card"><p>${t(l, 'web.desk.money.noDisputes')}</p></div></section>`;
  }
  const cols = {
    opened: t(l, 'web.desk.money.opened'),
    orders: t(l, 'web.desk.money.orders'),
    amount: t(l, 'web.desk.money.disputed'),
    fee: t(l, 'web.desk.money.fee'),
    reason: t(l, 'web.desk.money.reason'),
    status: t(l, 'web.orders.status'),
    deadline: t(l, 'web.desk.money.deadline'),
  };
  const rows = o.disputes.map(
    (d) =>
      html`<tr><td data-label="${cols.opened}">${dayText(l, d.createdAt)}</td><td data-label="${cols.orders}">!${d.orderNumbers.map((n) => html`<span class="order-number">${n}</span>`).join(', ')}</td><td class="num" data-label="${cols.amount}">${moneyText(v, d.amountCents)}</td><td class="num" data-label="${cols.fee}">${moneyText(v, d.feeCents)}</td><td data-label="${cols.reason}">${t(l, 'web.desk.money.reasonName', { reason: d.reason })}</td><td data-label="${cols.status}">${t(l, 'web.desk.money.disputeStatus', { status: d.status })}</td><td data-label="${cols.deadline}">${d.evidenceDueBy ? t(l, 'web.desk.money.deadlineAt', { when: whenText(l, d.evidenceDueBy) }) : t(l, 'web.desk.money.noDeadline')}</td></tr>`,
  );
  return html`<section aria-labelledby="disputes-h">!${heading}!${table(
    [
      th(cols.opened),
      th(cols.orders),
      th(cols.amount, true),
      th(cols.fee, true),
      th(cols.reason),
      th(cols.status),
      th(cols.deadline),
    ],
    rows,
    t(l, 'web.desk.money.disputes'),
    true,
  )}</section>`;
}

function periodForm(v: View, o: MoneyPage) {
  const l = v.p.locale;
  return html`<form method="get" action="/desk/money#reconcile-h" class="card" novalidate>!${formAlert(o.error)}<div class="row">!${field(
    {
      name: 'from',
      label: t(l, 'web.desk.money.from'),
      type: 'date',
      value: o.period.from,
      required: true,
      error: o.error,
      attrs: ' maxlength="10"',
    },
  )}!${field({
    name: 'to',
    label: t(l, 'web.desk.money.to'),
    type: 'date',
    value: o.period.to,
    required: true,
    hint: t(l, 'web.desk.money.periodHint', { max: MAX_PERIOD_DAYS }),
    error: o.error,
    attrs: ' maxlength="10"',
  })}<button type="submit" class="secondary">${t(l, 'web.desk.show')}</button></div></form>`;
}

function reconcileSection(v: View, o: MoneyPage) {
  const l = v.p.locale;
  const heading = html`<h2 id="reconcile-h">${t(l, 'web.desk.money.reconcile')}</h2>`;
  const r = o.reconciliation;
  if (!o.providerDown && !o.error && !r?.available) {
    return html`<section aria-labelledby="reconcile-h">!${heading}<div class="card"><p>${t(l, 'web.desk.money.noBalance')}</p></div></section>`;
  }
  const form = periodForm(v, o);
  if (o.providerDown) {
    return html`<section aria-labelledby="reconcile-h">!${heading}!${form}<div class="card"><p role="status">${t(l, 'web.desk.money.providerDown')}</p></div></section>`;
  }
  if (!r?.available) return html`<section aria-labelledby="reconcile-h">!${heading}!${form}</section>`;
  const cols = {
    group: t(l, 'web.desk.money.movement'),
    ledger: t(l, 'web.desk.money.ledger'),
    provider: t(l, 'web.desk.money.provider'),
    difference: t(l, 'web.desk.money.difference'),
  };
  const counted = (cents: number, n: number) =>
    html`${moneyText(v, cents)}<br><span class="hint">${t(l, 'web.desk.money.count', { n })}</span>`;
  const rows = r.lines.map(
    (line) =>
      html`<tr><th scope="row" data-label="${cols.group}">${t(l, 'web.desk.money.group', { group: line.group })}</th><td class="num" data-label="${cols.ledger}">!${counted(line.ledgerCents, line.ledgerCount)}</td><td class="num" data-label="${cols.provider}">!${counted(line.providerCents, line.providerCount)}</td><td class="num" data-label="${cols.difference}">!${line.differenceCents === 0 ? moneyText(v, 0) : html`<strong>${moneyText(v, line.differenceCents)}</strong>`}</td></tr>`,
  );
  rows.push(
    html`<tr><th scope="row">${t(l, 'web.desk.money.totalDifference')}</th><td></td><td></td><td class="num" data-label="${cols.difference}"><strong>${moneyText(v, r.differenceCents)}</strong></td></tr>`,
  );
  const verdict =
    r.differenceCents === 0 && r.lines.every((line) => line.differenceCents === 0)
      ? t(l, 'web.desk.money.agree')
      : t(l, 'web.desk.money.differ', {
          amount: moneyText(
            v,
            r.lines.reduce((s, line) => s + Math.abs(line.differenceCents), 0),
          ),
        });
  const others = r.otherTypes.length
    ? html`<p class="hint">${t(l, 'web.desk.money.otherTypes', { types: r.otherTypes.map((x) => x.type).join(', ') })}</p>`
    : '';
  const incomplete = r.complete
    ? ''
    : html`<p><strong>${t(l, 'web.desk.money.incomplete', { n: MAX_BALANCE_TRANSACTIONS })}</strong></p>`;
  return html`<section aria-labelledby="reconcile-h">!${heading}<p>${t(l, 'web.desk.money.reconcileIntro', {
    from: formatDate(l, r.from),
    to: formatDate(l, r.to),
  })}</p>!${form}<p role="status"><strong>${verdict}</strong></p>!${incomplete}!${table(
    [th(cols.group), th(cols.ledger, true), th(cols.provider, true), th(cols.difference, true)],
    rows,
    t(l, 'web.desk.money.reconcile'),
    true,
  )}!${others}<div class="stats">
!${tile(v, t(l, 'web.desk.money.fees'), r.providerFeesCents)}
!${tile(v, t(l, 'web.desk.money.payouts'), r.providerPayoutsCents)}
</div></section>`;
}

/** /desk/money: the figures, the failed transfers, the open disputes, the reconciliation. */
export function moneyView(v: View, o: MoneyPage) {
  const l = v.p.locale;
  return deskPage(
    v,
    t(l, 'web.desk.money.title'),
    html`!${figures(v, o)}!${failedSection(v, o)}!${disputesSection(v, o)}!${reconcileSection(v, o)}`,
  );
}
