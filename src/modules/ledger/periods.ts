// The ledger over a period (docs/api.md "Reconciliation"): what moved the platform's cash at
// the provider between two instants, by the kind of movement, all sellers together. The
// reconciliation compares it with the provider's own balance transactions of the same period.
import { and, eq, gte, lt, sql } from 'drizzle-orm';
import type { RequestContext } from '../context.ts';
import { type LedgerKind, ledgerEntries, ledgerTransactions } from './tables.ts';

/** The provider cash a kind of movement moved in a period (debit positive: money in). */
export interface CashByKind {
  kind: LedgerKind;
  cents: number;
  /** The ledger transactions of that kind that moved it. */
  count: number;
}

/**
 * The provider_cash entries of the transactions written in [from, to), summed by the
 * transaction's kind (kinds that moved none are absent).
 */
export async function providerCashByKind(ctx: RequestContext, from: Date, to: Date): Promise<CashByKind[]> {
  const rows = await ctx.db
    .select({
      kind: ledgerTransactions.kind,
      cents: sql<string>`sum(${ledgerEntries.amountCents})`,
      count: sql<string>`count(distinct ${ledgerTransactions.key})`,
    })
    .from(ledgerTransactions)
    .innerJoin(ledgerEntries, eq(ledgerEntries.transactionKey, ledgerTransactions.key))
    .where(
      and(
        gte(ledgerTransactions.createdAt, from),
        lt(ledgerTransactions.createdAt, to),
        // An entry is dated as its transaction: the period bounds both sides of the join.
        gte(ledgerEntries.createdAt, from),
        lt(ledgerEntries.createdAt, to),
        eq(ledgerEntries.account, 'provider_cash'),
      ),
    )
    .groupBy(ledgerTransactions.kind)
    .orderBy(ledgerTransactions.kind);
  return rows.map((r) => ({ kind: r.kind, cents: Number(r.cents), count: Number(r.count) }));
}
