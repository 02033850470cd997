// Shops' pages (docs/api.md "Shops"): what anyone reads of a shop at /shops/<slug> (its name,
// logo, province, rating, description and policies in the reader's language) and what its seller
// writes of it. A shop whose seller wrote no policy follows the platform's.
import { isRecordId } from '../../contract/common.ts';
import { notFound } from '../../contract/errors.ts';
import { BASE_LOCALE, LOCALES, type Locale } from '../../contract/i18n.ts';
import type { ShopLanguageTexts, ShopTexts } from '../../contract/shops.ts';
import { caller, type RequestContext } from '../context.ts';
import { policyUrl } from '../policies/links.ts';
import { type ShopRow, saveShopPage, shopRow } from './queries.ts';

const SLUG = /^[a-z0-9][a-z0-9-]{0,79}$/;

const EMPTY: ShopLanguageTexts = { description: '', returnPolicy: '', shippingPolicy: '' };

/** A shop's page, a path of this site. */
export const shopPath = (slug: string) => `/shops/${slug}`;

/** Where a seller's shop page is, by the seller's id (the page redirects to the slug): no read. */
export const shopPathOf = (sellerId: string) => `/shops/${encodeURIComponent(sellerId)}`;

/**
 * The return policy the agent protocols link for a checkout of these sellers' parcels: one shop's
 * page at its returns (what it wrote, or that it follows the platform's), else the platform's.
 */
export const returnPolicyUrlFor = (publicBaseUrl: string, sellerIds: readonly string[]) =>
  new Set(sellerIds).size === 1
    ? `${publicBaseUrl}${shopPathOf(sellerIds[0] as string)}#returns`
    : policyUrl(publicBaseUrl, 'returns');

const written = (t: ShopLanguageTexts | undefined) =>
  Boolean(t && (t.description || t.returnPolicy || t.shippingPolicy));

/** The shop at `key`: its slug, or its seller's id (`users:…`). 404 for anything else. */
async function shopAt(ctx: RequestContext, key: string): Promise<ShopRow> {
  const row = isRecordId('users', key)
    ? await shopRow(ctx.db, { sellerId: key })
    : SLUG.test(key)
      ? await shopRow(ctx.db, { slug: key })
      : undefined;
  if (!row) throw notFound('error.shops.notFound', { shop: key.slice(0, 100) });
  return row;
}

/**
 * The shop as anyone reads it, its texts in `locale` when the seller wrote that language, else in
 * the other; a policy not written is '' and its URL the platform's.
 */
export async function getShop(ctx: RequestContext, key: string, publicBaseUrl: string) {
  const row = await shopAt(ctx, key);
  // A shop not open (pending, suspended, its seller's account suspended) has no page, as its
  // products have none: not found, to anyone (its seller sees its state in the console).
  if (row.status !== 'active' || row.accountSuspended) {
    throw notFound('error.shops.notFound', { shop: key.slice(0, 100) });
  }
  const locale = ctx.locale ?? BASE_LOCALE;
  const other = LOCALES.find((l) => l !== locale) as Locale;
  const language = written(row.texts?.[locale]) || !written(row.texts?.[other]) ? locale : other;
  const texts = row.texts?.[language] ?? EMPTY;
  const page = `${publicBaseUrl}${shopPath(row.slug)}`;
  return {
    sellerId: row.sellerId,
    slug: row.slug,
    url: shopPath(row.slug),
    name: row.name,
    province: row.province,
    logoUrl: row.logoUrl,
    rating: row.rating,
    reviewCount: row.reviewCount,
    description: texts.description,
    returnPolicy: texts.returnPolicy,
    shippingPolicy: texts.shippingPolicy,
    language,
    policyUrls: {
      returns: texts.returnPolicy ? `${page}#returns` : policyUrl(publicBaseUrl, 'returns'),
      shipping: texts.shippingPolicy ? `${page}#shipping` : null,
    },
  };
}

export type Shop = Awaited<ReturnType<typeof getShop>>;

/** The caller's shop, both languages as written ('' where not). */
export async function myShop(ctx: RequestContext) {
  const row = await shopAt(ctx, caller(ctx).id);
  return {
    sellerId: row.sellerId,
    slug: row.slug,
    url: shopPath(row.slug),
    name: row.name,
    province: row.province,
    logoUrl: row.logoUrl,
    texts: { 'en-CA': row.texts?.['en-CA'] ?? EMPTY, 'fr-CA': row.texts?.['fr-CA'] ?? EMPTY },
    status: row.status,
    statusReason: row.reason,
  };
}

/** Writes the caller's shop page whole (a language left out is cleared); answers it. */
export async function saveMyShop(ctx: RequestContext, input: { logoUrl: string | null; texts: ShopTexts }) {
  const me = caller(ctx);
  const texts: ShopTexts = {};
  for (const l of LOCALES) if (written(input.texts[l])) texts[l] = input.texts[l];
  await saveShopPage(ctx.db, me.id, { logoUrl: input.logoUrl, texts }, ctx.now());
  return myShop(ctx);
}
