// The agent feeds' reads of the catalog (docs/acp.md "Product feeds"): a product with what a feed
// says of it, by pages of ids (a full snapshot, the file feed) or by ids (changes), and the
// products changed since a stamp, in stamp order. A page is a few thousand rows: a snapshot of
// any size is read with flat memory.
import { type SQL, sql } from 'drizzle-orm';
import type { CategoryTranslations, ProductOption, ProductTranslations } from '../../contract/catalog.ts';
import type { Locale } from '../../contract/i18n.ts';
import type { Db } from '../../db/index.ts';
import { rowsOf } from '../../db/sql.ts';
import { platformFeeds, platforms } from '../platforms/tables.ts';
import type { FeedFileEntry } from './tables.ts';

/** A product as the feeds read it. `variants` are the ones not deleted, in their order. */
export interface FeedRow {
  id: string;
  seller_id: string;
  title: string;
  description: string;
  language: Locale;
  translations: ProductTranslations;
  image_urls: string[];
  options: ProductOption[];
  /** Active, offered to agents, its shop open: in the feeds; otherwise sent as discontinued. */
  eligible: boolean;
  category: string | null;
  category_language: Locale | null;
  category_translations: CategoryTranslations | null;
  shop_name: string | null;
  is_digital: boolean;
  /** [id, sku, option values, price, compare-at price, free units > 0, image URL, barcode, active] */
  variants: FeedVariantRow[];
}

export type FeedVariantRow = [
  string,
  string,
  string[],
  number,
  number | null,
  boolean,
  string | null,
  string | null,
  boolean,
];

// A product's eligibility reads the hidden sellers once per statement (a few ids).
const FEED_COLUMNS = sql`p.id, p.seller_id, p.title, p.description, p.language, p.translations, p.image_urls,
  p.options, p.is_digital,
  (p.status = 'active' and p.agent_channels and p.seller_id <> all(h.ids) and vs.active) as eligible,
  c.name as category, c.language as category_language, c.translations as category_translations,
  sp.shop_name, coalesce(vs.variants, '[]') as variants`;

const FEED_FROM = sql`products p
  cross join (select array(select x from portage_hidden_sellers() x) as ids) h
  left join categories c on c.id = p.category_id
  left join seller_profiles sp on sp.user_id = p.seller_id
  left join lateral (
    select bool_or(v.status = 'active') as active,
           json_agg(json_build_array(v.id, v.sku, v.option_values, v.price_cents, v.compare_at_price_cents,
                                     v.stock_quantity - v.reserved_quantity > 0, v.image_url, v.barcode,
                                     v.status = 'active') order by v.position, v.id) as variants
      from product_variants v where v.product_id = p.id and v.status <> 'deleted') vs on true`;

/** Up to `limit` products after id `last` that are in the feeds, by id (a snapshot's page). */
export const eligibleFeedRowsAfter = (db: Db, last: string, limit: number) =>
  rowsOf<FeedRow>(
    db,
    sql`select * from (select ${FEED_COLUMNS} from ${FEED_FROM}
          where p.status = 'active' and p.agent_channels and p.id > ${last}
          order by p.id limit ${limit}) f where f.eligible`,
  );

/**
 * eligibleFeedRowsAfter's page bound: the id its page of `limit` candidates ended on (some may
 * have been left out, their shop closed or no variant active), or undefined at the end.
 */
export async function lastCandidateAfter(db: Db, last: string, limit: number): Promise<string | undefined> {
  const [row] = await rowsOf<{ id: string | null }>(
    db,
    sql`select max(id) as id from (select p.id from products p
          where p.status = 'active' and p.agent_channels and p.id > ${last} order by p.id limit ${limit}) f`,
  );
  return row?.id ?? undefined;
}

/** The products of these ids (comma-separated: one text parameter however many), deleted ones too. */
export const feedRowsByIds = (db: Db, ids: string[]) =>
  rowsOf<FeedRow>(
    db,
    sql`select ${FEED_COLUMNS} from ${FEED_FROM} where p.id = any(string_to_array(${ids.join(',')}, ','))`,
  );

/**
 * Up to `limit` changes at or after stamp `from` (microseconds) and before `until`, in stamp
 * order: a product's row or one of its variants changed, with the change's stamp (`at`) and the
 * product's latest (`latest`, its row's and its variants' greatest). A product changed in its row
 * and a variant comes once per change; the caller sends it at its latest only.
 */
export const productsChangedBetween = (db: Db, from: number, until: number, limit: number) =>
  rowsOf<{ id: string; at: number; latest: number }>(
    db,
    sql`select c.id, ${micros(sql`c.changed_at`)} as at, ${micros(sql`greatest(p.changed_at, (select max(v.changed_at) from product_variants v where v.product_id = c.id))`)} as latest
          from (
            (select id, changed_at from products
              where changed_at >= ${stamp(from)} and changed_at < ${stamp(until)} order by changed_at limit ${limit})
            union all
            (select product_id, changed_at from product_variants
              where changed_at >= ${stamp(from)} and changed_at < ${stamp(until)} order by changed_at limit ${limit})
          ) c
          join products p on p.id = c.id
         order by c.changed_at, c.id limit ${limit}`,
  );

/** The database's clock, microseconds since the epoch, and the sellers whose shops are not open. */
export async function clockAndHidden(db: Db): Promise<{ now: number; hidden: string[] }> {
  const [row] = await rowsOf<{ now: number; hidden: string[] }>(
    db,
    sql`select ${micros(sql`clock_timestamp()`)} as now, array(select h from portage_hidden_sellers() h) as hidden`,
  );
  return row!;
}

/** The products of these sellers that are active and offered to agents (a shop closed or opened again). */
export const productIdsOfSellers = (db: Db, sellerIds: string[], after: string, limit: number) =>
  rowsOf<{ id: string }>(
    db,
    sql`select id from products where seller_id = any(string_to_array(${sellerIds.join(',')}, ','))
          and status = 'active' and agent_channels and id > ${after} order by id limit ${limit}`,
  );

const micros = (at: SQL) => sql`(extract(epoch from ${at}) * 1000000)::float8`;
const stamp = (us: number) => sql`to_timestamp(${us / 1e6})`;

/** How a seller's parcels are priced (docs/shipping.md): none is the platform's rate table. */
export interface FeedShippingRow {
  seller_id: string;
  rates: 'carrier' | 'flat';
  flat_cents: number | null;
  free_over_cents: number | null;
}

/**
 * eligibleFeedRowsAfter's page as JSON text (an array of FeedRow), with its sellers' shipping
 * profiles (an array of FeedShippingRow): the file feed hands the text to its worker threads,
 * which parse it themselves, so the reading thread neither parses nor copies a row's objects.
 */
export async function eligibleFeedPageText(
  db: Db,
  last: string,
  limit: number,
): Promise<{ rows: string; shipping: string; count: number }> {
  const [page] = await rowsOf<{ rows: string; shipping: string; count: number }>(
    db,
    sql`with f as (select * from (select ${FEED_COLUMNS} from ${FEED_FROM}
          where p.status = 'active' and p.agent_channels and p.id > ${last}
          order by p.id limit ${limit}) f where f.eligible)
        select (select coalesce(json_agg(f order by f.id), '[]')::text from f) as rows,
               (select count(*)::int from f) as count,
               (select coalesce(json_agg(json_build_object('seller_id', s.seller_id, 'rates', s.rates,
                         'flat_cents', s.flat_cents, 'free_over_cents', s.free_over_cents)), '[]')::text
                  from seller_shipping s where s.seller_id in (select seller_id from f)) as shipping`,
  );
  return page!;
}

// ---- the file feed's snapshots (feed_snapshots: file-feed.ts) ----------------------------------

/**
 * Claims snapshot `id`: a writer gone past its lease is forgotten first; none being written (a
 * unique index: two instances claiming at once, one wins) and, with `writtenAfter`, none written
 * since then. Answers whether this one claimed it.
 */
export async function insertSnapshotClaim(
  db: Db,
  c: { id: string; now: Date; leaseUntil: Date; writtenAfter: Date | undefined },
): Promise<boolean> {
  await db.execute(
    sql`delete from feed_snapshots where written_at is null and lease_until < ${c.now.toISOString()}`,
  );
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`insert into feed_snapshots (id, started_at, lease_until)
          select ${c.id}, ${c.now.toISOString()}, ${c.leaseUntil.toISOString()}
          where ${c.writtenAfter === undefined} or not exists (select 1 from feed_snapshots
                  where written_at > ${(c.writtenAfter ?? c.now).toISOString()})
          on conflict do nothing returning id`,
  );
  return rows.length > 0;
}

/** Extends a snapshot's lease; false when it was lost (taken over, or written). */
export async function extendSnapshotLease(db: Db, id: string, until: Date): Promise<boolean> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`update feed_snapshots set lease_until = ${until.toISOString()}
          where id = ${id} and written_at is null returning id`,
  );
  return rows.length > 0;
}

/** Whether more than `n` products are active and offered to agents (a bounded count). */
export async function offeredProductsExceed(db: Db, n: number): Promise<boolean> {
  const [row] = await rowsOf<{ more: boolean }>(
    db,
    sql`select count(*) > ${n} as more from (select 1 from products
          where status = 'active' and agent_channels limit ${n + 1}) c`,
  );
  return row?.more ?? false;
}

/** Names a snapshot's files once they are whole; false when its lease was lost meanwhile. */
export async function markSnapshotWritten(
  db: Db,
  w: { id: string; at: Date; files: FeedFileEntry[]; products: number },
): Promise<boolean> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`update feed_snapshots set written_at = ${w.at.toISOString()}, lease_until = null,
          files = ${JSON.stringify(w.files)}::jsonb, products = ${w.products}
        where id = ${w.id} and written_at is null returning id`,
  );
  return rows.length > 0;
}

/** Keeps the newest `kept` snapshots written, deletes the others' rows; answers the kept ids. */
export async function keepNewestSnapshots(db: Db, kept: number): Promise<string[]> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`select id from feed_snapshots where written_at is not null order by written_at desc, id desc limit ${kept}`,
  );
  const ids = rows.map((r) => r.id);
  await db.execute(
    sql`delete from feed_snapshots where written_at is not null
          and id <> all(string_to_array(${ids.join(',')}, ','))`,
  );
  return ids;
}

/** The last snapshot written, with its files; undefined before the first. */
export async function newestSnapshot(
  db: Db,
): Promise<{ id: string; writtenAt: Date; files: FeedFileEntry[] } | undefined> {
  const [row] = await rowsOf<{ id: string; written_at: string | Date; files: FeedFileEntry[] }>(
    db,
    sql`select id, written_at, files from feed_snapshots where written_at is not null
          order by written_at desc, id desc limit 1`,
  );
  return row ? { id: row.id, writtenAt: new Date(row.written_at), files: row.files } : undefined;
}

// ---- the Feed API pushes' state (platform_feeds: push.ts) -------------------------------------

/** A feed a pass claimed: its state, and its platform's Feed API. */
export type Feed = typeof platformFeeds.$inferSelect & { feedUrl: string; feedToken: string | null };

/** Gives every live platform with a Feed API its two feeds' rows (the ones it lacks). */
export async function addMissingFeeds(db: Db): Promise<void> {
  await db.execute(
    sql`insert into ${platformFeeds} (platform_id, language)
          select p.id, l from ${platforms} p cross join unnest(array['en-CA', 'fr-CA']) l
           where p.feed_url is not null and p.revoked_at is null
        on conflict do nothing`,
  );
}

/**
 * Claims up to `limit` feeds due at `now` (their next attempt come, no live lease, their platform
 * live with a Feed API) until `leaseUntil`: skipped if another instance holds them.
 */
export function claimDueFeeds(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<Feed[]> {
  const f = platformFeeds;
  return rowsOf<Feed>(
    db,
    sql`with picked as (
          select f.platform_id, f.language from ${f} f join ${platforms} p on p.id = f.platform_id
           where p.feed_url is not null and p.revoked_at is null
             and f.next_attempt_at <= ${now.toISOString()}::timestamptz
             and (f.lease_until is null or f.lease_until <= ${now.toISOString()}::timestamptz)
           order by f.next_attempt_at limit ${limit} for update of f skip locked)
        update ${f} set lease_until = ${leaseUntil.toISOString()}::timestamptz
          from picked, ${platforms} p
         where ${f.platformId} = picked.platform_id and ${f.language} = picked.language and p.id = picked.platform_id
        returning ${f.platformId} as "platformId", ${f.language} as language, ${f.remoteId} as "remoteId",
          ${f.fullCursor} as "fullCursor", ${f.fullFrom} as "fullFrom", ${f.fullDueAt} as "fullDueAt",
          ${f.changedUs} as "changedUs", ${f.changedId} as "changedId", ${f.hidden} as hidden,
          ${f.failures} as failures, p.feed_url as "feedUrl", p.feed_token as "feedToken"`,
  ).then((rows) => rows.map((r) => ({ ...r, fullDueAt: new Date(r.fullDueAt) })));
}
