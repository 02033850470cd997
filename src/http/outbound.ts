// Outbound GETs of JSON documents at URLs a stranger chose (an OAuth client's metadata
// document, a UCP platform's profile). Each is fenced (docs/decisions.md "Security"): https only
// (http to a loopback host in development); the host's addresses are resolved and checked before
// connecting, and the socket connects to a checked address (no second resolution a DNS rebinding
// could change); private, loopback, link-local and unique-local addresses are refused outside
// development; 5 s; 64 KiB; no redirects. Callers cache what they fetch (bounded).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { inClientSpan } from '../telemetry/tracing.ts';

const DOCUMENT_TIMEOUT_MS = 5000;
const DOCUMENT_MAX_BYTES = 64 * 1024;

/**
 * True for an address a document must not come from: anything ipaddr.js does not class as
 * global unicast (private, loopback, link-local, unique-local, carrier-grade NAT, multicast,
 * reserved, and the IPv6 forms that carry an IPv4 address: NAT64, 6to4, Teredo, translated
 * `::ffff:0:a.b.c.d`); an IPv4-mapped address is judged as its IPv4 address, and an
 * IPv4-compatible one (`::a.b.c.d`, which ipaddr.js calls unicast) is refused.
 */
function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (v6.parts.slice(0, 6).every((part) => part === 0)) return true;
  }
  return parsed.range() !== 'unicast';
}

/** What both kinds of documents are kept for: 1,000 at most, a minute to ten (the UCP spec's floor is a minute). */
export const DOCUMENT_CACHE_LIMITS = { max: 1000, minSeconds: 60, maxSeconds: 600, defaultSeconds: 300 };

/**
 * Fetched documents, each kept for its max-age held between a floor and a ceiling (no-store: the
 * floor), at most `max` of them: the least recently used goes first.
 */
export class DocumentCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly limits: { max: number; minSeconds: number; maxSeconds: number; defaultSeconds: number },
  ) {}

  get(url: string, now = Date.now()): T | undefined {
    const hit = this.entries.get(url);
    if (!hit || hit.until <= now) return undefined;
    this.entries.delete(url);
    this.entries.set(url, hit);
    return hit.value;
  }

  set(url: string, value: T, maxAge: number | undefined, now = Date.now()): void {
    const { minSeconds, maxSeconds, defaultSeconds } = this.limits;
    const seconds = Math.min(maxSeconds, Math.max(minSeconds, maxAge ?? defaultSeconds));
    this.entries.delete(url);
    if (this.entries.size >= this.limits.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(url, { value, until: now + seconds * 1000 });
  }
}

/** The fenced fetch's answer: the body's text, and the max-age its Cache-Control gave (0: not to be kept). */
export interface FetchedDocument {
  body: string;
  maxAge?: number;
}

/**
 * GETs a JSON document with every fence of this module's header. `unusable(why)` makes the
 * caller's error from a reason ("is at a private address, which is refused").
 */
export function fetchDocument(
  target: string,
  development: boolean,
  unusable: (why: string) => Error,
): Promise<FetchedDocument> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address in the URL is never resolved: check it here.
  if (isIP(host) && !development && isPrivateAddress(host)) {
    return Promise.reject(unusable('is at a private address, which is refused'));
  }
  const lookup = fencedLookup(development);
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

type Lookup = (
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/** A DNS lookup that refuses private addresses (outside development): the socket connects only to a checked one. */
function fencedLookup(development: boolean): Lookup {
  return (hostname, options, callback) => {
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
}

/**
 * POSTs `body` to a URL a stranger named (a platform's webhook URL, ACP's or the one a UCP
 * profile gives), with the fences of fetchDocument: the address checked, no redirects followed,
 * `timeoutMs`. Answers the status; the answer's body is not kept. Rejects with why it could not be sent.
 */
export async function postFenced(
  target: string,
  headers: Record<string, string>,
  body: string,
  development: boolean,
  timeoutMs: number,
): Promise<number> {
  return (await sendFenced('POST', target, headers, body, development, timeoutMs, 0)).status;
}

/**
 * sendFenced's answer: its status and the first `maxBytes` of its body (a longer body is cut
 * there, `cut` true).
 */
export interface FencedAnswer {
  status: number;
  body: string;
  cut: boolean;
}

/**
 * Sends `body` with `method` to a URL a stranger named (a platform's Feed API), with postFenced's
 * fences, keeping at most `maxBytes` of the answer's body.
 */
export function sendFenced(
  method: 'POST' | 'PATCH',
  target: string,
  headers: Record<string, string>,
  body: string,
  development: boolean,
  timeoutMs: number,
  maxBytes: number,
): Promise<FencedAnswer> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !development && isPrivateAddress(host)) {
    return Promise.reject(new Error('the URL is at a private address, which is refused'));
  }
  const client = url.protocol === 'https:' ? https : http;
  return inClientSpan(method, url, (trace) =>
    send(client, url, { method, headers: { ...headers, ...trace }, body, development, timeoutMs, maxBytes }),
  );
}

function send(
  client: typeof http | typeof https,
  url: URL,
  o: {
    method: string;
    headers: Record<string, string>;
    body: string;
    development: boolean;
    timeoutMs: number;
    maxBytes: number;
  },
): Promise<FencedAnswer> {
  const { method, headers, body, development, timeoutMs, maxBytes } = o;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: fencedLookup(development) as never,
      timeout: timeoutMs,
      agent: false,
    });
    const deadline = setTimeout(() => req.destroy(new Error('timeout')), timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let cut = false;
      res.on('data', (chunk: Buffer) => {
        if (size >= maxBytes) {
          cut ||= chunk.length > 0;
          return;
        }
        const room = maxBytes - size;
        if (chunk.length > room) cut = true;
        chunks.push(chunk.subarray(0, room));
        size += Math.min(chunk.length, room);
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), cut }),
      );
      res.on('error', (err) => reject(err));
      // After 'end' this is a no-op; before it, the answer was cut off (the deadline, a reset).
      res.on('close', () => reject(new Error('the answer was cut off')));
    });
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          err.code === 'EPRIVATE' ? 'the URL is at a private address, which is refused' : err.message,
        ),
      ),
    );
    req.end(body);
  });
}
