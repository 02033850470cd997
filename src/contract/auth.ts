// Wire schemas of authentication and accounts (docs/api.md "Accounts and tokens").
// A field's own words come from the catalogues: built-in checks (lengths, formats) are worded by
// contract/errors.ts's wordIssue; a custom check's message is a catalogue key.
import { z } from 'zod';
import { canonicalPostalCode } from './address-input.ts';
import { province, recordId, role, unixSeconds } from './common.ts';
import { LOCALES } from './i18n.ts';
import {
  checkGstHstNumber,
  checkQstNumber,
  TAX_NUMBER_MAX_INPUT,
  type TaxNumberCheck,
} from './tax-numbers.ts';

const email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email())
  .transform((e) => e.toLowerCase());
const password = z.string().min(8).max(256);
const name = z.string().trim().min(1).max(100);

export const registerBody = z.object({ email, password, name });
export const loginBody = z.object({
  email,
  password: z.string().min(1).max(256),
});

export const publicUser = z
  .object({
    id: recordId('users'),
    email: z.string(),
    name: z.string(),
    role,
  })
  .meta({ id: 'User' });

/** What a seller's invoices say of the supplier (docs/invoices.md); null until the seller sets it. */
const invoiceIdentity = {
  legalName: z
    .string()
    .nullable()
    .describe("The business's legal name; invoices use the shop name without it"),
  street: z.string().nullable(),
  city: z.string().nullable(),
  postalCode: z.string().nullable(),
  gstHstNumber: z.string().nullable().describe('GST/HST registration number, normalized: 123456782RT0001'),
  qstNumber: z
    .string()
    .nullable()
    .describe('QST registration number, normalized: 1234567892TQ0001, or NR00012345 (outside Québec)'),
};

export const sellerProfile = z.object({ shopName: z.string(), province, ...invoiceIdentity });

export const localeField = z
  .enum(LOCALES)
  .nullable()
  .describe('The language the person reads (emails, errors, invoices); null: Accept-Language decides');

export const me = publicUser
  .extend({
    emailVerified: z.boolean(),
    createdAt: unixSeconds,
    locale: localeField,
    seller: sellerProfile.nullable(),
  })
  .meta({ id: 'Me' });

/** PATCH /me: the person's own settings. */
export const updateMeBody = z.object({ locale: localeField });

/** A registration number as given ("123 456 782 RT 0001"), stored normalized, or refused naming why. */
const taxNumber = (check: (input: string) => TaxNumberCheck) =>
  z
    .string()
    .max(TAX_NUMBER_MAX_INPUT)
    .transform((input, ctx) => {
      const result = check(input);
      if (result.ok) return result.value;
      ctx.issues.push({
        code: 'custom',
        input,
        message: result.key,
        ...(result.values ? { params: result.values } : {}),
      });
      return z.NEVER;
    });
export const gstHstNumber = taxNumber(checkGstHstNumber);
export const qstNumber = taxNumber(checkQstNumber);

/** A Canadian postal code, written as given ("h3a3g4", "H3A-3G4") and stored "H3A 3G4". */
export const canadianPostalCode = z
  .string()
  .max(10)
  .transform((input, ctx) => {
    const code = canonicalPostalCode(input);
    if (/^[A-Z]\d[A-Z] \d[A-Z]\d$/.test(code)) return code;
    ctx.issues.push({ code: 'custom', input, message: 'validation.postalCodeCA' });
    return z.NEVER;
  });

const line = (max: number) => z.string().trim().min(1).max(max);

/**
 * PATCH /me/seller: the seller's invoice identity, field by field (an absent field stays as it
 * is; null clears it).
 */
export const sellerInvoiceBody = z.object({
  legalName: line(200).nullable().optional(),
  street: line(200).nullable().optional(),
  city: line(100).nullable().optional(),
  postalCode: canadianPostalCode.nullable().optional(),
  gstHstNumber: gstHstNumber.nullable().optional(),
  qstNumber: qstNumber.nullable().optional(),
});

/** The marketplace operator's identity on invoices (PUT /admin/tax-profile, GET answers it). */
export const platformTaxProfileBody = z.object({
  legalName: line(200),
  street: line(200),
  city: line(100),
  province,
  postalCode: canadianPostalCode,
  gstHstNumber: gstHstNumber.nullable(),
  qstNumber: qstNumber.nullable(),
});
export const platformTaxProfile = z
  .object({
    legalName: z.string(),
    street: z.string(),
    city: z.string(),
    province,
    postalCode: z.string(),
    gstHstNumber: z.string().nullable(),
    qstNumber: z.string().nullable(),
    updatedAt: unixSeconds,
  })
  .meta({ id: 'PlatformTaxProfile' });

export const tokenFields = {
  token: z
    .string()
    .describe(
      'RS256 JWT; send as `Authorization: Bearer <token>`. Its `auth_time` is the sign-in the token descends from',
    ),
  expiresAt: unixSeconds.describe('When the token expires (Unix seconds)'),
};

export const registerAnswer = z.object({ success: z.literal(true), user: publicUser, ...tokenFields });
export const loginAnswer = z.object({
  success: z.literal(true),
  user: publicUser,
  ...tokenFields,
  userId: recordId('users'),
  role,
});
export const refreshAnswer = z.object({ success: z.literal(true), ...tokenFields });
export const logoutAllAnswer = z.object({ success: z.literal(true) });

export const becomeSellerBody = z.object({
  shopName: z.string().trim().min(1).max(100),
  province,
});
export const userWithToken = z.object({ success: z.literal(true), user: publicUser, ...tokenFields });

export const changeRoleBody = z.object({
  role,
  shopName: becomeSellerBody.shape.shopName.optional(),
  province: province.optional(),
});
export const userIdParams = z.object({ id: z.string() });
export const adminUserAnswer = z.object({ success: z.literal(true), user: publicUser });

export const googleStartQuery = z.object({
  redirectUri: z.string().describe('Where to send the browser back, with `#token=<jwt>` on success'),
});
export const googleCallbackQuery = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional(),
});

export const jwks = z.object({
  keys: z.array(z.looseObject({ kty: z.string(), kid: z.string(), alg: z.string(), use: z.string() })),
});

// Account emails (docs/api.md "Account emails"): the token is the one a link in the email carries.
const linkToken = z.string().min(1).max(128).describe('The token of the link in the email (`?token=…`)');

export const verifyEmailBody = z.object({ token: linkToken });
export const verifyEmailAnswer = z.object({ success: z.literal(true), emailVerified: z.literal(true) });
export const resendVerificationAnswer = z.object({
  success: z.literal(true),
  message: z.string(),
});
export const forgotPasswordBody = z.object({ email });
export const forgotPasswordAnswer = z.object({
  success: z.literal(true),
  message: z.string(),
});
export const resetPasswordBody = z.object({
  token: linkToken,
  password,
  confirmPassword: z
    .string()
    .max(256)
    .optional()
    .describe('Optional (the page sends it); when given it must equal `password`'),
});
export const resetPasswordAnswer = z.object({ success: z.literal(true) });
export const linkPageQuery = z.object({ token: z.string().max(512).optional() });
