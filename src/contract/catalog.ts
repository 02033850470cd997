// Wire schemas of categories, products and product search (docs/api.md "Catalog" and "Search").
import { z } from 'zod';
import { recordId, unixSeconds } from './common.ts';
import { LOCALES } from './i18n.ts';

/** The languages a product or category is written in (docs/api.md "Languages"): the locales. */
export const CONTENT_LANGUAGES = LOCALES;
export type ContentLanguage = (typeof CONTENT_LANGUAGES)[number];
export const contentLanguage = z.enum(CONTENT_LANGUAGES);

/** The one list of product statuses: the wire, the table's check and every subset come from it. */
export const PRODUCT_STATUSES = ['draft', 'active', 'inactive', 'deleted'] as const;
export const productStatus = z.enum(PRODUCT_STATUSES);
/** A variant is on sale (active), held back by its seller (inactive), or gone (deleted, kept for orders). */
export const VARIANT_STATUSES = ['active', 'inactive', 'deleted'] as const;
export const variantStatus = z.enum(VARIANT_STATUSES);
/** A product option: its name and its values, in the order a buyer is shown them. */
export interface ProductOption {
  name: string;
  values: string[];
}

const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), 'validation.httpUrl');

// ---- categories -------------------------------------------------------------------------

export const category = z
  .object({
    id: recordId('categories'),
    name: z.string(),
    slug: z.string(),
    parentId: z.string().nullable(),
    language: contentLanguage.describe(
      "The language of `name`: the reader's when translated, else the one it was written in",
    ),
  })
  .meta({ id: 'Category' });

const categoryName = z.string().trim().min(1).max(100);
const categoryTranslation = z.strictObject({ name: categoryName });
const categoryTranslations = z
  .strictObject({ 'en-CA': categoryTranslation.optional(), 'fr-CA': categoryTranslation.optional() })
  .describe('The name in the other language');
export type CategoryTranslations = z.infer<typeof categoryTranslations>;

export const createCategoryBody = z.object({
  name: categoryName,
  language: contentLanguage.default('en-CA').describe('The language `name` is written in'),
  translations: categoryTranslations.default({}),
  slug: z
    .string()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'validation.slug')
    .max(100),
  parentId: z.string().nullable().optional(),
});
export const categoryList = z.object({ categories: z.array(category) });

/** PATCH /admin/categories/:id: its name, its other language's name, its parent (null: top). */
export const updateCategoryBody = z
  .strictObject({
    name: categoryName,
    translations: categoryTranslations,
    parentId: z.string().max(100).nullable(),
  })
  .partial()
  .refine((o) => Object.keys(o).length > 0, 'validation.oneFieldToChange');
export const categoryIdParams = z.object({ categoryId: z.string().max(100) });

// ---- products ---------------------------------------------------------------------------

const positiveNumber = (max: number) =>
  z.number().positive('validation.greaterThanZero').max(max, 'validation.atMost');

export const dimensions = z
  .object({ width: positiveNumber(10_000), height: positiveNumber(10_000), depth: positiveNumber(10_000) })
  .describe('Centimetres');

const title = z.string().trim().min(1).max(200);
const description = z.string().max(10_000);
const keywords = z.array(z.string().trim().min(1).max(50)).max(30, 'validation.atMostKeywords');
const MAX_SPECIFICATIONS = 50;
const specifications = z
  .record(z.string().min(1).max(100), z.string().max(500))
  .refine((o) => Object.keys(o).length <= MAX_SPECIFICATIONS, {
    message: 'validation.atMostSpecifications',
    params: { n: MAX_SPECIFICATIONS },
  });

/** An option's name and values in the other language, by position (values in the option's order). */
const translatedOptions = z
  .array(
    z.strictObject({
      name: z.string().trim().min(1).max(50),
      values: z.array(z.string().trim().min(1).max(50)).max(50, 'validation.atMost'),
    }),
  )
  .max(3, 'validation.atMost');

const productTranslation = z.strictObject({
  title,
  description: description.default(''),
  keywords: keywords.default([]),
  options: translatedOptions
    .optional()
    .describe("The options' names and values in this language, by position: as many as the product's"),
});
/** The other language's text (the product's own language may not appear): replaced whole on change. */
const productTranslations = z
  .strictObject({ 'en-CA': productTranslation.optional(), 'fr-CA': productTranslation.optional() })
  .describe('Title, description, keywords and option names and values in the other language (optional)');
export type ProductTranslations = z.infer<typeof productTranslations>;

/** Fields a seller may set; the same names on create and change. */
const productFields = {
  title,
  description,
  language: contentLanguage.describe('The language title, description and keywords are written in'),
  translations: productTranslations,
  priceCents: z
    .number({ message: 'validation.positiveCents' })
    .int('validation.positiveCents')
    .positive('validation.positiveCents')
    .max(100_000_000, 'validation.atMost'),
  stockQuantity: z
    .number({ message: 'validation.nonNegativeInteger' })
    .int('validation.nonNegativeInteger')
    .min(0, 'validation.nonNegativeInteger')
    .max(1_000_000, 'validation.atMost'),
  imageUrl: httpUrl,
  imageUrls: z.array(httpUrl).max(10, 'validation.atMostImages'),
  categoryId: z.string().nullable(),
  isPerishable: z.boolean(),
  isDigital: z.boolean(),
  weight: positiveNumber(10_000).nullable().describe('Kilograms; required (> 0) for physical products'),
  dimensions: dimensions.nullable(),
  keywords,
  specifications,
  agentChannels: z
    .boolean()
    .describe(
      'Offered to AI agents: the product feeds, the UCP catalog and ACP and UCP checkouts (false keeps it out of them; the store, the cart and the MCP tools still sell it)',
    ),
};

// ---- options and variants ---------------------------------------------------------------

export const MAX_OPTIONS = 3;
export const MAX_OPTION_VALUES = 50;
export const MAX_VARIANTS = 100;

const optionText = z.string().trim().min(1).max(50);
const unique = (list: string[]) => new Set(list.map((v) => v.toLowerCase())).size === list.length;

export const productOptionInput = z.object({
  name: optionText,
  values: z
    .array(optionText)
    .min(1)
    .max(MAX_OPTION_VALUES, 'validation.atMost')
    .refine(unique, 'validation.optionValuesUnique'),
});

export const productOptions = z
  .array(productOptionInput)
  .max(MAX_OPTIONS, 'validation.atMost')
  .refine((list) => unique(list.map((o) => o.name)), 'validation.optionNamesUnique');

/** A SKU: letters, digits and . _ - / (what labels and spreadsheets keep as typed). */
export const sku = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$/, 'validation.sku');

/** A variant's fields, the same names on create and change. */
const variantFields = {
  sku,
  /** The variant's value of each product option, by option name: { "Size": "M" }. */
  options: z.record(optionText, optionText),
  priceCents: productFields.priceCents,
  compareAtPriceCents: productFields.priceCents.nullable(),
  stockQuantity: productFields.stockQuantity,
  weight: productFields.weight,
  dimensions: dimensions.nullable(),
  imageUrl: httpUrl.nullable(),
  barcode: z
    .string()
    .regex(/^[0-9]{8,14}$/, 'validation.barcode')
    .nullable(),
  status: variantStatus.exclude(['deleted'], { message: 'validation.statusNotDeleted' }),
};

export const createVariantBody = z.object({
  ...variantFields,
  sku: sku.optional(),
  options: variantFields.options.default({}),
  compareAtPriceCents: variantFields.compareAtPriceCents.optional(),
  stockQuantity: variantFields.stockQuantity.default(0),
  weight: variantFields.weight.optional(),
  dimensions: variantFields.dimensions.optional(),
  imageUrl: variantFields.imageUrl.optional(),
  barcode: variantFields.barcode.optional(),
  status: variantFields.status.default('active'),
});

export const updateVariantBody = z
  .object(variantFields)
  .partial()
  .refine((o) => Object.keys(o).length > 0, 'validation.oneFieldToChange');

/** A variant in a product's whole set (PATCH /products/:id with options): an id keeps and changes one. */
const variantInSet = createVariantBody.extend({ id: z.string().max(100).optional() });

export const variantIdParams = z.object({ productId: z.string(), variantId: z.string() });

export const productVariant = z
  .object({
    id: z.string(),
    sku: z.string(),
    options: z.record(z.string(), z.string()),
    title: z
      .string()
      .describe(
        "The option values, in the options' order: \"Cedar / 150 cm\"; '' for a product sold one way",
      ),
    priceCents: z.number().int(),
    compareAtPriceCents: z.number().int().nullable(),
    stockQuantity: z.number().int(),
    available: z.boolean().describe('On sale with units free now'),
    weight: z.number().nullable().describe("Kilograms; null: the product's"),
    dimensions: dimensions.nullable(),
    imageUrl: z.string().nullable(),
    barcode: z.string().nullable(),
    status: variantStatus,
  })
  .meta({ id: 'ProductVariant' });

export const variantList = z.object({ variants: z.array(productVariant) });

export const priceRange = z.object({ minCents: z.number().int(), maxCents: z.number().int() });

export const createProductBody = z.object({
  ...productFields,
  priceCents: productFields.priceCents.optional().describe('Required without `variants`'),
  sku: sku.optional().describe('The SKU of a product sold one way (without `options`)'),
  options: productOptions.optional(),
  variants: z.array(createVariantBody).min(1).max(MAX_VARIANTS, 'validation.atMost').optional(),
  description: description.default(''),
  stockQuantity: productFields.stockQuantity.default(0),
  imageUrl: productFields.imageUrl.optional(),
  imageUrls: productFields.imageUrls.optional(),
  categoryId: productFields.categoryId.optional(),
  isPerishable: productFields.isPerishable.default(false),
  isDigital: productFields.isDigital.default(false),
  weight: productFields.weight.optional(),
  dimensions: productFields.dimensions.optional(),
  keywords: keywords.default([]),
  language: productFields.language.default('en-CA'),
  translations: productTranslations.default({}),
  specifications: specifications.default({}),
  agentChannels: productFields.agentChannels.default(true),
  status: productStatus
    .extract(['draft', 'active'], { message: 'validation.draftOrActive' })
    .default('active'),
  sellerId: z.string().optional().describe('Admins only: the seller whose catalog receives the product'),
});

export const updateProductBody = z
  .object({
    ...productFields,
    // Only DELETE deletes.
    status: productStatus.exclude(['deleted'], {
      message: 'validation.statusNotDeleted',
    }),
    sku,
    options: productOptions,
    variants: z.array(variantInSet).min(1).max(MAX_VARIANTS, 'validation.atMost'),
  })
  .partial()
  .refine((o) => Object.keys(o).length > 0, 'validation.oneFieldToChange');

export const productIdParams = z.object({ productId: z.string() });

export const reviewSummary = z.object({
  rating: z.number().int(),
  // Beyond the spec's fields (a superset): the title the buyer gave, '' when none.
  title: z.string(),
  comment: z.string(),
  author: z.string(),
  dateCreated: unixSeconds,
});

export const productListItem = z
  .object({
    id: recordId('products'),
    title: z.string(),
    description: z.string(),
    priceCents: z.number().int(),
    imageUrl: z.string().nullable(),
    imageUrls: z.array(z.string()),
    stockQuantity: z.number().int(),
    sellerId: recordId('users'),
    categoryId: z.string().nullable(),
    status: productStatus,
    dateCreated: unixSeconds,
    isPerishable: z.boolean(),
    isDigital: z.boolean(),
    rating: z.number(),
    reviewCount: z.number().int(),
    priceRange: priceRange.describe("The lowest and highest price of the product's variants on sale"),
    language: contentLanguage.describe(
      "The language of `title`: the reader's when the product has it, else the one it was written in",
    ),
    descriptionLanguage: contentLanguage.describe('The language of `description`'),
  })
  .meta({ id: 'ProductListItem' });

export const productDetail = productListItem
  .extend({
    sellerName: z.string(),
    seller: z.object({ name: z.string(), rating: z.number(), reviewCount: z.number().int() }),
    weight: z.number().nullable().describe('Kilograms'),
    dimensions: dimensions.nullable(),
    keywords: z.array(z.string()),
    specifications: z.record(z.string(), z.string()),
    reviews: z.array(reviewSummary).describe('The newest published reviews (up to 5)'),
    options: z.array(z.object({ name: z.string(), values: z.array(z.string()) })),
    variants: z
      .array(productVariant)
      .describe('Buyers see the active ones; the seller every one not deleted'),
    optionsLanguage: contentLanguage.describe(
      "The language of `options` and the variants' option names, values and titles",
    ),
    sourceLanguage: contentLanguage.describe('The language the seller wrote the product in'),
    translations: productTranslations,
    agentChannels: z
      .boolean()
      .optional()
      .describe(
        'Its seller and admins only: offered to AI agents (the feeds, the UCP catalog, ACP and UCP checkouts)',
      ),
  })
  .meta({ id: 'Product' });

/** A whole number in a query string, from `min` to `max` (the field names it: `name` is for the docs). */
export const intParam = (_name: string, min: number, max: number) =>
  z.coerce
    .number({ message: 'validation.Int' })
    .int('validation.Int')
    .min(min, 'validation.atLeast')
    .max(max, 'validation.atMost');

export const listProductsQuery = z
  .object({
    limit: intParam('limit', 1, 100).default(20),
    offset: intParam('offset', 0, 1_000_000).default(0),
    status: productStatus.optional(),
    sellerId: z.string().optional(),
    categoryId: z.string().optional(),
    search: z.string().max(200).optional(),
    minPrice: intParam('minPrice', 0, 100_000_000).optional(),
    maxPrice: intParam('maxPrice', 0, 100_000_000).optional(),
  })
  .refine((q) => q.minPrice === undefined || q.maxPrice === undefined || q.minPrice <= q.maxPrice, {
    message: 'validation.minPriceOverMax',
    path: ['minPrice'],
  });

export const productList = z.object({
  products: z.array(productListItem),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

// ---- search -----------------------------------------------------------------------------

export const SORTS = ['relevance', 'price_asc', 'price_desc', 'newest', 'popular'] as const;

export const searchQuery = z.object({
  q: z.string().max(200).default(''),
  filters: z
    .string()
    .max(2000)
    .optional()
    .describe(
      'Clauses `field:value` separated by commas, combined with AND; `a|b` is OR; `lo..hi` an inclusive range. ' +
        'Fields: categoryId, sellerId, priceCents, isDigital, isPerishable, rating (minimum), inStock, option.<Name> (e.g. option.Size:M|L). ' +
        'priceCents, inStock and option.* hold together for one of the product’s variants.',
    ),
  sort: z.enum(SORTS).optional(),
  limit: intParam('limit', 1, 100).default(20),
  offset: intParam('offset', 0, 10_000).default(0),
});

export const searchResult = productListItem.omit({ status: true }).meta({ id: 'SearchResult' });

export const facetCounts = z.record(z.string(), z.number().int());
export const searchAnswer = z.object({
  results: z.array(searchResult),
  facets: z
    .object({
      categoryId: facetCounts,
      sellerId: facetCounts,
      isDigital: facetCounts,
      isPerishable: facetCounts,
      priceRange: facetCounts.describe(
        'Dollar ranges 0-25, 25-50, 50-100, 100-250, 250+: a product counts in each range one of its matching variants is priced in',
      ),
      inStock: facetCounts.describe(
        'true: products with a matching variant that has free units; false: the others',
      ),
    })
    // `option.<Name>` (Size, Colour...): per value, the products with a matching variant of that value.
    .catchall(facetCounts),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

// ---- bulk import and export ---------------------------------------------------------------

export const importQuery = z.object({
  dryRun: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('true: check every row and count, write nothing'),
  sellerId: z
    .string()
    .max(100)
    .optional()
    .describe('Admins only: the seller whose catalog receives the file'),
});

export const exportQuery = z.object({
  sellerId: z.string().max(100).optional().describe('Admins only: the seller whose catalog is exported'),
});

export const importReport = z
  .object({
    dryRun: z.boolean(),
    imported: z.boolean().describe('The file was written (never on a dry run)'),
    rows: z.number().int().describe('Rows read, the header left out'),
    products: z.object({ created: z.number().int(), updated: z.number().int() }),
    variants: z.object({
      created: z.number().int(),
      updated: z.number().int(),
      deleted: z.number().int().describe('Variants removed (a row of status `deleted`)'),
    }),
    problemCount: z.number().int(),
    problems: z
      .array(z.object({ line: z.number().int(), field: z.string(), message: z.string() }))
      .describe('The first 1,000 problems, by line of the file (the header is line 1)'),
  })
  .meta({ id: 'ImportReport' });
