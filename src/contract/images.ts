// Wire schemas of a product's uploaded images (docs/api.md "Product images").
import { z } from 'zod';
import { recordId, unixSeconds } from './common.ts';

/** The longest alt text, in each language. */
export const ALT_MAX = 300;
/** The most images a product's gallery holds. */
export const GALLERY_MAX = 10;

export const productImage = z
  .object({
    id: recordId('images'),
    productId: z.string(),
    variantId: z.string().nullable(),
    position: z.number().int(),
    altEn: z.string(),
    altFr: z.string(),
    /** The original's size, upright. */
    width: z.number().int(),
    height: z.number().int(),
    /** The largest file's URL: what the product's imageUrls hold. */
    url: z.string(),
    files: z.array(
      z.object({
        width: z.number().int(),
        height: z.number().int(),
        url: z.string(),
        contentType: z.string(),
      }),
    ),
    dateCreated: unixSeconds,
  })
  .meta({ id: 'ProductImage' });

export const productImageList = z.object({ images: z.array(productImage) }).meta({ id: 'ProductImageList' });

export const productImageParams = z.object({ productId: z.string(), imageId: z.string() });

export const updateProductImageBody = z
  .object({
    altEn: z.string().trim().max(ALT_MAX).optional(),
    altFr: z.string().trim().max(ALT_MAX).optional(),
    variantId: z.string().trim().max(100).nullable().optional(),
    /** Where the image goes in the gallery (0 first); past the end means last. */
    position: z.number().int().min(0).max(1000).optional(),
  })
  .strict();
