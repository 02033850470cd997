// An ACP session as the wire shows it (the spec's CheckoutSession), built from what the session
// stored and the Portage checkout holding it: every amount is the checkout's quote, in CAD cents.
import type {
  AcpCheckoutSession,
  AcpFulfillmentOption,
  AcpLineItem,
  AcpMessage,
  AcpPaymentHandler,
  AcpTotal,
} from '../../contract/acp.ts';
import { isoSecond } from '../../contract/common.ts';
import type { checkoutSessions } from '../checkout/tables.ts';
import type { AcpStoredStatus } from './states.ts';
import type { acpSessions } from './tables.ts';

export const ACP_VERSION = '2026-04-17';
export const ACP_SUPPORTED_VERSIONS = [ACP_VERSION] as const;

type AcpRow = typeof acpSessions.$inferSelect;
type CheckoutRow = typeof checkoutSessions.$inferSelect;

export interface AnswerDeps {
  publicBaseUrl: string;
  handlers: AcpPaymentHandler[];
}

/** The id a session's order has on the wire: one per checkout (docs/acp.md "Principles"). */
export const acpOrderId = (checkoutId: string) => `order_${keyOf(checkoutId)}`;

/** A record id's key, without its table: `checkouts:abc` is `abc` (ids shown to platforms). */
export const keyOf = (id: string) => id.slice(id.indexOf(':') + 1);

/**
 * The session's status as it stands: paid is completed whatever was stored; then the stored
 * status, unless the checkout says more (its hold ended: expired, or not ready when a newer
 * checkout replaced it). A payment in progress stays so while its hold does.
 */
export function effectiveStatus(row: AcpRow, checkout: CheckoutRow | undefined, now: Date): AcpStoredStatus {
  if (checkout?.status === 'complete') return 'completed';
  if (row.status === 'canceled') return row.status;
  if (row.status === 'complete_in_progress') {
    // Money that lands after the hold ended is refunded (purchase/flow.ts): the session expired.
    return checkout?.status === 'ready_for_payment' ? row.status : 'expired';
  }
  if (row.expiresAt <= now) return 'expired';
  if (row.status === 'not_ready_for_payment') return row.status;
  if (checkout?.status !== 'ready_for_payment' || checkout.expiresAt <= now) {
    return 'not_ready_for_payment';
  }
  return row.status;
}

/** The message of a hold ended early (the buyer checked out elsewhere): update the session to hold again. */
const holdEnded: AcpMessage = {
  type: 'error',
  code: 'expired',
  resolution: 'recoverable',
  param: '$.line_items',
  content_type: 'plain',
  content:
    'The stock this session held was released (a newer checkout of the same buyer replaced it); update the session to quote and hold it again',
};

export function toAcpSession(
  deps: AnswerDeps,
  row: AcpRow,
  checkout: CheckoutRow | undefined,
  now: Date,
): AcpCheckoutSession {
  const status = effectiveStatus(row, checkout, now);
  const held =
    checkout &&
    (status === 'ready_for_payment' || status === 'complete_in_progress' || status === 'completed');
  const items = row.request.items;
  const bought = new Map(
    (held ? checkout.parcels : []).flatMap((p) => p.items.map((i) => [i.productId, i] as const)),
  );
  const lineItems: AcpLineItem[] = items.map((item) => {
    const sold = bought.get(item.id);
    const base = sold ? sold.unitPriceCents * sold.quantity : undefined;
    return {
      id: lineId(item.id),
      item,
      quantity: item.quantity,
      ...(sold
        ? {
            name: sold.name,
            unit_amount: sold.unitPriceCents,
            product_id: item.id,
            ...(sold.imageUrl && /^https?:\/\//.test(sold.imageUrl) ? { images: [sold.imageUrl] } : {}),
            totals: [total('items_base_amount', 'Items', base!), total('subtotal', 'Subtotal', base!)],
          }
        : { totals: [] }),
    };
  });
  const messages = [...(row.messages as AcpMessage[])];
  if (status === 'not_ready_for_payment' && row.status !== 'not_ready_for_payment') messages.push(holdEnded);

  const session: AcpCheckoutSession = {
    id: row.id,
    protocol: { version: ACP_VERSION },
    capabilities: { payment: { handlers: deps.handlers } },
    ...(row.request.buyer ? { buyer: row.request.buyer } : {}),
    status,
    currency: 'cad',
    ...(row.request.locale ? { locale: row.request.locale } : {}),
    line_items: lineItems,
    ...(row.request.fulfillmentDetails ? { fulfillment_details: row.request.fulfillmentDetails } : {}),
    fulfillment_options: held ? fulfillmentOptions(checkout) : [],
    ...(held
      ? {
          selected_fulfillment_options: [
            {
              type: 'shipping',
              option_id: SHIPPING_OPTION,
              item_ids: lineItems.map((l) => l.id),
            },
          ],
        }
      : {}),
    totals: held ? sessionTotals(checkout) : [],
    messages,
    links: [
      { type: 'terms_of_use', url: `${deps.publicBaseUrl}/docs` },
      { type: 'return_policy', url: `${deps.publicBaseUrl}/docs` },
    ],
    created_at: isoSecond(row.createdAt),
    updated_at: isoSecond(row.updatedAt),
    expires_at: isoSecond(held ? checkout.expiresAt : row.expiresAt),
    ...(row.request.coupons.length > 0 ? { discounts: discountsOf(row, held ? checkout : undefined) } : {}),
  };
  if (status === 'completed' && checkout) {
    session.order = {
      type: 'order',
      id: acpOrderId(checkout.id),
      checkout_session_id: row.id,
      permalink_url: `${deps.publicBaseUrl}/checkout/${encodeURIComponent(checkout.id)}`,
      status: 'confirmed',
    };
  }
  return session;
}

/** A line's id: its product's, so that a platform can tell lines apart across updates. */
export const lineId = (productId: string) => `line_${productId}`;

function total(type: AcpTotal['type'], display_text: string, amount: number): AcpTotal {
  return { type, display_text, amount };
}

/** The one fulfilment option: each seller ships its parcel (digital items cost nothing to ship). */
export const SHIPPING_OPTION = 'shipping';

function fulfillmentOptions(checkout: CheckoutRow): AcpFulfillmentOption[] {
  const sellers = checkout.parcels.length;
  return [
    {
      type: 'shipping',
      id: SHIPPING_OPTION,
      title: 'Standard shipping',
      description:
        sellers === 1 ? 'One parcel from its seller' : `${sellers} parcels, each shipped by its own seller`,
      totals: [total('fulfillment', 'Shipping', checkout.shippingCostCents)],
    },
  ];
}

/** The session's totals: items, discount, shipping per the quote, tax per parcel and tax, the total. The platform's fee is the sellers' cost and never shown. */
function sessionTotals(checkout: CheckoutRow): AcpTotal[] {
  const totals: AcpTotal[] = [total('items_base_amount', 'Items', checkout.subtotalCents)];
  if (checkout.discountCents > 0) totals.push(total('discount', 'Discount', checkout.discountCents));
  totals.push(total('subtotal', 'Subtotal', checkout.subtotalCents - checkout.discountCents));
  totals.push(total('fulfillment', 'Shipping', checkout.shippingCostCents));
  totals.push({
    ...total('tax', 'Taxes', checkout.taxAmountCents),
    breakdown: checkout.parcels.flatMap((p) =>
      p.taxLines.map((t) => ({
        jurisdiction: `${t.name} ${checkout.address.province} (parcel of ${p.sellerId})`,
        rate: t.ratePercent / 100,
        amount: t.amountCents,
      })),
    ),
  });
  totals.push(total('total', 'Total', checkout.totalCents));
  return totals;
}

function discountsOf(
  row: AcpRow,
  checkout: CheckoutRow | undefined,
): NonNullable<AcpCheckoutSession['discounts']> {
  const codes = row.request.coupons;
  const applied = checkout?.couponCode;
  return {
    codes,
    ...(applied
      ? {
          applied: [
            {
              id: `discount_${applied}`,
              code: applied,
              coupon: { id: applied, name: applied },
              amount: checkout.discountCents,
            },
          ],
        }
      : {}),
    rejected: codes
      .filter((c) => c.toUpperCase() !== applied)
      .map((code) => ({
        code,
        reason: 'discount_code_invalid' as const,
        message: (row.messages as AcpMessage[]).find((m) => m.param === '$.discounts.codes')?.content,
      }))
      .map(({ message, ...r }) => (message ? { ...r, message } : r)),
  };
}
