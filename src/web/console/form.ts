// The console's forms as a person fills them: the product form (the price in dollars, a comma for
// the decimal point in French), the API's body made from it and the one check the pages add (an
// image their CSP would block); the shop's invoice identity.
import { AppError, type Problem } from '../../contract/errors.ts';
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

/** The other language's text as typed: keywords and each option's values separated by commas. */
export interface TranslationForm {
  title: string;
  description: string;
  keywords: string;
  /** By the product's options' positions. */
  options: { name: string; values: string }[];
}

/** The product form's fields as typed (the price in dollars), to show again after a refusal. */
export interface ProductForm {
  /** What the text is written in (chosen when creating; the product's when editing). */
  language: Locale;
  title: string;
  description: string;
  /** Separated by commas; undefined when the post had no such field (the stored ones stay). */
  keywords?: string;
  /** Undefined when the post carried no translation fields: the stored translation stays. */
  translation?: TranslationForm;
  price: string;
  stockQuantity: string;
  weight: string;
  categoryId: string;
  isDigital: boolean;
  isPerishable: boolean;
  /**
   * Offered to AI agents (feeds, ACP, UCP). Undefined when the post had no `agentChannelsShown`
   * field (a form without the box): the stored choice stays, a new product is offered.
   */
  agentChannels?: boolean;
  imageUrl: string;
  status: string;
}

/** The other of the two languages: the one a translation is in. */
export const otherLanguage = (l: Locale): Locale => (l === 'fr-CA' ? 'en-CA' : 'fr-CA');

/** At most as many option rows as a product has options (3). */
const MAX_TRANSLATED_OPTIONS = 3;

function translationOfBody(b: Body): TranslationForm | undefined {
  if (b['tr.title'] === undefined) return undefined;
  const options = [];
  for (let n = 0; n < MAX_TRANSLATED_OPTIONS && b[`tr.options.${n}.name`] !== undefined; n++) {
    options.push({ name: one(b[`tr.options.${n}.name`]).trim(), values: one(b[`tr.options.${n}.values`]) });
  }
  return {
    title: one(b['tr.title']),
    description: one(b['tr.description']),
    keywords: one(b['tr.keywords']),
    options,
  };
}

export const formOfBody = (b: Body, fallback: Locale = 'en-CA'): ProductForm => ({
  language: one(b.language) === 'fr-CA' ? 'fr-CA' : one(b.language) === 'en-CA' ? 'en-CA' : fallback,
  title: one(b.title),
  description: one(b.description),
  keywords: b.keywords === undefined ? undefined : one(b.keywords),
  translation: translationOfBody(b),
  price: one(b.price).trim(),
  stockQuantity: one(b.stockQuantity).trim(),
  weight: one(b.weight).trim(),
  categoryId: one(b.categoryId),
  isDigital: b.isDigital !== undefined,
  isPerishable: b.isPerishable !== undefined,
  // An unticked box sends nothing: the hidden field beside it says the box was there.
  agentChannels: b.agentChannelsShown === undefined ? undefined : b.agentChannels !== undefined,
  imageUrl: one(b.imageUrl).trim(),
  status: one(b.status),
});

/** A decimal as the locale writes it (89,99 in French). */
export const decimal = (l: Locale, n: number) => (l === 'fr-CA' ? String(n).replace('.', ',') : String(n));

export function translationOfProduct(p: Detail): TranslationForm {
  const tr = p.translations[otherLanguage(p.sourceLanguage)];
  return {
    title: tr?.title ?? '',
    description: tr?.description ?? '',
    keywords: tr?.keywords.join(', ') ?? '',
    options: p.options.map((_, n) => ({
      name: tr?.options?.[n]?.name ?? '',
      values: tr?.options?.[n]?.values.join(', ') ?? '',
    })),
  };
}

export const formOfProduct = (l: Locale, p: Detail): ProductForm => ({
  language: p.sourceLanguage,
  title: p.title,
  description: p.description,
  keywords: p.keywords.join(', '),
  translation: translationOfProduct(p),
  price: decimal(l, Number((p.priceCents / 100).toFixed(2))),
  stockQuantity: String(p.stockQuantity),
  weight: p.weight === null ? '' : decimal(l, p.weight),
  categoryId: p.categoryId ?? '',
  isDigital: p.isDigital,
  isPerishable: p.isPerishable,
  agentChannels: p.agentChannels ?? true,
  imageUrl: sellerImageOf(p) ?? '',
  status: p.status,
});

/**
 * A number as a person types it (a comma for the decimal point in French): the number, nothing
 * for an empty field, or what was typed, which the API's schema then refuses in its own words.
 */
export function numberOf(typed: string): number | string | undefined {
  const s = typed.replace(/[\s\u00a0]/g, '').replace(',', '.');
  if (s === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : typed;
}

/** Dollars as typed ("89.99", "89,99 $") in cents; anything else as typed, for the schema to refuse. */
export function centsOf(typed: string): number | string | undefined {
  const s = typed.replace(/[\s\u00a0$]/g, '').replace(',', '.');
  if (s === '') return undefined;
  return /^\d+(\.\d{1,2})?$/.test(s) ? Math.round(Number(s) * 100) : typed;
}

/** A comma list as typed, its empty items dropped. */
const listOf = (typed: string) =>
  typed
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/**
 * The API's `translations` for the form's other-language fields: none when all are empty, the
 * options only when one of their fields is filled (then all, an empty one for the API to refuse).
 */
function translationsBody(language: Locale, tr: TranslationForm, options: number) {
  const shown = tr.options.slice(0, options);
  const optionsTyped = shown.some((o) => o.name || o.values.trim());
  if (!tr.title.trim() && !tr.description.trim() && !tr.keywords.trim() && !optionsTyped) return {};
  return {
    [otherLanguage(language)]: {
      title: tr.title,
      description: tr.description,
      keywords: listOf(tr.keywords),
      ...(optionsTyped ? { options: shown.map((o) => ({ name: o.name, values: listOf(o.values) })) } : {}),
    },
  };
}

/**
 * The API's body for the form: POST /products's when creating, PATCH /products/:id's (every
 * field) when changing `current`. An emptied weight or image clears it; the language is chosen
 * when creating only (its translation would change meaning).
 */
export function productBody(f: ProductForm, current?: Detail) {
  const weight = numberOf(f.weight);
  // A product with options: its prices and stock are its variants' (their own form).
  const onVariants = Boolean(current?.options.length);
  const language = current?.sourceLanguage ?? f.language;
  return {
    ...(current ? {} : { language }),
    title: f.title,
    description: f.description,
    ...(f.keywords !== undefined ? { keywords: listOf(f.keywords) } : {}),
    ...(f.translation
      ? { translations: translationsBody(language, f.translation, current?.options.length ?? 0) }
      : {}),
    ...(onVariants ? {} : { priceCents: centsOf(f.price), stockQuantity: numberOf(f.stockQuantity) }),
    weight: weight === undefined && current ? null : weight,
    categoryId: f.categoryId || null,
    isDigital: f.isDigital,
    isPerishable: f.isPerishable,
    ...(f.agentChannels !== undefined ? { agentChannels: f.agentChannels } : {}),
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

/**
 * A refusal with its problems on the product form's fields: one item of a list (a keyword, an
 * option's value) goes under the field that holds the list.
 */
export function onProductForm(err: unknown): unknown {
  if (!(err instanceof AppError) || !err.problems) return err;
  const problems: Problem[] = err.problems.map((p) => ({
    ...p,
    field: p.field
      .replace(/^((?:translations\.[a-zA-Z-]+\.)?keywords)\.\d+$/, '$1')
      .replace(/^(translations\.[a-zA-Z-]+\.options\.\d+\.values)\.\d+$/, '$1'),
  }));
  return new AppError(err.code, err.statusCode, err.text, problems);
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
