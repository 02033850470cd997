import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The ledger's accounts (docs/payouts.md "The ledger"). Amounts are debits positive, credits
 * negative: the platform's cash at the provider is an asset (positive when held), what is owed
 * to a seller a liability (negative while owed), the commission and the tax on it are the
 * platform's revenue and what it owes the government (negative).
 */
export const LEDGER_ACCOUNTS = [
  /** The platform's funds at the payment provider. */
  'provider_cash',
  /** Owed to a seller, not yet payable: the order is not delivered, or delivered within the hold. */
  'seller_pending',
  /** Owed to a seller and payable at the next payout (positive: the seller owes, recovered first). */
  'seller_available',
  /**
   * Being transferred to the seller's payout account (negative), or taken back from it by a
   * transfer reversal (positive).
   */
  'seller_in_transit',
  /** The platform's commission on sales. */
  'platform_commission',
  /** The GST/HST the platform charges on its commission, owed to the Receiver General. */
  'platform_tax_payable',
  /** Adjustments an operator made (a goodwill credit to a seller, a correction). */
  'platform_adjustments',
  /** The platform's coupons: what the platform pays the seller for the discount it gave (positive: spent). */
  'platform_promotions',
] as const;
export type LedgerAccount = (typeof LEDGER_ACCOUNTS)[number];

export const LEDGER_KINDS = [
  'sale',
  'release',
  'refund',
  'dispute_opened',
  'dispute_won',
  'payout',
  'transfer_paid',
  'transfer_failed',
  'reversal_requested',
  'reversal_done',
  'reversal_failed',
  'adjustment',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/**
 * One movement of money: its entries sum to zero. `key` names the event that caused it
 * (`sale:<orderId>`, `refund:<refundId>`, `payout:<payoutId>`…): written once, whoever retries.
 */
export const ledgerTransactions = pgTable(
  'ledger_transactions',
  {
    key: text('key').primaryKey(),
    kind: text('kind', { enum: LEDGER_KINDS }).notNull(),
    /** The seller it concerns (every movement of money here is one seller's). */
    sellerId: text('seller_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    /** Why, for an operator's adjustment (who made it and their reason); null otherwise. */
    memo: text('memo'),
  },
  (t) => [
    check(
      'ledger_transactions_kind_check',
      sql`${t.kind} in (${sql.raw(LEDGER_KINDS.map((k) => `'${k}'`).join(', '))})`,
    ),
    index('ledger_transactions_seller_created_idx').on(t.sellerId, t.createdAt),
  ],
);

/** The entries of the transactions: append-only, never updated or deleted. */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    /**
     * Its transaction's key. Not a foreign key: entries are written only with their transaction,
     * in the same statement or call, and never deleted; the check finds an orphan, and the payment
     * transaction saves a referential check per entry.
     */
    transactionKey: text('transaction_key').notNull(),
    account: text('account', { enum: LEDGER_ACCOUNTS }).notNull(),
    sellerId: text('seller_id').notNull(),
    /** The order the money belongs to (every entry of a seller's money has one). */
    orderId: text('order_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check(
      'ledger_entries_account_check',
      sql`${t.account} in (${sql.raw(LEDGER_ACCOUNTS.map((a) => `'${a}'`).join(', '))})`,
    ),
    check('ledger_entries_amount_nonzero', sql`${t.amountCents} <> 0`),
    // A transaction moves an order's money in an account once: the entries' key, and the way to
    // an order's money (two indexes in all: the payment transaction writes them).
    primaryKey({ columns: [t.orderId, t.transactionKey, t.account] }),
    index('ledger_entries_seller_account_idx').on(t.sellerId, t.account, t.orderId),
  ],
);

/**
 * A delivered order whose money is not yet available: written when it is delivered; the release
 * job moves its pending money to available once PAYOUT_HOLD_DAYS have passed, and marks it. A
 * schedule, not a balance.
 */
export const ledgerReleases = pgTable(
  'ledger_releases',
  {
    orderId: text('order_id').primaryKey(),
    sellerId: text('seller_id').notNull(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }).notNull(),
    releasedAt: timestamp('released_at', { withTimezone: true }),
  },
  (t) => [index('ledger_releases_due_idx').on(t.deliveredAt).where(sql`${t.releasedAt} is null`)],
);
