// Builders for the states most tests start from, through the API as a user would make them,
// and the assertions on the error model that every module's tests share.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Answer, Api, SignedIn } from './app.ts';

export { admin, buyer, seller, uniqueEmail, verified } from './app.ts';

/** A word no other test uses (letters only, so that full-text search keeps it whole). */
export const uniqueWord = () =>
  `zq${Array.from(randomBytes(10), (b) => String.fromCharCode(97 + (b % 26))).join('')}`;

export interface Product {
  id: string;
  title: string;
  priceCents: number;
  stockQuantity: number;
  // biome-ignore lint/suspicious/noExplicitAny: the rest of the detail, as the tests assert it
  [field: string]: any;
}

/** The platform's tax profile as the tests set it (PUT /admin/tax-profile): a Quebec operator, both numbers. */
export const PLATFORM_TAX_PROFILE = {
  legalName: 'Portage Marketplace Inc.',
  street: '1 Place Ville Marie',
  city: 'Montréal',
  province: 'QC',
  postalCode: 'H3B 2B6',
  gstHstNumber: '876543216RT0001',
  qstNumber: '9876543211TQ0001',
};

/**
 * Creates a product through the API as `owner` (a seller, or an admin naming `sellerId`) and
 * answers its detail: physical, 1 kg, $10.00, 10 in stock, with a unique title, unless told.
 */
export async function product(
  api: Api,
  owner: SignedIn,
  fields: Record<string, unknown> = {},
): Promise<Product> {
  const res = await api.as(owner).post('/products', {
    title: `Cedar box ${uniqueWord()}`,
    priceCents: 1000,
    stockQuantity: 10,
    ...(fields.isDigital ? {} : { weight: 1 }),
    ...fields,
  });
  if (res.status !== 201) throw new Error(`create product failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A tee in sizes S ($20.00) and M ($22.00), 3 of each, SKUs `TEE-S-<word>` and `TEE-M-<word>`. */
export async function teeInTwoSizes(
  api: Api,
  owner: SignedIn,
  word = uniqueWord(),
): Promise<Product & { variants: Array<{ id: string; sku: string }> }> {
  const res = await api.as(owner).post('/products', {
    title: `Tee ${word}`,
    weight: 0.2,
    options: [{ name: 'Size', values: ['S', 'M'] }],
    variants: [
      { sku: `TEE-S-${word}`, options: { Size: 'S' }, priceCents: 2000, stockQuantity: 3 },
      { sku: `TEE-M-${word}`, options: { Size: 'M' }, priceCents: 2200, stockQuantity: 3 },
    ],
  });
  if (res.status !== 201) throw new Error(`create product failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface Category {
  id: string;
  name: string;
  slug: string;
  parentId: string | null;
}

/** Creates a category as an admin, with a unique slug. */
export async function category(
  api: Api,
  admin: SignedIn,
  label = 'Cat',
  parentId?: string,
): Promise<Category> {
  const res = await api
    .as(admin)
    .post('/admin/categories', { name: `${label} ${uniqueWord()}`, slug: `c-${uniqueWord()}`, parentId });
  if (res.status !== 201) throw new Error(`create category failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Creates a coupon as an admin (a unique code unless told); answers the coupon as created. */
// biome-ignore lint/suspicious/noExplicitAny: the coupon as the tests assert it
export async function coupon(api: Api, admin: SignedIn, fields: Record<string, unknown>): Promise<any> {
  const res = await api
    .as(admin)
    .post('/admin/coupons', { code: `c${randomBytes(5).toString('hex')}`, ...fields });
  if (res.status !== 201) throw new Error(`create coupon failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The error body `{error, code, statusCode}`; the message exact, or any string when omitted. */
export const errorBody = (code: string, statusCode: number, message?: string | RegExp) => ({
  error:
    message === undefined
      ? expect.any(String)
      : typeof message === 'string'
        ? message
        : expect.stringMatching(message),
  code,
  statusCode,
});

/** Asserts an error answer: its status and exactly the error model's body. */
export function expectError(res: Answer, code: string, statusCode: number, message?: string | RegExp) {
  expect({ status: res.status, body: res.body }).toEqual({
    status: statusCode,
    body: errorBody(code, statusCode, message),
  });
}

/** Asserts a 400 VALIDATION_ERROR naming exactly these fields. */
export function expectInvalid(res: Answer, details: Array<{ field: string; message: string }>) {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: expect.any(String), code: 'VALIDATION_ERROR', statusCode: 400, details });
}
