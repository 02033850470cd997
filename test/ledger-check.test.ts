// The ledger's check finds what is wrong (docs/payouts.md "Checking the ledger"), and the ledger
// refuses to be changed: rows written behind the service's back, as a bug or a hand would.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.ts';
import { seller } from './helpers/builders.ts';
import { ledgerProblems } from './helpers/payouts.ts';

const { t, database } = useTestApp();

describe('the ledger check', () => {
  it('names a transaction that does not sum to zero, a transfer the ledger does not know, a payout unlike its transfers', async () => {
    expect(await ledgerProblems(database, t)).toEqual([]);
    const s = await seller(t.api);
    await database.db.execute(sql`insert into ledger_transactions (key, kind, seller_id, created_at)
      values ('sale:orders:broken', 'sale', ${s.id}, now())`);
    await database.db.execute(sql`insert into ledger_entries (transaction_key, account, seller_id, order_id, amount_cents, created_at)
      values ('sale:orders:broken', 'provider_cash', ${s.id}, 'orders:broken', 1000, now()),
             ('sale:orders:broken', 'seller_pending', ${s.id}, 'orders:broken', -999, now())`);
    await database.db.execute(sql`insert into payouts (id, seller_id, amount_cents, created_at)
      values ('po_broken', ${s.id}, 500, now())`);
    await database.db.execute(sql`insert into payout_transfers (payout_id, order_id, seller_id, transfer_group, amount_cents, next_attempt_at)
      values ('po_broken', 'orders:broken', ${s.id}, 'checkout:broken', 400, now())`);
    const problems = await ledgerProblems(database, t);
    expect(problems.map((p) => p.check).sort()).toEqual([
      "a payout's amount differs from its transfers'",
      'a transaction does not sum to zero',
      'in transit differs from the transfers and reversals under way',
    ]);
    expect(problems.find((p) => p.check === 'a transaction does not sum to zero')?.detail).toContain(
      'sale:orders:broken',
    );
    expect(problems.find((p) => p.check.startsWith('in transit'))?.detail).toMatch(/"records":"?400"?/);
  });

  it('refuses to update or delete a written entry or transaction', async () => {
    for (const statement of [
      sql`update ledger_entries set amount_cents = 1 where transaction_key = 'sale:orders:broken'`,
      sql`delete from ledger_entries where transaction_key = 'sale:orders:broken'`,
      sql`update ledger_transactions set kind = 'refund' where key = 'sale:orders:broken'`,
      sql`delete from ledger_transactions where key = 'sale:orders:broken'`,
    ]) {
      const err = await database.db.execute(statement).then(
        () => undefined,
        (e: Error & { cause?: Error }) => e,
      );
      expect(err?.cause?.message ?? err?.message).toMatch(/the ledger is append-only/);
    }
  });
});
