// Migration 0035 on orders paid before it: each is numbered in creation order within its year
// (Eastern Time), the counters continue from there, and each gets its issued invoice: what its
// first stored document named, else the seller and the platform as they are, with its old number.
// The orders are made through the API, then put back as they were before the migration (no
// number, no issued invoice), and the migration's statements run on them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../src/db/index.ts';
import { rowsOf } from '../src/db/sql.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, PLATFORM_TAX_PROFILE, seller } from './helpers/builders.ts';
import { orderNumber, paidOrder, setClock, signIn } from './helpers/orders.ts';

const { t, database } = useTestApp();

const PLATFORM = PLATFORM_TAX_PROFILE;

/** The statements of the migration that fill what existed before it, in the file's order. */
function backfill(): string[] {
  return readFileSync(path.join(MIGRATIONS_DIR, '0035_order_numbers_issued_invoices.sql'), 'utf8')
    .split('--> statement-breakpoint')
    .filter((s) => /UPDATE "orders"|INSERT INTO|SET NOT NULL|"orders_number_unique"/.test(s));
}

describe('0035: order numbers and issued invoices for orders paid before it', () => {
  it('numbers them per Eastern year in creation order, and issues their invoices as they stood', async () => {
    const run = (text: string) => database.db.execute(sql.raw(text));
    const boss = await admin(t.api, database);
    expect((await t.api.as(boss).put('/admin/tax-profile', PLATFORM)).status).toBe(200);
    const shop = await seller(t.api);
    expect((await t.api.as(shop).patch('/me/seller', { legalName: 'Avant inc.' })).status).toBe(200);
    const [a, b, c, d] = [
      await paidOrder(t, { seller: shop }),
      await paidOrder(t, { seller: shop }),
      await paidOrder(t, { seller: shop }),
      await paidOrder(t, { seller: shop }),
    ];
    // The first one's invoice was drawn before the migration: the document names "Avant inc.".
    const drawn = await t.app.inject({
      method: 'GET',
      url: `/orders/${encodeURIComponent(a.orderId)}/invoice`,
      headers: { authorization: `Bearer ${a.buyer.token}` },
    });
    expect(drawn.statusCode).toBe(200);
    expect((await t.api.as(shop).patch('/me/seller', { legalName: 'Après inc.' })).status).toBe(200);

    // As before the migration: no numbers, no counters, no issued invoices; the orders' dates set.
    await run('alter table orders drop constraint orders_number_unique');
    await run('alter table orders alter column number drop not null');
    await run('update orders set number = null');
    await run('delete from order_number_years');
    await run('delete from issued_invoices');
    const at = async (id: string, iso: string) =>
      run(`update orders set created_at = '${iso}', confirmed_at = '${iso}' where id = '${id}'`);
    await at(a.orderId, '2026-06-01T12:00:00Z');
    // 11:30 p.m. on December 31 in Toronto: of 2026.
    await at(b.orderId, '2027-01-01T04:30:00Z');
    await at(c.orderId, '2027-01-01T05:30:00Z');
    await at(d.orderId, '2026-03-01T12:00:00Z');

    const statements = backfill();
    expect(statements).toHaveLength(6);
    for (const statement of statements) await run(statement);

    const numbers = await rowsOf<{ id: string; number: string }>(
      database.db,
      sql`select id, number from orders order by number`,
    );
    expect(numbers).toEqual([
      { id: d.orderId, number: '2026-000001' },
      { id: a.orderId, number: '2026-000002' },
      { id: b.orderId, number: '2026-000003' },
      { id: c.orderId, number: '2027-000001' },
    ]);
    expect(await rowsOf(database.db, sql`select year, last from order_number_years order by year`)).toEqual([
      { year: 2026, last: 3 },
      { year: 2027, last: 1 },
    ]);
    const issued = await rowsOf<{
      orderId: string;
      number: string;
      seller: string;
      platform: string | null;
      buyerName: string;
    }>(
      database.db,
      sql`select order_id as "orderId", number, parties->'seller'->>'name' as seller,
                 parties->'platform'->>'name' as platform, parties->>'buyerName' as "buyerName"
          from issued_invoices order by number`,
    );
    const key = (id: string) => id.slice('orders:'.length);
    const expected = [
      { order: a, seller: 'Avant inc.' },
      { order: b, seller: 'Après inc.' },
      { order: c, seller: 'Après inc.' },
      { order: d, seller: 'Après inc.' },
    ].map(({ order, seller: name }) => ({
      orderId: order.orderId,
      number: key(order.orderId),
      seller: name,
      platform: 'Portage Marketplace Inc.',
      buyerName: 'Test buyer',
    }));
    expect(issued).toEqual(expected.sort((x, y) => (x.number < y.number ? -1 : 1)));

    // Numbers taken after the migration continue the year's count, and stay unique.
    setClock(t, '2027-02-01T15:00:00Z');
    const next = await paidOrder(t, { seller: await signIn(t.api, shop) });
    expect(await orderNumber(t, next.buyer, next.orderId)).toBe('2027-000002');
    const refused = await run(`update orders set number = '2026-000001' where id = '${a.orderId}'`).then(
      () => undefined,
      (err: { cause?: { code?: string }; code?: string }) => err.cause?.code ?? err.code,
    );
    expect(refused).toBe('23505');
  });
});
