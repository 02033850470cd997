// A product as the ACP Feed API's `Product` (2026-04-17, schema.feed.json; docs/acp.md "Product
// feeds"), in one language: what the pushes to platforms send and the file feed's rows are
// made of. A variant's id is the item id ACP's and UCP's checkouts take; prices are CAD cents.
import type { Locale } from '../../contract/i18n.ts';
import { optionsIn } from '../catalog/service.ts';
import { shownValues, variantTitle } from '../catalog/variants.ts';
import { policyUrl } from '../policies/links.ts';
import { returnPolicyUrlFor, shopPathOf } from '../shops/service.ts';
import type { FeedRow } from './queries.ts';

export interface FeedMedia {
  type: 'image';
  url: string;
  alt_text?: string;
}

export interface FeedLink {
  type: string;
  url: string;
}

export interface FeedVariant {
  id: string;
  title: string;
  description?: { plain: string };
  url: string;
  barcodes?: Array<{ type: string; value: string }>;
  price: { amount: number; currency: 'CAD' };
  list_price?: { amount: number; currency: 'CAD' };
  availability: { available: boolean; status: 'in_stock' | 'out_of_stock' | 'discontinued' };
  categories?: Array<{ value: string; taxonomy: 'merchant' }>;
  condition: string[];
  variant_options?: Array<{ name: string; value: string }>;
  media?: FeedMedia[];
  seller: { name: string; links: FeedLink[] };
  marketplace: { name: string; links: FeedLink[] };
}

export interface FeedProduct {
  id: string;
  title: string;
  description?: { plain: string };
  url: string;
  media?: FeedMedia[];
  variants: FeedVariant[];
}

/** The marketplace's name in the feeds (the `marketplace` of every variant). */
export const MARKETPLACE_NAME = 'Portage';

const isHttp = (u: string) => /^https?:\/\//.test(u);
const cad = (amount: number) => ({ amount, currency: 'CAD' as const });

/** What the feeds in one language share: the marketplace's links, made once. */
export interface FeedContext {
  publicBaseUrl: string;
  locale: Locale;
  marketplace: { name: string; links: FeedLink[] };
}

export function feedContext(publicBaseUrl: string, locale: Locale): FeedContext {
  return {
    publicBaseUrl,
    locale,
    marketplace: {
      name: MARKETPLACE_NAME,
      links: [
        { type: 'terms_of_service', url: policyUrl(publicBaseUrl, 'terms') },
        { type: 'privacy_policy', url: policyUrl(publicBaseUrl, 'privacy') },
      ],
    },
  };
}

/**
 * The product in `fc.locale` (its translation there when it has one). A product no longer in the
 * feeds (unpublished, deleted, kept from agents, its shop closed) keeps its id and its variants,
 * each discontinued: an upsert cannot delete, and the platform stops offering them. So does a
 * variant no longer on sale of a product still in them.
 */
export function feedProductOf(row: FeedRow, fc: FeedContext): FeedProduct {
  const { locale, publicBaseUrl } = fc;
  const tr = locale !== row.language ? row.translations[locale] : undefined;
  const title = tr?.title || row.title;
  const text = tr?.description ? tr.description : row.description;
  const description = text ? { plain: text } : undefined;
  const lang = locale === 'fr-CA' ? 'fr' : 'en';
  const page = `${publicBaseUrl}/shop/products/${encodeURIComponent(row.id)}?lang=${lang}`;
  const media: FeedMedia[] = row.image_urls
    .filter(isHttp)
    .map((url) => ({ type: 'image', url, alt_text: title }));
  const shown = optionsIn(row, locale).options;
  const categoryName =
    row.category === null
      ? undefined
      : locale !== row.category_language
        ? (row.category_translations?.[locale]?.name ?? row.category)
        : row.category;
  const seller = {
    name: row.shop_name ?? MARKETPLACE_NAME,
    links: [
      { type: 'refund_policy', url: returnPolicyUrlFor(publicBaseUrl, [row.seller_id]) },
      { type: 'faq', url: `${publicBaseUrl}${shopPathOf(row.seller_id)}?lang=${lang}` },
    ],
  };
  const variants = row.variants.map(([id, , values, price, compareAt, free, image, barcode, active]) => {
    const shownVals = shownValues(values, row.options, shown);
    const named = variantTitle(shownVals);
    const onSale = row.eligible && active;
    const own: FeedMedia[] = image && isHttp(image) ? [{ type: 'image', url: image, alt_text: title }] : [];
    const pictures = [...own, ...media.filter((m) => m.url !== image)];
    const variant: FeedVariant = {
      id,
      title: named ? `${title}, ${named}` : title,
      ...(description ? { description } : {}),
      url: `${page}&variant=${encodeURIComponent(id)}`,
      ...(barcode ? { barcodes: [{ type: 'GTIN', value: barcode }] } : {}),
      price: cad(price),
      ...(compareAt !== null && compareAt > price ? { list_price: cad(compareAt) } : {}),
      availability: onSale
        ? { available: free, status: free ? 'in_stock' : 'out_of_stock' }
        : { available: false, status: 'discontinued' },
      ...(categoryName ? { categories: [{ value: categoryName, taxonomy: 'merchant' as const }] } : {}),
      condition: ['new'],
      ...(shown.length
        ? { variant_options: shown.map((o, n) => ({ name: o.name, value: shownVals[n] ?? '' })) }
        : {}),
      ...(pictures.length ? { media: pictures } : {}),
      seller,
      marketplace: fc.marketplace,
    };
    return variant;
  });
  return {
    id: row.id,
    title,
    ...(description ? { description } : {}),
    url: page,
    ...(media.length ? { media } : {}),
    variants,
  };
}
