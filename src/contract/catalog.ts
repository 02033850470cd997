// Wire schemas of categories, products and product search (docs/api.md "Catalog" and "Search").
import { z } from 'zod';
import { recordId, unixSeconds } from './common.ts';

/** The one list of product statuses: the wire, the table's check and every subset come from it. */
export const PRODUCT_STATUSES = ['draft', 'active', 'inactive', 'deleted'] as const;
export const productStatus = z.enum(PRODUCT_STATUSES, {
  message: `must be one of ${PRODUCT_STATUSES.join(', ')}`,
});

const httpUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), 'must be an http(s) URL');

// ---- categories -------------------------------------------------------------------------

export const category = z
  .object({
    id: recordId('categories'),
    name: z.string(),
    slug: z.string(),
    parentId: z.string().nullable(),
  })
  .meta({ id: 'Category' });

export const createCategoryBody = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  slug: z
    .string()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase letters, digits and single hyphens')
    .max(100, 'must be at most 100 characters'),
  parentId: z.string().nullable().optional(),
});
export const categoryList = z.object({ categories: z.array(category) });

// ---- products ---------------------------------------------------------------------------

const positiveNumber = (max: number) =>
  z.number().positive('must be greater than 0').max(max, `must be at most ${max}`);

export const dimensions = z
  .object({ width: positiveNumber(10_000), height: positiveNumber(10_000), depth: positiveNumber(10_000) })
  .describe('Centimetres');

const title = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const description = z.string().max(10_000, 'must be at most 10000 characters');
const keywords = z
  .array(z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters'))
  .max(30, 'at most 30 keywords');
const specifications = z
  .record(z.string().min(1).max(100), z.string().max(500))
  .refine((o) => Object.keys(o).length <= 50, 'at most 50 specifications');

/** Fields a seller may set; the same names on create and change. */
const productFields = {
  title,
  description,
  priceCents: z
    .number({ message: 'must be a positive integer (cents)' })
    .int('must be a positive integer (cents)')
    .positive('must be a positive integer (cents)')
    .max(100_000_000, 'must be at most 100000000'),
  stockQuantity: z
    .number({ message: 'must be an integer >= 0' })
    .int('must be an integer >= 0')
    .min(0, 'must be an integer >= 0')
    .max(1_000_000, 'must be at most 1000000'),
  imageUrl: httpUrl,
  imageUrls: z.array(httpUrl).max(10, 'at most 10 images'),
  categoryId: z.string().nullable(),
  isPerishable: z.boolean(),
  isDigital: z.boolean(),
  weight: positiveNumber(10_000).nullable().describe('Kilograms; required (> 0) for physical products'),
  dimensions: dimensions.nullable(),
  keywords,
  specifications,
};

export const createProductBody = z.object({
  ...productFields,
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
  specifications: specifications.default({}),
  status: productStatus
    .extract(['draft', 'active'], { message: 'must be draft or active' })
    .default('active'),
  sellerId: z.string().optional().describe('Admins only: the seller whose catalog receives the product'),
});

export const updateProductBody = z
  .object({
    ...productFields,
    // Only DELETE deletes.
    status: productStatus.exclude(['deleted'], {
      message: 'must be draft, active or inactive (use DELETE to delete)',
    }),
  })
  .partial()
  .refine((o) => Object.keys(o).length > 0, 'send at least one field to change');

export const productIdParams = z.object({ productId: z.string() });

export const reviewSummary = z.object({
  rating: z.number().int(),
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
  })
  .meta({ id: 'Product' });

export const intParam = (name: string, min: number, max: number) =>
  z.coerce
    .number({ message: `${name} must be a whole number` })
    .int(`must be a whole number`)
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

export const listProductsQuery = z
  .object({
    limit: intParam('limit', 1, 100).default(20),
    offset: intParam('offset', 0, 1_000_000).default(0),
    status: productStatus.optional(),
    sellerId: z.string().optional(),
    categoryId: z.string().optional(),
    search: z.string().max(200, 'must be at most 200 characters').optional(),
    minPrice: intParam('minPrice', 0, 100_000_000).optional(),
    maxPrice: intParam('maxPrice', 0, 100_000_000).optional(),
  })
  .refine((q) => q.minPrice === undefined || q.maxPrice === undefined || q.minPrice <= q.maxPrice, {
    message: 'minPrice must not exceed maxPrice',
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
  q: z.string().max(200, 'must be at most 200 characters').default(''),
  filters: z
    .string()
    .max(2000, 'must be at most 2000 characters')
    .optional()
    .describe(
      'Clauses `field:value` separated by commas, combined with AND; `a|b` is OR; `lo..hi` an inclusive range. ' +
        'Fields: categoryId, sellerId, priceCents, isDigital, isPerishable, rating (minimum).',
    ),
  sort: z.enum(SORTS, { message: `must be one of ${SORTS.join(', ')}` }).optional(),
  limit: intParam('limit', 1, 100).default(20),
  offset: intParam('offset', 0, 10_000).default(0),
});

export const searchResult = productListItem.omit({ status: true }).meta({ id: 'SearchResult' });

export const facetCounts = z.record(z.string(), z.number().int());
export const searchAnswer = z.object({
  results: z.array(searchResult),
  facets: z.object({
    categoryId: facetCounts,
    sellerId: facetCounts,
    isDigital: facetCounts,
    isPerishable: facetCounts,
    priceRange: facetCounts.describe('Dollar ranges 0-25, 25-50, 50-100, 100-250, 250+'),
  }),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
