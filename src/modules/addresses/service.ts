// A buyer's saved shipping addresses: at most MAX_ADDRESSES, one the default (the checkout's
// page fills it in). Pages only (the interface names no address endpoints); every call is for
// the signed-in buyer's own addresses, another's is not found.
import { and, asc, desc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { type recipientFields, shippingAddressInput } from '../../contract/checkout.ts';
import { newId } from '../../contract/common.ts';
import { conflict, notFound } from '../../contract/errors.ts';
import { users } from '../auth/tables.ts';
import { checkoutSessions } from '../checkout/tables.ts';
import { inTransaction, type RequestContext } from '../context.ts';
import { orders } from '../orders/tables.ts';
import { savedAddresses } from './tables.ts';

export const MAX_ADDRESSES = 10;

export type SavedAddress = typeof savedAddresses.$inferSelect;
export type AddressInput = z.output<typeof recipientFields> & {
  address: z.output<typeof shippingAddressInput>;
};

const mine = (userId: string, id: string) =>
  and(eq(savedAddresses.userId, userId), eq(savedAddresses.id, id));

/** The buyer's addresses, the default first, then the oldest first. */
export function listAddresses(ctx: RequestContext, userId: string): Promise<SavedAddress[]> {
  return ctx.db
    .select()
    .from(savedAddresses)
    .where(eq(savedAddresses.userId, userId))
    .orderBy(desc(savedAddresses.isDefault), asc(savedAddresses.createdAt), asc(savedAddresses.id));
}

export async function getAddress(ctx: RequestContext, userId: string, id: string): Promise<SavedAddress> {
  const [row] = await ctx.db.select().from(savedAddresses).where(mine(userId, id));
  if (!row) throw notFound('error.addresses.notFound');
  return row;
}

/**
 * Saves an address (checked by the API's rules again: the service does not trust its page). The
 * same address saved twice is one row; the first one is the default.
 */
export async function saveAddress(
  ctx: RequestContext,
  userId: string,
  input: AddressInput,
  o: { makeDefault?: boolean } = {},
): Promise<SavedAddress> {
  const a = shippingAddressInput.parse(input.address);
  const values = {
    recipientName: input.recipientName,
    street: a.street,
    line2: input.line2 ?? null,
    city: a.city,
    province: a.province,
    postalCode: a.postalCode,
    phone: a.phone,
  };
  return inTransaction(ctx, async (tx) => {
    // The buyer's row is the lock: two saves at once cannot pass the bound together.
    await tx.db.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
    const rows = await listAddresses(tx, userId);
    const same = rows.find((r) =>
      (Object.keys(values) as Array<keyof typeof values>).every((k) => r[k] === values[k]),
    );
    const makeDefault = o.makeDefault || rows.length === 0;
    if (same) {
      if (makeDefault && !same.isDefault) await setDefault(tx, userId, same.id);
      return { ...same, isDefault: same.isDefault || makeDefault };
    }
    if (rows.length >= MAX_ADDRESSES) throw conflict('error.addresses.full', { max: MAX_ADDRESSES });
    if (makeDefault) {
      await tx.db.update(savedAddresses).set({ isDefault: false }).where(eq(savedAddresses.userId, userId));
    }
    const [row] = await tx.db
      .insert(savedAddresses)
      .values({ id: newId('addresses'), userId, ...values, isDefault: makeDefault, createdAt: tx.now() })
      .returning();
    return row!;
  });
}

async function setDefault(tx: RequestContext, userId: string, id: string) {
  await tx.db.update(savedAddresses).set({ isDefault: false }).where(eq(savedAddresses.userId, userId));
  await tx.db.update(savedAddresses).set({ isDefault: true }).where(mine(userId, id));
}

export function setDefaultAddress(ctx: RequestContext, userId: string, id: string): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    await getAddress(tx, userId, id);
    await setDefault(tx, userId, id);
  });
}

/** Deletes one; when it was the default, the oldest one left becomes the default. */
export function deleteAddress(ctx: RequestContext, userId: string, id: string): Promise<void> {
  return inTransaction(ctx, async (tx) => {
    const [gone] = await tx.db.delete(savedAddresses).where(mine(userId, id)).returning();
    if (!gone) throw notFound('error.addresses.notFound');
    if (!gone.isDefault) return;
    const [next] = await listAddresses(tx, userId);
    if (next) await setDefault(tx, userId, next.id);
  });
}

/**
 * Whom and where a seller sends an order's parcel: the order's address with its recipient (the
 * buyer's account name when the checkout named none, as the API's does not) and the phone the
 * checkout kept for the carrier. Only for the order's own seller: another's order is not found.
 */
export async function parcelRecipient(ctx: RequestContext, orderId: string, sellerId: string) {
  const [row] = await ctx.db
    .select({ address: orders.shippingAddress, given: checkoutSessions.address, buyer: users.name })
    .from(orders)
    .innerJoin(users, eq(users.id, orders.buyerId))
    .leftJoin(checkoutSessions, eq(checkoutSessions.id, orders.checkoutId))
    .where(and(eq(orders.id, orderId), eq(orders.sellerId, sellerId)));
  if (!row) throw notFound('error.orders.notFound', { id: orderId });
  const a = row.address;
  return {
    recipientName: a.recipientName ?? row.buyer,
    street: a.street,
    line2: a.line2 ?? null,
    city: a.city,
    province: a.province,
    postalCode: a.postalCode,
    phone: row.given?.phone ?? null,
  };
}
