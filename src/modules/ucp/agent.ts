// Who a UCP request speaks for (docs/ucp.md "Platforms and profiles"): the `UCP-Agent` header
// names the platform's profile; the profile is fetched (fenced like OAuth metadata documents:
// src/http/outbound.ts) and cached, its protocol version checked, and the capabilities both
// sides declare negotiated (the spec's intersection: name, then the latest common version,
// then extensions whose parent is gone pruned until none is).

import { parseDictionary } from 'structured-headers';
import { inputProblems } from '../../contract/errors.ts';
import { text } from '../../contract/i18n.ts';
import {
  UCP_VERSION,
  type UcpBusinessProfile,
  type UcpPlatformProfile,
  ucpPlatformProfile,
} from '../../contract/ucp.ts';
import { DOCUMENT_CACHE_LIMITS, DocumentCache, fetchDocument } from '../../http/outbound.ts';

import { UcpFailure } from './errors.ts';

const MAX_URL_LENGTH = 2000;
/** How long a profile that could not be had is refused without fetching it again. */
export const FAILURE_SECONDS = 30;
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//;

/** The profile URL of a `UCP-Agent: profile="https://…"` header (RFC 8941 dictionary). */
export function profileUrlOf(header: string | string[] | undefined, development: boolean): string {
  const refuse = (why: 'required' | 'notDictionary' | 'notString' | 'notAbsolute' | 'notHttps') =>
    new UcpFailure(400, 'invalid_profile_url', text('ucp.error.badAgentHeader', { why }));
  if (typeof header !== 'string' || header === '') throw refuse('required');
  let profile: unknown;
  try {
    profile = parseDictionary(header).get('profile')?.[0];
  } catch {
    throw refuse('notDictionary');
  }
  if (typeof profile !== 'string') throw refuse('notString');
  if (profile.length > MAX_URL_LENGTH || !URL.canParse(profile)) throw refuse('notAbsolute');
  const url = new URL(profile);
  const allowed = url.protocol === 'https:' || (development && LOOPBACK.test(profile));
  if (!allowed || url.username || url.password || url.hash) throw refuse('notHttps');
  return profile;
}

export interface Profiles {
  /** The platform's profile, fetched or from the cache; refusals are UcpFailures with the spec's codes. */
  get(url: string): Promise<UcpPlatformProfile>;
}

export function createProfiles(opts: { development: boolean; now?: () => Date }): Profiles {
  const now = () => (opts.now ? opts.now().getTime() : Date.now());
  // The spec's floor: a profile is kept at least a minute, whatever its Cache-Control says.
  const cache = new DocumentCache<UcpPlatformProfile>(DOCUMENT_CACHE_LIMITS);
  // The fetch's reason is its own words (src/http/outbound.ts), quoted as they are.
  const unreachable = (why: string) =>
    new UcpFailure(424, 'profile_unreachable', text('ucp.error.profileUnreachable', { why }));

  // A profile that could not be had (unreachable, not JSON, malformed) is refused again for
  // FAILURE_SECONDS without a fetch: repeated requests naming it cost us one fetch, not one each.
  const failures = new DocumentCache<UcpFailure>({ ...DOCUMENT_CACHE_LIMITS, minSeconds: 0 });
  // Requests that miss the cache together share one fetch (a URL's, while it is under way): the
  // map holds no more entries than fetches in flight.
  const inFlight = new Map<string, Promise<UcpPlatformProfile>>();

  function get(url: string): Promise<UcpPlatformProfile> {
    const hit = cache.get(url, now());
    if (hit) return Promise.resolve(hit);
    const failed = failures.get(url, now());
    if (failed) return Promise.reject(failed);
    let fetching = inFlight.get(url);
    if (!fetching) {
      fetching = fetchProfile(url)
        .catch((err: unknown) => {
          if (err instanceof UcpFailure) failures.set(url, err, FAILURE_SECONDS, now());
          throw err;
        })
        .finally(() => inFlight.delete(url));
      inFlight.set(url, fetching);
    }
    return fetching;
  }

  async function fetchProfile(url: string): Promise<UcpPlatformProfile> {
    const { body, maxAge } = await fetchDocument(url, opts.development, unreachable);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new UcpFailure(422, 'profile_malformed', text('ucp.error.profileNotJson'));
    }
    // UCP demands https everywhere; development also takes http on a loopback host (a local
    // platform, the tests' receivers): checked as if it were https, used as it is.
    const checked = ucpPlatformProfile.safeParse(
      opts.development
        ? JSON.parse(body.replace(/"http:\/\/(127\.0\.0\.1|localhost|\[::1\])/g, '"https://$1'))
        : json,
    );
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      const [problem] = inputProblems(ucpPlatformProfile, { issues: [issue] });
      throw new UcpFailure(
        422,
        'profile_malformed',
        text('ucp.error.profileMalformed', {
          field: issue.path.join('.') || '(root)',
          problem: problem!.message,
        }),
      );
    }
    const profile = json as UcpPlatformProfile;
    cache.set(url, profile, maxAge, now());
    return profile;
  }

  return { get };
}

/** The capabilities both sides speak, each at the version chosen. */
export type Negotiated = Map<string, { version: string; extends: string[] }>;

/**
 * The spec's intersection: our capabilities the platform also declares, each at the latest
 * version both list; then extensions none of whose parents survived are dropped, until stable.
 * The platform's protocol version must be ours (we publish no other).
 */
export function negotiate(ours: UcpBusinessProfile, theirs: UcpPlatformProfile): Negotiated {
  if (theirs.ucp.version !== UCP_VERSION) {
    throw new UcpFailure(
      422,
      'version_unsupported',
      text('ucp.error.versionUnsupported', {
        version: String(theirs.ucp.version).slice(0, 20),
        ours: UCP_VERSION,
      }),
    );
  }
  const negotiated: Negotiated = new Map();
  for (const [name, entries] of Object.entries(ours.ucp.capabilities ?? {})) {
    const theirVersions = new Set((theirs.ucp.capabilities?.[name] ?? []).map((e) => e.version));
    const common = entries
      .filter((e) => theirVersions.has(e.version))
      .sort((a, b) => (a.version < b.version ? 1 : -1));
    const chosen = common[0];
    if (!chosen) continue;
    const parents =
      chosen.extends === undefined
        ? []
        : typeof chosen.extends === 'string'
          ? [chosen.extends]
          : chosen.extends;
    negotiated.set(name, { version: chosen.version, extends: parents });
  }
  for (let pruned = true; pruned; ) {
    pruned = false;
    for (const [name, c] of negotiated) {
      if (c.extends.length > 0 && !c.extends.some((p) => negotiated.has(p))) {
        negotiated.delete(name);
        pruned = true;
      }
    }
  }
  return negotiated;
}

/** The negotiated capabilities an answer about `root` lists: the root and its extensions. */
export function capabilitiesFor(
  negotiated: Negotiated,
  root: string,
): Record<string, Array<{ version: string }>> {
  const listed: Record<string, Array<{ version: string }>> = {};
  for (const [name, c] of negotiated) {
    if (name === root || c.extends.includes(root)) listed[name] = [{ version: c.version }];
  }
  return listed;
}
