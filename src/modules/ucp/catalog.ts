// UCP's catalog capabilities (docs/ucp.md "Catalog"): search, lookup and one product, over the
// same search engine and catalog reads as GET /search/products and GET /products/:id. A Portage
// product is a UCP product, its variants on sale UCP's variants (each id the item.id a checkout
// takes; a product sold one way has one, of the product's id); prices in CAD cents; only products
// on sale to agents are shown (active, of an open shop, not kept out of agent channels). Text is
// in the language of the request's context.language, else of Accept-Language (catalogContext).
import type { z } from 'zod';
import type { productListItem } from '../../contract/catalog.ts';
import { isRecordId } from '../../contract/common.ts';
import { BASE_LOCALE, negotiateLocale, t, text } from '../../contract/i18n.ts';
import type {
  UcpCatalogLookupRequest,
  UcpCatalogSearchRequest,
  UcpGetProductRequest,
  UcpInputCorrelation,
  UcpMessage,
  UcpProduct,
} from '../../contract/ucp.ts';

import {
  agentSaleItemsByIds,
  productsOfSaleVariants,
  type SaleVariants,
  saleVariantsOf,
} from '../catalog/service.ts';
import type { RequestContext } from '../context.ts';
import type { SearchEngine } from '../search/service.ts';
import { UcpFailure } from './errors.ts';

type ListItem = z.infer<typeof productListItem>;

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;
/** The deepest page a cursor may reach (the search engine's own offset limit). */
const MAX_OFFSET = 10_000;
/** Ids one lookup may ask for. */
export const MAX_LOOKUP_IDS = 50;

const cad = (amount: number) => ({ amount, currency: 'CAD' });

/**
 * The request's context for a catalog operation, in the language its `context.language` (BCP 47)
 * names: any French (fr, fr-CA) is French, any English English; another or none leaves the
 * request's (Accept-Language, else the default). types/context.json: when provided, it overrides
 * Accept-Language. Titles, descriptions, option names and values and messages follow it.
 */
export function catalogContext(
  ctx: RequestContext,
  input: { context?: { language?: string } | undefined },
): RequestContext {
  const asked = negotiateLocale(input.context?.language);
  return asked ? { ...ctx, locale: asked } : ctx;
}
const isHttp = (u: string) => /^https?:\/\//.test(u);

/**
 * A Portage product as UCP's: its options, and its variants on sale (`sale`), each with its SKU,
 * price, compare-at price (`list_price`), barcode, option values and availability. A product read
 * without its variants (none on sale) answers one variant of its own id, not available.
 */
export function ucpProductOf(p: Omit<ListItem, 'status'>, sale?: SaleVariants): UcpProduct {
  const media = p.imageUrls.filter(isHttp).map((url) => ({ type: 'image', url }));
  const description = { plain: p.description };
  const rating =
    p.reviewCount > 0 ? { value: p.rating, scale_min: 1, scale_max: 5, count: p.reviewCount } : undefined;
  const availability = (available: boolean) => ({
    available,
    status: available ? 'in_stock' : 'out_of_stock',
  });
  const options = sale?.options ?? [];
  const variants = sale?.variants.length
    ? sale.variants.map((v) => {
        const own = v.imageUrl && isHttp(v.imageUrl) ? [{ type: 'image', url: v.imageUrl }] : [];
        const shown = [...own, ...media.filter((m) => m.url !== v.imageUrl)];
        return {
          id: v.id,
          sku: v.sku,
          ...(v.barcode ? { barcodes: [{ type: 'GTIN', value: v.barcode }] } : {}),
          title: v.title || p.title,
          description,
          price: cad(v.priceCents),
          ...(v.compareAtPriceCents !== null ? { list_price: cad(v.compareAtPriceCents) } : {}),
          availability: availability(v.available),
          ...(options.length
            ? { options: options.map((o, n) => ({ name: o.name, label: v.optionValues[n] ?? '' })) }
            : {}),
          ...(shown.length ? { media: shown } : {}),
          ...(rating ? { rating } : {}),
        };
      })
    : [
        {
          id: p.id,
          title: p.title,
          description,
          price: cad(p.priceCents),
          availability: availability(false),
          ...(media.length ? { media } : {}),
          ...(rating ? { rating } : {}),
        },
      ];
  return {
    id: p.id,
    title: p.title,
    description,
    ...(p.categoryId ? { categories: [{ value: p.categoryId, taxonomy: 'merchant' }] } : {}),
    price_range: { min: cad(p.priceRange.minCents), max: cad(p.priceRange.maxCents) },
    ...(media.length ? { media } : {}),
    ...(options.length
      ? { options: options.map((o) => ({ name: o.name, values: o.values.map((label) => ({ label })) })) }
      : {}),
    variants,
    ...(rating ? { rating } : {}),
  };
}

/** UCP products of list items, with their variants on sale (one read for the page). */
async function ucpProductsOf(ctx: RequestContext, items: Array<Omit<ListItem, 'status'>>) {
  const sale = await saleVariantsOf(
    ctx,
    items.map((p) => p.id),
  );
  return items.map((p) => ucpProductOf(p, sale.get(p.id)));
}

/** The search's filters in the engine's grammar: categories (any of), a price range in cents. */
function filtersOf(input: UcpCatalogSearchRequest): string | undefined {
  const clauses: string[] = [];
  const categories = (input.filters?.categories ?? []).filter((c) => /^[A-Za-z0-9:_-]{1,64}$/.test(c));
  if (input.filters?.categories?.length && !categories.length) return 'categoryId:none';
  if (categories.length) clauses.push(`categoryId:${categories.join('|')}`);
  const price = input.filters?.price;
  if (price?.min !== undefined || price?.max !== undefined)
    clauses.push(`priceCents:${price.min ?? ''}..${price.max ?? ''}`);
  return clauses.length ? clauses.join(',') : undefined;
}

/** A cursor is the offset of the next page, as text (opaque to the platform). */
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const n = /^\d{1,5}$/.test(cursor) ? Number(cursor) : Number.NaN;
  if (!(n >= 0 && n <= MAX_OFFSET)) throw new UcpFailure(400, 'invalid_request', text('ucp.error.badCursor'));
  return n;
}

export async function searchCatalog(
  ctx: RequestContext,
  engine: SearchEngine,
  input: UcpCatalogSearchRequest,
) {
  const limit = Math.min(MAX_LIMIT, input.pagination?.limit ?? DEFAULT_LIMIT);
  const offset = offsetOf(input.pagination?.cursor);
  const found = await engine.search(
    ctx,
    { q: (input.query ?? '').slice(0, 200), filters: filtersOf(input), limit, offset },
    { agents: true },
  );
  const next = offset + found.results.length;
  const more = next < found.total && next <= MAX_OFFSET;
  return {
    products: await ucpProductsOf(ctx, found.results),
    pagination: { has_next_page: more, ...(more ? { cursor: String(next) } : {}), total_count: found.total },
  };
}

/** An id a lookup may resolve: a product's, or a variant's (a product sold one way's is both). */
const isCatalogId = (id: string) => isRecordId('products', id) || isRecordId('variants', id);

/**
 * lookup.md "Resolution Behavior": a variant's id resolves to that variant (`exact`); a product's
 * id to its featured variant, the first on sale (`featured`), or `exact` for a product sold one
 * way, whose one variant it names. Each product is answered once, with only the variants some id
 * resolved to (in the seller's order), each listing the ids that did.
 */
export async function lookupCatalog(ctx: RequestContext, input: UcpCatalogLookupRequest) {
  if (input.ids.length > MAX_LOOKUP_IDS) {
    throw new UcpFailure(400, 'request_too_large', text('ucp.error.lookupTooLarge', { max: MAX_LOOKUP_IDS }));
  }
  const ids = [...new Set(input.ids)];
  const known = ids.filter(isCatalogId);
  const owners = await productsOfSaleVariants(ctx, known);
  // A product's own id names the product, even where one of its variants kept that id.
  const ownerOf = (id: string) => (isRecordId('products', id) ? id : owners.get(id));
  const productIds = [...new Set(known.flatMap((id) => ownerOf(id) ?? []))];
  const items = await agentSaleItemsByIds(ctx, productIds);
  const found = new Set<string>();
  const products = (await ucpProductsOf(ctx, items)).map((product) => {
    const inputs = new Map<string, UcpInputCorrelation[]>();
    const resolve = (variantId: string, input: UcpInputCorrelation) => {
      inputs.set(variantId, [...(inputs.get(variantId) ?? []), input]);
      found.add(input.id);
    };
    const soldOneWay = !product.options?.length;
    for (const id of ids) {
      if (id === product.id)
        resolve(product.variants[0]!.id, { id, match: soldOneWay ? 'exact' : 'featured' });
      else if (ownerOf(id) === product.id && product.variants.some((v) => v.id === id))
        resolve(id, { id, match: 'exact' });
    }
    const variants = product.variants.flatMap((v) => {
      const by = inputs.get(v.id);
      return by ? [{ ...v, inputs: by }] : [];
    });
    return { ...product, variants };
  });
  const missing = ids.filter((id) => !found.has(id));
  const messages: UcpMessage[] = missing.length
    ? [
        {
          type: 'info',
          code: 'not_found',
          content: t(ctx.locale ?? BASE_LOCALE, 'ucp.message.notFound', {
            ids: missing.slice(0, 10).join(', '),
          }),
        },
      ]
    : [];
  return { products, ...(messages.length ? { messages } : {}) };
}

/**
 * One product, or undefined (a business outcome: not found). Given a variant's id (lookup.md
 * "Get Product"), the product with that variant selected: `selected` its option values (the
 * request's `selected` ignored), and `variants` that variant alone, the one matching them all.
 */
export async function productOfCatalog(ctx: RequestContext, input: UcpGetProductRequest) {
  if (!isCatalogId(input.id)) return undefined;
  const productId = isRecordId('products', input.id)
    ? input.id
    : (await productsOfSaleVariants(ctx, [input.id])).get(input.id);
  if (!productId) return undefined;
  const [item] = await agentSaleItemsByIds(ctx, [productId]);
  if (!item) return undefined;
  const sale = (await saleVariantsOf(ctx, [item.id])).get(item.id);
  const product = ucpProductOf(item, sale);
  const variant = productId === input.id ? undefined : sale?.variants.find((v) => v.id === input.id);
  if (productId !== input.id && !variant) return undefined;
  if (!sale?.options.length) return { product };
  if (!variant) return { product: { ...product, ...selectionOf(sale, input.selected ?? []) } };
  const own = sale.options.map((o, n) => ({ name: o.name, label: variant.optionValues[n] ?? '' }));
  return {
    product: {
      ...product,
      ...selectionOf(sale, own),
      variants: product.variants.filter((v) => v.id === variant.id),
    },
  };
}

/**
 * get_product's effective selection (lookup.md "Effective Selections"): the first variant that
 * matches what the platform selected, dropping its last selections until one does, else the
 * first variant; with each option value's signals relative to it (`exists`, `available`: a variant
 * with that value and the other selected values).
 */
function selectionOf(sale: SaleVariants, asked: Array<{ name: string; label: string }>) {
  const matches = (values: string[], wanted: Array<{ name: string; label: string }>) =>
    wanted.every((w) => {
      const n = sale.options.findIndex((o) => o.name === w.name);
      return n < 0 || values[n] === w.label;
    });
  let wanted = asked;
  let featured = sale.variants.find((v) => matches(v.optionValues, wanted));
  while (!featured && wanted.length > 0) {
    wanted = wanted.slice(0, -1);
    featured = sale.variants.find((v) => matches(v.optionValues, wanted));
  }
  const chosen = (featured ?? sale.variants[0]!).optionValues;
  return {
    selected: sale.options.map((o, n) => ({ name: o.name, label: chosen[n] ?? '' })),
    options: sale.options.map((o, n) => ({
      name: o.name,
      values: o.values.map((label) => {
        const like = sale.variants.filter((v) =>
          v.optionValues.every((value, k) => (k === n ? value === label : value === chosen[k])),
        );
        return { label, exists: like.length > 0, available: like.some((v) => v.available) };
      }),
    })),
  };
}
