// Writing a paid checkout's orders: the orders module's rows, made only by the purchase flow
// (purchase/flow.ts step 4), which decides which parcels are confirmed.
import { newId } from '../../contract/common.ts';
import { insertInto } from '../../db/sql.ts';
import type { StoredAddress, StoredParcel } from '../checkout/tables.ts';
import type { RequestContext } from '../context.ts';
import { estimatedDelivery } from '../pricing/dates.ts';
import { platformFeeCents } from '../pricing/money.ts';
import { orderItems, orders } from './tables.ts';

/** The orders of a payment, and their items (db/sql.ts). */
const insertOrders = insertInto('orders_insert', orders);
const insertItems = insertInto('order_items_insert', orderItems);

export interface PaidCheckout {
  checkoutId: string;
  buyerId: string;
  paymentIntentId: string;
  /** Where the parcels go, without the phone (kept on the session only). */
  address: Omit<StoredAddress, 'phone'>;
  parcels: StoredParcel[];
  /** Per parcel: whether its units were taken out of stock (confirmed) or not (pending). */
  committed: boolean[];
  platformFeeBps: number;
}

/**
 * One order per parcel with its items, in one insert each. What is written is not read back
 * (the answer is built from the same values), so both statements go out with the next one or
 * the commit (db/batching-client.ts).
 */
export async function recordOrders(tx: RequestContext, paid: PaidCheckout) {
  const now = tx.now();
  const { address, committed } = paid;
  const ids = paid.parcels.map(() => newId('orders'));
  const rows = paid.parcels.map((parcel, n) => ({
    id: ids[n]!,
    checkoutId: paid.checkoutId,
    buyerId: paid.buyerId,
    sellerId: parcel.sellerId,
    status: committed[n] ? ('confirmed' as const) : ('pending' as const),
    subtotalCents: parcel.subtotalCents,
    discountCents: parcel.discountCents,
    shippingCostCents: parcel.shippingCostCents,
    taxAmountCents: parcel.taxAmountCents,
    taxLines: parcel.taxLines,
    platformFeeCents: platformFeeCents(parcel.subtotalCents - parcel.discountCents, paid.platformFeeBps),
    totalAmountCents: parcel.totalCents,
    shippingAddress: address,
    paymentIntentId: paid.paymentIntentId,
    stockCommitted: committed[n]!,
    itemCount: parcel.items.reduce((k, i) => k + i.quantity, 0),
    estimatedDelivery: estimatedDelivery(now, parcel.originProvince, address.province),
    createdAt: now,
    confirmedAt: committed[n] ? now : null,
  }));
  const items = paid.parcels.map((parcel, n) =>
    parcel.items.map((item, position) => ({
      orderId: ids[n]!,
      productId: item.productId,
      name: item.name,
      quantity: item.quantity,
      unitPriceCents: item.unitPriceCents,
      imageUrl: item.imageUrl,
      position,
    })),
  );
  await insertOrders.later(tx.db, rows);
  await insertItems.later(tx.db, items.flat());
  return rows.map((row, n) => ({ ...row, trackingNumber: null, carrier: null, items: items[n]! }));
}
