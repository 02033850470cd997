// The ACP Feed API pushes (docs/acp.md "Product feeds"): for each platform that gave a Feed API,
// one feed per language on it (POST /feeds), a full snapshot of the catalog at first and then
// daily, and between them the products changed since the last pass (PATCH /feeds/{id}/products,
// upserts by product id). A product that left the feeds is sent once more, its variants
// discontinued. A job claims a feed by a lease (no transaction stays open across the platform's
// calls), saves where it reached after each accepted request, and backs off after a failure.
import { createHash, randomUUID } from 'node:crypto';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { isRecordId, toUnix } from '../../contract/common.ts';
import { notFound } from '../../contract/errors.ts';
import type { Locale } from '../../contract/i18n.ts';
import type { platformFeeds as platformFeedsAnswer } from '../../contract/platforms.ts';
import { sendFenced } from '../../http/outbound.ts';
import type { Job } from '../../jobs/runner.ts';
import type { RequestContext } from '../context.ts';
import { platformFeeds, platforms } from '../platforms/tables.ts';
import { type FeedContext, type FeedProduct, feedContext, feedProductOf } from './document.ts';
import {
  addMissingFeeds,
  claimDueFeeds,
  clockAndHidden,
  eligibleFeedRowsAfter,
  type Feed,
  type FeedRow,
  feedRowsByIds,
  lastCandidateAfter,
  productIdsOfSellers,
  productsChangedBetween,
} from './queries.ts';

/** The ACP version whose Feed API we speak (its API-Version header). */
export const FEED_API_VERSION = '2026-04-17';
export const FEED_LOCALES: readonly Locale[] = ['en-CA', 'fr-CA'];
/** Products a snapshot's page reads; a request carries at most these many variants. */
const PAGE = 100;
const VARIANTS_PER_REQUEST = 500;
/** Requests one feed may make in a pass; a pass that made them all is followed at once by another. */
const REQUESTS_PER_PASS = 10;
/** Feeds one pass claims. */
const FEEDS_PER_PASS = 4;
/** A claimed feed is not claimed again for this long; each accepted request extends it. */
const LEASE_MS = 5 * 60_000;
const SNAPSHOT_EVERY_MS = 24 * 60 * 60_000;
const TIMEOUT_MS = 15_000;
const ANSWER_MAX_BYTES = 16 * 1024;
/** The first retry after a failure, doubled with each failure in a row up to the ceiling. */
const BACKOFF_MS = 30_000;
const BACKOFF_MAX_MS = 60 * 60_000;
const ERROR_MAX_CHARS = 300;

export interface FeedPushDeps {
  publicBaseUrl: string;
  /** http to loopback allowed, private addresses not refused (a test's receiver). */
  development: boolean;
  /**
   * Changes are sent once this old (by the database's clock): a transaction that stamped a
   * product may commit a little later, and is still seen (FEED_SETTLE_MS).
   */
  settleMs: number;
}

export function feedPushJob(deps: FeedPushDeps): Job {
  return {
    name: 'agent-feeds',
    everyMs: 15_000,
    batch: REQUESTS_PER_PASS,
    run: (ctx, stopping) => pushFeeds(ctx, deps, stopping),
  };
}

/** One pass: the feeds due, each as far as its budget of requests goes. Answers the most requests one feed made. */
export async function pushFeeds(
  ctx: RequestContext,
  deps: FeedPushDeps,
  stopping?: AbortSignal,
): Promise<number> {
  await addMissingFeeds(ctx.db);
  const claimed = await claimFeeds(ctx);
  let most = 0;
  for (const feed of claimed) {
    if (stopping?.aborted) {
      await save(ctx, feed, { leaseUntil: null });
      continue;
    }
    most = Math.max(most, await pushOne(ctx, deps, feed));
  }
  return most;
}

function claimFeeds(ctx: RequestContext): Promise<Feed[]> {
  const now = ctx.now();
  return claimDueFeeds(ctx.db, now, new Date(now.getTime() + LEASE_MS), FEEDS_PER_PASS);
}

type FeedChange = {
  [K in keyof typeof platformFeeds.$inferInsert]?: (typeof platformFeeds.$inferInsert)[K] | SQL;
};

/** Saves what a pass reached; the lease is extended unless the change ends it. */
async function save(ctx: RequestContext, feed: Feed, change: FeedChange): Promise<void> {
  await ctx.db
    .update(platformFeeds)
    .set({ leaseUntil: new Date(ctx.now().getTime() + LEASE_MS), ...change })
    .where(and(eq(platformFeeds.platformId, feed.platformId), eq(platformFeeds.language, feed.language)));
}

/** Why a request to the platform did not succeed: the feed's last error, said to the admins. */
class FeedFailure extends Error {
  constructor(
    message: string,
    /** The platform no longer knows the feed (404): it is made again and sent whole. */
    readonly gone = false,
  ) {
    super(message);
  }
}

async function pushOne(ctx: RequestContext, deps: FeedPushDeps, feed: Feed): Promise<number> {
  const fc = feedContext(deps.publicBaseUrl, feed.language);
  const sent = { requests: 0, products: 0 };
  try {
    if (feed.remoteId === null) {
      feed.remoteId = await createRemoteFeed(deps, feed);
      sent.requests++;
      await save(ctx, feed, { remoteId: feed.remoteId, fullCursor: null, fullDueAt: new Date(0) });
      feed.fullDueAt = new Date(0);
      feed.fullCursor = null;
    }
    if (feed.fullCursor !== null || feed.fullDueAt.getTime() <= ctx.now().getTime()) {
      await snapshot(ctx, deps, feed, fc, sent);
    } else {
      await changes(ctx, deps, feed, fc, sent);
    }
    await save(ctx, feed, {
      leaseUntil: null,
      failures: 0,
      lastError: null,
      nextAttemptAt: ctx.now(),
      ...(sent.requests > 0 ? { lastSuccessAt: ctx.now() } : {}),
      productsSent: sql`${platformFeeds.productsSent} + ${sent.products}`,
    });
  } catch (err) {
    const failure =
      err instanceof FeedFailure ? err : new FeedFailure(err instanceof Error ? err.message : 'failed');
    if (!(err instanceof FeedFailure))
      ctx.log.warn({ err, platform: feed.platformId }, 'agent feed push failed');
    const wait = Math.min(BACKOFF_MS * 2 ** Math.min(feed.failures, 20), BACKOFF_MAX_MS);
    await save(ctx, feed, {
      leaseUntil: null,
      failures: feed.failures + 1,
      lastError: failure.message.slice(0, ERROR_MAX_CHARS),
      nextAttemptAt: new Date(ctx.now().getTime() + wait),
      productsSent: sql`${platformFeeds.productsSent} + ${sent.products}`,
      ...(failure.gone ? { remoteId: null, fullCursor: null, fullFrom: null } : {}),
    });
  }
  return sent.requests;
}

/**
 * The full snapshot, resumed where the last pass left it: every product in the feeds, by id.
 * Changes made meanwhile are sent after it, from the stamp it began at.
 */
async function snapshot(
  ctx: RequestContext,
  deps: FeedPushDeps,
  feed: Feed,
  fc: FeedContext,
  sent: { requests: number; products: number },
): Promise<void> {
  let cursor = feed.fullCursor ?? '';
  let from = feed.fullFrom;
  if (feed.fullCursor === null || from === null) {
    const { now, hidden } = await clockAndHidden(ctx.db);
    from = now - deps.settleMs * 1000;
    await save(ctx, feed, { fullCursor: '', fullFrom: from, hidden });
  }
  while (sent.requests < REQUESTS_PER_PASS) {
    const end = await lastCandidateAfter(ctx.db, cursor, PAGE);
    if (end === undefined) {
      const now = ctx.now();
      await save(ctx, feed, {
        fullCursor: null,
        fullFrom: null,
        changedUs: from,
        changedId: '',
        lastFullAt: now,
        fullDueAt: new Date(now.getTime() + SNAPSHOT_EVERY_MS),
      });
      return;
    }
    const rows = await eligibleFeedRowsAfter(ctx.db, cursor, PAGE);
    await upsert(deps, feed, rows, fc, sent);
    cursor = end;
    await save(ctx, feed, { fullCursor: cursor });
  }
}

/**
 * What changed since the last pass: the products of shops closed or opened again since it, then
 * the products changed (their row or a variant) up to the settle time ago, in stamp order.
 */
async function changes(
  ctx: RequestContext,
  deps: FeedPushDeps,
  feed: Feed,
  fc: FeedContext,
  sent: { requests: number; products: number },
): Promise<void> {
  const { now, hidden } = await clockAndHidden(ctx.db);
  const was = new Set(feed.hidden);
  const is = new Set(hidden);
  const turned = [...hidden.filter((h) => !was.has(h)), ...feed.hidden.filter((h) => !is.has(h))];
  if (turned.length > 0) {
    // A shop's whole catalog, however long: the hidden set is saved only once all of it is sent.
    for (let after = ''; ; ) {
      const ids = await productIdsOfSellers(ctx.db, turned, after, PAGE);
      if (ids.length === 0) break;
      await upsert(
        deps,
        feed,
        await feedRowsByIds(
          ctx.db,
          ids.map((r) => r.id),
        ),
        fc,
        sent,
      );
      after = ids[ids.length - 1]!.id;
      await save(ctx, feed, {});
    }
    await save(ctx, feed, { hidden });
  }
  const until = now - deps.settleMs * 1000;
  while (sent.requests < REQUESTS_PER_PASS) {
    const read = await productsChangedBetween(ctx.db, feed.changedUs, until, PAGE);
    const fresh = read.filter(
      (r) => r.at > feed.changedUs || (r.at === feed.changedUs && r.id > feed.changedId),
    );
    if (fresh.length === 0) return;
    // A product is sent at its latest change: an earlier one of the same product (its row, then
    // a variant) is passed over, the scan reaching the latest later, in this pass or the next.
    const ids = [...new Set(fresh.filter((r) => r.at >= r.latest).map((r) => r.id))];
    if (ids.length > 0) await upsert(deps, feed, await feedRowsByIds(ctx.db, ids), fc, sent);
    const last = fresh[fresh.length - 1]!;
    feed.changedUs = last.at;
    feed.changedId = last.id;
    await save(ctx, feed, { changedUs: last.at, changedId: last.id });
    if (read.length < PAGE) return;
  }
}

const headers = (feed: Feed, idempotencyKey: string) => ({
  'content-type': 'application/json',
  accept: 'application/json',
  'api-version': FEED_API_VERSION,
  'idempotency-key': idempotencyKey,
  'user-agent': 'Portage-ACP-Feeds',
  ...(feed.feedToken ? { authorization: `Bearer ${feed.feedToken}` } : {}),
});

const base = (feed: Feed) => feed.feedUrl.replace(/\/+$/, '');

async function call(
  deps: FeedPushDeps,
  feed: Feed,
  method: 'POST' | 'PATCH',
  path: string,
  body: unknown,
  key: string,
) {
  try {
    return await sendFenced(
      method,
      `${base(feed)}${path}`,
      headers(feed, key),
      JSON.stringify(body),
      deps.development,
      TIMEOUT_MS,
      ANSWER_MAX_BYTES,
    );
  } catch (err) {
    throw new FeedFailure(`${method} ${path}: ${err instanceof Error ? err.message : 'failed'}`);
  }
}

const parsed = (body: string): Record<string, unknown> | undefined => {
  try {
    const v = JSON.parse(body) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

/** POST /feeds for Canada: answers the new feed's id. The same platform, language and URL send the same key. */
async function createRemoteFeed(deps: FeedPushDeps, feed: Feed): Promise<string> {
  const key = createHash('sha256')
    .update(`${feed.platformId}\n${feed.language}\n${feed.feedUrl}`)
    .digest('hex');
  const answer = await call(
    deps,
    feed,
    'POST',
    '/feeds',
    { target_country: 'CA' },
    `feed-${key.slice(0, 32)}`,
  );
  if (answer.status !== 201 && answer.status !== 200)
    throw new FeedFailure(`POST /feeds answered ${answer.status}`);
  const id = parsed(answer.body)?.id;
  if (typeof id !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(id)) {
    throw new FeedFailure(`POST /feeds answered ${answer.status} without a usable feed id`);
  }
  return id;
}

/** PATCHes `rows` as products, in requests of at most VARIANTS_PER_REQUEST variants. */
async function upsert(
  deps: FeedPushDeps,
  feed: Feed,
  rows: FeedRow[],
  fc: FeedContext,
  sent: { requests: number; products: number },
): Promise<void> {
  let batch: FeedProduct[] = [];
  let variants = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const path = `/feeds/${encodeURIComponent(feed.remoteId!)}/products`;
    const answer = await call(deps, feed, 'PATCH', path, { products: batch }, randomUUID());
    sent.requests++;
    if (answer.status === 404)
      throw new FeedFailure(`PATCH ${path} answered 404: the feed is made again`, true);
    if (answer.status !== 200) throw new FeedFailure(`PATCH ${path} answered ${answer.status}`);
    if (parsed(answer.body)?.accepted !== true)
      throw new FeedFailure(`PATCH ${path}: the products were not accepted`);
    sent.products += batch.length;
    batch = [];
    variants = 0;
  };
  for (const row of rows) {
    const product = feedProductOf(row, fc);
    if (variants + product.variants.length > VARIANTS_PER_REQUEST) await flush();
    batch.push(product);
    variants += product.variants.length;
  }
  await flush();
}

type FeedState = z.infer<typeof platformFeedsAnswer>['feeds'][number];

/** GET /admin/platforms/:id/feeds: the platform's feeds (none before its first pass); 404 for no such platform. */
export async function platformFeedStates(
  ctx: RequestContext,
  platformId: string,
): Promise<{ feeds: FeedState[] }> {
  const [row] = isRecordId('platforms', platformId)
    ? await ctx.db.select({ id: platforms.id }).from(platforms).where(eq(platforms.id, platformId))
    : [];
  if (!row) throw notFound('error.platforms.notFound', { id: platformId });
  return { feeds: (await feedStates(ctx, platformId)).map(({ platformId: _, ...state }) => state) };
}

/** The feeds kept on platforms' Feed APIs (of one platform), and how each stands (the desk). */
export async function feedStates(
  ctx: RequestContext,
  platformId?: string,
): Promise<Array<FeedState & { platformId: string }>> {
  const rows = await ctx.db
    .select()
    .from(platformFeeds)
    .where(platformId === undefined ? undefined : eq(platformFeeds.platformId, platformId))
    .orderBy(platformFeeds.platformId, platformFeeds.language)
    .limit(400);
  const now = ctx.now().getTime();
  return rows.map((r) => ({
    platformId: r.platformId,
    locale: r.language,
    remoteId: r.remoteId,
    snapshot:
      r.fullCursor !== null
        ? 'running'
        : r.lastFullAt === null || r.fullDueAt.getTime() <= now
          ? 'due'
          : 'done',
    lastFullAt: r.lastFullAt && toUnix(r.lastFullAt),
    lastSuccessAt: r.lastSuccessAt && toUnix(r.lastSuccessAt),
    productsSent: r.productsSent,
    failures: r.failures,
    lastError: r.lastError,
    nextAttemptAt: toUnix(r.nextAttemptAt),
  }));
}
