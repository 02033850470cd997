// The ledger's check (docs/payouts.md "Checking the ledger"), the module's raw statements: every
// transaction's entries sum to zero, and what the balances say agrees with the records that
// caused them. Run by the tests after each money scenario and by `portage ledger check`.
import { type SQL, sql } from 'drizzle-orm';
import { ph, rowsOf, statement } from '../../db/sql.ts';
import type { RequestContext } from '../context.ts';

export interface LedgerProblem {
  check: string;
  detail: string;
}

const rows = (ctx: RequestContext, statement: SQL) => rowsOf(ctx.db, statement);

/** Answers the problems found (none: the ledger balances). At most 100 of each kind. */
export async function checkLedger(ctx: RequestContext): Promise<LedgerProblem[]> {
  const problems: LedgerProblem[] = [];
  const add = (check: string, found: Array<Record<string, unknown>>) => {
    for (const r of found) problems.push({ check, detail: JSON.stringify(r) });
  };
  add(
    'a transaction does not sum to zero',
    await rows(
      ctx,
      sql`select transaction_key, sum(amount_cents)::bigint as sum from ledger_entries
          group by transaction_key having sum(amount_cents) <> 0 limit 100`,
    ),
  );
  add(
    'an entry has no transaction',
    await rows(
      ctx,
      sql`select e.transaction_key, e.order_id, e.account from ledger_entries e
          where not exists (select 1 from ledger_transactions t where t.key = e.transaction_key) limit 100`,
    ),
  );
  add(
    'a transaction has no entries',
    await rows(
      ctx,
      sql`select t.key from ledger_transactions t
          where not exists (select 1 from ledger_entries e where e.transaction_key = t.key) limit 100`,
    ),
  );
  add(
    "an entry is not its transaction's seller's",
    await rows(
      ctx,
      sql`select e.transaction_key, e.order_id, e.account from ledger_entries e join ledger_transactions t on t.key = e.transaction_key
          where e.seller_id <> t.seller_id limit 100`,
    ),
  );
  // In transit: the transfers being made less the reversals being made, seller by seller.
  add(
    'in transit differs from the transfers and reversals under way',
    await rows(
      ctx,
      sellersDiffer(
        sql`select seller_id, -sum(amount_cents)::bigint as cents from ledger_entries
            where account = 'seller_in_transit' group by seller_id`,
        { transfers: 'requested', reversals: 'requested' },
      ),
    ),
  );
  // Paid out: the transfers made less the reversals made.
  add(
    'paid out differs from the transfers and reversals made',
    await rows(
      ctx,
      sellersDiffer(
        sql`select e.seller_id, -sum(e.amount_cents)::bigint as cents from ledger_entries e
            join ledger_transactions t on t.key = e.transaction_key
            where e.account = 'provider_cash' and t.kind in ('transfer_paid', 'reversal_done')
            group by e.seller_id`,
        { transfers: 'paid', reversals: 'succeeded' },
      ),
    ),
  );
  // Each payout's amount is what its transfers carry.
  add(
    "a payout's amount differs from its transfers'",
    await rows(
      ctx,
      sql`select p.id, p.amount_cents, sum(t.amount_cents)::bigint as transfers
          from payouts p join payout_transfers t on t.payout_id = p.id
          group by p.id, p.amount_cents having p.amount_cents <> sum(t.amount_cents) limit 100`,
    ),
  );
  // Released orders hold nothing pending.
  add(
    'a released order still has pending money',
    await rows(
      ctx,
      sql`select r.order_id, sum(e.amount_cents)::bigint as pending from ledger_releases r
          join ledger_entries e on e.order_id = r.order_id and e.account = 'seller_pending'
          where r.released_at is not null group by r.order_id having sum(e.amount_cents) <> 0 limit 100`,
    ),
  );
  return problems;
}

/**
 * The sellers whose sum in the ledger (`ledger`: seller_id, cents) differs from their transfers
 * in one status less their reversals in another.
 */
function sellersDiffer(ledger: SQL, status: { transfers: string; reversals: string }): SQL {
  return sql`with ledger as (${ledger}),
    records as (
      select seller_id, sum(cents)::bigint as cents from (
        select seller_id, amount_cents as cents from payout_transfers where status = ${status.transfers}
        union all
        select seller_id, -amount_cents from transfer_reversals where status = ${status.reversals}) r
      group by seller_id)
    select coalesce(l.seller_id, r.seller_id) as seller_id, coalesce(l.cents, 0) as ledger,
           coalesce(r.cents, 0) as records
    from ledger l full join records r on r.seller_id = l.seller_id
    where coalesce(l.cents, 0) <> coalesce(r.cents, 0) limit 100`;
}

/**
 * The sales of orders just paid, in one statement sent with the payment transaction's next one
 * (no round trip of its own): per order a `sale:<order>` transaction and its entries (the orders
 * are made in that transaction: their sales cannot exist yet, and a second try fails whole),
 * what `post()` would write: cash +total, the platform's coupon share paid to the seller (its
 * promotions), the seller's share pending (total + that share - commission - tax), the commission
 * and its tax (the commission times the rate of the seller's province, per 100,000, rounded half-up).
 * `rates`: `{ "ON": 13000, …, "default": 13000 }` as JSON.
 */
const salesStatement = statement(
  'ledger_record_sales',
  sql`with s as (
      select o.id, o.seller_id, o.total_amount_cents::bigint as total, o.platform_fee_cents::bigint as fee,
        o.platform_discount_cents::bigint as promo,
        (o.platform_fee_cents::bigint * 2 * coalesce(
            (${ph('rates')}::jsonb ->> (select p from portage_seller_province(o.seller_id) p limit 1))::bigint,
            (${ph('rates')}::jsonb ->> 'default')::bigint) + 100000) / 200000 as tax
      from orders o where o.id = any(${ph('orderIds')}::text[])),
    t as (
      insert into ledger_transactions (key, kind, seller_id, created_at)
      select 'sale:' || s.id, 'sale', s.seller_id, ${ph('now')}::timestamptz from s)
    insert into ledger_entries (transaction_key, account, seller_id, order_id, amount_cents, created_at)
    select 'sale:' || s.id, e.account, s.seller_id, s.id, e.amount, ${ph('now')}::timestamptz
    from s cross join lateral (values
      ('provider_cash', s.total),
      ('platform_promotions', s.promo),
      ('seller_pending', -(s.total + s.promo - s.fee - s.tax)),
      ('platform_commission', -s.fee),
      ('platform_tax_payable', -s.tax)) e(account, amount)
    where e.amount <> 0`,
);

export function recordSalesLater(
  ctx: RequestContext,
  values: { orderIds: string[]; rates: Record<string, number>; now: Date },
): Promise<void> {
  return salesStatement.later(ctx.db, {
    orderIds: values.orderIds,
    rates: JSON.stringify(values.rates),
    now: values.now,
  });
}
