// The console's forms as a person fills them: the product form (the price in dollars, a comma for
// the decimal point in French), the API's body made from it and the one check the pages add (an
// image their CSP would block); the shop's invoice identity.
import { AppError } from '../../contract/errors.ts';
import { type Locale, text } from '../../contract/i18n.ts';
import type { getProduct } from '../../modules/catalog/service.ts';
import { isUploadedUrl } from '../../modules/images/urls.ts';

export type Body = Record<string, string | string[] | undefined>;
type Detail = Awaited<ReturnType<typeof getProduct>>;

/** The rows of a list's page. */
export const PAGE_SIZE = 20;
/** A list's page number from its query, 1 to 1000. */
export const pageNoOf = (v: unknown) =>
  Math.max(1, Math.min(1000, Number.parseInt(String(v ?? '1'), 10) || 1));
/** `?done=` names what the last form did; only the known ones are said. */
export const doneOf = <D extends string>(known: readonly D[], v: unknown): D | undefined =>
  known.find((d) => d === v);

/** A form's one value (a repeated name counts its first). */
export const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';

export const SHOP_FIELDS = [
  'legalName',
  'street',
  'city',
  'postalCode',
  'gstHstNumber',
  'qstNumber',
] as const;
/** The shop's invoice identity as typed. */
export type ShopForm = Record<(typeof SHOP_FIELDS)[number], string>;

/** The product form's fields as typed (the price in dollars), to show again after a refusal. */
export interface ProductForm {
  title: string;
  description: string;
  price: string;
  stockQuantity: string;
  weight: string;
  categoryId: string;
  isDigital: boolean;
  isPerishable: boolean;
  imageUrl: string;
  status: string;
}

export const formOfBody = (b: Body): ProductForm => ({
  title: one(b.title),
  description: one(b.description),
  price: one(b.price).trim(),
  stockQuantity: one(b.stockQuantity).trim(),
  weight: one(b.weight).trim(),
  categoryId: one(b.categoryId),
  isDigital: b.isDigital !== undefined,
  isPerishable: b.isPerishable !== undefined,
  imageUrl: one(b.imageUrl).trim(),
  status: one(b.status),
});

/** A decimal as the locale writes it (89,99 in French). */
const decimal = (l: Locale, n: number) => (l === 'fr-CA' ? String(n).replace('.', ',') : String(n));

export const formOfProduct = (l: Locale, p: Detail): ProductForm => ({
  title: p.title,
  description: p.description,
  price: decimal(l, Number((p.priceCents / 100).toFixed(2))),
  stockQuantity: String(p.stockQuantity),
  weight: p.weight === null ? '' : decimal(l, p.weight),
  categoryId: p.categoryId ?? '',
  isDigital: p.isDigital,
  isPerishable: p.isPerishable,
  imageUrl: sellerImageOf(p) ?? '',
  status: p.status,
});

/**
 * A number as a person types it (a comma for the decimal point in French): the number, nothing
 * for an empty field, or what was typed, which the API's schema then refuses in its own words.
 */
function numberOf(typed: string): number | string | undefined {
  const s = typed.replace(/[\s\u00a0]/g, '').replace(',', '.');
  if (s === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : typed;
}

/** Dollars as typed ("89.99", "89,99 $") in cents; anything else as typed, for the schema to refuse. */
function centsOf(typed: string): number | string | undefined {
  const s = typed.replace(/[\s\u00a0$]/g, '').replace(',', '.');
  if (s === '') return undefined;
  return /^\d+(\.\d{1,2})?$/.test(s) ? Math.round(Number(s) * 100) : typed;
}

/**
 * The API's body for the form: POST /products's when creating, PATCH /products/:id's (every
 * field) when changing `current`. An emptied weight or image clears it.
 */
export function productBody(f: ProductForm, current?: Detail) {
  const weight = numberOf(f.weight);
  // A product with options: its prices and stock are its variants' (their own form).
  const onVariants = Boolean(current?.options.length);
  return {
    title: f.title,
    description: f.description,
    ...(onVariants ? {} : { priceCents: centsOf(f.price), stockQuantity: numberOf(f.stockQuantity) }),
    weight: weight === undefined && current ? null : weight,
    categoryId: f.categoryId || null,
    isDigital: f.isDigital,
    isPerishable: f.isPerishable,
    ...imageChange(f.imageUrl, current),
    ...(f.status ? { status: f.status } : {}),
  };
}

/**
 * The pages' CSP (layout.ts WEB_CSP: img-src 'self' https: data:) would block an image over plain
 * http from another host, so the product page would show none: the form says so before saving.
 * The API keeps accepting any http(s) URL (agents show images outside these pages).
 */
export function refuseBlockedImage(f: ProductForm, publicBaseUrl: string) {
  if (!f.imageUrl || !URL.canParse(f.imageUrl)) return;
  const url = new URL(f.imageUrl);
  const origin = new URL(publicBaseUrl).origin;
  if (url.protocol === 'https:' || url.origin === origin || url.protocol !== 'http:') return;
  throw new AppError('VALIDATION_ERROR', 400, text('web.form.fix'), [
    { field: 'imageUrl', message: text('web.console.product.imageBlocked', { origin }) },
  ]);
}

/** The first image address the seller gave (uploaded images are the gallery's, not the form's). */
const sellerImageOf = (p: { imageUrls: string[] }) => p.imageUrls.find((u) => !isUploadedUrl(u));

/** The form's image address in place of the one it showed; the other addresses stay (the gallery's too: the service keeps them). */
function imageChange(given: string, current: Detail | undefined) {
  if (!current) return given ? { imageUrl: given } : {};
  const shown = sellerImageOf(current);
  const others = current.imageUrls.filter((u) => u !== shown && !isUploadedUrl(u));
  if (given === (shown ?? '')) return {};
  return { imageUrls: given ? [given, ...others] : others };
}
