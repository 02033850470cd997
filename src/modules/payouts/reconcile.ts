// The reconciliation (docs/api.md "Reconciliation"): for a period of days on the books'
// calendar (America/Toronto), what the ledger says moved the platform's cash at the provider,
// by kind, against the provider's own balance transactions of the same period, by type. Each
// group answers both sides and their difference; the provider's fees and its payouts to the
// platform's bank are not the ledger's business and are reported on lines of their own.
import { invalid, problem } from '../../contract/errors.ts';
import type { RequestContext } from '../context.ts';
import { providerCashByKind } from '../ledger/periods.ts';
import type { LedgerKind } from '../ledger/tables.ts';
import { torontoInstant, torontoWall } from '../pricing/dates.ts';
import type { PayoutsDeps } from './deps.ts';
import type { BalanceTransaction } from './provider.ts';

/** The longest period reconciled at once, in days (both ends counted). */
export const MAX_PERIOD_DAYS = 92;
/** The most balance transactions read for one period; past it the answer says it is incomplete. */
export const MAX_BALANCE_TRANSACTIONS = 10_000;

/** The groups both sides are compared in. */
export const RECONCILE_GROUPS = [
  'charges',
  'refunds',
  'transfers',
  'transfer_reversals',
  'disputes',
  'other',
] as const;
export type ReconcileGroup = (typeof RECONCILE_GROUPS)[number];

/** Which group a kind of ledger movement of the provider cash is (any other kind: `other`). */
const LEDGER_GROUPS: Partial<Record<LedgerKind, ReconcileGroup>> = {
  sale: 'charges',
  refund: 'refunds',
  transfer_paid: 'transfers',
  reversal_done: 'transfer_reversals',
  dispute_opened: 'disputes',
  dispute_won: 'disputes',
};

/**
 * Which group a provider's balance transaction type is (Stripe's types). `fees` and `payouts`
 * are outside the ledger: Stripe's own charges billed on their own, and the platform's payouts
 * from its balance to its bank. A type not named here is `other`: a difference to explain.
 */
const PROVIDER_GROUPS: Record<string, ReconcileGroup | 'fees' | 'payouts'> = {
  charge: 'charges',
  payment: 'charges',
  refund: 'refunds',
  payment_refund: 'refunds',
  refund_failure: 'refunds',
  payment_failure_refund: 'refunds',
  transfer: 'transfers',
  // A transfer reversal is `transfer_refund` on the platform's balance; a transfer cancelled or
  // failed after it was made gives its money back too.
  transfer_refund: 'transfer_reversals',
  transfer_cancel: 'transfer_reversals',
  transfer_failure: 'transfer_reversals',
  // Disputes' withdrawals and reinstatements (the only adjustments the platform's flows make).
  adjustment: 'disputes',
  payout: 'payouts',
  payout_cancel: 'payouts',
  payout_failure: 'payouts',
  stripe_fee: 'fees',
  stripe_fx_fee: 'fees',
  tax_fee: 'fees',
};

// ---- the period ------------------------------------------------------------------------------

const wallOf = torontoWall;

/** The instant a day (YYYY-MM-DD) begins on the books' calendar (midnight exists: clocks change at 02:00). */
export function dayStart(day: string): Date {
  return new Date(torontoInstant(Date.parse(`${day}T00:00:00Z`)));
}

/** The day (YYYY-MM-DD) `at` falls on, on the books' calendar. */
export const dayOf = (at: Date) => new Date(wallOf(at.getTime())).toISOString().slice(0, 10);

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** `s` when it is a real day of the calendar from 2000 on, written YYYY-MM-DD. */
const realDay = (s: string) => {
  if (!DAY.test(s) || s < '2000-01-01') return false;
  const at = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === s;
};

export interface Period {
  /** The first and last days, YYYY-MM-DD (Toronto). */
  from: string;
  to: string;
  /** Its bounds as instants: [start, end). */
  start: Date;
  end: Date;
}

/**
 * The period from `from` to `to`, both days included; a 400 naming the field otherwise (not a
 * date, `to` before `from`, more than MAX_PERIOD_DAYS days).
 */
export function periodOf(from: string, to: string): Period {
  const problems = [
    ...(realDay(from) ? [] : [problem('from', 'validation.calendarDate')]),
    ...(realDay(to) ? [] : [problem('to', 'validation.calendarDate')]),
  ];
  if (problems.length === 0) {
    const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
    if (days < 1) problems.push(problem('to', 'validation.periodEndBeforeStart'));
    else if (days > MAX_PERIOD_DAYS) {
      problems.push(problem('to', 'validation.periodTooLong', { max: MAX_PERIOD_DAYS }));
    }
  }
  if (problems.length > 0) {
    throw invalid('error.payouts.reconcilePeriod', { max: MAX_PERIOD_DAYS }, problems);
  }
  const next = new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return { from, to, start: dayStart(from), end: dayStart(next) };
}

// ---- the comparison --------------------------------------------------------------------------

export interface ReconcileLine {
  group: ReconcileGroup;
  /** What the ledger's provider cash moved (positive: money in), and in how many transactions. */
  ledgerCents: number;
  ledgerCount: number;
  /** What the provider's balance moved, before its processing fees, and in how many transactions. */
  providerCents: number;
  providerCount: number;
  /** The provider's less the ledger's: 0 when they agree. */
  differenceCents: number;
}

export type Reconciliation =
  | { available: false }
  | {
      available: true;
      currency: 'CAD';
      from: string;
      to: string;
      lines: ReconcileLine[];
      /** The provider's types counted under `other`, each with what it moved. */
      otherTypes: Array<{ type: string; cents: number; count: number }>;
      /** The provider's fees on the period's transactions (not in the ledger; dispute fees are). */
      providerFeesCents: number;
      /** What the provider paid out of the balance to the platform's own bank (not in the ledger). */
      providerPayoutsCents: number;
      /** The sum of the lines' differences. */
      differenceCents: number;
      /** False when the provider had more than MAX_BALANCE_TRANSACTIONS: the newest were counted. */
      complete: boolean;
    };

/** What one balance transaction moved of the provider's side, and the fee it leaves outside it. */
function providerSide(txn: BalanceTransaction, group: ReconcileGroup): { cents: number; fee: number } {
  // The ledger writes a dispute's fee with its amount (the seller's to bear): net, then.
  if (group === 'disputes') return { cents: txn.amountCents - txn.feeCents, fee: 0 };
  return { cents: txn.amountCents, fee: txn.feeCents };
}

/**
 * The reconciliation of the period from `from` to `to` (YYYY-MM-DD, both included, Toronto);
 * `{ available: false }` when the provider keeps no balance of its own (the sandbox).
 */
export async function reconcile(
  ctx: RequestContext,
  deps: Pick<PayoutsDeps, 'payouts'>,
  input: { from: string; to: string },
): Promise<Reconciliation> {
  const period = periodOf(input.from, input.to);
  const list = deps.payouts.balanceTransactions?.bind(deps.payouts);
  if (!list) return { available: false };
  const [ledger, provider] = await Promise.all([
    providerCashByKind(ctx, period.start, period.end),
    list({ createdFrom: period.start, createdTo: period.end, limit: MAX_BALANCE_TRANSACTIONS + 1 }),
  ]);
  const complete = provider.length <= MAX_BALANCE_TRANSACTIONS;
  const lines = new Map<ReconcileGroup, ReconcileLine>(
    RECONCILE_GROUPS.map((group) => [
      group,
      { group, ledgerCents: 0, ledgerCount: 0, providerCents: 0, providerCount: 0, differenceCents: 0 },
    ]),
  );
  for (const row of ledger) {
    const line = lines.get(LEDGER_GROUPS[row.kind] ?? 'other')!;
    line.ledgerCents += row.cents;
    line.ledgerCount += row.count;
  }
  const others = new Map<string, { type: string; cents: number; count: number }>();
  let fees = 0;
  let payouts = 0;
  for (const txn of provider.slice(0, MAX_BALANCE_TRANSACTIONS)) {
    const group = PROVIDER_GROUPS[txn.type] ?? 'other';
    if (group === 'fees') {
      fees += txn.feeCents - txn.amountCents;
      continue;
    }
    if (group === 'payouts') {
      payouts += txn.amountCents;
      fees += txn.feeCents;
      continue;
    }
    const side = providerSide(txn, group);
    const line = lines.get(group)!;
    line.providerCents += side.cents;
    line.providerCount += 1;
    fees += side.fee;
    if (group === 'other') {
      const o = others.get(txn.type) ?? { type: txn.type, cents: 0, count: 0 };
      o.cents += side.cents;
      o.count += 1;
      others.set(txn.type, o);
    }
  }
  const out = [...lines.values()]
    .map((l) => ({ ...l, differenceCents: l.providerCents - l.ledgerCents }))
    // `other` only when either side has some.
    .filter((l) => l.group !== 'other' || l.ledgerCount > 0 || l.providerCount > 0);
  return {
    available: true,
    currency: 'CAD',
    from: period.from,
    to: period.to,
    lines: out,
    otherTypes: [...others.values()].sort((a, b) => a.type.localeCompare(b.type)),
    providerFeesCents: fees,
    providerPayoutsCents: payouts,
    differenceCents: out.reduce((s, l) => s + l.differenceCents, 0),
    complete,
  };
}
