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

export const createPlatformBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  webhookUrl,
  ucpProfileUrl: ucpProfileUrl.optional(),
});

export const platformParams = z.object({ id: z.string() });

/** PATCH /admin/platforms/:id: its UCP profile set, changed, or taken away (null). */
export const updatePlatformBody = z.strictObject({ ucpProfileUrl: ucpProfileUrl.nullable() });

export const platform = z
  .object({
    id: recordId('platforms'),
    name: z.string(),
    webhookUrl: z.string(),
    ucpProfileUrl: z.string().nullable().describe("The platform's UCP profile; null: no UCP"),
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
