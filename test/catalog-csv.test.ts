// Bulk import and export of products and variants as CSV: the dry run's problems by line, a good
// file's products and variants, all or nothing, who may import and export what, the size bound,
// and an export read back.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { products, productVariants } from '../src/modules/catalog/tables.ts';
import { listen, type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, category, expectError, product, seller, uniqueWord } from './helpers/builders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();
let s: SignedIn;
let other: SignedIn;

beforeAll(async () => {
  s = await seller(t.api);
  other = await seller(t.api);
});

const HEADER =
  'handle,title,description,category,status,isDigital,isPerishable,weight,width,height,depth,keywords,' +
  'option1Name,option1Value,option2Name,option2Value,option3Name,option3Value,sku,priceCents,' +
  'compareAtPriceCents,stockQuantity,barcode,imageUrl';

/** A row from the fields given; the others empty. */
function row(fields: Record<string, string | number>): string {
  return HEADER.split(',')
    .map((c) => {
      const v = fields[c];
      if (v === undefined) return '';
      const text = String(v);
      return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    })
    .join(',');
}

const csv = (...rows: string[]) => `${[HEADER, ...rows].join('\n')}\n`;

function importCsv(who: SignedIn, body: string, query = '') {
  return t.api.as(who).post(`/products/import${query}`, body, { 'content-type': 'text/csv' });
}

/** A shirt in two sizes and a paddle sold one way. */
function goodFile(word: string) {
  return csv(
    row({
      handle: 'shirt',
      title: `Shirt ${word}`,
      description: 'Cotton, "heavy"',
      weight: 0.3,
      keywords: 'cotton|shirt',
      option1Name: 'Size',
      option1Value: 'S',
      sku: `SH-S-${word}`,
      priceCents: 2500,
      stockQuantity: 4,
    }),
    row({ handle: 'shirt', option1Value: 'M', sku: `SH-M-${word}`, priceCents: 2700, stockQuantity: 2 }),
    row({
      handle: 'paddle',
      title: `Paddle ${word}`,
      weight: 1.1,
      width: 20,
      height: 150,
      depth: 3,
      sku: `PAD-${word}`,
      priceCents: 8999,
      compareAtPriceCents: 9999,
      stockQuantity: 12,
      barcode: '12345678',
    }),
  );
}

async function productsTitled(word: string) {
  const res = await t.api.as(s).get(`/products?sellerId=${encodeURIComponent(s.id)}&search=${word}`);
  expect(res.status).toBe(200);
  return res.body.products as Array<{ id: string; title: string }>;
}

describe('POST /products/import', () => {
  it('a dry run answers every bad row with its line and reason, and writes nothing', async () => {
    const word = uniqueWord();
    const body = csv(
      row({ handle: 'a', title: `A ${word}`, weight: 1, sku: `A-${word}`, priceCents: 100 }),
      row({ handle: 'b', title: `B ${word}`, weight: 1, priceCents: 'abc' }),
      row({ handle: 'c', title: '', weight: 1, priceCents: 100 }),
      row({ handle: 'd', title: `D ${word}`, priceCents: 100 }),
      row({
        handle: 'e',
        title: `E ${word}`,
        weight: 1,
        option1Name: 'Size',
        option1Value: 'S',
        priceCents: 100,
      }),
      row({ handle: 'e', option1Value: 'S', priceCents: 200 }),
      row({ handle: 'a', title: `A ${word}`, weight: 1, priceCents: 100 }),
      row({ handle: 'f', title: `F ${word}`, weight: 1, sku: `A-${word}`, priceCents: 100 }),
      row({ handle: 'g', title: `G ${word}`, weight: 1, sku: 'bad sku!', priceCents: 100 }),
    );
    const res = await importCsv(s, body, '?dryRun=true');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      dryRun: true,
      imported: false,
      rows: 9,
      products: { created: 1, updated: 0 },
      variants: { created: 1, updated: 0, deleted: 0 },
      problemCount: 7,
      problems: [
        { line: 3, field: 'priceCents', message: 'must be a positive integer (cents)' },
        { line: 4, field: 'title', message: 'must not be empty' },
        { line: 5, field: 'weight', message: 'required for a physical product: kilograms, greater than 0' },
        { line: 7, field: 'option1Value', message: 'the same option values as line 6' },
        {
          line: 8,
          field: 'handle',
          message: 'the rows of a product must follow one another; this handle came earlier',
        },
        { line: 9, field: 'sku', message: 'the SKU is already used on line 2' },
        {
          line: 10,
          field: 'sku',
          message: 'letters, digits and . _ - /, up to 64, starting with a letter or digit',
        },
      ],
    });
    expect(await productsTitled(word)).toEqual([]);
  });

  it('answers the problems in French to a French reader', async () => {
    const res = await t.api
      .as(s)
      .post(
        '/products/import?dryRun=true',
        csv(
          row({ handle: 'a', title: 'A', weight: 1, priceCents: 100 }),
          row({ handle: 'b', title: 'B', weight: 1 }),
          row({ handle: 'a', title: 'A', weight: 1, priceCents: 100 }),
        ),
        { 'content-type': 'text/csv', 'accept-language': 'fr-CA' },
      );
    expect(res.status).toBe(200);
    expect(res.body.problems).toEqual([
      { line: 3, field: 'priceCents', message: expect.any(String) },
      {
        line: 4,
        field: 'handle',
        message: "les lignes d'un produit doivent se suivre ; cet identifiant est déjà apparu plus haut",
      },
    ]);
  });

  it('a good file creates its products with their options and variants', async () => {
    const word = uniqueWord();
    const cat = await category(t.api, await admin(t.api, database));
    const file = goodFile(word).replace(`Paddle ${word},,`, `Paddle ${word},,${cat.slug}`);
    const dry = await importCsv(s, file, '?dryRun=true');
    expect(dry.body).toMatchObject({ problemCount: 0, products: { created: 2 }, variants: { created: 3 } });
    const res = await importCsv(s, file);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      dryRun: false,
      imported: true,
      rows: 3,
      products: { created: 2, updated: 0 },
      variants: { created: 3, updated: 0, deleted: 0 },
      problemCount: 0,
      problems: [],
    });
    const found = await productsTitled(word);
    expect(found.map((p) => p.title).sort()).toEqual([`Paddle ${word}`, `Shirt ${word}`]);
    const shirt = (await t.api.as(s).get(`/products/${found.find((p) => p.title.startsWith('Shirt'))!.id}`))
      .body;
    expect(shirt).toMatchObject({
      description: 'Cotton, "heavy"',
      keywords: ['cotton', 'shirt'],
      weight: 0.3,
      priceRange: { minCents: 2500, maxCents: 2700 },
      stockQuantity: 6,
      options: [{ name: 'Size', values: ['S', 'M'] }],
    });
    expect(
      shirt.variants.map((v: Record<string, unknown>) => [v.sku, v.options, v.priceCents, v.stockQuantity]),
    ).toEqual([
      [`SH-S-${word}`, { Size: 'S' }, 2500, 4],
      [`SH-M-${word}`, { Size: 'M' }, 2700, 2],
    ]);
    const paddle = (await t.api.as(s).get(`/products/${found.find((p) => p.title.startsWith('Paddle'))!.id}`))
      .body;
    expect(paddle).toMatchObject({
      categoryId: cat.id,
      priceCents: 8999,
      dimensions: { width: 20, height: 150, depth: 3 },
      options: [],
    });
    expect(paddle.variants).toEqual([
      expect.objectContaining({
        id: paddle.id,
        sku: `PAD-${word}`,
        compareAtPriceCents: 9999,
        barcode: '12345678',
      }),
    ]);
  });

  it('is all or nothing: one bad row at the end and no product of the file is written', async () => {
    const word = uniqueWord();
    const rows = Array.from({ length: 1200 }, (_, n) =>
      row({
        handle: `p${n}`,
        title: `Bulk ${word} ${n}`,
        weight: 1,
        sku: `B${n}-${word}`,
        priceCents: 100 + n,
      }),
    );
    rows.push(row({ handle: 'last', title: `Bulk ${word} last`, priceCents: 100 }));
    const res = await importCsv(s, csv(...rows));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'The file has 1 problems; nothing was imported',
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'line 1202: weight', message: expect.any(String) }],
    });
    const written = await database.db.select().from(products).where(eq(products.sellerId, s.id));
    expect(written.filter((p) => p.title.includes(word))).toEqual([]);
  });

  it('refuses a SKU the seller already uses, by line', async () => {
    const p = await product(t.api, s, { sku: `TAKEN-${uniqueWord()}` });
    const res = await importCsv(
      s,
      csv(row({ handle: 'x', title: 'X', weight: 1, sku: p.variants[0].sku, priceCents: 100 })),
      '?dryRun=true',
    );
    expect(res.body.problems).toEqual([
      { line: 2, field: 'sku', message: 'the SKU is already used by another of your variants' },
    ]);
  });

  it('refuses unknown columns, and a body that is not CSV', async () => {
    const res = await importCsv(s, 'handle,title,priceCents,colour\nx,X,100,red\n');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Unknown, missing or repeated CSV columns: colour');
    expectError(await t.api.as(s).post('/products/import', { title: 'x' }), 'VALIDATION_ERROR', 400);
  });

  it('reports a malformed file at its line', async () => {
    const res = await importCsv(
      s,
      `${HEADER}\n${row({ handle: 'x', title: 'X', weight: 1, priceCents: 100 })}\n"x,"unclosed\n`,
      '?dryRun=true',
    );
    expect(res.status).toBe(200);
    expect(res.body.problems).toEqual([
      { line: 3, field: 'handle', message: expect.stringMatching(/^not valid CSV/) },
    ]);
  });

  it('buyers get 403; anonymous callers 401; a seller cannot import into another catalog', async () => {
    const b = await buyer(t.api);
    expectError(await importCsv(b, goodFile(uniqueWord())), 'AUTHZ_ERROR', 403);
    const anon = await t.api.post('/products/import', goodFile(uniqueWord()), { 'content-type': 'text/csv' });
    expect(anon.status).toBe(401);
    expectError(
      await importCsv(s, goodFile(uniqueWord()), `?sellerId=${encodeURIComponent(other.id)}`),
      'AUTHZ_ERROR',
      403,
    );
  });

  it("a handle naming another seller's product is refused, and that product is untouched", async () => {
    const theirs = await product(t.api, other);
    const res = await importCsv(
      s,
      csv(row({ handle: theirs.id, title: 'Mine now', sku: theirs.variants[0].sku, priceCents: 1 })),
    );
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { field: 'line 2: handle', message: 'a handle that is a product id must name one of your products' },
    ]);
    const [row0] = await database.db.select().from(products).where(eq(products.id, theirs.id));
    expect(row0!.title).toBe(theirs.title);
  });

  it('an admin imports into the catalog of the seller named', async () => {
    const a = await admin(t.api, database);
    const word = uniqueWord();
    const res = await importCsv(a, goodFile(word), `?sellerId=${encodeURIComponent(other.id)}`);
    expect(res.status).toBe(200);
    const mine = await database.db.select().from(products).where(eq(products.sellerId, other.id));
    expect(mine.filter((p) => p.title.includes(word))).toHaveLength(2);
  });

  it('reads the body as it arrives over a real socket, chunked', async () => {
    const base = await listen(t);
    const word = uniqueWord();
    const lines = goodFile(word).split('\n');
    const res = await fetch(`${base}/products/import?dryRun=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'text/csv' },
      body: new ReadableStream({
        start(c) {
          for (const l of lines) c.enqueue(new TextEncoder().encode(`${l}\n`));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ rows: 3, problemCount: 0, products: { created: 2 } });
  });

  it('refuses a body over 50 MB (413), by its length and as it streams', async () => {
    const big = await t.app.inject({
      method: 'POST',
      url: '/products/import',
      headers: {
        authorization: `Bearer ${s.token}`,
        'content-type': 'text/csv',
        'content-length': String(60 * 1024 * 1024),
      },
      payload: 'handle',
    });
    expect(big.statusCode).toBe(413);
    expect(JSON.parse(big.body)).toEqual({
      error: 'The CSV file is larger than the 50 MB limit',
      code: 'VALIDATION_ERROR',
      statusCode: 413,
    });
    const line = `${row({ handle: 'x', title: 'X'.repeat(180), weight: 1, priceCents: 100 })}\n`;
    const streamed = await t.app.inject({
      method: 'POST',
      url: '/products/import?dryRun=true',
      headers: {
        authorization: `Bearer ${s.token}`,
        'content-type': 'text/csv',
        'transfer-encoding': 'chunked',
      },
      payload: `${HEADER}\n${line.repeat(Math.ceil((51 * 1024 * 1024) / line.length))}`,
    });
    expect(streamed.statusCode).toBe(413);
  });
});

describe('GET /products/export.csv', () => {
  it("exports the seller's products and variants, and importing it back updates them", async () => {
    const seller2 = await seller(t.api);
    const word = uniqueWord();
    expect((await importCsv(seller2, goodFile(word))).status).toBe(200);
    const res = await t.api.as(seller2).get('/products/export.csv');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const text = String(res.body);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(HEADER);
    expect(lines).toHaveLength(4);
    expect(text).toContain(`SH-M-${word},2700,,2,,`);
    const changed = text
      .replace(`SH-M-${word},2700,,2`, `SH-M-${word},2600,2900,7`)
      .replace(`Paddle ${word}`, `Paddle ${word} II`);
    const back = await importCsv(seller2, changed);
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toMatchObject({
      products: { created: 0, updated: 2 },
      variants: { created: 0, updated: 1, deleted: 0 },
    });
    const [m] = await database.db
      .select()
      .from(productVariants)
      .where(eq(productVariants.sku, `SH-M-${word}`));
    expect(m).toMatchObject({ priceCents: 2600, compareAtPriceCents: 2900, stockQuantity: 7 });
    const titles = (await database.db.select().from(products).where(eq(products.sellerId, seller2.id))).map(
      (p) => p.title,
    );
    expect(titles.sort()).toEqual([`Paddle ${word} II`, `Shirt ${word}`]);
    // The same file again changes nothing more and creates nothing.
    const again = await t.api.as(seller2).get('/products/export.csv');
    expect(again.body).toBe(changed);
    for (const query of ['?dryRun=true', '']) {
      const readBack = await importCsv(seller2, String(again.body), query);
      expect(readBack.status).toBe(200);
      expect(readBack.body).toEqual({
        dryRun: query !== '',
        imported: query === '',
        rows: 3,
        products: { created: 0, updated: 0 },
        variants: { created: 0, updated: 0, deleted: 0 },
        problemCount: 0,
        problems: [],
      });
    }
    expect((await t.api.as(seller2).get('/products/export.csv')).body).toBe(changed);
  });

  it('an export with a new row adds a variant (a new option value too) and `deleted` removes one', async () => {
    const seller3 = await seller(t.api);
    const word = uniqueWord();
    expect((await importCsv(seller3, goodFile(word))).status).toBe(200);
    const exported = String((await t.api.as(seller3).get('/products/export.csv')).body);
    const shirtRow = exported.split('\n').find((l) => l.includes(`SH-S-${word}`))!;
    const shirtId = shirtRow.split(',')[0]!;
    const lRow = shirtRow.replace(`,S,`, ',L,').replace(`SH-S-${word},2500,,4`, `SH-L-${word},2900,,5`);
    const file = exported
      .replace(shirtRow, shirtRow.replace(',active,', ',deleted,'))
      .replace(/(SH-M-[^\n]*\n)/, `$1${lRow}\n`);
    const dry = await importCsv(seller3, file, '?dryRun=true');
    expect(dry.body, JSON.stringify(dry.body)).toMatchObject({
      problemCount: 0,
      products: { created: 0, updated: 1 },
      variants: { created: 1, updated: 0, deleted: 1 },
    });
    expect((await t.api.as(seller3).get(`/products/${shirtId}`)).body.variants).toHaveLength(2);
    const res = await importCsv(seller3, file);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const shirt = (await t.api.as(seller3).get(`/products/${shirtId}`)).body;
    expect(shirt.options).toEqual([{ name: 'Size', values: ['S', 'M', 'L'] }]);
    expect(shirt.priceRange).toEqual({ minCents: 2700, maxCents: 2900 });
    expect(shirt.variants.map((v: Record<string, unknown>) => [v.sku, v.options, v.priceCents])).toEqual([
      [`SH-M-${word}`, { Size: 'M' }, 2700],
      [`SH-L-${word}`, { Size: 'L' }, 2900],
    ]);
    const [gone] = await database.db
      .select()
      .from(productVariants)
      .where(eq(productVariants.sku, `SH-S-${word}`));
    expect(gone?.status).toBe('deleted');
  });

  it('refuses by line what PATCH refuses: the last variant, a second one without options, a combination twice', async () => {
    const seller4 = await seller(t.api);
    const word = uniqueWord();
    expect((await importCsv(seller4, goodFile(word))).status).toBe(200);
    const exported = String((await t.api.as(seller4).get('/products/export.csv')).body);
    const lines = exported.trimEnd().split('\n');
    const shirtS = lines.find((l) => l.includes(`SH-S-${word}`))!;
    const shirtM = lines.find((l) => l.includes(`SH-M-${word}`))!;
    const paddle = lines.find((l) => l.includes(`PAD-${word}`))!;
    const paddleId = paddle.split(',')[0]!;
    const shirtId = shirtS.split(',')[0]!;
    const rows = [
      lines[0]!,
      // Line 2-3: both of the shirt's variants removed.
      shirtS.replace(',active,', ',deleted,'),
      shirtM.replace(',active,', ',deleted,'),
      // Line 4-5: the paddle (no options) and a second variant of it.
      paddle,
      `${paddleId},,,,,,,,,,,,,,,,,,PAD2-${word},100,,1,,`,
    ];
    const res = await importCsv(seller4, `${rows.join('\n')}\n`, '?dryRun=true');
    expect(res.status).toBe(200);
    expect(res.body.problems).toEqual([
      {
        line: 3,
        field: 'status',
        message: "the product's last variant cannot be removed; delete the product instead",
      },
      { line: 4, field: 'option1Name', message: 'required to tell several variants apart' },
    ]);
    // A new variant with the values of one there already, in French.
    const twice = `${lines[0]}\n${shirtM.replace(`SH-M-${word}`, `SH-M2-${word}`)}\n`;
    const fr = await t.api.as(seller4).post('/products/import?dryRun=true', twice, {
      'content-type': 'text/csv',
      'accept-language': 'fr-CA',
    });
    expect(fr.body.problemCount).toBe(1);
    expect(fr.body.problems[0]).toMatchObject({ line: 2, field: 'handle' });
    expect(fr.body.problems[0].message).toMatch(/M/);
    const written = await importCsv(seller4, `${rows.join('\n')}\n`);
    expect(written.status).toBe(400);
    const shirt = (await t.api.as(seller4).get(`/products/${shirtId}`)).body;
    expect(shirt.variants).toHaveLength(2);
    expect((await t.api.as(seller4).get(`/products/${paddleId}`)).body.variants).toHaveLength(1);
  });

  it("a seller exports only their own catalog; another's is refused; a buyer gets 403", async () => {
    const seller3 = await seller(t.api);
    const res = await t.api.as(seller3).get('/products/export.csv');
    expect(res.status).toBe(200);
    expect(String(res.body)).toBe(`${HEADER}\n`);
    expectError(
      await t.api.as(seller3).get(`/products/export.csv?sellerId=${encodeURIComponent(s.id)}`),
      'AUTHZ_ERROR',
      403,
    );
    expectError(await t.api.as(await buyer(t.api)).get('/products/export.csv'), 'AUTHZ_ERROR', 403);
  });
});

describe('the console: products with search and filters, the import page', () => {
  /** Posts the import form as a browser does: multipart, the box before the file, the token in the action. */
  async function upload(b: Browser, file: string, dryRun: boolean, csrf = b.csrf(), language = 'en-CA') {
    const boundary = '----portage-test-boundary';
    const parts = [
      ...(dryRun ? [`--${boundary}\r\nContent-Disposition: form-data; name="dryRun"\r\n\r\ntrue\r\n`] : []),
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="products.csv"\r\nContent-Type: text/csv\r\n\r\n${file}\r\n`,
      `--${boundary}--\r\n`,
    ];
    const res = await t.app.inject({
      method: 'POST',
      url: `/console/products/import?csrf=${encodeURIComponent(csrf)}`,
      headers: {
        cookie: ['portage_session', 'portage_csrf']
          .flatMap((n) => (b.cookie(n) ? [`${n}=${b.cookie(n)}`] : []))
          .join('; '),
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'accept-language': language,
      },
      payload: parts.join(''),
    });
    return { status: res.statusCode, text: textOf(res.body) };
  }

  it('a seller sees the bad row by its line, fixes it, imports, and finds the products listed', async () => {
    const me = await seller(t.api);
    const b = new Browser(t.app);
    await b.signIn(me);
    const form = await b.get('/console/products/import');
    expect(form.status).toBe(200);
    const word = uniqueWord();
    const bad = goodFile(word).replace(`SH-M-${word},2700`, `SH-M-${word},-5`);
    const checked = await upload(b, bad, true);
    // The answer streams, its status sent before the file is read: problems are a 200 page.
    expect(checked.status).toBe(200);
    expect(checked.text).toContain('1 problem; nothing was imported');
    expect(checked.text).toContain('3 priceCents must be a positive integer (cents)');
    const dry = await upload(b, goodFile(word), true);
    expect(dry.status).toBe(200);
    expect(dry.text).toContain(
      'No problem found: 2 products and 3 variants would be created, 0 products updated.',
    );
    const done = await upload(b, goodFile(word), false);
    expect(done.status).toBe(200);
    expect(done.text).toContain('Imported: 2 products and 3 variants created, 0 products updated.');
    const list = await b.get(`/console/products?search=${word}&status=active`);
    expect(textOf(list.html)).toContain(`Shirt ${word}`);
    expect(textOf(list.html)).toContain(`Paddle ${word}`);
    const none = await b.get(`/console/products?search=${word}&status=draft`);
    expect(textOf(none.html)).not.toContain(`Shirt ${word}`);
  });

  it('shows the rows checked as the file is read, a line every 1,000, then the outcome', async () => {
    const me = await seller(t.api);
    const b = new Browser(t.app);
    await b.signIn(me);
    await b.get('/console/products/import');
    const word = uniqueWord();
    const many = csv(
      ...Array.from({ length: 2500 }, (_, n) =>
        row({
          handle: `h${n}`,
          title: `Many ${word} ${n}`,
          weight: 1,
          sku: `M-${word}-${n}`,
          priceCents: 100 + n,
        }),
      ),
    );
    const dry = await upload(b, many, true);
    expect(dry.status).toBe(200);
    const progress = dry.text.indexOf('1,000 rows checked');
    expect(progress).toBeGreaterThan(0);
    expect(dry.text.indexOf('2,000 rows checked')).toBeGreaterThan(progress);
    expect(dry.text).not.toContain('3,000 rows checked');
    expect(dry.text.indexOf('No problem found: 2,500 products')).toBeGreaterThan(progress);
    expect(await database.db.select().from(products).where(eq(products.sellerId, me.id))).toEqual([]);
  });

  it('answers in French, and refuses a post without the page token', async () => {
    const me = await seller(t.api);
    const b = new Browser(t.app, { 'accept-language': 'fr-CA' });
    await b.signIn(me);
    await b.get('/console/products/import');
    const checked = await upload(
      b,
      csv(row({ handle: 'x', title: 'X', priceCents: 100 })),
      true,
      b.csrf(),
      'fr-CA',
    );
    expect(checked.status).toBe(200);
    expect(checked.text).toContain("1 problème ; rien n'a été importé");
    expect((await upload(b, goodFile(uniqueWord()), false, 'forged')).status).toBe(403);
  });
});
