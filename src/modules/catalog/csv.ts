// Bulk import and export of a seller's products and variants as CSV, one row per variant
// (docs/api.md "Bulk import and export"). The file streams through the parser; products are
// checked with the API's own schema and variant rules, then written in multi-row batches, in one
// transaction: a file with any bad row changes nothing (docs/decisions.md, issue 40 bulk).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { and, asc, eq, gt, inArray, ne } from 'drizzle-orm';
import type { z } from 'zod';
import {
  createProductBody,
  createVariantBody,
  MAX_VARIANTS,
  type ProductOption,
  productOptions,
} from '../../contract/catalog.ts';
import { isRecordId, newId } from '../../contract/common.ts';
import { AppError, type Problem, problem, wordIssue, wordProblems } from '../../contract/errors.ts';
import { BASE_LOCALE, type Locale, type MessageKey, type MessageValues, text } from '../../contract/i18n.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { insertImportedProducts, insertImportedVariants, liveSkusAmong } from './queries.ts';
import { checkProductRules, newProductRow, owningSeller } from './service.ts';
import { categories, products, productVariants } from './tables.ts';
import {
  checkVariantSet,
  liveVariants,
  lockProduct,
  newVariantRows,
  type ProductForVariants,
  replaceVariantSet,
  type VariantInSet,
} from './variants.ts';

/** The columns, in the order an export writes them; an import needs `handle`, `title` and `priceCents`. */
export const CSV_COLUMNS = [
  'handle',
  'title',
  'description',
  'category',
  'status',
  'isDigital',
  'isPerishable',
  'weight',
  'width',
  'height',
  'depth',
  'keywords',
  'option1Name',
  'option1Value',
  'option2Name',
  'option2Value',
  'option3Name',
  'option3Value',
  'sku',
  'priceCents',
  'compareAtPriceCents',
  'stockQuantity',
  'barcode',
  'imageUrl',
] as const;
type Column = (typeof CSV_COLUMNS)[number];
type Row = Partial<Record<Column, string>>;

/** The product's own columns: a later row of the same product leaves them empty or repeats them. */
const PRODUCT_COLUMNS: Column[] = [
  'title',
  'description',
  'category',
  'status',
  'isDigital',
  'isPerishable',
  'weight',
  'width',
  'height',
  'depth',
  'keywords',
  'option1Name',
  'option2Name',
  'option3Name',
];

export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
/** Problems answered in full; past this many only counted. */
export const MAX_REPORTED_PROBLEMS = 1_000;
const MAX_RECORD_CHARS = 100_000;
/** Products per multi-row insert (and a bound on the variants of one). */
const BATCH_PRODUCTS = 500;
const BATCH_VARIANTS = 2_000;
/** Rows between two calls of an import's `onProgress`. */
export const PROGRESS_ROWS = 1_000;

export interface ImportProblem {
  line: number;
  field: string;
  message: string;
}

export interface ImportReport {
  dryRun: boolean;
  imported: boolean;
  rows: number;
  products: { created: number; updated: number };
  variants: { created: number; updated: number; deleted: number };
  problemCount: number;
  problems: ImportProblem[];
}

export interface LineProblem {
  line: number;
  problem: Problem;
}

/** A file refused for its bad rows (400): the API answers them as details, the console by line. */
export class ImportRefused extends AppError {
  constructor(
    readonly lineProblems: LineProblem[],
    readonly problemCount: number,
  ) {
    super(
      'VALIDATION_ERROR',
      400,
      text('error.catalog.importRefused', { count: problemCount }),
      lineProblems.map((p) => ({ ...p.problem, field: `line ${p.line}: ${p.problem.field}` })),
    );
  }
}

type NewProduct = typeof products.$inferInsert;
type NewVariant = typeof productVariants.$inferInsert;

interface Group {
  handle: string;
  rows: Array<{ line: number; row: Row }>;
}

const fileError = (status: number, key: MessageKey, values?: MessageValues, problems?: Problem[]) =>
  new AppError('VALIDATION_ERROR', status, text(key, values), problems);

/** Counts bytes as they pass and stops the stream past `max` (413). */
async function* bounded(source: AsyncIterable<Buffer | string>, max: number) {
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.length;
    if (seen > max) throw fileError(413, 'error.catalog.importTooLarge', { mb: max / 1024 / 1024 });
    yield chunk;
  }
}

const num = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : Number(v.trim()));
const bool = (v: string | undefined) => {
  const s = v?.trim().toLowerCase();
  return s === undefined || s === '' ? undefined : s === 'true' ? true : s === 'false' ? false : s;
};
const str = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v);

/** The CSV column a path of the create body comes from, for the reader. */
function columnOf(path: PropertyKey[]): string {
  const [head, , field] = path;
  if (head === 'variants') {
    if (field === 'options') return 'option1Value';
    return String(field ?? 'sku');
  }
  if (head === 'dimensions') return String(path[1] ?? 'width');
  if (head === 'categoryId') return 'category';
  if (head === 'options') {
    const n = Number(path[1] ?? 0) + 1;
    return path[2] === 'values' ? `option${n}Value` : `option${n}Name`;
  }
  return String(head ?? 'handle');
}

/** The line a path of the create body comes from: a variant's own row, else the product's first. */
const lineOf = (group: Group, path: PropertyKey[]) =>
  path[0] === 'variants' && typeof path[1] === 'number'
    ? (group.rows[path[1]]?.line ?? group.rows[0]!.line)
    : group.rows[0]!.line;

/** Where an AppError's problem points (`variants.2.options`) as a line and a column. */
function problemsOfError(group: Group, err: AppError): LineProblem[] {
  const list = err.problems?.length ? err.problems : [problem('handle', err.text.key, err.text.values)];
  return list.map((p) => {
    const path = p.field.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    // A problem without a field of its own (a conflict) is the message of the error itself.
    const message = err.problems?.length ? p.message : err.text;
    return { line: lineOf(group, path), problem: { field: columnOf(path), message } };
  });
}

/** The create body a group of rows describes, as the API would receive it. */
function bodyOf(group: Group, categoryIds: Map<string, string>) {
  const first = group.rows[0]!.row;
  const optionNames = [first.option1Name, first.option2Name, first.option3Name].map((n) => n?.trim() ?? '');
  const named = optionNames.map((n, i) => ({ n, i })).filter((o) => o.n !== '');
  const optionValue = (row: Row, i: number) =>
    (i === 0 ? row.option1Value : i === 1 ? row.option2Value : row.option3Value)?.trim() ?? '';
  const options = named.map(({ n, i }) => ({
    name: n,
    values: [...new Set(group.rows.map((r) => optionValue(r.row, i)).filter((v) => v !== ''))],
  }));
  const category = str(first.category)?.trim();
  const dims = [num(first.width), num(first.height), num(first.depth)];
  const variants = group.rows.map(({ row }) => ({
    sku: str(row.sku)?.trim(),
    options: Object.fromEntries(
      named.map(({ n, i }) => [n, optionValue(row, i)]).filter(([, v]) => v !== ''),
    ),
    priceCents: num(row.priceCents),
    compareAtPriceCents: num(row.compareAtPriceCents),
    stockQuantity: num(row.stockQuantity),
    barcode: str(row.barcode)?.trim(),
    imageUrl: str(row.imageUrl)?.trim(),
  }));
  return {
    title: first.title,
    description: first.description ?? '',
    categoryId: category === undefined ? undefined : (categoryIds.get(category) ?? category),
    status: str(first.status)?.trim(),
    isDigital: bool(first.isDigital),
    isPerishable: bool(first.isPerishable),
    weight: num(first.weight),
    dimensions: dims.every((d) => d === undefined)
      ? undefined
      : { width: dims[0], height: dims[1], depth: dims[2] },
    keywords: str(first.keywords)
      ?.split('|')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
    options: options.length ? options : undefined,
    variants,
  };
}

interface Plan {
  product: NewProduct;
  variants: NewVariant[];
  lines: number[];
}

/** A new product of the group, checked as POST /products checks it; its problems, by line, otherwise. */
function planNew(
  ctx: RequestContext,
  sellerId: string,
  group: Group,
  categoryIds: Map<string, string>,
  knownCategories: Set<string>,
): Plan | LineProblem[] {
  const body = bodyOf(group, categoryIds);
  const parsed = createProductBody.safeParse(body);
  if (!parsed.success) {
    return parsed.error.issues.map((issue) => ({
      line: lineOf(group, issue.path),
      problem: { field: columnOf(issue.path), message: wordIssue(issue, undefined) },
    }));
  }
  const input = parsed.data;
  // Each combination once, said on the line that repeats it (newVariantRows would say which only).
  const combos = new Map<string, number>();
  for (const [n, v] of (input.variants ?? []).entries()) {
    const key = JSON.stringify((input.options ?? []).map((o) => v.options[o.name] ?? ''));
    const line = group.rows[n]!.line;
    const earlier = combos.get(key);
    if (earlier !== undefined && (input.options ?? []).length > 0) {
      return [
        { line, problem: problem('option1Value', 'validation.csvCombinationTwice', { line: earlier }) },
      ];
    }
    combos.set(key, line);
  }
  if (input.categoryId != null && !knownCategories.has(input.categoryId)) {
    return [{ line: group.rows[0]!.line, problem: problem('category', 'validation.unknownCategory') }];
  }
  const id = newId('products');
  const options = input.options ?? [];
  try {
    checkProductRules(ctx.locale ?? BASE_LOCALE, input);
    if (options.length === 0 && input.variants!.length > 1) {
      return [
        { line: group.rows[1]!.line, problem: problem('option1Name', 'validation.optionsForVariants') },
      ];
    }
    const variants = newVariantRows(
      ctx,
      { id, sellerId, isDigital: input.isDigital, options },
      input.variants!,
    );
    return {
      product: newProductRow(ctx, { id, sellerId, input, variants }),
      variants,
      lines: group.rows.map((r) => r.line),
    };
  } catch (err) {
    if (err instanceof AppError) return problemsOfError(group, err);
    throw err;
  }
}

const variantChange = createVariantBody
  .pick({ priceCents: true, compareAtPriceCents: true, stockQuantity: true })
  .partial();

interface Update {
  product: ProductForVariants;
  /** The product's options, when a new variant's value extended one. */
  options?: ProductOption[];
  title?: string;
  description?: string;
  /** The whole set after the file, as PATCH /products/:id takes it. */
  set: VariantInSet[];
  /** Anything of the product or its variants differs from the file. */
  changed: boolean;
  created: number;
  updated: number;
  deleted: number;
}

const optionValueOf = (row: Row, i: number) =>
  (i === 0 ? row.option1Value : i === 1 ? row.option2Value : row.option3Value)?.trim() ?? '';
const optionNameOf = (row: Row, i: number) =>
  (i === 0 ? row.option1Name : i === 1 ? row.option2Name : row.option3Name)?.trim() ?? '';

/**
 * The rows of one of the seller's products (handle = its id, as an export writes it). A row whose
 * SKU is a live variant's sets its price, compare-at price and stock, or (`status` `deleted`)
 * removes it; a row with a new SKU adds a variant, its option values the product's or new values
 * of its options. The first row may set the title and description. The resulting set is checked
 * by the rules of PATCH /products/:id (`checkVariantSet`) and written by the same code.
 */
async function planUpdate(
  ctx: RequestContext,
  sellerId: string,
  group: Group,
  fileSkus: Map<string, number>,
): Promise<Update | LineProblem[]> {
  const first = group.rows[0]!;
  const [p] = await ctx.db
    .select({
      sellerId: products.sellerId,
      status: products.status,
      isDigital: products.isDigital,
      options: products.options,
      title: products.title,
      description: products.description,
    })
    .from(products)
    .where(eq(products.id, group.handle));
  if (!p || p.sellerId !== sellerId || p.status === 'deleted') {
    return [{ line: first.line, problem: problem('handle', 'validation.csvNotYourProduct') }];
  }
  const live = await liveVariants(ctx, group.handle);
  const bySku = new Map(live.map((v) => [v.sku, v]));
  const options: ProductOption[] = p.options.map((o) => ({ name: o.name, values: [...o.values] }));
  const found: LineProblem[] = [];
  const changes = new Map<string, { line: number; change: z.infer<typeof variantChange> }>();
  const removed = new Map<string, number>();
  const added: Array<{ line: number; input: VariantInSet }> = [];
  for (const { line, row } of group.rows) {
    const sku = row.sku?.trim() ?? '';
    const earlier = sku === '' ? undefined : fileSkus.get(sku);
    if (earlier !== undefined) {
      found.push({ line, problem: problem('sku', 'validation.csvSkuInFile', { line: earlier }) });
      continue;
    }
    if (sku !== '') fileSkus.set(sku, line);
    const v = bySku.get(sku);
    if (row.status?.trim() === 'deleted') {
      if (v) removed.set(v.id, line);
      else found.push({ line, problem: problem('sku', 'validation.csvUnknownSku') });
      continue;
    }
    if (v) {
      const parsed = variantChange.safeParse({
        priceCents: num(row.priceCents),
        compareAtPriceCents: row.compareAtPriceCents?.trim() === '' ? null : num(row.compareAtPriceCents),
        stockQuantity: num(row.stockQuantity),
      });
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          found.push({
            line,
            problem: { field: columnOf(issue.path), message: wordIssue(issue, undefined) },
          });
        }
      } else changes.set(v.id, { line, change: parsed.data });
      continue;
    }
    // A new variant: its option names (when given) are the product's, its values the product's or new.
    const wrongName = [0, 1, 2].find((i) => {
      const n = optionNameOf(row, i);
      return n !== '' && n !== (options[i]?.name ?? '');
    });
    if (wrongName !== undefined) {
      found.push({ line, problem: problem(`option${wrongName + 1}Name`, 'validation.csvOptionName') });
      continue;
    }
    options.forEach((o, i) => {
      const value = optionValueOf(row, i);
      if (value !== '' && !o.values.includes(value)) o.values.push(value);
    });
    const parsed = createVariantBody.safeParse({
      sku: str(row.sku)?.trim(),
      options: Object.fromEntries(
        options.map((o, i) => [o.name, optionValueOf(row, i)]).filter(([, value]) => value !== ''),
      ),
      priceCents: num(row.priceCents),
      compareAtPriceCents: num(row.compareAtPriceCents),
      stockQuantity: num(row.stockQuantity),
      barcode: str(row.barcode)?.trim(),
      imageUrl: str(row.imageUrl)?.trim(),
    });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        found.push({ line, problem: { field: columnOf(issue.path), message: wordIssue(issue, undefined) } });
      }
    } else added.push({ line, input: parsed.data });
  }
  const extended = options.some((o, i) => o.values.length !== p.options[i]!.values.length);
  if (extended) {
    const checked = productOptions.safeParse(options);
    if (!checked.success) {
      for (const issue of checked.error.issues) {
        const path = ['options', ...issue.path];
        found.push({
          line: first.line,
          problem: { field: columnOf(path), message: wordIssue(issue, undefined) },
        });
      }
    }
  }
  if (found.length) return found;
  const title = str(first.row.title)?.trim();
  if (title !== undefined && title.length > 200) {
    return [{ line: first.line, problem: problem('title', 'validation.atMostCharacters', { n: 200 }) }];
  }
  // The set in the seller's order, then the new ones; each with the line it comes from.
  const set: VariantInSet[] = [];
  const lines: number[] = [];
  for (const v of live) {
    if (removed.has(v.id)) continue;
    const c = changes.get(v.id);
    const dims = [v.widthCm, v.heightCm, v.depthCm];
    set.push({
      id: v.id,
      sku: v.sku,
      options: Object.fromEntries(options.map((o, i) => [o.name, v.optionValues[i] ?? ''])),
      priceCents: c?.change.priceCents ?? v.priceCents,
      compareAtPriceCents:
        c && c.change.compareAtPriceCents !== undefined
          ? c.change.compareAtPriceCents
          : v.compareAtPriceCents,
      stockQuantity: c?.change.stockQuantity ?? v.stockQuantity,
      weight: v.weightKg ?? undefined,
      dimensions: dims.every((d) => d === null)
        ? null
        : { width: v.widthCm!, height: v.heightCm!, depth: v.depthCm! },
      imageUrl: v.imageUrl,
      barcode: v.barcode,
      status: v.status === 'inactive' ? 'inactive' : 'active',
    });
    lines.push(c?.line ?? first.line);
  }
  for (const a of added) {
    set.push(a.input);
    lines.push(a.line);
  }
  if (set.length === 0) {
    return [{ line: [...removed.values()].pop()!, problem: problem('status', 'validation.csvLastVariant') }];
  }
  if (set.length > MAX_VARIANTS) {
    return [
      { line: first.line, problem: problem('handle', 'validation.csvTooManyRows', { n: MAX_VARIANTS }) },
    ];
  }
  const product: ProductForVariants = {
    id: group.handle,
    sellerId,
    isDigital: p.isDigital,
    options,
  };
  try {
    checkVariantSet(product, live, set);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return problemsOfError({ handle: group.handle, rows: lines.map((line) => ({ line, row: {} })) }, err);
  }
  if (added.length) {
    const taken = await liveSkusAmong(
      ctx.db,
      sellerId,
      added.flatMap((a) => (a.input.sku ? [a.input.sku] : [])),
    );
    if (taken.length) {
      return added
        .filter((a) => a.input.sku && taken.includes(a.input.sku))
        .map((a) => ({ line: a.line, problem: problem('sku', 'validation.csvSkuTaken') }));
    }
  }
  // What differs from the database: an export read back changes nothing and counts nothing.
  const byId = new Map(live.map((v) => [v.id, v]));
  const updated = [...changes].filter(([id, { change: c }]) => {
    const v = byId.get(id)!;
    return (
      (c.priceCents !== undefined && c.priceCents !== v.priceCents) ||
      (c.compareAtPriceCents !== undefined && c.compareAtPriceCents !== v.compareAtPriceCents) ||
      (c.stockQuantity !== undefined && c.stockQuantity !== v.stockQuantity)
    );
  }).length;
  const description = first.row.description;
  const textChanged =
    (title !== undefined && title !== p.title) ||
    (description !== undefined && description !== p.description);
  return {
    product,
    options: extended ? options : undefined,
    title,
    description,
    set,
    changed: textChanged || extended || updated > 0 || added.length > 0 || removed.size > 0,
    created: added.length,
    updated,
    deleted: removed.size,
  };
}

/** Reads the header: known columns only, `handle`, `title` and `priceCents` among them. */
function checkHeader(header: string[]): string[] {
  const names = header.map((h) => h.trim());
  const unknown = names.filter((n) => !(CSV_COLUMNS as readonly string[]).includes(n));
  const missing = (['handle', 'title', 'priceCents'] as const).filter((n) => !names.includes(n));
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  const wrong = [...unknown, ...missing.map((m) => `-${m}`), ...twice];
  if (wrong.length) {
    throw fileError(400, 'error.catalog.importHeader', { columns: wrong.join(', ').slice(0, 500) }, [
      problem('line 1', 'validation.csvColumns', { columns: CSV_COLUMNS.join(', ') }),
    ]);
  }
  return names;
}

/**
 * Imports (or, `dryRun`, only checks) a CSV file into the seller's catalog. Every bad row is
 * reported with its line and column (the first MAX_REPORTED_PROBLEMS, and a count); a file with
 * any bad row writes nothing. Admins name the seller.
 */
export async function importProducts(
  ctx: RequestContext,
  source: AsyncIterable<Buffer | string>,
  opts: { dryRun: boolean; sellerId?: string; onProgress?: (rows: number) => void | Promise<void> },
): Promise<ImportReport> {
  const me = caller(ctx);
  const sellerId = await owningSeller(ctx, me, opts.sellerId);
  const locale: Locale = ctx.locale ?? BASE_LOCALE;
  const cats = await ctx.db.select({ id: categories.id, slug: categories.slug }).from(categories);
  const categoryIds = new Map(cats.map((c) => [c.slug, c.id]));
  const knownCategories = new Set(cats.map((c) => c.id));

  const kept: LineProblem[] = [];
  let problemCount = 0;
  const report = (list: LineProblem[]) => {
    problemCount += list.length;
    for (const p of list) {
      if (kept.length >= MAX_REPORTED_PROBLEMS) break;
      kept.push(p);
    }
  };
  const counts = {
    rows: 0,
    productsCreated: 0,
    productsUpdated: 0,
    variantsCreated: 0,
    variantsUpdated: 0,
    variantsDeleted: 0,
  };

  const run = async (tx: RequestContext) => {
    const write = () => !opts.dryRun && problemCount === 0;
    const handles = new Set<string>();
    const skus = new Map<string, number>();
    let pending: Plan[] = [];
    let pendingVariants = 0;

    /** Checks the batch's SKUs against the seller's live ones, then (no problem yet) inserts it. */
    const flush = async () => {
      const batch = pending;
      pending = [];
      pendingVariants = 0;
      if (batch.length === 0) return;
      const given = batch.flatMap((p) => p.variants.map((v) => v.sku));
      const taken = await liveSkusAmong(tx.db, sellerId, given);
      if (taken.length) {
        const takenSet = new Set(taken);
        for (const p of batch) {
          p.variants.forEach((v, n) => {
            if (takenSet.has(v.sku)) {
              report([{ line: p.lines[n]!, problem: problem('sku', 'validation.csvSkuTaken') }]);
            }
          });
        }
      }
      if (!write()) return;
      await insertImportedProducts(
        tx.db,
        batch.map((p) => p.product),
      );
      await insertImportedVariants(
        tx.db,
        batch.flatMap((p) => p.variants),
      );
    };

    const finish = async (group: Group) => {
      if (isRecordId('products', group.handle)) {
        const planned = await planUpdate(tx, sellerId, group, skus);
        if (Array.isArray(planned)) return report(planned);
        if (!planned.changed) return;
        counts.productsUpdated += 1;
        counts.variantsCreated += planned.created;
        counts.variantsUpdated += planned.updated;
        counts.variantsDeleted += planned.deleted;
        if (!write()) return;
        // The product row first, then its variants: the order every seller write takes them in.
        await lockProduct(tx, planned.product.id);
        if (planned.title !== undefined || planned.description !== undefined || planned.options) {
          await tx.db
            .update(products)
            .set({
              title: planned.title,
              description: planned.description,
              options: planned.options,
              updatedAt: tx.now(),
            })
            .where(eq(products.id, planned.product.id));
        }
        await replaceVariantSet(tx, planned.product, planned.set);
        return;
      }
      const planned = planNew(tx, sellerId, group, categoryIds, knownCategories);
      if (Array.isArray(planned)) return report(planned);
      const twice: LineProblem[] = [];
      planned.variants.forEach((v, n) => {
        const earlier = skus.get(v.sku);
        if (earlier !== undefined) {
          twice.push({
            line: planned.lines[n]!,
            problem: problem('sku', 'validation.csvSkuInFile', { line: earlier }),
          });
        } else {
          skus.set(v.sku, planned.lines[n]!);
        }
      });
      if (twice.length) return report(twice);
      counts.productsCreated += 1;
      counts.variantsCreated += planned.variants.length;
      pending.push(planned);
      pendingVariants += planned.variants.length;
      if (pending.length >= BATCH_PRODUCTS || pendingVariants >= BATCH_VARIANTS - MAX_VARIANTS) await flush();
    };

    const parser = parse({
      bom: true,
      columns: checkHeader,
      max_record_size: MAX_RECORD_CHARS,
      skip_empty_lines: true,
      info: true,
    });
    // The parser's errors (a quote not closed, a row of the wrong width) end the file at their line;
    // the iteration below sees them (and the size bound's), so the pipeline's own end is not awaited.
    const piping = pipeline(Readable.from(bounded(source, MAX_IMPORT_BYTES)), parser);
    piping.catch(() => {});
    let group: Group | undefined;
    try {
      for await (const { record, info } of parser as AsyncIterable<{
        record: Row;
        info: { lines: number };
      }>) {
        counts.rows += 1;
        if (opts.onProgress && counts.rows % PROGRESS_ROWS === 0) await opts.onProgress(counts.rows);
        const line = info.lines;
        const handle = record.handle?.trim() ?? '';
        if (handle === '' || handle.length > 100) {
          report([{ line, problem: problem('handle', 'validation.csvHandle') }]);
          continue;
        }
        if (group && group.handle === handle) {
          if (group.rows.length >= MAX_VARIANTS) {
            report([{ line, problem: problem('handle', 'validation.csvTooManyRows', { n: MAX_VARIANTS }) }]);
            continue;
          }
          const firstRow = group.rows[0]!;
          // In the rows of an existing product, `status` is the variant's (`deleted` removes it).
          const existing = isRecordId('products', handle);
          const differs = PRODUCT_COLUMNS.find(
            (c) => (record[c] ?? '') !== '' && record[c] !== firstRow.row[c] && !(existing && c === 'status'),
          );
          if (differs) {
            report([
              { line, problem: problem(differs, 'validation.csvDiffersFromFirst', { line: firstRow.line }) },
            ]);
            continue;
          }
          group.rows.push({ line, row: record });
          continue;
        }
        if (group) await finish(group);
        if (handles.has(handle)) {
          report([{ line, problem: problem('handle', 'validation.csvNotConsecutive') }]);
          group = undefined;
          continue;
        }
        handles.add(handle);
        group = { handle, rows: [{ line, row: record }] };
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      const e = err as { code?: string; lines?: number; message?: string };
      if (typeof e.code === 'string' && e.code.startsWith('CSV_')) {
        report([
          {
            line: e.lines ?? counts.rows + 1,
            problem: problem('handle', 'validation.csvMalformed', {
              reason: String(e.message).slice(0, 200),
            }),
          },
        ]);
        group = undefined;
      } else throw err;
    }
    if (group) await finish(group);
    await flush();
    if (problemCount > 0 && !opts.dryRun) {
      throw new ImportRefused(kept, problemCount);
    }
  };

  if (opts.dryRun) await run(ctx);
  else await inTransaction(ctx, run);
  return {
    dryRun: opts.dryRun,
    imported: !opts.dryRun,
    rows: counts.rows,
    products: { created: counts.productsCreated, updated: counts.productsUpdated },
    variants: {
      created: counts.variantsCreated,
      updated: counts.variantsUpdated,
      deleted: counts.variantsDeleted,
    },
    problemCount,
    problems: kept.map((p) => {
      const [worded] = wordProblems(locale, [p.problem]);
      return { line: p.line, field: worded!.field, message: worded!.message };
    }),
  };
}

// ---- export -------------------------------------------------------------------------------

const EXPORT_PAGE = 500;

async function* exportRows(ctx: RequestContext, sellerId: string): AsyncGenerator<Row> {
  const cats = await ctx.db.select({ id: categories.id, slug: categories.slug }).from(categories);
  const slugs = new Map(cats.map((c) => [c.id, c.slug]));
  let after = '';
  for (;;) {
    const page = await ctx.db
      .select()
      .from(products)
      .where(and(eq(products.sellerId, sellerId), ne(products.status, 'deleted'), gt(products.id, after)))
      .orderBy(asc(products.id))
      .limit(EXPORT_PAGE);
    if (page.length === 0) return;
    after = page[page.length - 1]!.id;
    const variants = await ctx.db
      .select()
      .from(productVariants)
      .where(
        and(
          inArray(
            productVariants.productId,
            page.map((p) => p.id),
          ),
          ne(productVariants.status, 'deleted'),
        ),
      )
      .orderBy(asc(productVariants.productId), asc(productVariants.position), asc(productVariants.id));
    const byProduct = new Map<string, typeof variants>();
    for (const v of variants) {
      const list = byProduct.get(v.productId) ?? [];
      list.push(v);
      byProduct.set(v.productId, list);
    }
    for (const p of page) {
      for (const v of byProduct.get(p.id) ?? []) {
        const n = (x: number | null) => (x === null ? '' : String(x));
        const opt = (i: number) => ({ name: p.options[i]?.name ?? '', value: v.optionValues[i] ?? '' });
        yield {
          handle: p.id,
          title: p.title,
          description: p.description,
          category: p.categoryId ? (slugs.get(p.categoryId) ?? p.categoryId) : '',
          status: p.status,
          isDigital: String(p.isDigital),
          isPerishable: String(p.isPerishable),
          weight: n(p.weightKg),
          width: n(p.widthCm),
          height: n(p.heightCm),
          depth: n(p.depthCm),
          keywords: p.keywords.join('|'),
          option1Name: opt(0).name,
          option1Value: opt(0).value,
          option2Name: opt(1).name,
          option2Value: opt(1).value,
          option3Name: opt(2).name,
          option3Value: opt(2).value,
          sku: v.sku,
          priceCents: String(v.priceCents),
          compareAtPriceCents: n(v.compareAtPriceCents),
          stockQuantity: String(v.stockQuantity),
          barcode: v.barcode ?? '',
          imageUrl: v.imageUrl ?? '',
        };
      }
    }
  }
}

/** The seller's products and variants (not deleted) as a CSV stream an import reads back. */
export async function exportProducts(ctx: RequestContext, opts: { sellerId?: string }): Promise<Readable> {
  const me = caller(ctx);
  const sellerId = await owningSeller(ctx, me, opts.sellerId);
  const out = stringify({ header: true, columns: [...CSV_COLUMNS] });
  (async () => {
    try {
      for await (const row of exportRows(ctx, sellerId)) {
        if (!out.write(row)) await new Promise((r) => out.once('drain', r));
      }
      out.end();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return out;
}
