// What other modules read of sellers. Accounts and shops are the auth module's tables; other
// modules ask here instead of reading them (docs/decisions.md "Principles"). Also the settings a
// person keeps beside the account: their language, a seller's invoice identity, and the
// platform's own tax profile (docs/invoices.md).
import { and, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { platformTaxProfileBody, sellerInvoiceBody } from '../../contract/auth.ts';
import { isRecordId, type Province, toUnix } from '../../contract/common.ts';
import { conflict, invalid, notFound, problem, unauthenticated } from '../../contract/errors.ts';
import { isLocale, type Locale } from '../../contract/i18n.ts';
import { isNonResidentQst } from '../../contract/tax-numbers.ts';
import { recordAdminAction } from '../audit/service.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { platformTaxProfile, sellerProfiles, users } from './tables.ts';

/** Whether the user is a seller with a shop (who can own products). */
export async function isSeller(ctx: RequestContext, userId: string): Promise<boolean> {
  if (!isRecordId('users', userId)) return false;
  const rows = await ctx.db
    .select({ id: users.id })
    .from(users)
    .innerJoin(sellerProfiles, eq(sellerProfiles.userId, users.id))
    .where(and(eq(users.id, userId), eq(users.role, 'seller')));
  return rows.length > 0;
}

/** The shop name of each seller (for order emails); a seller without a shop gets its account name. */
export async function shopNames(ctx: RequestContext, sellerIds: string[]): Promise<Map<string, string>> {
  if (sellerIds.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: users.id, name: users.name, shopName: sellerProfiles.shopName })
    .from(users)
    .leftJoin(sellerProfiles, eq(sellerProfiles.userId, users.id))
    .where(inArray(users.id, [...new Set(sellerIds)]));
  return new Map(rows.map((r) => [r.id, r.shopName ?? r.name]));
}

/**
 * What an order email of a paid checkout needs of people: the buyer's address and name, and shop
 * names. Other modules read it inside one of their statements through the database function
 * portage_mail_names (src/db/functions).
 */
export interface MailNames {
  /** Null when the account is gone. */
  buyer: { email: string; name: string; locale: string | null } | null;
  /** Seller id to its shop name (a seller without a shop: its account name). */
  shops: Record<string, string>;
}

// ---- a person's own settings and the invoice identities (docs/invoices.md) ----------------------

type SellerInvoiceInput = z.infer<typeof sellerInvoiceBody>;
type PlatformTaxProfileInput = z.infer<typeof platformTaxProfileBody>;

/** The parts of GET /me that accounts' `me` does not read: the saved locale and the seller's invoice identity. */
export async function profileOf(ctx: RequestContext, userId: string) {
  const [row] = await ctx.db
    .select({ locale: users.locale, seller: sellerProfiles })
    .from(users)
    .leftJoin(sellerProfiles, eq(sellerProfiles.userId, users.id))
    .where(eq(users.id, userId));
  if (!row) throw unauthenticated();
  const s = row.seller;
  return {
    locale: isLocale(row.locale) ? row.locale : null,
    seller: s
      ? {
          legalName: s.legalName,
          street: s.street,
          city: s.city,
          postalCode: s.postalCode,
          gstHstNumber: s.gstHstNumber,
          qstNumber: s.qstNumber,
        }
      : null,
  };
}

/** Adds the saved locale and the seller's invoice identity to accounts' answer of GET /me. */
export async function withProfile<M extends { id: string; seller: object | null }>(
  ctx: RequestContext,
  me: M,
) {
  const profile = await profileOf(ctx, me.id);
  return {
    ...me,
    locale: profile.locale,
    seller: me.seller && profile.seller ? { ...me.seller, ...profile.seller } : null,
  };
}

/**
 * PATCH /me {locale}: saves the person's language (null: Accept-Language decides again). `forget`
 * is the token cache's (tokens.ts): this instance reads the user afresh, so the very next request
 * speaks the new locale; other instances within AUTH_CACHE_MS.
 */
export async function saveLocale(
  ctx: RequestContext,
  locale: Locale | null,
  forget: (userId: string) => void,
) {
  const me = caller(ctx);
  await ctx.db.update(users).set({ locale }).where(eq(users.id, me.id));
  forget(me.id);
}

/**
 * PATCH /me/seller: the seller's invoice identity, the fields given (null clears one). A QST
 * number of the specified system (NR…) is for suppliers outside Québec: refused for a shop in QC.
 */
export async function updateInvoiceIdentity(ctx: RequestContext, input: SellerInvoiceInput) {
  const me = caller(ctx);
  const set = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  return inTransaction(ctx, async (tx) => {
    const [profile] = await tx.db
      .select({ province: sellerProfiles.province })
      .from(sellerProfiles)
      .where(eq(sellerProfiles.userId, me.id))
      .for('update');
    if (!profile) throw conflict('error.auth.noShop');
    if (input.qstNumber && isNonResidentQst(input.qstNumber) && profile.province === 'QC') throw nrInQuebec();
    if (Object.keys(set).length > 0) {
      await tx.db.update(sellerProfiles).set(set).where(eq(sellerProfiles.userId, me.id));
    }
  });
}

const toPlatformProfile = (row: typeof platformTaxProfile.$inferSelect) => ({
  legalName: row.legalName,
  street: row.street,
  city: row.city,
  province: row.province as Province,
  postalCode: row.postalCode,
  gstHstNumber: row.gstHstNumber,
  qstNumber: row.qstNumber,
  updatedAt: toUnix(row.updatedAt),
});

/** A specified-system QST number (NR…) for a business in Québec, which registers under the general system. */
const nrInQuebec = () =>
  invalid('error.auth.nrQstInQuebec', undefined, [problem('qstNumber', 'tax.qst.nrInQuebec')]);

/** GET /admin/tax-profile: the marketplace operator's identity on invoices; 404 until an admin sets it. */
export async function getPlatformTaxProfile(ctx: RequestContext) {
  const [row] = await ctx.db.select().from(platformTaxProfile).where(eq(platformTaxProfile.id, 1));
  if (!row) throw notFound('error.auth.noTaxProfile');
  return toPlatformProfile(row);
}

/**
 * Whether the platform's tax profile is complete enough for a deployed service to start: set,
 * with both registration numbers (a marketplace operator collects the GST/HST and the QST).
 */
export async function platformTaxProfileReady(db: RequestContext['db']): Promise<boolean> {
  const [row] = await db
    .select({ gstHst: platformTaxProfile.gstHstNumber, qst: platformTaxProfile.qstNumber })
    .from(platformTaxProfile)
    .where(eq(platformTaxProfile.id, 1));
  return !!row?.gstHst && !!row.qst;
}

/** PUT /admin/tax-profile: replaces the marketplace operator's identity (one row). */
export async function putPlatformTaxProfile(ctx: RequestContext, input: PlatformTaxProfileInput) {
  if (input.qstNumber && isNonResidentQst(input.qstNumber) && input.province === 'QC') throw nrInQuebec();
  const values = { ...input, updatedAt: ctx.now() };
  return inTransaction(ctx, async (tx) => {
    const [before] = await tx.db.select().from(platformTaxProfile).where(eq(platformTaxProfile.id, 1));
    const [row] = await tx.db
      .insert(platformTaxProfile)
      .values({ id: 1, ...values })
      .onConflictDoUpdate({ target: platformTaxProfile.id, set: values })
      .returning();
    await recordAdminAction(tx, {
      action: 'tax-profile.save',
      subject: 'tax-profile',
      before: before ? toPlatformProfile(before) : null,
      after: toPlatformProfile(row!),
    });
    return toPlatformProfile(row!);
  });
}

/** Who an invoice names: a supplier (the seller) and, when one is set, the marketplace operator. */
export interface InvoiceParty {
  /** The legal name, else the shop name (else the account name). */
  name: string;
  street: string | null;
  city: string | null;
  province: string | null;
  postalCode: string | null;
  gstHstNumber: string | null;
  qstNumber: string | null;
}

/** What an order's invoice prints of its seller and of the platform (null: no profile set). */
export async function invoiceParties(
  ctx: RequestContext,
  sellerId: string,
): Promise<{ seller: InvoiceParty; platform: InvoiceParty | null }> {
  const { sellers, platform } = await invoicePartiesOf(ctx, [sellerId]);
  return { seller: sellers.get(sellerId)!, platform };
}

/** invoiceParties for several sellers at once (a payment's orders): two reads however many. */
export async function invoicePartiesOf(
  ctx: RequestContext,
  sellerIds: string[],
): Promise<{ sellers: Map<string, InvoiceParty>; platform: InvoiceParty | null }> {
  const [rows, [platform]] = await Promise.all([
    ctx.db
      .select({ id: users.id, name: users.name, profile: sellerProfiles })
      .from(users)
      .leftJoin(sellerProfiles, eq(sellerProfiles.userId, users.id))
      .where(inArray(users.id, [...new Set(sellerIds)])),
    ctx.db.select().from(platformTaxProfile).where(eq(platformTaxProfile.id, 1)),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const sellers = new Map(
    sellerIds.map((id): [string, InvoiceParty] => {
      const seller = byId.get(id);
      const p = seller?.profile;
      return [
        id,
        {
          name: p?.legalName ?? p?.shopName ?? seller?.name ?? '',
          street: p?.street ?? null,
          city: p?.city ?? null,
          province: p?.province ?? null,
          postalCode: p?.postalCode ?? null,
          gstHstNumber: p?.gstHstNumber ?? null,
          qstNumber: p?.qstNumber ?? null,
        },
      ];
    }),
  );
  return {
    sellers,
    platform: platform
      ? {
          name: platform.legalName,
          street: platform.street,
          city: platform.city,
          province: platform.province,
          postalCode: platform.postalCode,
          gstHstNumber: platform.gstHstNumber,
          qstNumber: platform.qstNumber,
        }
      : null,
  };
}
