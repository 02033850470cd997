// Wire schemas of shops' pages (docs/api.md "Shops"): what a seller writes of their shop, in
// each language, and what anyone reads of it.
import { z } from 'zod';
import { intParam } from './catalog.ts';
import { LOCALES } from './i18n.ts';

export const SHOP_DESCRIPTION_MAX = 2000;
export const SHOP_POLICY_MAX = 5000;

const shopText = (max: number) => z.string().trim().max(max, 'validation.atMostCharacters');

/** A shop's words in one language; '' is "not written" (the page shows the platform's policy). */
export const shopLanguageTexts = z.strictObject({
  description: shopText(SHOP_DESCRIPTION_MAX).default(''),
  returnPolicy: shopText(SHOP_POLICY_MAX).default(''),
  shippingPolicy: shopText(SHOP_POLICY_MAX).default(''),
});
export type ShopLanguageTexts = z.infer<typeof shopLanguageTexts>;

export const shopTexts = z.strictObject({
  'en-CA': shopLanguageTexts.optional(),
  'fr-CA': shopLanguageTexts.optional(),
});
export type ShopTexts = z.infer<typeof shopTexts>;

const logoUrl = z
  .string()
  .max(2048)
  .refine((v) => /^https:\/\/[^\s]+$/i.test(v) && URL.canParse(v), 'validation.httpsUrl')
  .nullable()
  .describe('An https address of the logo (shown at most 96 px high); null: none');

export const putShopBody = z.strictObject({
  logoUrl,
  texts: shopTexts.describe("By language: the shop's description, return policy and shipping policy"),
});

export const myShopAnswer = z.object({
  sellerId: z.string(),
  slug: z.string(),
  url: z.string().describe('The shop page, a path of this site'),
  name: z.string(),
  province: z.string(),
  logoUrl: z.string().nullable(),
  texts: z.object({ 'en-CA': shopLanguageTexts, 'fr-CA': shopLanguageTexts }),
  status: z
    .enum(['active', 'pending', 'suspended'])
    .describe(
      'active: on sale; pending: waiting for an admin’s approval; suspended: by an admin, for `statusReason`',
    ),
  statusReason: z.string().nullable().describe('Why the shop is suspended (or was refused); null otherwise'),
});

export const shopAnswer = z
  .object({
    sellerId: z.string(),
    slug: z.string(),
    url: z.string(),
    name: z.string(),
    province: z.string(),
    logoUrl: z.string().nullable(),
    rating: z.number(),
    reviewCount: z.number().int(),
    description: z.string(),
    returnPolicy: z.string().describe("'' when the shop follows the platform's (policyUrls.returns)"),
    shippingPolicy: z.string(),
    language: z
      .enum(LOCALES)
      .describe("The language of the texts: the reader's when the shop wrote it, else the other"),
    policyUrls: z
      .object({ returns: z.string(), shipping: z.string().nullable() })
      .describe(
        "Absolute: the shop's own policies on its page, else the platform's returns policy; no shipping policy: null",
      ),
  })
  .meta({ id: 'Shop' });

// ---- a shop's state (docs/lifecycles.md "Shop (`src/modules/shops/states.ts`)") ----

export const SHOP_STATUSES = ['active', 'pending', 'suspended'] as const;
export const shopStatus = z
  .enum(SHOP_STATUSES)
  .describe(
    'active: on sale; pending: waiting for an admin’s approval; suspended: by an admin, for `reason`',
  );

/** What an admin does to a shop. */
export const SHOP_ACTIONS = ['approve', 'refuse', 'suspend', 'reinstate'] as const;
export type ShopAction = (typeof SHOP_ACTIONS)[number];

export const SHOP_REASON_MAX = 500;
export const shopReasonBody = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(1, 'validation.required')
    .max(SHOP_REASON_MAX, 'validation.atMostCharacters')
    .describe('Told to the seller (their email, their console): why'),
});

export const shopSellerParams = z.object({ sellerId: z.string().max(100) });

export const shopStateAnswer = z
  .object({
    sellerId: z.string(),
    shopName: z.string(),
    slug: z.string(),
    province: z.string(),
    status: shopStatus,
    reason: z.string().nullable().describe('Why it is suspended (or was refused); null otherwise'),
    suspendedAt: z.number().int().nullable(),
    createdAt: z.number().int(),
    seller: z.object({ email: z.string(), name: z.string(), suspended: z.boolean() }),
  })
  .meta({ id: 'ShopState' });

export const MAX_SHOPS_PAGE = 100;
export const shopsQuery = z.object({
  status: z.enum(['pending', 'suspended']).default('pending'),
  limit: intParam('limit', 1, MAX_SHOPS_PAGE).default(20),
  offset: intParam('offset', 0, 10_000).default(0),
});

export const shopsList = z.object({
  shops: z.array(shopStateAnswer),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
