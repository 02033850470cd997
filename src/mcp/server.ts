// `portage mcp`: the tool server over stdio, acting for the one user whose token it is given,
// reaching the service over HTTP through the typed client. Stdout carries protocol messages
// only; anything else goes to stderr. The SDK's serveStdio answers both protocol eras: a
// 2025-11-25 client's `initialize` and a 2026-07-28 client's `server/discover`.
// Its language is the person's at the terminal: PORTAGE_LOCALE, else the POSIX locale (LC_ALL,
// LC_MESSAGES, LANG); sent as Accept-Language, it also words the tool server's own messages.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { maskCredentials, maskUrl, PortageClient } from '../client/index.ts';
import { isOrigin } from '../contract/format.ts';
import { LOCALES, type Locale, negotiateLocale } from '../contract/i18n.ts';
import { createToolServer } from './tools.ts';

export class ToolServerConfigError extends Error {
  override name = 'ToolServerConfigError';
}

/** A POSIX locale name as a language tag: `fr_CA.UTF-8@euro` is `fr-CA`. */
const languageTag = (posix: string) => posix.trim().split(/[.@]/)[0]!.replace(/_/g, '-');

/**
 * The language of `portage mcp`'s person: PORTAGE_LOCALE (fr-CA, fr, fr_CA.UTF-8, en-CA, ...),
 * else the first of LC_ALL, LC_MESSAGES and LANG that is set (C and POSIX name no language);
 * undefined when none names one we speak (the service's answers then decide).
 */
export function stdioLocale(env: Record<string, string | undefined>): Locale | undefined {
  const given = env.PORTAGE_LOCALE?.trim();
  if (given) {
    const locale = negotiateLocale(languageTag(given));
    if (!locale) {
      throw new ToolServerConfigError(
        `PORTAGE_LOCALE must name one of ${LOCALES.join(', ')}; got "${given.slice(0, 50)}"`,
      );
    }
    return locale;
  }
  const posix = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v?.trim());
  return posix ? negotiateLocale(languageTag(posix)) : undefined;
}

/** VIEW_IMAGE_ORIGINS: origins (https://images.example.com, comma-separated) the views' images may come from. */
export function viewImageOrigins(given: string | undefined): string[] {
  const origins = (given ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const o of origins) {
    if (!isOrigin(o)) {
      throw new ToolServerConfigError(
        `VIEW_IMAGE_ORIGINS: "${o.slice(0, 100)}" is not an origin like https://images.example.com`,
      );
    }
  }
  return origins.map((o) => new URL(o).origin);
}

/** `portage mcp`: configured by SERVICE_URL and SERVICE_JWT_TOKEN (and its language, above). */
export async function runToolServer(env: Record<string, string | undefined> = process.env): Promise<void> {
  const missing = ['SERVICE_URL', 'SERVICE_JWT_TOKEN'].filter((k) => !env[k]?.trim());
  if (missing.length) {
    throw new ToolServerConfigError(
      `${missing.join(' and ')} must be set: SERVICE_URL is the service's base URL (e.g. https://portage.example), ` +
        'SERVICE_JWT_TOKEN the signed-in user token (POST /auth/login answers one)',
    );
  }
  const baseUrl = env.SERVICE_URL!.trim();
  const token = env.SERVICE_JWT_TOKEN!.trim();
  if (!URL.canParse(baseUrl) || !/^https?:/.test(baseUrl)) {
    const shown = maskCredentials(maskUrl(baseUrl), [token]);
    throw new ToolServerConfigError(`SERVICE_URL must be an http(s) URL; got "${shown}"`);
  }
  const client = new PortageClient({ baseUrl, token, locale: stdioLocale(env) });
  const imageOrigins = viewImageOrigins(env.VIEW_IMAGE_ORIGINS);
  serveStdio(() => createToolServer(client, { views: { imageOrigins } }), {
    onerror: (err) => process.stderr.write(client.maskCredentials(`portage mcp: ${err.message}\n`)),
  });
}
