// Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document): a `client_id`
// that is an https URL names a JSON document of client metadata, fetched from that URL. The
// fetch is an outbound request chosen by a stranger, so it is fenced
// (docs/api.md "OAuth authorization server"): https only; the host's addresses are resolved and
// checked before connecting, and the socket
// connects to the checked address (no second resolution a DNS rebinding could change); private,
// loopback, link-local and unique-local addresses are refused outside development; 5 s; 64 KiB;
// no redirects; answers cached (LRU, 1,000 entries, max-age honoured between 1 and 10 minutes).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import {
  type Client,
  clientFromMetadata,
  isLoopbackHost,
  type MetadataDocuments,
  OAuthError,
} from './clients.ts';

export const DOCUMENT_TIMEOUT_MS = 5000;
export const DOCUMENT_MAX_BYTES = 64 * 1024;
const CACHE_MAX = 1000;
const CACHE_MIN_SECONDS = 60;
const CACHE_MAX_SECONDS = 600;
const CACHE_DEFAULT_SECONDS = 300;
const MAX_URL_LENGTH = 2000;

/**
 * True for an address a document must not come from: anything ipaddr.js does not class as
 * global unicast (private, loopback, link-local, unique-local, carrier-grade NAT, multicast,
 * reserved, and the IPv6 forms that carry an IPv4 address: NAT64, 6to4, Teredo, translated
 * `::ffff:0:a.b.c.d`); an IPv4-mapped address is judged as its IPv4 address, and an
 * IPv4-compatible one (`::a.b.c.d`, which ipaddr.js calls unicast) is refused.
 */
export function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (v6.parts.slice(0, 6).every((part) => part === 0)) return true;
  }
  return parsed.range() !== 'unicast';
}

export function createMetadataDocuments(opts: { development: boolean }): MetadataDocuments {
  const cache = new Map<string, { client: Client; until: number }>();

  function isDocumentUrl(clientId: string): boolean {
    if (clientId.length > MAX_URL_LENGTH) return false;
    if (!clientId.startsWith('https://') && !(opts.development && clientId.startsWith('http://')))
      return false;
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      return false;
    }
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return false;
    // The draft: a path, no fragment, no credentials, no dot segments.
    const path = clientId.slice(url.protocol.length + 2).replace(/^[^/?#]*/, '');
    return (
      url.pathname !== '/' &&
      !clientId.includes('#') &&
      !url.username &&
      !url.password &&
      !path
        .split(/[?]/)[0]!
        .split('/')
        .some((s) => s === '.' || s === '..' || /^(%2e|\.){1,2}$/i.test(s))
    );
  }

  async function get(url: string): Promise<Client> {
    const now = Date.now();
    const hit = cache.get(url);
    if (hit && hit.until > now) {
      cache.delete(url);
      cache.set(url, hit);
      return hit.client;
    }
    const { body, maxAge } = await fetchDocument(url, opts.development);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new OAuthError('invalid_client', 'The client ID metadata document is not JSON');
    }
    if ((json as { client_id?: unknown } | null)?.client_id !== url) {
      throw new OAuthError(
        'invalid_client',
        'The client ID metadata document must hold a client_id equal to its URL',
      );
    }
    let client: Client;
    try {
      client = clientFromMetadata(url, json);
    } catch (err) {
      if (err instanceof OAuthError)
        throw new OAuthError('invalid_client', `The client ID metadata document: ${err.description}`);
      throw err;
    }
    const seconds = Math.min(CACHE_MAX_SECONDS, Math.max(CACHE_MIN_SECONDS, maxAge ?? CACHE_DEFAULT_SECONDS));
    cache.delete(url);
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(url, { client, until: now + seconds * 1000 });
    return client;
  }

  return { isDocumentUrl, get };
}

const unusable = (why: string) => new OAuthError('invalid_client', `The client ID metadata document ${why}`);

/** GETs the document with every fence of the module's header; answers its text and max-age. */
function fetchDocument(target: string, development: boolean): Promise<{ body: string; maxAge?: number }> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address in the URL is never resolved: check it here.
  if (isIP(host) && !development && isPrivateAddress(host)) {
    return Promise.reject(unusable('is at a private address, which is refused'));
  }
  // Every address the name resolves to is checked; the socket connects only to a checked one.
  const lookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { all: true, family: Number(options.family) || 0 }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      if (!list.length || (!development && list.some((a) => isPrivateAddress(a.address)))) {
        const refused: NodeJS.ErrnoException = new Error('private address');
        refused.code = 'EPRIVATE';
        return callback(refused, '');
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'Portage' },
        lookup: lookup as never,
        timeout: DOCUMENT_TIMEOUT_MS,
        agent: false,
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(unusable(`answered HTTP ${res.statusCode} (it must answer 200, without redirects)`));
        }
        const declared = Number(res.headers['content-length']);
        if (declared > DOCUMENT_MAX_BYTES) {
          res.destroy();
          return reject(unusable(`is larger than ${DOCUMENT_MAX_BYTES / 1024} KiB`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > DOCUMENT_MAX_BYTES) {
            res.destroy();
            reject(unusable(`is larger than ${DOCUMENT_MAX_BYTES / 1024} KiB`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const cc = String(res.headers['cache-control'] ?? '');
          const m = /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(cc);
          resolve({
            body: Buffer.concat(chunks).toString('utf8'),
            maxAge: /no-store|no-cache/i.test(cc) ? 0 : m ? Number(m[1]) : undefined,
          });
        });
        res.on('error', () => reject(unusable('could not be read')));
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error('timeout')), DOCUMENT_TIMEOUT_MS);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPRIVATE') reject(unusable('is at a private address, which is refused'));
      else if (err.message === 'timeout')
        reject(unusable(`did not arrive within ${DOCUMENT_TIMEOUT_MS / 1000} s`));
      else reject(unusable('could not be fetched'));
    });
    req.end();
  });
}
