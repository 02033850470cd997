// Wire schemas of shops' pages (docs/api.md "Shops"): what a seller writes of their shop, in
// each language, and what anyone reads of it.
import { z } from 'zod';
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
