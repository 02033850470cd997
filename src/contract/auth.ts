// Wire schemas of authentication and accounts (docs/api.md "Accounts and tokens").
import { z } from 'zod';
import { province, recordId, role, unixSeconds } from './common.ts';

const email = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email({ message: 'must be an email address' }))
  .transform((e) => e.toLowerCase());
const password = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(256, 'must be at most 256 characters');
const name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

export const registerBody = z.object({ email, password, name });
export const loginBody = z.object({
  email,
  password: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters'),
});

export const publicUser = z
  .object({
    id: recordId('users'),
    email: z.string(),
    name: z.string(),
    role,
  })
  .meta({ id: 'User' });

export const sellerProfile = z.object({ shopName: z.string(), province });

export const me = publicUser
  .extend({
    emailVerified: z.boolean(),
    createdAt: unixSeconds,
    seller: sellerProfile.nullable(),
  })
  .meta({ id: 'Me' });

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
  shopName: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
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
const linkToken = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .describe('The token of the link in the email (`?token=…`)');

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
    .max(256, 'must be at most 256 characters')
    .optional()
    .describe('Optional (the page sends it); when given it must equal `password`'),
});
export const resetPasswordAnswer = z.object({ success: z.literal(true) });
export const linkPageQuery = z.object({ token: z.string().max(512).optional() });
