// Wire schemas of the file feed (docs/acp.md "File feed"): the current snapshot's files, each at a
// signed URL, as GET /acp/feed (the platform's key) and GET /admin/platforms/:id/feed-files answer.
import { z } from 'zod';
import { LOCALES } from './i18n.ts';

export const feedFileLink = z
  .object({
    locale: z.enum(LOCALES),
    format: z.enum(['jsonl', 'csv']),
    url: z.string().describe('GET it (no Authorization): gzipped, signed for this platform until expires_at'),
    expires_at: z.string().describe('RFC 3339: the URL is refused (403) from then on'),
    generated_at: z.string().describe('RFC 3339: when the snapshot was written'),
    rows: z.number().int().min(0).describe('Rows (one per variant on sale), the header not counted'),
    bytes: z.number().int().min(0).describe('Size of the gzipped file'),
  })
  .meta({ id: 'FeedFileLink' });

export const feedFiles = z
  .object({
    generated_at: z.string(),
    files: z.array(feedFileLink).max(4),
  })
  .meta({ id: 'FeedFiles' });

export const feedFileParams = z.object({ name: z.string().max(200) });

export const feedFileQuery = z.object({
  platform: z.string().max(100).optional(),
  expires: z.string().max(20).optional(),
  signature: z.string().max(128).optional(),
});
