// Wire schemas of agent platforms: the chat platforms that buy through the Agentic Commerce
// Protocol, each with an API key an admin issues (docs/api.md "Platforms").
import { z } from 'zod';
import { recordId, unixSeconds } from './common.ts';
import type { MessageKey } from './i18n.ts';

const MAX_URL_LENGTH = 2000;

/** The hosts a webhook URL may reach over plain http: this machine only (a test's receiver). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a webhook URL is not acceptable, if it is not. */
function webhookUrlProblem(value: string): MessageKey | undefined {
  if (!URL.canParse(value)) return 'validation.absoluteUrl';
  const url = new URL(value);
  if (url.username || url.password) return 'validation.urlCredentials';
  if (url.hash || value.includes('#')) return 'validation.urlFragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return 'validation.httpsOrLoopback';
}

/** A URL a platform gives us: https, or http on a loopback host; no credentials or fragment. */
const platformUrl = () =>
  z
    .string()
    .max(MAX_URL_LENGTH)
    .superRefine((value, ctx) => {
      const problem = webhookUrlProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

const webhookUrl = platformUrl().describe(
  'Where the service POSTs signed order events: https, or http on a loopback host',
);

/** A UCP platform's profile URL: the same rule as a webhook URL (its requests must name this one). */
const ucpProfileUrl = platformUrl().describe(
  "The platform's UCP profile (what its UCP-Agent header names): https, or http on a loopback host. Without it the platform cannot use UCP",
);

/** The platform's ACP Feed API base URL: the same rule as a webhook URL. */
const feedUrl = platformUrl().describe(
  'The platform\'s ACP Feed API base URL (docs/acp.md "Product feeds"): the service creates its feeds there and upserts the catalog. https, or http on a loopback host',
);
const feedToken = z
  .string()
  .min(1)
  .max(500)
  .regex(/^[\x21-\x7e]+$/, 'validation.feedToken')
  .describe('The bearer token the platform gave for its Feed API: sent, never shown again');

/** A feed URL needs its token, and a token its URL. */
const feedPair = (v: { feedUrl?: string | null; feedToken?: string }, ctx: z.RefinementCtx) => {
  if (v.feedUrl && v.feedToken === undefined) {
    ctx.addIssue({ code: 'custom', path: ['feedToken'], message: 'validation.feedTokenNeeded' });
  }
  if (v.feedToken !== undefined && !v.feedUrl) {
    ctx.addIssue({ code: 'custom', path: ['feedUrl'], message: 'validation.feedUrlNeeded' });
  }
};

export const createPlatformBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    webhookUrl,
    ucpProfileUrl: ucpProfileUrl.optional(),
    feedUrl: feedUrl.optional(),
    feedToken: feedToken.optional(),
  })
  .superRefine(feedPair);

export const platformParams = z.object({ id: z.string() });

/**
 * PATCH /admin/platforms/:id: its UCP profile, or its Feed API (URL and token together), set,
 * changed, or taken away (null); a field left out is kept. At least one.
 */
export const updatePlatformBody = z
  .strictObject({
    ucpProfileUrl: ucpProfileUrl.nullable().optional(),
    feedUrl: feedUrl.nullable().optional(),
    feedToken: feedToken.optional(),
  })
  .superRefine((v, ctx) => {
    if (Object.keys(v).length === 0) ctx.addIssue({ code: 'custom', message: 'validation.platformChange' });
    feedPair(v, ctx);
  });

export const platform = z
  .object({
    id: recordId('platforms'),
    name: z.string(),
    webhookUrl: z.string(),
    ucpProfileUrl: z.string().nullable().describe("The platform's UCP profile; null: no UCP"),
    feedUrl: z.string().nullable().describe("The platform's Feed API; null: no feed is pushed to it"),
    createdAt: unixSeconds,
    keyRotatedAt: unixSeconds.nullable().describe('When the key was last replaced; null if never'),
    revokedAt: unixSeconds.nullable().describe('When the platform lost access; null while it has it'),
  })
  .meta({ id: 'Platform' });

export const platformList = z.object({ platforms: z.array(platform) });

const apiKey = z.string().describe("The platform's API key, `acp_…`: shown once, stored only as its SHA-256");

export const issuedPlatform = platform
  .extend({
    apiKey,
    webhookSecret: z
      .string()
      .describe('`whsec_…`, the secret the service signs its webhooks with: shown once'),
  })
  .meta({ id: 'IssuedPlatform' });

export const rotatedKey = z.object({ id: recordId('platforms'), apiKey }).meta({ id: 'RotatedPlatformKey' });

const feedState = z.object({
  locale: z.enum(['en-CA', 'fr-CA']).describe('The language of the feed'),
  remoteId: z.string().nullable().describe("The feed's id on the platform; null until it is created"),
  snapshot: z
    .enum(['due', 'running', 'done'])
    .describe('The full snapshot: due (not sent yet, or its day has come), running, or done'),
  lastFullAt: unixSeconds.nullable().describe('When the last full snapshot finished'),
  lastSuccessAt: unixSeconds.nullable().describe('When the platform last accepted a request'),
  productsSent: z.number().int().describe('Products sent so far (snapshots and changes)'),
  failures: z.number().int().describe('Failed attempts in a row; 0 when the last one succeeded'),
  lastError: z.string().nullable().describe('Why the last attempt failed; null after a success'),
  nextAttemptAt: unixSeconds.describe('When the next attempt may start (backoff after failures)'),
});

export const platformFeeds = z
  .object({ feeds: z.array(feedState) })
  .meta({ id: 'PlatformFeeds', description: "The feeds the service keeps on a platform's Feed API" });
