// An ACP session as the wire shows it (the spec's CheckoutSession), built from what the session
// stored and the Portage checkout holding it: every amount is the checkout's quote, in CAD cents.
import type {
  AcpBuyer,
  AcpCheckoutSession,
  AcpFulfillmentOption,
  AcpLineItem,
  AcpMessage,
  AcpPaymentHandler,
  AcpTotal,
} from '../../contract/acp.ts';
import { isoSecond } from '../../contract/common.ts';
import { type Locale, render, t } from '../../contract/i18n.ts';
import { appliedDiscounts } from '../agent-checkout/discounts.ts';
import { HOLD_ENDED, problemsOf, type SessionProblem } from '../agent-checkout/problems.ts';
import type { ShippingChoice } from '../agent-checkout/request.ts';
import { dayWindow, parcelOptions } from '../agent-checkout/shipping.ts';
import { effectiveStatus, isHeld, itemIdOf, lineId, orderIdOf } from '../agent-checkout/status.ts';
import type { SessionRow } from '../agent-checkout/types.ts';
import type { checkoutSessions } from '../checkout/tables.ts';
import { policyUrl } from '../policies/links.ts';
import { serviceName } from '../shipping/names.ts';
import { returnPolicyUrlFor } from '../shops/service.ts';
import { acpParam } from './errors.ts';

export const ACP_VERSION = '2026-04-17';
export const ACP_SUPPORTED_VERSIONS = [ACP_VERSION] as const;

type CheckoutRow = typeof checkoutSessions.$inferSelect;

export interface AnswerDeps {
  publicBaseUrl: string;
  handlers: AcpPaymentHandler[];
}

/** A session's kept problem as ACP's message, in `locale`. */
export function acpMessageOf(locale: Locale, problem: SessionProblem): AcpMessage {
  return {
    type: problem.severity,
    code: problem.code,
    param: acpParam(problem.path),
    resolution: problem.resolution,
    content_type: 'plain',
    content: render(locale, problem.words),
  } as AcpMessage;
}

const holdEnded = (locale: Locale): AcpMessage => ({
  type: 'error',
  code: 'expired',
  resolution: 'recoverable',
  param: '$.line_items',
  content_type: 'plain',
  content: render(locale, HOLD_ENDED),
});

export function toAcpSession(
  deps: AnswerDeps,
  row: SessionRow,
  checkout: CheckoutRow | undefined,
  now: Date,
  /** The language of the person-facing words (messages, totals' display texts). */
  locale: Locale,
): AcpCheckoutSession {
  const label = (key: Parameters<typeof t>[1], values?: Parameters<typeof t>[2]) => t(locale, key, values);
  const status = effectiveStatus(row, checkout, now);
  const held = checkout && isHeld(status);
  const items = row.request.items;
  const bought = new Map(
    (held ? checkout.parcels : []).flatMap((p) => p.items.map((i) => [itemIdOf(i), i] as const)),
  );
  const lineItems: AcpLineItem[] = items.map(({ quantity, ...item }) => {
    const sold = bought.get(item.id);
    const base = sold ? sold.unitPriceCents * sold.quantity : undefined;
    return {
      id: lineId(item.id),
      // The spec's Item has no quantity (it is the line's): taken in requests, never echoed.
      item: item as AcpLineItem['item'],
      quantity,
      ...(sold
        ? {
            name: sold.name,
            unit_amount: sold.unitPriceCents,
            product_id: item.id,
            ...(sold.imageUrl && /^https?:\/\//.test(sold.imageUrl) ? { images: [sold.imageUrl] } : {}),
            totals: [
              total('items_base_amount', label('acp.total.items'), base!),
              total('subtotal', label('acp.total.subtotal'), base!),
            ],
          }
        : { totals: [] }),
    };
  });
  const messages = problemsOf(row.messages).map((p) => acpMessageOf(locale, p));
  if (status === 'not_ready_for_payment' && row.status !== 'not_ready_for_payment')
    messages.push(holdEnded(locale));

  const session: AcpCheckoutSession = {
    id: row.id,
    protocol: { version: ACP_VERSION },
    capabilities: { payment: { handlers: deps.handlers } },
    ...(row.request.buyer ? { buyer: row.request.buyer as AcpBuyer } : {}),
    status,
    currency: 'cad',
    ...(row.request.locale ? { locale: row.request.locale } : {}),
    line_items: lineItems,
    ...(row.request.fulfillmentDetails
      ? { fulfillment_details: row.request.fulfillmentDetails as AcpCheckoutSession['fulfillment_details'] }
      : {}),
    fulfillment_options: held ? fulfillmentOptions(checkout, locale) : [],
    ...(held
      ? {
          selected_fulfillment_options: parcelOptions(checkout.parcels).map((p) => ({
            type: 'shipping' as const,
            option_id: acpOptionId(p.sellerId, p.chosen.id),
            item_ids: p.lineIds,
          })),
        }
      : {}),
    totals: held ? sessionTotals(checkout, locale) : [],
    messages,
    links: [
      { type: 'terms_of_use', url: policyUrl(deps.publicBaseUrl, 'terms') },
      { type: 'privacy_policy', url: policyUrl(deps.publicBaseUrl, 'privacy') },
      {
        type: 'return_policy',
        url: returnPolicyUrlFor(deps.publicBaseUrl, held ? checkout.parcels.map((p) => p.sellerId) : []),
      },
    ],
    created_at: isoSecond(row.createdAt),
    updated_at: isoSecond(row.updatedAt),
    expires_at: isoSecond(held ? checkout.expiresAt : row.expiresAt),
    ...(row.request.coupons.length > 0 || (held && appliedDiscounts(checkout).automatic.length > 0)
      ? { discounts: discountsOf(row, messages, held ? checkout : undefined, locale) }
      : {}),
  };
  if (status === 'completed' && checkout) {
    session.order = {
      type: 'order',
      id: orderIdOf(checkout.id),
      checkout_session_id: row.id,
      permalink_url: `${deps.publicBaseUrl}/account/purchases/${encodeURIComponent(checkout.id)}`,
      status: 'confirmed',
    };
  }
  return session;
}

function total(type: AcpTotal['type'], display_text: string, amount: number): AcpTotal {
  return { type, display_text, amount };
}

/**
 * An option's ACP id: the parcel's option and its seller ("canada_post:DOM.XP@usr_…"), so that
 * one list carries every parcel's options and a selection names its parcel.
 */
export const acpOptionId = (sellerId: string, optionId: string) => `${optionId}@${sellerId}`;

/** The parcel and option an ACP option id names; undefined for an id that is not one of ours. */
export function choiceOfAcpOption(id: string): ShippingChoice | undefined {
  const at = id.lastIndexOf('@');
  if (at <= 0 || at === id.length - 1) return undefined;
  return { optionId: id.slice(0, at), sellerId: id.slice(at + 1) };
}

/** Every parcel's options (each seller ships its own parcel; digital items cost nothing to ship). */
function fulfillmentOptions(checkout: CheckoutRow, locale: Locale): AcpFulfillmentOption[] {
  return parcelOptions(checkout.parcels).flatMap((p) =>
    p.options.map((o): AcpFulfillmentOption => {
      const window = dayWindow(o.deliveryDate);
      return {
        type: 'shipping',
        id: acpOptionId(p.sellerId, o.id),
        title: serviceName(locale, o),
        description: t(locale, 'acp.shipping.parcel', {
          shop: p.shopName,
          n: p.itemCount,
          ...(o.deliveryDate ? { date: new Date(`${o.deliveryDate}T12:00:00Z`) } : {}),
          dated: o.deliveryDate ? 'yes' : 'no',
        }),
        ...(o.carrier === 'canada_post' ? { carrier: t(locale, 'shipping.carrier.canadaPost') } : {}),
        ...(window ? { earliest_delivery_time: window.earliest, latest_delivery_time: window.latest } : {}),
        totals: [total('fulfillment', t(locale, 'acp.total.shipping'), o.priceCents)],
      };
    }),
  );
}

/** The session's totals: items, discount, shipping per the quote, tax per parcel and tax, the total. The platform's fee is the sellers' cost and never shown. */
function sessionTotals(checkout: CheckoutRow, locale: Locale): AcpTotal[] {
  const label = (key: Parameters<typeof t>[1]) => t(locale, key);
  const totals: AcpTotal[] = [total('items_base_amount', label('acp.total.items'), checkout.subtotalCents)];
  if (checkout.discountCents > 0)
    totals.push(total('discount', label('acp.total.discount'), checkout.discountCents));
  totals.push(
    total('subtotal', label('acp.total.subtotal'), checkout.subtotalCents - checkout.discountCents),
  );
  totals.push(total('fulfillment', label('acp.total.shipping'), checkout.shippingCostCents));
  totals.push({
    ...total('tax', label('acp.total.taxes'), checkout.taxAmountCents),
    breakdown: checkout.parcels.flatMap((p) =>
      p.taxLines.map((line) => ({
        jurisdiction: t(locale, 'acp.total.jurisdiction', {
          tax: line.name,
          province: checkout.address.province,
          seller: p.shopName || p.sellerId,
        }),
        rate: line.ratePercent / 100,
        amount: line.amountCents,
      })),
    ),
  });
  totals.push(total('total', label('acp.total.total'), checkout.totalCents));
  return totals;
}

function discountsOf(
  row: SessionRow,
  messages: AcpMessage[],
  checkout: CheckoutRow | undefined,
  locale: Locale,
): NonNullable<AcpCheckoutSession['discounts']> {
  const codes = row.request.coupons;
  const applied = checkout ? appliedDiscounts(checkout) : null;
  const automatic = applied?.automatic ?? [];
  // The rule's order, said when there is more than one kind: the automatic ones first.
  const order = (n: number) => (automatic.length > 0 ? { priority: n } : {});
  const list = [
    ...automatic.map((a) => ({
      id: `automatic_${a.sellerId}`,
      coupon: {
        id: `automatic_${a.sellerId}`,
        name: t(locale, 'web.cart.shopDiscount', { shop: a.shopName }),
      },
      amount: a.amountCents,
      automatic: true,
      ...order(1),
    })),
    ...(applied?.coupon
      ? [
          {
            id: `discount_${applied.coupon.code}`,
            code: applied.coupon.code,
            coupon: { id: applied.coupon.code, name: applied.coupon.code },
            amount: applied.coupon.amountCents,
            ...order(2),
          },
        ]
      : []),
  ];
  const couponCode = applied?.coupon?.code;
  return {
    codes,
    ...(list.length > 0 ? { applied: list } : {}),
    rejected: codes
      .filter((c) => c.toUpperCase() !== couponCode)
      .map((code) => ({
        code,
        reason: 'discount_code_invalid' as const,
        message: messages.find((m) => m.param === '$.discounts.codes')?.content,
      }))
      .map(({ message, ...r }) => (message ? { ...r, message } : r)),
  };
}
