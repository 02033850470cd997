// UCP's catalog capabilities (docs/ucp.md "Catalog"): search, lookup and one product, over the
// same search engine and catalog reads as GET /search/products and GET /products/:id. A Portage
// product is a UCP product with one variant (same id, the item.id a checkout takes); prices in CAD
// cents; only active products are shown.
import type { z } from 'zod';
import type { productListItem } from '../../contract/catalog.ts';
import { BASE_LOCALE, t, text } from '../../contract/i18n.ts';
import type {
  UcpCatalogLookupRequest,
  UcpCatalogSearchRequest,
  UcpGetProductRequest,
  UcpMessage,
  UcpProduct,
} from '../../contract/ucp.ts';

import { listItemsByIds } from '../catalog/service.ts';
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

/** A Portage product as UCP's: one variant, its price the product's, its stock its availability. */
export function ucpProductOf(p: Omit<ListItem, 'status'>): UcpProduct {
  const price = { amount: p.priceCents, currency: 'CAD' };
  const media = p.imageUrls.filter((u) => /^https?:\/\//.test(u)).map((url) => ({ type: 'image', url }));
  const description = { plain: p.description };
  const rating =
    p.reviewCount > 0 ? { value: p.rating, scale_min: 1, scale_max: 5, count: p.reviewCount } : undefined;
  const available = p.stockQuantity > 0;
  return {
    id: p.id,
    title: p.title,
    description,
    ...(p.categoryId ? { categories: [{ value: p.categoryId, taxonomy: 'merchant' }] } : {}),
    price_range: { min: price, max: price },
    ...(media.length ? { media } : {}),
    variants: [
      {
        id: p.id,
        title: p.title,
        description,
        price,
        availability: { available, status: available ? 'in_stock' : 'out_of_stock' },
        ...(media.length ? { media } : {}),
        ...(rating ? { rating } : {}),
      },
    ],
    ...(rating ? { rating } : {}),
  };
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
  const found = await engine.search(ctx, {
    q: (input.query ?? '').slice(0, 200),
    filters: filtersOf(input),
    limit,
    offset,
  });
  const next = offset + found.results.length;
  const more = next < found.total && next <= MAX_OFFSET;
  return {
    products: found.results.map(ucpProductOf),
    pagination: { has_next_page: more, ...(more ? { cursor: String(next) } : {}), total_count: found.total },
  };
}

export async function lookupCatalog(ctx: RequestContext, input: UcpCatalogLookupRequest) {
  if (input.ids.length > MAX_LOOKUP_IDS) {
    throw new UcpFailure(400, 'request_too_large', text('ucp.error.lookupTooLarge', { max: MAX_LOOKUP_IDS }));
  }
  const ids = [...new Set(input.ids)];
  const known = ids.filter((id) => /^products:[A-Za-z0-9_-]{1,40}$/.test(id));
  const items = (await listItemsByIds(ctx, known)).filter((p) => p.status === 'active');
  const found = new Set(items.map((p) => p.id));
  const products = items.map((p) => {
    const product = ucpProductOf(p);
    return {
      ...product,
      variants: product.variants.map((v) => ({ ...v, inputs: [{ id: p.id, match: 'exact' }] })),
    };
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

/** One product, or undefined (a business outcome: not found). */
export async function productOfCatalog(ctx: RequestContext, input: UcpGetProductRequest) {
  if (!/^products:[A-Za-z0-9_-]{1,40}$/.test(input.id)) return undefined;
  const [item] = await listItemsByIds(ctx, [input.id]);
  if (item?.status !== 'active') return undefined;
  return { product: ucpProductOf(item) };
}
