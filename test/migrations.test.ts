// Migrations that change data an existing database may hold: the statements that do, run on the
// rows they must handle (a migrated database with the migration's own constraint taken off first).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../src/db/index.ts';
import { rowsOf } from '../src/db/sql.ts';
import { useTestDatabase } from './helpers/db.ts';

const database = useTestDatabase();

/** The statements of a migration file that mention `table`, as drizzle's migrator splits them. */
function statementsOn(file: string, table: string): string[] {
  return readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8')
    .split('--> statement-breakpoint')
    .filter((s) => s.includes(`"${table}"`));
}

describe('0030: one refund per payment that made no order', () => {
  it('keeps every refund a payment had twice before it (the later ones renamed), then holds one per payment', async () => {
    const run = (text: string) => database.db.execute(sql.raw(text));
    await run('drop index refunds_one_per_unused_payment');
    const refund = (id: string, pi: string, reason: string, at: string, status = 'succeeded') =>
      run(`insert into refunds (id, order_id, payment_intent_id, amount_cents, reason, next_attempt_at, created_at, status)
             values ('${id}', 'checkouts:x', '${pi}', 1500, '${reason}', '${at}', '${at}', '${status}')`);
    await refund('refund_a', 'pi_twice', 'duplicate_payment', '2026-11-01T10:00:00Z');
    await refund('refund_b', 'pi_twice', 'duplicate_payment', '2026-11-01T10:00:01Z');
    // A third, not sent yet when the index came: it must never be sent.
    await refund('refund_b2', 'pi_twice', 'checkout_closed', '2026-11-01T10:00:02Z', 'requested');
    await refund('refund_c', 'pi_twice', 'cancelled', '2026-11-02T10:00:00Z');
    await refund('refund_d', 'pi_once', 'checkout_closed', '2026-11-01T10:00:00Z');

    const statements = statementsOn('0030_outage_refunds_leases.sql', 'refunds');
    expect(statements).toHaveLength(2);
    for (const statement of statements) await run(statement);

    expect(await rowsOf(database.db, sql`select id, reason, status from refunds order by id`)).toEqual([
      { id: 'refund_a', reason: 'duplicate_payment', status: 'succeeded' },
      { id: 'refund_b', reason: 'duplicate_payment_again', status: 'succeeded' },
      { id: 'refund_b2', reason: 'checkout_closed_again', status: 'failed' },
      { id: 'refund_c', reason: 'cancelled', status: 'succeeded' },
      { id: 'refund_d', reason: 'checkout_closed', status: 'succeeded' },
    ]);
    const duplicate = await refund('refund_e', 'pi_once', 'duplicate_payment', '2026-11-03T10:00:00Z').then(
      () => undefined,
      (err: { cause?: { code?: string } }) => err.cause?.code,
    );
    expect(duplicate).toBe('23505');
    // Refunds of an order (a cancellation, returns) are as many as they need.
    await refund('refund_f', 'pi_once', 'cancelled', '2026-11-03T10:00:00Z');
    await refund('refund_g', 'pi_once', 'return', '2026-11-03T10:00:00Z');
  });
});

describe("0042: an image's variant is one of its product's", () => {
  it('forgets a variant that is unknown or another product’s, then refuses one', async () => {
    const run = (text: string) => database.db.execute(sql.raw(text));
    await run('alter table product_images drop constraint product_images_variant_fk');
    await run('alter table product_variants drop constraint product_variants_id_product');
    await run(
      `insert into users (id, email, name, role) values ('users:m42', 'm42@example.ca', 'M', 'seller')`,
    );
    for (const p of ['products:m42a', 'products:m42b']) {
      await run(`insert into products (id, seller_id, title, price_cents, price_max_cents)
                   values ('${p}', 'users:m42', 'Box', 1000, 1000)`);
    }
    const variant = (id: string, product: string, sku: string) =>
      run(`insert into product_variants (id, product_id, seller_id, sku, price_cents)
             values ('${id}', '${product}', 'users:m42', '${sku}', 1000)`);
    await variant('variants:m42a', 'products:m42a', 'M42-A');
    await variant('variants:m42b', 'products:m42b', 'M42-B');
    const image = (id: string, variantId: string | null) =>
      run(`insert into product_images (id, product_id, variant_id, position, width, height, files)
             values ('${id}', 'products:m42a', ${variantId ? `'${variantId}'` : 'null'}, 0, 10, 10, '[]')`);
    await image('images:own', 'variants:m42a');
    await image('images:other', 'variants:m42b');
    await image('images:unknown', 'variants:gone');
    await image('images:none', null);

    const statements = readFileSync(path.join(MIGRATIONS_DIR, '0042_image_variant_fk.sql'), 'utf8').split(
      '--> statement-breakpoint',
    );
    expect(statements).toHaveLength(3);
    for (const statement of statements) await run(statement);

    expect(
      await rowsOf(
        database.db,
        sql`select id, variant_id from product_images where product_id = 'products:m42a' order by id`,
      ),
    ).toEqual([
      { id: 'images:none', variant_id: null },
      { id: 'images:other', variant_id: null },
      { id: 'images:own', variant_id: 'variants:m42a' },
      { id: 'images:unknown', variant_id: null },
    ]);
    const refused = (variantId: string) =>
      image(`images:${variantId}`, variantId).then(
        () => undefined,
        (err: { cause?: { code?: string } }) => err.cause?.code,
      );
    expect(await refused('variants:m42b')).toBe('23503');
    expect(await refused('variants:gone')).toBe('23503');
  });
});

describe('0053: every shop gets its slug', () => {
  it('gives the shops open before it theirs, oldest first, and every shop opening after it one', async () => {
    const run = (text: string) => database.db.execute(sql.raw(text));
    await run('drop trigger seller_profiles_slug on seller_profiles');
    await run('alter table seller_profiles alter column slug drop not null');
    const shop = async (id: string, name: string, at: string) => {
      await run(
        `insert into users (id, email, name, role) values ('users:${id}', '${id}@x.test', 'X', 'seller')`,
      );
      await run(
        `insert into seller_profiles (user_id, shop_name, province, created_at) values ('users:${id}', '${name.replace(/'/g, "''")}', 'QC', '${at}')`,
      );
    };
    await shop('b', 'Maple Goods', '2026-11-02T10:00:00Z');
    await shop('a', 'Maple Goods', '2026-11-01T10:00:00Z');
    await shop('c', 'Érablière du Lac-Saint-Jean', '2026-11-03T10:00:00Z');
    await shop('d', '!!!', '2026-11-04T10:00:00Z');

    const statements = readFileSync(path.join(MIGRATIONS_DIR, '0053_shop_slugs.sql'), 'utf8').split(
      '--> statement-breakpoint',
    );
    expect(statements).toHaveLength(3);
    for (const statement of statements) await run(statement);

    expect(
      await rowsOf(database.db, sql`select user_id, slug from seller_profiles order by user_id`),
    ).toEqual([
      { user_id: 'users:a', slug: 'maple-goods' },
      { user_id: 'users:b', slug: 'maple-goods-2' },
      { user_id: 'users:c', slug: 'erabliere-du-lac-saint-jean' },
      { user_id: 'users:d', slug: 'shop' },
    ]);
    // A shop opening now gets one from the trigger; the column is required.
    await shop('e', 'Maple  Goods!', '2026-11-05T10:00:00Z');
    expect(
      await rowsOf(database.db, sql`select slug from seller_profiles where user_id = 'users:e'`),
    ).toEqual([{ slug: 'maple-goods-3' }]);
  });
});
