// The file feed's row (docs/acp.md "File feed"): one per variant on sale, modelled on OpenAI's
// product feed spec, made from the ACP Feed API `Product` the pushes send (document.ts), so
// both feeds say the same of a product. FILE_FEED_FIELDS is the one list of its fields: the
// JSON Lines objects have these keys in this order, and the CSV's header is this list.
import type { Locale } from '../../contract/i18n.ts';
import type { FeedProduct, FeedVariant } from './document.ts';
import type { FeedShippingRow } from './queries.ts';

export const FILE_FEED_FIELDS = [
  'id',
  'item_group_id',
  'title',
  'description',
  'link',
  'image_link',
  'additional_image_links',
  'price',
  'price_cents',
  'list_price',
  'list_price_cents',
  'currency',
  'availability',
  'gtin',
  'condition',
  'product_category',
  'variant_options',
  'seller_name',
  'seller_url',
  'return_policy',
  'marketplace',
  'ships_to',
  'shipping',
  'shipping_calculated',
  'free_shipping_threshold',
  'is_digital',
  'language',
  'enable_search',
  'enable_checkout',
] as const;

export type FileFeedField = (typeof FILE_FEED_FIELDS)[number];

/** A row as its JSON Lines object: absent facts are null, never left out. */
export interface FileFeedRow {
  id: string;
  item_group_id: string;
  title: string;
  description: string | null;
  link: string;
  image_link: string | null;
  additional_image_links: string[];
  price: string;
  price_cents: number;
  list_price: string | null;
  list_price_cents: number | null;
  currency: 'CAD';
  availability: 'in_stock' | 'out_of_stock';
  gtin: string | null;
  condition: 'new';
  product_category: string | null;
  variant_options: Array<{ name: string; value: string }>;
  seller_name: string;
  seller_url: string;
  return_policy: string;
  marketplace: string;
  ships_to: 'CA' | null;
  shipping: string | null;
  shipping_calculated: boolean;
  free_shipping_threshold: string | null;
  is_digital: boolean;
  language: Locale;
  enable_search: true;
  enable_checkout: true;
}

/** "12.34 CAD": OpenAI's product feed spec's price (a decimal amount, a space, the ISO 4217 code). */
export const cadText = (cents: number) => `${(cents / 100).toFixed(2)} CAD`;

/** What the feed says of a seller's shipping: a price only where the seller set one flat rate. */
export interface FeedShipping {
  shipping: string | null;
  calculated: boolean;
  freeOver: string | null;
}

/** A seller's shipping (their profile, or none: the platform's table, priced by the address). */
export function feedShippingOf(profile: FeedShippingRow | undefined): FeedShipping {
  const freeOver =
    profile?.free_over_cents !== null && profile?.free_over_cents !== undefined
      ? cadText(profile.free_over_cents)
      : null;
  if (profile?.rates === 'flat' && profile.flat_cents !== null)
    return { shipping: `CA:::${cadText(profile.flat_cents)}`, calculated: false, freeOver };
  return { shipping: null, calculated: true, freeOver };
}

const NOT_SHIPPED: FeedShipping = { shipping: null, calculated: false, freeOver: null };

/**
 * The rows of one product in one language: its variants on sale (a discontinued one, kept in the
 * pushed document so that a platform drops it, is left out: a snapshot is whole).
 */
export function fileFeedRowsOf(
  product: FeedProduct,
  isDigital: boolean,
  shipping: FeedShipping,
  locale: Locale,
): FileFeedRow[] {
  const rows: FileFeedRow[] = [];
  const ship = isDigital ? NOT_SHIPPED : shipping;
  for (const v of product.variants) {
    if (v.availability.status === 'discontinued') continue;
    rows.push(rowOf(product.id, v, isDigital, ship, locale));
  }
  return rows;
}

function rowOf(
  groupId: string,
  v: FeedVariant,
  isDigital: boolean,
  ship: FeedShipping,
  locale: Locale,
): FileFeedRow {
  const [first, ...more] = v.media ?? [];
  const seller = v.seller;
  return {
    id: v.id,
    item_group_id: groupId,
    title: v.title,
    description: v.description?.plain ?? null,
    link: v.url,
    image_link: first?.url ?? null,
    additional_image_links: more.map((m) => m.url),
    price: cadText(v.price.amount),
    price_cents: v.price.amount,
    list_price: v.list_price ? cadText(v.list_price.amount) : null,
    list_price_cents: v.list_price?.amount ?? null,
    currency: 'CAD',
    availability: v.availability.status === 'in_stock' ? 'in_stock' : 'out_of_stock',
    gtin: v.barcodes?.[0]?.value ?? null,
    condition: 'new',
    product_category: v.categories?.[0]?.value ?? null,
    variant_options: v.variant_options ?? [],
    seller_name: seller.name,
    seller_url: seller.links.find((l) => l.type === 'faq')?.url ?? '',
    return_policy: seller.links.find((l) => l.type === 'refund_policy')?.url ?? '',
    marketplace: v.marketplace.name,
    ships_to: isDigital ? null : 'CA',
    shipping: ship.shipping,
    shipping_calculated: ship.calculated,
    free_shipping_threshold: ship.freeOver,
    is_digital: isDigital,
    language: locale,
    enable_search: true,
    enable_checkout: true,
  };
}

/** A row as one JSON Lines line (its keys in FILE_FEED_FIELDS' order, as rowOf writes them). */
export const jsonLine = (row: FileFeedRow) => `${JSON.stringify(row)}\n`;

/**
 * A cell a spreadsheet would read as a formula (= + - @, or a tab or carriage return ahead of
 * one) is written with a leading apostrophe (OWASP's "CSV injection"): a title "=HYPERLINK(…)"
 * stays text. A price or a count never starts so.
 */
export const neutralised = (cell: string) => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell);

/** A CSV cell (RFC 4180): quoted when it holds a quote, a comma or a line break, its quotes doubled. */
const quoted = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);

/** A row's CSV cells, in FILE_FEED_FIELDS' order: lists joined, booleans `true`/`false`, null empty. */
export function csvCells(row: FileFeedRow): string[] {
  return FILE_FEED_FIELDS.map((field) => {
    const value = row[field];
    if (value === null) return '';
    if (field === 'variant_options')
      return neutralised(row.variant_options.map((o) => `${o.name}: ${o.value}`).join('; '));
    if (field === 'additional_image_links') return neutralised(row.additional_image_links.join(','));
    return typeof value === 'string' ? neutralised(value) : String(value);
  });
}

/** A record: its cells quoted where needed, CRLF after it (RFC 4180). */
const csvRecord = (cells: readonly string[]) => `${cells.map(quoted).join(',')}\r\n`;

/** The CSV's header line. */
export const csvHeader = () => csvRecord(FILE_FEED_FIELDS);

/**
 * Rows as CSV records. Quoted here rather than by csv-stringify (in package.json): for the
 * snapshot's 6 million rows it took four times as long as the JSON (docs/decisions.md).
 */
export function csvLines(rows: FileFeedRow[]): string {
  let out = '';
  for (const row of rows) out += csvRecord(csvCells(row));
  return out;
}
