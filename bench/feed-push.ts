// The ACP Feed API pushes (docs/acp.md "Product feeds") over the file feed bench's catalog
// (`npm run bench:feed` seeds it: portage_bench_feed_<products>, 3 variants each): a platform
// whose two feeds (English, French) are up to date, then `--changed` products changed at once
// (a variant's price each); the `agent-feeds` job's passes run until a local Feed API has them
// all in both feeds. Prints the passes, the requests and the seconds, then the rate of a full
// snapshot's first `--snapshot` products (docs/performance.md "Product feeds").
//
//   npm run bench:feed-push -- [--products 1000000] [--changed 1000] [--snapshot 20000]
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { newId } from '../src/contract/common.ts';
import { openDatabase } from '../src/db/index.ts';
import { rowsOf } from '../src/db/sql.ts';
import { pushFeeds } from '../src/modules/feeds/push.ts';
import { platformFeeds, platforms } from '../src/modules/platforms/tables.ts';

const { values: flags } = parseArgs({
  options: {
    products: { type: 'string', default: '1000000' },
    changed: { type: 'string', default: '1000' },
    snapshot: { type: 'string', default: '20000' },
  },
});
const products = Number(flags.products);
const changed = Number(flags.changed);
const snapshotProducts = Number(flags.snapshot);

const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const url = new URL(server);
url.pathname = `/portage_bench_feed_${products}`;
const database = await openDatabase({ databaseUrl: url.href, poolSize: 4 });
await database.migrate();
const [{ n } = { n: 0 }] = await rowsOf<{ n: number }>(
  database.db,
  sql`select count(*)::int as n from products`,
);
if (n < products)
  throw new Error(
    `${url.pathname} has ${n} products: run npm run bench:feed -- --products ${products} first`,
  );

// The platform's Feed API: counts the products each feed receives.
const received = new Map<string, number>();
let requests = 0;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    requests++;
    if (req.method === 'POST') {
      const id = `feed_${received.size + 1}`;
      received.set(id, 0);
      return res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id }));
    }
    const id = decodeURIComponent(/^\/feeds\/([^/]+)\/products$/.exec(req.url ?? '')?.[1] ?? '');
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { products: unknown[] };
    received.set(id, (received.get(id) ?? 0) + body.products.length);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, accepted: true }));
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const address = receiver.address();
if (!address || typeof address === 'string') throw new Error('no port');

const log = pino({ level: 'warn' });
const ctx = { db: database.db, now: () => new Date(), log };
const deps = { publicBaseUrl: 'https://portage.example.ca', development: true, settleMs: 0 };

const platformId = newId('platforms');
await database.db.insert(platforms).values({
  id: platformId,
  name: 'Bench Chat',
  webhookUrl: 'http://127.0.0.1:9/hooks',
  keyHash: `bench-${platformId}`,
  webhookSecret: 'whsec_bench',
  feedUrl: `http://127.0.0.1:${address.port}`,
  feedToken: 'bench-token',
});
try {
  // Both feeds made and up to date (their snapshot a day away), as after a day's first pass.
  const [clock] = await rowsOf<{ us: number; hidden: string[] }>(
    database.db,
    sql`select (extract(epoch from clock_timestamp()) * 1000000)::float8 as us,
               array(select h from portage_hidden_sellers() h) as hidden`,
  );
  for (const [i, language] of (['en-CA', 'fr-CA'] as const).entries()) {
    received.set(`feed_${i + 1}`, 0);
    await database.db.insert(platformFeeds).values({
      platformId,
      language,
      remoteId: `feed_${i + 1}`,
      fullDueAt: new Date(Date.now() + 86_400_000),
      lastFullAt: new Date(),
      changedUs: clock!.us,
      hidden: clock!.hidden,
    });
  }

  await database.db.execute(sql`update product_variants set price_cents = price_cents + 1
    where id in (select distinct on (v.product_id) v.id from product_variants v
                  where v.product_id in (select id from products where status = 'active' and agent_channels
                                          order by id desc limit ${changed})
                  order by v.product_id, v.position)`);
  const began = performance.now();
  let passes = 0;
  while ([...received.values()].some((count) => count < changed) && passes < 100) {
    await pushFeeds(ctx, deps);
    passes++;
  }
  const seconds = (performance.now() - began) / 1000;
  console.log(
    `changes: ${changed} products changed, ${[...received.values()].join(' and ')} received by the two feeds ` +
      `in ${passes} pass(es), ${requests} requests, ${seconds.toFixed(2)} s`,
  );

  // A full snapshot's first products: its rate.
  await database.db.execute(
    sql`update platform_feeds set full_due_at = now() - interval '1 second' where platform_id = ${platformId}`,
  );
  for (const id of received.keys()) received.set(id, 0);
  const from = performance.now();
  while ([...received.values()].some((count) => count < snapshotProducts)) await pushFeeds(ctx, deps);
  const snap = (performance.now() - from) / 1000;
  const sent = [...received.values()].reduce((a, b) => a + b, 0);
  console.log(
    `snapshot: ${sent} products (both feeds) in ${snap.toFixed(1)} s: ${Math.round(sent / snap)} products/s, ` +
      `${Math.round((3 * sent) / snap)} variants/s`,
  );
} finally {
  await database.db.delete(platforms).where(sql`${platforms.id} = ${platformId}`);
  receiver.close();
  await database.close();
}
