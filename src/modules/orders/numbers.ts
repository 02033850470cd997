// An order's number, what people read (docs/api.md "Orders"): `2026-000123`, the year of its
// creation in Eastern Time and its rank in that year. Ids stay in the API.
import { sql } from 'drizzle-orm';
import type { RequestContext } from '../context.ts';
import { torontoDate } from '../pricing/dates.ts';
import { orderNumberYears } from './tables.ts';

/** `2026-000123`: six digits at least, more past a million orders in a year. */
export const formatOrderNumber = (year: number, n: number) => `${year}-${String(n).padStart(6, '0')}`;

/**
 * `count` new numbers of the year `at` falls in (Eastern Time), in ctx's transaction. The upsert
 * locks the year's row until the transaction ends, so concurrent payments wait for each other
 * here and never take the same number; a transaction rolled back leaves a gap.
 */
export async function takeOrderNumbers(ctx: RequestContext, at: Date, count: number): Promise<string[]> {
  if (count === 0) return [];
  const year = Number(torontoDate(at).slice(0, 4));
  const [row] = await ctx.db
    .insert(orderNumberYears)
    .values({ year, last: count })
    .onConflictDoUpdate({
      target: orderNumberYears.year,
      set: { last: sql`${orderNumberYears.last} + ${count}` },
    })
    .returning({ last: orderNumberYears.last });
  const first = row!.last - count + 1;
  return Array.from({ length: count }, (_, i) => formatOrderNumber(year, first + i));
}
