// Writing a paid checkout's orders: the orders module's rows, made only by the purchase flow
// (purchase/flow.ts step 4), which decides which parcels are confirmed.
import { newId } from '../../contract/common.ts';
import type { StoredAddress, StoredParcel } from '../checkout/tables.ts';
import type { RequestContext } from '../context.ts';
import { estimatedDelivery } from '../pricing/dates.ts';
import { platformFeeCents } from '../pricing/money.ts';
import { takeOrderNumbers } from './numbers.ts';
import { type AdapterOrderItem, writeOrdersLater } from './queries.ts';
import type { orderItems, orders } from './tables.ts';

export type { AdapterOrderItem } from './queries.ts';

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
  const numbers = await takeOrderNumbers(tx, now, paid.parcels.length);
  const rows = paid.parcels.map((parcel, n) => {
    // Who pays the discount; a checkout made before the split: its seller (as the ledger had it).
    const platformDiscountCents = parcel.platformDiscountCents ?? 0;
    const sellerDiscountCents = parcel.discountCents - platformDiscountCents;
    return {
      id: ids[n]!,
      number: numbers[n]!,
      checkoutId: paid.checkoutId,
      buyerId: paid.buyerId,
      sellerId: parcel.sellerId,
      status: committed[n] ? ('confirmed' as const) : ('pending' as const),
      subtotalCents: parcel.subtotalCents,
      discountCents: parcel.discountCents,
      sellerDiscountCents,
      platformDiscountCents,
      shippingCostCents: parcel.shippingCostCents,
      taxAmountCents: parcel.taxAmountCents,
      taxLines: parcel.taxLines,
      // On what the seller sells the items for: a platform's coupon does not lower it.
      platformFeeCents: platformFeeCents(parcel.subtotalCents - sellerDiscountCents, paid.platformFeeBps),
      totalAmountCents: parcel.totalCents,
      shippingAddress: address,
      paymentIntentId: paid.paymentIntentId,
      stockCommitted: committed[n]!,
      itemCount: parcel.items.reduce((k, i) => k + i.quantity, 0),
      // The date the chosen option promised at checkout; a checkout made before options: the flat rate's.
      estimatedDelivery:
        parcel.shipping?.deliveryDate ?? estimatedDelivery(now, parcel.originProvince, address.province),
      shippingOption: parcel.shipping?.id ?? null,
      createdAt: now,
      confirmedAt: committed[n] ? now : null,
    };
  });
  const items = paid.parcels.map((parcel, n) =>
    parcel.items.map((item, position) => ({
      orderId: ids[n]!,
      productId: item.productId,
      variantId: variantOf(item),
      variantTitle: item.variantTitle ?? '',
      sku: item.sku ?? null,
      name: item.name,
      quantity: item.quantity,
      unitPriceCents: item.unitPriceCents,
      imageUrl: item.imageUrl,
      position,
    })),
  );
  await writeOrdersLater(tx, rows, items.flat());
  rememberWritten(tx, paid.checkoutId, rows, items);
  return rows.map((row, n) => ({ ...row, trackingNumber: null, carrier: null, items: items[n]! }));
}

/** What a checkout's item held: its variant, or (held before variants) its product's one variant, of the same id. */
export const variantOf = (item: { productId: string; variantId?: string }) =>
  item.variantId ?? item.productId;

/** An order as it is read with its items for the protocol adapters (service.ts ordersOfOneCheckout). */
export type CheckoutOrder = typeof orders.$inferSelect & { items: AdapterOrderItem[] };

/** The columns an order is written with; the others start at their defaults (rememberWritten). */
type WrittenOrder = Omit<
  typeof orders.$inferSelect,
  | 'trackingNumber'
  | 'carrier'
  | 'refundRequested'
  | 'refundedCents'
  | 'cancelReason'
  | 'shippedAt'
  | 'deliveredAt'
  | 'cancelledAt'
>;

/**
 * The orders each open transaction wrote, by checkout, as written: a subscriber of the purchase's
 * events reads them in that transaction without a round trip (ordersWrittenIn). Kept by the
 * transaction's handle, so they go with it.
 */
const writtenIn = new WeakMap<object, Map<string, { rows: WrittenOrder[]; items: RecordedItem[][] }>>();

/** An item as recordOrders writes it. */
type RecordedItem = typeof orderItems.$inferInsert & AdapterOrderItem & { position: number };

function rememberWritten(
  tx: RequestContext,
  checkoutId: string,
  rows: WrittenOrder[],
  items: RecordedItem[][],
) {
  if (!tx.inTransaction) return;
  let byCheckout = writtenIn.get(tx.db);
  if (!byCheckout) {
    byCheckout = new Map();
    writtenIn.set(tx.db, byCheckout);
  }
  byCheckout.set(checkoutId, { rows, items });
}

/**
 * The orders this transaction wrote for a checkout, as recordOrders answered them (parcel order,
 * with their items): what the paid email shows. Undefined when this transaction wrote none.
 */
export function recordedOrdersIn(ctx: RequestContext, checkoutId: string) {
  const written = ctx.inTransaction ? writtenIn.get(ctx.db)?.get(checkoutId) : undefined;
  if (!written) return undefined;
  return written.rows.map((row, n) => ({
    ...row,
    trackingNumber: null,
    carrier: null,
    items: written.items[n]! as RecordedItem[],
  }));
}

/**
 * The orders this transaction wrote for a checkout, as the adapters' read answers them
 * (service.ts ordersOfOneCheckout): the columns left to their defaults at those defaults, the
 * items in position order and shaped as that read shapes them, by seller id in code-point order.
 * Undefined when this transaction wrote none. Shaped here, when asked: a purchase no adapter made
 * never is.
 */
export function ordersWrittenIn(ctx: RequestContext, checkoutId: string): CheckoutOrder[] | undefined {
  const written = ctx.inTransaction ? writtenIn.get(ctx.db)?.get(checkoutId) : undefined;
  if (!written) return undefined;
  return written.rows
    .map(
      (row, n): CheckoutOrder => ({
        ...row,
        trackingNumber: null,
        carrier: null,
        refundRequested: false,
        refundedCents: 0,
        cancelReason: null,
        shippedAt: null,
        deliveredAt: null,
        cancelledAt: null,
        items: written.items[n]!.map((i) => ({
          productId: i.productId,
          variantId: i.variantId,
          name: i.name,
          quantity: i.quantity,
          unitPriceCents: i.unitPriceCents,
        })),
      }),
    )
    .sort((a, b) => (a.sellerId < b.sellerId ? -1 : a.sellerId > b.sellerId ? 1 : 0));
}
