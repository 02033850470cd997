// The console's form of a product's options and variants as a person fills it: up to 3 options
// (a name, its values separated by commas), one row per variant (SKU, a value of each option,
// prices in dollars, stock, status, "Remove") and an empty row that adds one. It becomes the
// API's PATCH /products/:id body (`options` and the whole `variants` set, each kept variant with
// its `id`); the API's problems, which count the variants sent, are put back on the form's rows.
import { MAX_OPTIONS, MAX_VARIANTS } from '../../contract/catalog.ts';
import { AppError, type Problem } from '../../contract/errors.ts';
import { type Locale, text } from '../../contract/i18n.ts';
import type { getProduct } from '../../modules/catalog/service.ts';
import { type Body, one } from './form.ts';

type Detail = Awaited<ReturnType<typeof getProduct>>;

export interface OptionRow {
  name: string;
  values: string;
}

export interface VariantRow {
  /** The variant's id; '' for the row that adds one. */
  id: string;
  sku: string;
  /** Its value of each option, by the option's place. */
  values: string[];
  price: string;
  compareAt: string;
  stock: string;
  status: string;
  remove: boolean;
}

export interface VariantsForm {
  options: OptionRow[];
  rows: VariantRow[];
}

const decimal = (l: Locale, n: number) => (l === 'fr-CA' ? String(n).replace('.', ',') : String(n));
const dollars = (l: Locale, cents: number) => decimal(l, Number((cents / 100).toFixed(2)));

const emptyRow = (): VariantRow => ({
  id: '',
  sku: '',
  values: Array(MAX_OPTIONS).fill(''),
  price: '',
  compareAt: '',
  stock: '',
  status: 'active',
  remove: false,
});

/** The form of the product as it is, with the empty row. */
export function variantsFormOf(l: Locale, p: Detail): VariantsForm {
  const options = Array.from({ length: MAX_OPTIONS }, (_, n) => ({
    name: p.options[n]?.name ?? '',
    values: p.options[n]?.values.join(', ') ?? '',
  }));
  const rows = p.variants.map((v) => ({
    id: v.id,
    sku: v.sku,
    values: Array.from({ length: MAX_OPTIONS }, (_, n) => v.options[p.options[n]?.name ?? ''] ?? ''),
    price: dollars(l, v.priceCents),
    compareAt: v.compareAtPriceCents === null ? '' : dollars(l, v.compareAtPriceCents),
    stock: String(v.stockQuantity),
    status: v.status,
    remove: false,
  }));
  return { options, rows: [...rows, emptyRow()] };
}

/** The form as posted: 3 options, and the rows up to the most a product has, plus the empty one. */
export function variantsFormOfBody(b: Body): VariantsForm {
  const options = Array.from({ length: MAX_OPTIONS }, (_, n) => ({
    name: one(b[`options.${n}.name`]).trim(),
    values: one(b[`options.${n}.values`]),
  }));
  const rows: VariantRow[] = [];
  for (let n = 0; n <= MAX_VARIANTS && b[`variants.${n}.price`] !== undefined; n++) {
    const at = (f: string) => one(b[`variants.${n}.${f}`]);
    rows.push({
      id: at('id'),
      sku: at('sku').trim(),
      values: Array.from({ length: MAX_OPTIONS }, (_, k) => at(`value.${k}`).trim()),
      price: at('price').trim(),
      compareAt: at('compareAt').trim(),
      stock: at('stockQuantity').trim(),
      status: at('status') || 'active',
      remove: b[`variants.${n}.remove`] !== undefined,
    });
  }
  // The empty row again after a refusal, unless it was filled.
  const last = rows.at(-1);
  if (!last || last.id || !isBlank(last)) rows.push(emptyRow());
  return { options, rows };
}

/** A new row left empty adds nothing. */
const isBlank = (r: VariantRow) =>
  !r.id && !r.sku && !r.price && !r.compareAt && !r.stock && r.values.every((v) => !v);

/** Dollars as typed ("89.99", "89,99 $") in cents; anything else as typed, for the schema to refuse. */
function centsOf(typed: string): number | string | undefined {
  const s = typed.replace(/[\s\u00a0$]/g, '').replace(',', '.');
  if (s === '') return undefined;
  return /^\d+(\.\d{1,2})?$/.test(s) ? Math.round(Number(s) * 100) : typed;
}

function countOf(typed: string): number | string {
  const s = typed.replace(/[\s\u00a0]/g, '');
  if (s === '') return 0;
  return /^\d+$/.test(s) ? Number(s) : typed;
}

/**
 * The API's body, and the form's row of each variant sent (the API's `variants.<i>` is the
 * form's row `sent[i]`). An option row with neither name nor values is no option; a comma list's
 * empty items are dropped.
 */
export function variantsBody(f: VariantsForm) {
  const named = f.options
    .map((o, place) => ({
      place,
      name: o.name,
      values: o.values
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    }))
    .filter((o) => o.name || o.values.length);
  const sent: number[] = [];
  const variants = f.rows.flatMap((r, n) => {
    if (r.remove || isBlank(r)) return [];
    sent.push(n);
    const compareAt = centsOf(r.compareAt);
    return [
      {
        ...(r.id ? { id: r.id } : {}),
        ...(r.sku ? { sku: r.sku } : {}),
        options: Object.fromEntries(named.map((o) => [o.name, r.values[o.place] ?? ''])),
        priceCents: centsOf(r.price),
        compareAtPriceCents: compareAt === undefined ? null : compareAt,
        stockQuantity: countOf(r.stock),
        status: r.status,
      },
    ];
  });
  return {
    body: { options: named.map(({ name, values }) => ({ name, values })), variants },
    sent,
    /** The API's option `i` is the form's option row `places[i]`. */
    places: named.map((o) => o.place),
  };
}

/** Two rows with the same values: refused as the API refuses them (409), under the second row. */
export function refuseTwice(f: VariantsForm, sent: number[], places: number[]) {
  const seen = new Map<string, number>();
  for (const n of sent) {
    const values = places.map((p) => f.rows[n]!.values[p] ?? '');
    const key = JSON.stringify(values);
    if (seen.has(key)) {
      throw new AppError(
        'CONFLICT',
        409,
        text('error.catalog.variantTwice', { values: values.join(' / ') || '—' }),
        [
          {
            field: `variants.${n}.options`,
            message: text('web.console.variants.twice', { values: values.join(' / ') }),
          },
        ],
      );
    }
    seen.set(key, n);
  }
}

/**
 * A refusal of the API's body with its problems on the form's fields: `variants.<i>` becomes the
 * form's row, `options.<i>` its option row, and a problem inside a list (one value of an option,
 * one option of a variant) goes under the field that holds the list.
 */
export function onTheForm(err: unknown, sent: number[], places: number[]): unknown {
  if (!(err instanceof AppError) || !err.problems) return err;
  const problems: Problem[] = err.problems.map((p) => {
    const field = p.field
      .replace(/^variants\.(\d+)\./, (_, i: string) => `variants.${sent[Number(i)] ?? i}.`)
      .replace(/^options\.(\d+)\./, (_, i: string) => `options.${places[Number(i)] ?? i}.`)
      .replace(/^(options\.\d+\.values)\.\d+$/, '$1')
      .replace(/^(variants\.\d+\.options)\..+$/, '$1')
      .replace(/^(variants\.\d+)\.priceCents$/, '$1.price')
      .replace(/^(variants\.\d+)\.compareAtPriceCents$/, '$1.compareAt');
    return { ...p, field };
  });
  return new AppError(err.code, err.statusCode, err.text, problems);
}
