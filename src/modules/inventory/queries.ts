// The stock's statements: availability, the conditional claim of units, releases, commits and
// the variant locks. Each hot one is named (parsed once per connection) and its shape explained
// beside it; a claim's statements go out in one round trip; a commit line by line runs in a
// savepoint (all the lines or none).
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { pipeline, rowsOf, statement } from '../../db/sql.ts';
import { products, productVariants } from '../catalog/tables.ts';
import { reservations } from './tables.ts';

const ph = sql.placeholder;

interface Line {
  variantId: string;
  quantity: number;
}

/** Units of `product_variants.id` held by live reservations that have not expired at `now`. */
function heldUnits(now: Date): SQL<number> {
  return sql<number>`(${productVariants.reservedQuantity} - coalesce((select sum(r.quantity) from ${reservations} r
    where r.variant_id = ${productVariants.id} and r.released_at is null and r.committed_at is null
    and r.expires_at <= ${now}), 0))`;
}

/**
 * The variants on sale (they and their product active, its shop open) of `variantIds`, each with its product's
 * title, its option values and the units of it free at `now`.
 */
export async function activeVariantUnits(db: Db, variantIds: string[], now: Date) {
  if (variantIds.length === 0) return [];
  return db
    .select({
      id: productVariants.id,
      productId: productVariants.productId,
      title: products.title,
      optionValues: productVariants.optionValues,
      units: sql<number>`greatest(${productVariants.stockQuantity} - ${heldUnits(now)}, 0)::int`,
    })
    .from(productVariants)
    .innerJoin(products, eq(products.id, productVariants.productId))
    .where(
      and(
        inArray(productVariants.id, variantIds),
        eq(productVariants.status, 'active'),
        eq(products.status, 'active'),
        sql`${products.sellerId} not in (select h from portage_hidden_sellers() h)`,
      ),
    );
}

const claimStatement = statement(
  'inventory_claim',
  sql`
    with claimed as (
      -- The shop's state is read here, with the claim: no hold starts once a suspension committed.
      update ${productVariants} v set reserved_quantity = reserved_quantity + ${ph('quantity')}::int
      where id = ${ph('variantId')} and status = 'active'
        and exists (select 1 from ${products} p where p.id = v.product_id and p.status = 'active'
          and p.seller_id not in (select h from portage_hidden_sellers() h))
        and stock_quantity - reserved_quantity >= ${ph('quantity')}::int
        and (${ph('after')}::int < 0
          or (select count(*) from ${reservations} where checkout_id = ${ph('checkoutId')}) = ${ph('after')}::int)
      returning id
    )
    insert into ${reservations} (checkout_id, variant_id, quantity, expires_at, created_at)
    select ${ph('checkoutId')}, id, ${ph('quantity')}::int, ${ph('expiresAt')}::timestamptz,
      ${ph('now')}::timestamptz from claimed
    returning variant_id`,
);

export interface Hold {
  checkoutId: string;
  expiresAt: Date;
  now: Date;
}

/**
 * Holds a line's units for the checkout if its variant has them free (one conditional update of
 * the variant row, and the reservation row written from it). `after`: the number of reservations
 * the checkout must hold already for this claim to go on; -1, any. Answers whether it held.
 */
export async function claimUnits(db: Db, claim: Hold & Line & { after: number }): Promise<boolean> {
  const held = await claimStatement(db, { ...claim });
  return held.length > 0;
}

/**
 * Claims each line in the order given, in one round trip, each only when every line before it
 * was held (so a refused line leaves the variants after it untouched and unlocked). Answers,
 * per line, whether it was held.
 */
export function claimUnitsInTurn(db: Db, hold: Hold, lines: Line[]): Promise<boolean[]> {
  return pipeline(
    { db },
    lines.map((line, n) => () => claimUnits(db, { ...hold, ...line, after: n })),
  ) as Promise<boolean[]>;
}

/** Locks the variant row unless another transaction holds it: answers whether it locked it. */
export async function lockVariantUnlessHeld(db: Db, variantId: string): Promise<boolean> {
  const got = await rowsOf(
    db,
    sql`select id from ${productVariants} where id = ${variantId} for no key update skip locked`,
  );
  return got.length > 0;
}

/**
 * Gives back the live reservations of a variant that expired by `now`: the rows are marked and
 * the variant's count lowered in one statement (its row locked by the caller).
 */
export async function releaseLapsedOfVariant(db: Db, variantId: string, now: Date): Promise<void> {
  await rowsOf(
    db,
    sql`
    with lapsed as (
      update ${reservations} set released_at = ${now}
      where variant_id = ${variantId} and released_at is null and committed_at is null
        and expires_at <= ${now}
      returning quantity
    )
    update ${productVariants} set reserved_quantity = reserved_quantity - (select sum(quantity) from lapsed)
    where id = ${variantId} and exists (select 1 from lapsed)`,
  );
}

/** Gives back a checkout's live reservation of a variant, in one statement: answers whether there was one. */
export async function releaseCheckoutVariant(
  db: Db,
  checkoutId: string,
  variantId: string,
  now: Date,
): Promise<boolean> {
  const freed = await rowsOf(
    db,
    sql`
      with freed as (
        update ${reservations} set released_at = ${now}
        where checkout_id = ${checkoutId} and variant_id = ${variantId}
          and released_at is null and committed_at is null
        returning quantity
      )
      update ${productVariants} set reserved_quantity = reserved_quantity - (select sum(quantity) from freed)
      where id = ${variantId} and exists (select 1 from freed)
      returning id`,
  );
  return freed.length > 0;
}

const commitHeldStatement = statement(
  'inventory_commit_held',
  sql`
    with wanted as (
      select * from json_to_recordset(${ph('wanted')}::json) as w("variantId" text, quantity int)
    ), live as (
      select r.variant_id, r.quantity from ${reservations} r
      join wanted w on w."variantId" = r.variant_id and w.quantity = r.quantity
      join ${productVariants} v on v.id = r.variant_id and v.stock_quantity >= r.quantity
      where r.checkout_id = ${ph('checkoutId')} and r.released_at is null and r.committed_at is null
    ), marked as (
      update ${reservations} r set committed_at = ${ph('now')}::timestamptz from live
      where (select count(*) from live) = ${ph('lines')}::int
        and r.checkout_id = ${ph('checkoutId')} and r.variant_id = live.variant_id
      returning r.variant_id, r.quantity
    )
    update ${productVariants} v set stock_quantity = v.stock_quantity - marked.quantity,
      reserved_quantity = v.reserved_quantity - marked.quantity
    from marked where v.id = marked.variant_id
    returning v.id`,
);

/**
 * Takes the lines' units out of stock from the checkout's live reservations, in one statement,
 * when every line is held by one and the stock is there; otherwise changes nothing. Answers
 * whether it took them.
 */
export async function commitHeldLines(
  db: Db,
  checkoutId: string,
  lines: Line[],
  now: Date,
): Promise<boolean> {
  const wanted = JSON.stringify(lines.map((l) => ({ variantId: l.variantId, quantity: l.quantity })));
  const taken = await commitHeldStatement(db, { wanted, checkoutId, lines: lines.length, now });
  return taken.length === lines.length;
}

class NotCommitted extends Error {}

/**
 * Takes each line's units out of stock, from the checkout's live reservation of it when there is
 * one, otherwise from what is free now; all the lines or none, in a savepoint. Answers false,
 * changing nothing, when a line cannot be taken.
 */
export async function commitLinesAllOrNone(
  db: Db,
  checkoutId: string | null,
  lines: Line[],
  now: Date,
): Promise<boolean> {
  return db
    .transaction(async (savepoint) => {
      const sp = savepoint as unknown as Db;
      for (const line of lines) {
        if (checkoutId) {
          const fromReservation = await rowsOf(
            sp,
            sql`
            with held as (
              update ${reservations} set committed_at = ${now}
              where checkout_id = ${checkoutId} and variant_id = ${line.variantId}
                and released_at is null and committed_at is null and quantity = ${line.quantity}
              returning variant_id, quantity
            )
            update ${productVariants} v set stock_quantity = v.stock_quantity - held.quantity,
              reserved_quantity = v.reserved_quantity - held.quantity
            from held where v.id = held.variant_id and v.stock_quantity >= held.quantity
            returning v.id`,
          );
          if (fromReservation.length > 0) continue;
        }
        const fresh = await rowsOf(
          sp,
          sql`
          update ${productVariants} set stock_quantity = stock_quantity - ${line.quantity}
          where id = ${line.variantId} and stock_quantity - reserved_quantity >= ${line.quantity}
          returning id`,
        );
        if (fresh.length === 0) throw new NotCommitted();
      }
      return true;
    })
    .catch((err) => {
      if (err instanceof NotCommitted) return false;
      throw err;
    });
}

/** Deletes up to `limit` reservations released or committed before `before`; answers how many. */
export async function deleteReservationsEndedBefore(db: Db, before: Date, limit: number): Promise<number> {
  const gone = await rowsOf(
    db,
    sql`
    delete from ${reservations} where (checkout_id, variant_id) in (
      select checkout_id, variant_id from ${reservations}
      where (released_at is not null or committed_at is not null)
        and coalesce(released_at, committed_at) < ${before}
      limit ${limit}
    )
    returning variant_id`,
  );
  return gone.length;
}

/**
 * Up to this many variants are locked by a statement with one value per variant (`id in ($1,
 * $2)`): PostgreSQL keeps one plan for it. With an array (`id = any($1)`) it planned the
 * statement anew at every payment (a custom plan looks cheaper for an array it can see), about
 * 0.14 ms each (pg_stat_statements, track_planning).
 */
const FEW_VARIANTS = 8;
const lockFewVariants = Array.from({ length: FEW_VARIANTS }, (_, n) =>
  statement(
    `inventory_lock_variants_${n + 1}`,
    sql`select id from ${productVariants} where id in (${sql.join(
      Array.from({ length: n + 1 }, (_v, k) => sql`${ph(`id${k}`)}`),
      sql`, `,
    )}) order by id for no key update`,
  ),
);
const lockVariantsStatement = statement(
  'inventory_lock_variants',
  sql`select id from ${productVariants} where id = any(${ph('ids')}::text[]) order by id for no key update`,
);

/**
 * Locks variant rows (distinct ids, sorted) until the transaction ends. No one reads the rows:
 * the locks go out with the transaction's next statement.
 */
export async function lockVariantRows(db: Db, ids: string[]): Promise<void> {
  const few = lockFewVariants[ids.length - 1];
  if (few) await few.later(db, Object.fromEntries(ids.map((id, n) => [`id${n}`, id])));
  else await lockVariantsStatement.later(db, { ids });
}
