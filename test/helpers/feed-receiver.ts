// A platform's ACP Feed API (2026-04-17, openapi.feed.yaml) on a local port: it plays the agent
// that hosts the feeds Portage pushes to. Every request body is checked against the official
// schemas (its complaints kept in `problems`, which a test expects empty); feeds and their
// products are kept as the spec says (POST /feeds makes one, PATCH upserts by product id).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { acpFeedOperationProblems, acpFeedProblems } from './official-schemas.ts';

export interface FeedReceiver {
  /** The Feed API's base URL, to register as the platform's `feedUrl`. */
  url: string;
  token: string;
  /** Each request: its method, path, headers and parsed body. */
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: unknown }>;
  /** The official schemas' complaints about any request, and refusals of headers. */
  problems: string[];
  /** Feeds by id: their target country, products by id, and the idempotency key that made each. */
  feeds: Map<string, { target_country?: string; key: string; products: Map<string, FeedProductSeen> }>;
  /** Answers the next `failNext` requests with `failStatus`. */
  failNext: number;
  failStatus: number;
  close(): Promise<void>;
}

export interface FeedProductSeen {
  id: string;
  title?: string;
  variants: Array<{
    id: string;
    title: string;
    price?: { amount: number; currency: string };
    list_price?: { amount: number; currency: string };
    availability?: { available?: boolean; status?: string };
    [k: string]: unknown;
  }>;
  [k: string]: unknown;
}

const error = (code: string, message: string, param?: string) =>
  JSON.stringify({ type: 'invalid_request', code, message, ...(param ? { param } : {}) });

export async function startFeedReceiver(token = 'feed-token-0123456789'): Promise<FeedReceiver> {
  const r: FeedReceiver = {
    url: '',
    token,
    requests: [],
    problems: [],
    feeds: new Map(),
    failNext: 0,
    failStatus: 503,
    close: async () => {},
  };
  let made = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').replace(/^\/api/, '');
      let body: unknown;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      } catch {
        r.problems.push(`${req.method} ${path}: not JSON`);
      }
      r.requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      const send = (status: number, answer: string) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(answer);
      if (req.headers.authorization !== `Bearer ${token}`)
        return send(401, error('unauthorized', 'bad token'));
      if (req.headers['api-version'] !== '2026-04-17') r.problems.push(`${req.method} ${path}: API-Version`);
      if (req.headers['content-type'] !== 'application/json')
        r.problems.push(`${req.method} ${path}: Content-Type`);
      if (r.failNext > 0) {
        r.failNext--;
        return send(r.failStatus, error('unavailable', 'try later'));
      }
      const key = String(req.headers['idempotency-key'] ?? '');
      if (req.method === 'POST' && path === '/feeds') {
        r.problems.push(
          ...acpFeedOperationProblems('createFeed', body),
          ...acpFeedProblems('CreateFeedRequest', body),
        );
        if (!key) r.problems.push('POST /feeds without Idempotency-Key');
        const again = [...r.feeds].find(([, f]) => f.key === key);
        const id = again?.[0] ?? `feed_${++made}`;
        if (!again) {
          r.feeds.set(id, {
            ...(body as { target_country?: string }),
            key,
            products: new Map(),
          });
        }
        return send(201, JSON.stringify({ id, ...(body as object), updated_at: new Date().toISOString() }));
      }
      const m = /^\/feeds\/([^/]+)\/products$/.exec(path);
      if (m && req.method === 'PATCH') {
        const feed = r.feeds.get(decodeURIComponent(m[1]!));
        if (!feed) return send(404, error('feed_not_found', 'Feed not found', 'id'));
        r.problems.push(
          ...acpFeedOperationProblems('upsertFeedProducts', body),
          ...acpFeedProblems('UpsertProductsRequest', body),
        );
        for (const p of (body as { products: FeedProductSeen[] }).products) feed.products.set(p.id, p);
        return send(200, JSON.stringify({ id: m[1], accepted: true }));
      }
      send(404, error('not_found', 'no such route'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  r.url = `http://127.0.0.1:${address.port}/api`;
  r.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return r;
}
