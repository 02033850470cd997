// The file feed's links (docs/acp.md "File feed"): a platform asks GET /acp/feed for the current
// snapshot's files, each at a URL naming the platform, the file and an expiry, signed with
// HMAC-SHA256 under a secret derived from the token signing key (every instance derives the same
// one; rotating the key retires the links). A download checks the signature (timing-safe), the
// expiry, that the platform is not revoked, and the name against the writer's own pattern.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { forbidden, notFound } from '../../contract/errors.ts';
import type { Locale } from '../../contract/i18n.ts';
import type { RequestContext } from '../context.ts';
import { platformWebhookTarget } from '../platforms/service.ts';
import { currentSnapshot, FEED_FILE_NAME, type FeedFormat } from './file-feed.ts';

/** A link works this long after it is handed out: a day, the snapshots' default rhythm. */
export const FEED_LINK_SECONDS = 86_400;

export interface FeedLinkDeps {
  /** keys.derive('feed-files'). */
  secret: Buffer;
  publicBaseUrl: string;
  /** FEED_DIR. */
  dir: string;
}

export interface FeedFileLink {
  locale: Locale;
  format: FeedFormat;
  url: string;
  /** RFC 3339, as ACP writes times. */
  expires_at: string;
  generated_at: string;
  rows: number;
  bytes: number;
}

const macOf = (secret: Buffer, platformId: string, name: string, expires: number) =>
  createHmac('sha256', secret).update(`feed-file\n${platformId}\n${name}\n${expires}`).digest();

/** The signed URL of file `name` for `platformId`, valid until `expires` (Unix seconds). */
export function feedFileUrl(deps: FeedLinkDeps, platformId: string, name: string, expires: number): string {
  const query = new URLSearchParams({
    platform: platformId,
    expires: String(expires),
    signature: macOf(deps.secret, platformId, name, expires).toString('hex'),
  });
  return `${deps.publicBaseUrl}/feeds/files/${name}?${query}`;
}

/** The current snapshot's files for a platform, each at a URL valid FEED_LINK_SECONDS; 404 before the first. */
export async function feedFileLinks(
  ctx: RequestContext,
  deps: FeedLinkDeps,
  platformId: string,
): Promise<{ generated_at: string; files: FeedFileLink[] }> {
  const snapshot = await currentSnapshot(ctx);
  if (!snapshot) throw notFound('feeds.error.noSnapshot');
  const expires = Math.floor(ctx.now().getTime() / 1000) + FEED_LINK_SECONDS;
  const generated_at = snapshot.writtenAt.toISOString();
  return {
    generated_at,
    files: snapshot.files.map((f) => ({
      locale: f.locale,
      format: f.format,
      url: feedFileUrl(deps, platformId, f.name, expires),
      expires_at: new Date(expires * 1000).toISOString(),
      generated_at,
      rows: f.rows,
      bytes: f.bytes,
    })),
  };
}

export interface FeedFileQuery {
  platform?: string;
  expires?: string;
  signature?: string;
}

/**
 * The file a signed link names, opened for streaming: 404 for a name the writer never gives or a
 * file no longer kept, 403 for a signature that does not hold (tampered, another platform's, a
 * revoked platform's) or a link past its expiry.
 */
export async function openFeedFile(
  ctx: RequestContext,
  deps: FeedLinkDeps,
  name: string,
  query: FeedFileQuery,
): Promise<{ stream: Readable; bytes: number }> {
  if (!FEED_FILE_NAME.test(name)) throw notFound('feeds.error.noSuchFile');
  const { platform = '', expires = '', signature = '' } = query;
  const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : undefined;
  const seconds = /^\d{1,12}$/.test(expires) ? Number(expires) : undefined;
  if (!given || seconds === undefined || !platform || platform.length > 100)
    throw forbidden('feeds.error.badSignature');
  if (!timingSafeEqual(given, macOf(deps.secret, platform, name, seconds)))
    throw forbidden('feeds.error.badSignature');
  if (seconds * 1000 <= ctx.now().getTime()) throw forbidden('feeds.error.linkExpired');
  // A revoked platform's links stop at once (a live one is read again at each download).
  if (!(await platformWebhookTarget(ctx, platform))) throw forbidden('feeds.error.badSignature');
  // Opened before it is measured: a file the writer deletes meanwhile is still read whole.
  const handle = await open(path.join(deps.dir, name), 'r').catch(() => undefined);
  if (!handle) throw notFound('feeds.error.noSuchFile');
  const info = await handle.stat();
  return { stream: handle.createReadStream(), bytes: info.size };
}

/** An admin's view of a platform's links (the desk, support): 404 for an unknown or revoked platform. */
export async function platformFeedFileLinks(ctx: RequestContext, deps: FeedLinkDeps, platformId: string) {
  if (!(await platformWebhookTarget(ctx, platformId)))
    throw notFound('error.platforms.notFound', { id: platformId });
  return feedFileLinks(ctx, deps, platformId);
}
