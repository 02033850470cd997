// The two references the search benchmark compares against, on the same database:
// - GET /ceiling/:id: a bare Fastify route doing the same primary-key SELECT, no auth;
// - GET /naive?q=&filters=: the naive search, a GIN-indexed tsvector match ranked by
//   ts_rank, plus a GROUP BY per facet for the counts.

import { sql } from 'drizzle-orm';
import Fastify from 'fastify';
import { openDatabase } from '../src/db/index.ts';
import { rowsOf } from '../src/db/sql.ts';
import { tsQuery } from '../src/modules/catalog/text-query.ts';

const database = await openDatabase({
  databaseUrl: process.env.DATABASE_URL,
  dataDir: process.env.DATA_DIR,
});
const app = Fastify({ logger: false });

app.get('/health', async () => ({ status: 'ok' }));

// The product's columns (not the stored search vector, which no answer carries) and its
// variants with their stock, as the detail answers them, in one statement.
app.get<{ Params: { id: string } }>('/ceiling/:id', async (req) => {
  const [row] = await rowsOf(
    database.db,
    sql`select p.id, p.seller_id, p.category_id, p.title, p.description, p.keywords, p.image_urls, p.price_cents,
               p.price_max_cents, p.options, p.status, p.is_digital, p.is_perishable, p.weight_kg, p.width_cm,
               p.height_cm, p.depth_cm, p.specifications, p.review_count, p.rating, p.created_at,
               (select coalesce(json_agg(json_build_object('id', v.id, 'sku', v.sku, 'options', v.option_values,
                  'priceCents', v.price_cents, 'stock', v.stock_quantity - v.reserved_quantity) order by v.position), '[]')
                  from product_variants v where v.product_id = p.id and v.status = 'active') as variants
          from products p where p.id = ${req.params.id}`,
  );
  return row ?? {};
});

app.get<{ Querystring: { q: string; category?: string } }>('/naive', async (req) => {
  const q = tsQuery(req.query.q)!;
  const category = req.query.category ? sql`and category_id = ${req.query.category}` : sql``;
  const where = sql`status = 'active' and search_doc @@ ${q} ${category}`;
  const results = await rowsOf(
    database.db,
    sql`select id, title, price_cents, seller_id, ts_rank(search_doc, ${q}) as rank
          from products where ${where} order by rank desc limit 20`,
  );
  const facets = await rowsOf(
    database.db,
    sql`select category_id, seller_id, is_digital, is_perishable,
               width_bucket(price_cents, array[2500, 5000, 10000, 25000]) as price_bucket, count(*)
          from products where ${where}
         group by grouping sets ((category_id), (seller_id), (is_digital), (is_perishable), (5))`,
  );
  return { results, facets };
});

await app.listen({ port: Number(process.env.PORT ?? 3999), host: '127.0.0.1' });
console.log('reference server ready');
const stop = async () => {
  await app.close();
  await database.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
