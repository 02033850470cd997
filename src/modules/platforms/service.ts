// Agent platforms: admins issue, rotate and revoke their API keys; the ACP routes authenticate a
// platform by its key (docs/api.md "Platforms"). Only the key's SHA-256 is stored; the webhook
// secret is kept as issued, since the service signs the platform's webhooks with it.
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { isRecordId, newId, toUnix } from '../../contract/common.ts';
import { conflict, notFound } from '../../contract/errors.ts';
import type {
  createPlatformBody,
  issuedPlatform,
  platform,
  rotatedKey,
  updatePlatformBody,
} from '../../contract/platforms.ts';
import { recordAdminAction } from '../audit/service.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { randomToken, sha256 } from '../secrets.ts';
import { platformOfKeyHash } from './queries.ts';
import { platformFeeds, platforms } from './tables.ts';

type PlatformRow = typeof platforms.$inferSelect;
type Platform = z.infer<typeof platform>;

const KEY_PREFIX = 'acp_';
const SECRET_PREFIX = 'whsec_';
/** The most platforms one list answers. */
const LIST_LIMIT = 200;

/** Who is calling an ACP route: the platform its key belongs to. */
export interface PlatformCaller {
  id: string;
  name: string;
  webhookUrl: string;
  ucpProfileUrl: string | null;
}

/** A new secret: the prefix and 32 bytes of the CSPRNG, base64url (never the ids' pool). */
const secret = (prefix: string) => `${prefix}${randomToken()}`;

/** What is stored of a key: its SHA-256, hex. The key has 256 random bits: no slow hash is needed. */
const keyHash = sha256;

function toPlatform(row: PlatformRow): Platform {
  return {
    id: row.id,
    name: row.name,
    webhookUrl: row.webhookUrl,
    ucpProfileUrl: row.ucpProfileUrl,
    feedUrl: row.feedUrl,
    createdAt: toUnix(row.createdAt),
    keyRotatedAt: row.keyRotatedAt && toUnix(row.keyRotatedAt),
    revokedAt: row.revokedAt && toUnix(row.revokedAt),
  };
}

const noSuchPlatform = (id: string) => notFound('error.platforms.notFound', { id });

export async function createPlatform(
  ctx: RequestContext,
  input: z.infer<typeof createPlatformBody>,
): Promise<z.infer<typeof issuedPlatform>> {
  const apiKey = secret(KEY_PREFIX);
  const webhookSecret = secret(SECRET_PREFIX);
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .insert(platforms)
      .values({
        id: newId('platforms'),
        name: input.name,
        webhookUrl: input.webhookUrl,
        ucpProfileUrl: input.ucpProfileUrl ?? null,
        feedUrl: input.feedUrl ?? null,
        feedToken: input.feedToken ?? null,
        keyHash: keyHash(apiKey),
        webhookSecret,
        createdAt: ctx.now(),
      })
      .returning();
    await recordAdminAction(tx, {
      action: 'platform.create',
      subject: row!.id,
      after: { ...toPlatform(row!) },
    });
    return { ...toPlatform(row!), apiKey, webhookSecret };
  });
}

/** The platforms, newest first (at most 200). */
export async function listPlatforms(ctx: RequestContext): Promise<Platform[]> {
  const rows = await ctx.db
    .select()
    .from(platforms)
    .orderBy(desc(platforms.createdAt), desc(platforms.id))
    .limit(LIST_LIMIT);
  return rows.map(toPlatform);
}

/**
 * Issues the platform a new key; the old one stops working with this statement. A revoked
 * platform is 409 (checked in the update itself: a revocation racing it wins or loses whole).
 */
export async function rotatePlatformKey(
  ctx: RequestContext,
  keys: PlatformKeys,
  id: string,
): Promise<z.infer<typeof rotatedKey>> {
  return forgetting(keys, id, () => inTransaction(ctx, (tx) => rotate(tx, id)));
}

async function rotate(ctx: RequestContext, id: string): Promise<z.infer<typeof rotatedKey>> {
  if (!isRecordId('platforms', id)) throw noSuchPlatform(id);
  const apiKey = secret(KEY_PREFIX);
  const [row] = await ctx.db
    .update(platforms)
    .set({ keyHash: keyHash(apiKey), keyRotatedAt: ctx.now() })
    .where(and(eq(platforms.id, id), isNull(platforms.revokedAt)))
    .returning({ id: platforms.id });
  if (row) {
    await recordAdminAction(ctx, { action: 'platform.rotate-key', subject: row.id });
    return { id: row.id, apiKey };
  }
  const [exists] = await ctx.db.select({ id: platforms.id }).from(platforms).where(eq(platforms.id, id));
  if (!exists) throw noSuchPlatform(id);
  throw conflict('error.platforms.revokedNoRotate', { id });
}

/** Whether `url` is the UCP profile of a live platform (a linked person's platform must name one). */
export async function isRegisteredProfile(ctx: RequestContext, url: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: platforms.id })
    .from(platforms)
    .where(and(eq(platforms.ucpProfileUrl, url), isNull(platforms.revokedAt)))
    .limit(1);
  return row !== undefined;
}

/**
 * Sets (or, with null, takes away) the UCP profile a platform's UCP requests must name, or its
 * Feed API; a revoked one is 409. A feed URL changed or taken away forgets the feeds kept at the
 * old one: new ones are made at the new URL and sent the whole catalog.
 */
export async function updatePlatform(
  ctx: RequestContext,
  keys: PlatformKeys,
  id: string,
  input: z.infer<typeof updatePlatformBody>,
): Promise<Platform> {
  return forgetting(keys, id, () => inTransaction(ctx, (tx) => update(tx, id, input)));
}

async function update(
  ctx: RequestContext,
  id: string,
  input: z.infer<typeof updatePlatformBody>,
): Promise<Platform> {
  if (!isRecordId('platforms', id)) throw noSuchPlatform(id);
  const [before] = await ctx.db
    .select({ feedUrl: platforms.feedUrl })
    .from(platforms)
    .where(eq(platforms.id, id))
    .for('update');
  const [row] = await ctx.db
    .update(platforms)
    .set({
      ...(input.ucpProfileUrl !== undefined ? { ucpProfileUrl: input.ucpProfileUrl } : {}),
      ...(input.feedUrl !== undefined ? { feedUrl: input.feedUrl, feedToken: input.feedToken ?? null } : {}),
    })
    .where(and(eq(platforms.id, id), isNull(platforms.revokedAt)))
    .returning();
  if (row) {
    if (before?.feedUrl !== row.feedUrl) await forgetFeeds(ctx, row.id);
    await recordAdminAction(ctx, {
      action: 'platform.update',
      subject: row.id,
      after: {
        ...(input.ucpProfileUrl !== undefined ? { ucpProfileUrl: row.ucpProfileUrl } : {}),
        ...(input.feedUrl !== undefined ? { feedUrl: row.feedUrl } : {}),
      },
    });
    return toPlatform(row);
  }
  const [exists] = await ctx.db.select({ id: platforms.id }).from(platforms).where(eq(platforms.id, id));
  if (!exists) throw noSuchPlatform(id);
  throw conflict('error.platforms.revoked', { id });
}

/** Revokes the platform at once; a revoked platform is answered as it is (its first revocation time kept). */
export async function revokePlatform(ctx: RequestContext, keys: PlatformKeys, id: string): Promise<Platform> {
  return forgetting(keys, id, () => inTransaction(ctx, (tx) => revoke(tx, id)));
}

async function revoke(ctx: RequestContext, id: string): Promise<Platform> {
  if (!isRecordId('platforms', id)) throw noSuchPlatform(id);
  const [row] = await ctx.db
    .update(platforms)
    .set({ revokedAt: sql`coalesce(${platforms.revokedAt}, ${ctx.now().toISOString()}::timestamptz)` })
    .where(eq(platforms.id, id))
    .returning();
  if (!row) throw noSuchPlatform(id);
  await recordAdminAction(ctx, {
    action: 'platform.revoke',
    subject: row.id,
    after: { revokedAt: row.revokedAt },
  });
  return toPlatform(row);
}

/** Runs a change of platform `id`, then has this instance forget what it remembered of it. */
async function forgetting<T>(keys: PlatformKeys, id: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } finally {
    keys.forget(id);
  }
}

/** What one instance remembers of platforms' keys: at most this many. */
const KEY_CACHE_MAX = 10_000;

export interface PlatformKeys {
  /** authenticatePlatform, remembering a live key's platform for `cacheMs`. */
  authenticate(ctx: RequestContext, apiKey: string): Promise<PlatformCaller | undefined>;
  /** Forgets a platform at once (its key rotated or revoked, its profile changed here). */
  forget(platformId: string): void;
}

/**
 * Platforms by key, trusted for `cacheMs` after a read (AUTH_CACHE_MS, as a token's user is):
 * every ACP and UCP request asks. A change made through this instance's admin routes applies at
 * once; one made through another instance, within `cacheMs`. Unknown keys are never remembered.
 */
export function platformKeys(cacheMs: number): PlatformKeys {
  const known = new Map<string, { platform: PlatformCaller; until: number }>();
  // Bumped by every forget: a read that began before one (it may have read the old key) is not kept.
  let epoch = 0;
  return {
    async authenticate(ctx, apiKey) {
      if (!apiKey.startsWith(KEY_PREFIX)) return undefined;
      const hash = keyHash(apiKey);
      const now = ctx.now().getTime();
      const hit = known.get(hash);
      if (hit && hit.until > now) return hit.platform;
      known.delete(hash);
      const began = epoch;
      const row = await authenticatePlatform(ctx, apiKey);
      if (row && cacheMs > 0 && began === epoch) {
        if (known.size >= KEY_CACHE_MAX) known.clear();
        known.set(hash, { platform: row, until: now + cacheMs });
      }
      return row;
    },
    forget(platformId) {
      epoch++;
      for (const [hash, entry] of known) if (entry.platform.id === platformId) known.delete(hash);
    },
  };
}

/**
 * The platform an API key belongs to, or undefined when the key is unknown or its platform
 * revoked. A key without the `acp_` prefix is answered without a query. Prepared: every ACP
 * request asks.
 */
export async function authenticatePlatform(
  ctx: RequestContext,
  apiKey: string,
): Promise<PlatformCaller | undefined> {
  if (!apiKey.startsWith(KEY_PREFIX)) return undefined;
  const [row] = await platformOfKeyHash(ctx.db, keyHash(apiKey));
  return row;
}

/**
 * Where to send a platform its webhooks and the secret to sign them with; undefined when the
 * platform is unknown or revoked (a revoked platform hears nothing more).
 */
export async function platformWebhookTarget(
  ctx: RequestContext,
  id: string,
): Promise<{ webhookUrl: string; webhookSecret: string } | undefined> {
  if (!isRecordId('platforms', id)) return undefined;
  const [row] = await ctx.db
    .select({ webhookUrl: platforms.webhookUrl, webhookSecret: platforms.webhookSecret })
    .from(platforms)
    .where(and(eq(platforms.id, id), isNull(platforms.revokedAt)));
  return row;
}

/** Forgets the feeds kept on a platform's Feed API (its URL changed or taken away). */
async function forgetFeeds(ctx: RequestContext, platformId: string): Promise<void> {
  await ctx.db.delete(platformFeeds).where(eq(platformFeeds.platformId, platformId));
}
