// The ledger (docs/payouts.md "The ledger"): append-only, double-entry, CAD cents. A movement of
// money is one transaction whose entries sum to zero, keyed by the event that caused it, written
// in that event's database transaction: a retried or replayed event finds its key and writes
// nothing. Balances are sums of entries, never stored. The module's one way to its tables.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { RequestContext } from '../context.ts';
import { type LedgerAccount, type LedgerKind, ledgerEntries, ledgerTransactions } from './tables.ts';

export interface LedgerEntry {
  account: LedgerAccount;
  orderId: string;
  /** Debit positive, credit negative. */
  amountCents: number;
}

export interface Movement {
  /** The cause, unique: `sale:<orderId>`, `refund:<refundId>`, `payout:<payoutId>`… */
  key: string;
  kind: LedgerKind;
  sellerId: string;
  entries: LedgerEntry[];
  /** Why (an operator's adjustment). */
  memo?: string;
}

/**
 * Writes movements in ctx's transaction; answers the keys written now (a key written before is
 * skipped, its entries untouched). Zero entries are left out; a movement left with none is not
 * written. A movement that does not sum to zero is a bug: thrown before anything is written.
 */
export async function post(ctx: RequestContext, movements: Movement[]): Promise<Set<string>> {
  if (!ctx.inTransaction) throw new Error('ledger: post outside a transaction');
  const kept = movements
    .map((m) => ({ ...m, entries: merged(m.entries).filter((e) => e.amountCents !== 0) }))
    .filter((m) => m.entries.length > 0);
  for (const m of kept) {
    const sum = m.entries.reduce((s, e) => s + e.amountCents, 0);
    if (sum !== 0 || m.entries.some((e) => !Number.isSafeInteger(e.amountCents))) {
      throw new Error(`ledger: ${m.key} does not sum to zero (${sum})`);
    }
  }
  if (kept.length === 0) return new Set();
  const now = ctx.now();
  const written = await ctx.db
    .insert(ledgerTransactions)
    .values(
      kept.map((m) => ({
        key: m.key,
        kind: m.kind,
        sellerId: m.sellerId,
        createdAt: now,
        memo: m.memo ?? null,
      })),
    )
    .onConflictDoNothing()
    .returning({ key: ledgerTransactions.key });
  const keys = new Set(written.map((r) => r.key));
  const entries = kept
    .filter((m) => keys.has(m.key))
    .flatMap((m) =>
      m.entries.map((e) => ({
        transactionKey: m.key,
        account: e.account,
        sellerId: m.sellerId,
        orderId: e.orderId,
        amountCents: e.amountCents,
        createdAt: now,
      })),
    );
  if (entries.length > 0) await ctx.db.insert(ledgerEntries).values(entries);
  return keys;
}

/** A movement's entries with one per account and order (their key), amounts added. */
function merged(entries: LedgerEntry[]): LedgerEntry[] {
  const byKey = new Map<string, LedgerEntry>();
  for (const e of entries) {
    const key = `${e.account}\u0000${e.orderId}`;
    const known = byKey.get(key);
    byKey.set(key, known ? { ...known, amountCents: known.amountCents + e.amountCents } : { ...e });
  }
  return [...byKey.values()];
}

/** The advisory lock space of sellers' balances (the first key of pg_advisory_xact_lock). */
const SELLER_LOCK_SPACE = 4242;

/**
 * Serializes every change of these sellers' pending and available money (a release, a refund, a
 * dispute, a payout, a transfer's outcome) until ctx's transaction ends. Lock order: an order's
 * row first when the caller holds one, then the sellers by id.
 */
export async function lockSellers(ctx: RequestContext, sellerIds: string[]): Promise<void> {
  const ids = [...new Set(sellerIds)].sort();
  if (ids.length === 0) return;
  await ctx.db.execute(
    sql`select pg_advisory_xact_lock(${SELLER_LOCK_SPACE}, hashtext(s)) from (select json_array_elements_text(${JSON.stringify(ids)}::json) s order by 1) ids`,
  );
}

/** An order's money as the ledger holds it. */
export interface OrderLedger {
  orderId: string;
  /** The sale: what the buyer paid, the commission and the tax on it (0 when not in the ledger). */
  saleCents: number;
  commissionCents: number;
  commissionTaxCents: number;
  /** What the platform paid the seller for its coupon's discount (0 without one). */
  promotionCents: number;
  /** Given back to the buyer so far by refunds. */
  refundedCents: number;
  /** What the seller is owed on it, by account (positive: owed to the seller; negative: owed by). */
  pendingCents: number;
  availableCents: number;
  released: boolean;
}

/** The ledger's view of each order (orders with no entry are absent). */
export async function orderLedgers(
  ctx: RequestContext,
  orderIds: string[],
): Promise<Map<string, OrderLedger>> {
  const out = new Map<string, OrderLedger>();
  if (orderIds.length === 0) return out;
  const rows = await ctx.db
    .select({
      orderId: ledgerEntries.orderId,
      kind: ledgerTransactions.kind,
      account: ledgerEntries.account,
      cents: sql<number>`sum(${ledgerEntries.amountCents})::int`,
    })
    .from(ledgerEntries)
    .innerJoin(ledgerTransactions, eq(ledgerTransactions.key, ledgerEntries.transactionKey))
    .where(inArray(ledgerEntries.orderId, orderIds))
    .groupBy(ledgerEntries.orderId, ledgerTransactions.kind, ledgerEntries.account);
  for (const r of rows) {
    const o =
      out.get(r.orderId) ??
      ({
        orderId: r.orderId,
        saleCents: 0,
        commissionCents: 0,
        commissionTaxCents: 0,
        promotionCents: 0,
        refundedCents: 0,
        pendingCents: 0,
        availableCents: 0,
        released: false,
      } satisfies OrderLedger);
    out.set(r.orderId, o);
    const cents = Number(r.cents);
    if (r.kind === 'sale') {
      if (r.account === 'provider_cash') o.saleCents += cents;
      if (r.account === 'platform_commission') o.commissionCents -= cents;
      if (r.account === 'platform_tax_payable') o.commissionTaxCents -= cents;
      if (r.account === 'platform_promotions') o.promotionCents += cents;
    }
    if (r.kind === 'refund' && r.account === 'provider_cash') o.refundedCents -= cents;
    if (r.kind === 'release') o.released = true;
    if (r.account === 'seller_pending') o.pendingCents -= cents;
    if (r.account === 'seller_available') o.availableCents -= cents;
  }
  return out;
}

/** A seller's available money per order, the orders where it is not zero (positive: owed to the seller). */
export async function availableByOrder(
  ctx: RequestContext,
  sellerId: string,
): Promise<Array<{ orderId: string; cents: number }>> {
  const rows = await ctx.db
    .select({ orderId: ledgerEntries.orderId, cents: sql<number>`(-sum(${ledgerEntries.amountCents}))::int` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.sellerId, sellerId), eq(ledgerEntries.account, 'seller_available')))
    .groupBy(ledgerEntries.orderId)
    .having(sql`sum(${ledgerEntries.amountCents}) <> 0`);
  return rows.map((r) => ({ orderId: r.orderId, cents: Number(r.cents) }));
}

/** A seller's balances, derived from the entries (docs/payouts.md "The ledger"). */
export interface SellerBalance {
  pendingCents: number;
  availableCents: number;
  inTransitCents: number;
  paidOutCents: number;
}

export async function sellerBalance(ctx: RequestContext, sellerId: string): Promise<SellerBalance> {
  const rows = await ctx.db
    .select({
      account: ledgerEntries.account,
      kind: ledgerTransactions.kind,
      cents: sql<number>`sum(${ledgerEntries.amountCents})::int`,
    })
    .from(ledgerEntries)
    .innerJoin(ledgerTransactions, eq(ledgerTransactions.key, ledgerEntries.transactionKey))
    .where(
      and(
        eq(ledgerEntries.sellerId, sellerId),
        inArray(ledgerEntries.account, [
          'seller_pending',
          'seller_available',
          'seller_in_transit',
          'provider_cash',
        ]),
      ),
    )
    .groupBy(ledgerEntries.account, ledgerTransactions.kind);
  const b: SellerBalance = { pendingCents: 0, availableCents: 0, inTransitCents: 0, paidOutCents: 0 };
  for (const r of rows) {
    const cents = Number(r.cents);
    if (r.account === 'seller_pending') b.pendingCents -= cents;
    if (r.account === 'seller_available') b.availableCents -= cents;
    if (r.account === 'seller_in_transit') b.inTransitCents -= cents;
    // Cash that left for the seller's account, less what reversals brought back.
    if (r.account === 'provider_cash' && (r.kind === 'transfer_paid' || r.kind === 'reversal_done')) {
      b.paidOutCents -= cents;
    }
  }
  return b;
}

/** The platform's figures (the desk): what every account holds, all sellers together. */
export async function accountTotals(ctx: RequestContext): Promise<Record<LedgerAccount, number>> {
  const rows = await ctx.db
    .select({ account: ledgerEntries.account, cents: sql<string>`sum(${ledgerEntries.amountCents})` })
    .from(ledgerEntries)
    .groupBy(ledgerEntries.account);
  const totals = {
    provider_cash: 0,
    seller_pending: 0,
    seller_available: 0,
    seller_in_transit: 0,
    platform_commission: 0,
    platform_tax_payable: 0,
    platform_adjustments: 0,
    platform_promotions: 0,
  } satisfies Record<LedgerAccount, number>;
  for (const r of rows) totals[r.account] = Number(r.cents);
  return totals;
}

/** The entries of a seller's transactions in [from, to), for statements, oldest first. */
export async function sellerEntriesBetween(ctx: RequestContext, sellerId: string, from: Date, to: Date) {
  return ctx.db
    .select({
      key: ledgerTransactions.key,
      kind: ledgerTransactions.kind,
      createdAt: ledgerTransactions.createdAt,
      account: ledgerEntries.account,
      orderId: ledgerEntries.orderId,
      amountCents: ledgerEntries.amountCents,
    })
    .from(ledgerTransactions)
    .innerJoin(
      ledgerEntries,
      and(eq(ledgerEntries.transactionKey, ledgerTransactions.key), eq(ledgerEntries.sellerId, sellerId)),
    )
    .where(
      and(
        eq(ledgerTransactions.sellerId, sellerId),
        sql`${ledgerTransactions.createdAt} >= ${from} and ${ledgerTransactions.createdAt} < ${to}`,
      ),
    )
    .orderBy(
      ledgerTransactions.createdAt,
      ledgerTransactions.key,
      ledgerEntries.orderId,
      ledgerEntries.account,
    );
}

/** The months (YYYY-MM in `timeZone`) in which a seller has transactions, newest first. */
export async function transactionMonths(
  ctx: RequestContext,
  sellerId: string,
  timeZone: string,
): Promise<string[]> {
  const rows = await ctx.db
    .selectDistinct({
      month: sql<string>`to_char(${ledgerTransactions.createdAt} at time zone ${timeZone}, 'YYYY-MM')`,
    })
    .from(ledgerTransactions)
    .where(eq(ledgerTransactions.sellerId, sellerId));
  return rows.map((r) => r.month).sort((a, b) => b.localeCompare(a));
}

/** What a seller was owed (pending, available, in transit) before `at`; negative: what they owed. */
export async function sellerOwedBefore(ctx: RequestContext, sellerId: string, at: Date): Promise<number> {
  const [row] = await ctx.db
    .select({ cents: sql<string>`coalesce(sum(${ledgerEntries.amountCents}), 0)` })
    .from(ledgerEntries)
    .where(
      and(
        eq(ledgerEntries.sellerId, sellerId),
        inArray(ledgerEntries.account, ['seller_pending', 'seller_available', 'seller_in_transit']),
        sql`${ledgerEntries.createdAt} < ${at}`,
      ),
    );
  const cents = Number(row?.cents ?? 0);
  return cents === 0 ? 0 : -cents;
}
