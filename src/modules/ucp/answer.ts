// UCP's answer mapper: a session's state said in UCP (docs/ucp.md "The checkout"): its status
// mapped from the core's, lines and totals from the one quote (tax per parcel as the tax entry's
// lines, the platform's fee never shown), the fulfillment and discount extensions when
// negotiated, the session's problems in UCP's words and paths.
import { isoSecond } from '../../contract/common.ts';
import { type Locale, render, t } from '../../contract/i18n.ts';
import {
  UCP_VERSION,
  type UcpCheckout,
  type UcpCheckoutStatus,
  type UcpMessage,
  type UcpPostalAddress,
  type UcpTotal,
} from '../../contract/ucp.ts';
import { appliedDiscounts } from '../agent-checkout/discounts.ts';
import { HOLD_ENDED, problemsOf, type SessionProblem } from '../agent-checkout/problems.ts';
import type { SessionAddress, SessionBuyer } from '../agent-checkout/request.ts';
import { dayWindow, parcelOptions } from '../agent-checkout/shipping.ts';
import { effectiveStatus, isHeld, itemIdOf, lineId, orderIdOf } from '../agent-checkout/status.ts';
import type { SessionState } from '../agent-checkout/types.ts';
import { policyUrl } from '../policies/links.ts';
import { serviceName } from '../shipping/names.ts';
import { returnPolicyUrlFor } from '../shops/service.ts';
import { capabilitiesFor, type Negotiated } from './agent.ts';
import { CHECKOUT, DISCOUNT, FULFILLMENT, type UcpPaymentHandlers } from './profile.ts';

export interface UcpAnswerDeps {
  publicBaseUrl: string;
  /** The payment handlers as UCP's registry (profile.ts ucpPaymentHandlers). */
  paymentHandlers: UcpPaymentHandlers;
  /** Set when the sandbox is the provider: its payment page, where a person pays a held checkout. */
  sandbox?: unknown;
}

/**
 * Where the person finishes a checkout (the sandbox's payment page). UCP demands https: a service
 * whose public URL is plain http (development's `npm start`) gives none, and so never escalates.
 */
export const continueUrlOf = (deps: UcpAnswerDeps, checkoutId: string) =>
  deps.sandbox && deps.publicBaseUrl.startsWith('https://')
    ? `${deps.publicBaseUrl}/sandbox/checkout/${encodeURIComponent(checkoutId)}`
    : undefined;

/** What an unheld session shows of its products: their titles and prices, read for it. */
export type ProductFacts = Map<string, { title: string; priceCents: number; imageUrl?: string }>;

const STATUS: Record<ReturnType<typeof effectiveStatus>, UcpCheckoutStatus> = {
  not_ready_for_payment: 'incomplete',
  ready_for_payment: 'ready_for_complete',
  complete_in_progress: 'complete_in_progress',
  completed: 'completed',
  canceled: 'canceled',
  // UCP has no expired: a session past its hold is invalid, as canceled says.
  expired: 'canceled',
};

/** The one fulfillment method and destination of a Portage session; a group per seller's parcel. */
const METHOD_ID = 'shipping';
const DESTINATION_ID = 'destination_1';
const GROUP_PREFIX = 'parcel:';

/** A parcel's group id: its seller's ("parcel:usr_…"). */
export const groupIdOf = (sellerId: string) => `${GROUP_PREFIX}${sellerId}`;
/** The seller a group id names; undefined for an id that is not one of ours. */
export const sellerOfGroup = (id: string) =>
  id.startsWith(GROUP_PREFIX) && id.length > GROUP_PREFIX.length ? id.slice(GROUP_PREFIX.length) : undefined;

export function toUcpCheckout(
  deps: UcpAnswerDeps,
  negotiated: Negotiated,
  state: SessionState,
  facts: ProductFacts,
  now: Date,
  /** The language of the person-facing words (messages, display texts). */
  locale: Locale,
  extra: UcpMessage[] = [],
  /** The complete's answer that needs the person: requires_escalation, with the payment page. */
  escalate = false,
): UcpCheckout {
  const { row, checkout } = state;
  const effective = effectiveStatus(row, checkout, now);
  const held = checkout !== undefined && isHeld(effective);
  const request = row.request;
  const handOff = held && effective !== 'completed' ? continueUrlOf(deps, checkout.id) : undefined;
  const status = escalate && handOff ? 'requires_escalation' : STATUS[effective];
  const bought = new Map(
    (held ? checkout.parcels : []).flatMap((p) => p.items.map((i) => [itemIdOf(i), i] as const)),
  );
  const lineItems = request.items.map((item) => {
    const sold = bought.get(item.id);
    const known = facts.get(item.id);
    const price = sold?.unitPriceCents ?? known?.priceCents ?? 0;
    const image = sold?.imageUrl ?? known?.imageUrl;
    const base = price * item.quantity;
    return {
      id: lineId(item.id),
      item: {
        id: item.id,
        title: sold?.name ?? known?.title ?? item.id,
        price,
        ...(image && /^https?:\/\//.test(image) ? { image_url: image } : {}),
      },
      quantity: item.quantity,
      totals: [
        { type: 'subtotal', amount: base },
        { type: 'total', amount: base },
      ],
    };
  });
  const messages: UcpMessage[] = [...problemsOf(row.messages).map((p) => ucpMessageOf(locale, p)), ...extra];
  if (effective === 'not_ready_for_payment' && row.status !== 'not_ready_for_payment') {
    messages.push({
      type: 'error',
      code: 'item_unavailable',
      path: '$.line_items',
      severity: 'recoverable',
      content: render(locale, HOLD_ENDED),
    });
  }
  const answer: UcpCheckout = {
    ucp: {
      version: UCP_VERSION,
      capabilities: capabilitiesFor(negotiated, CHECKOUT),
      payment_handlers: deps.paymentHandlers,
    },
    id: row.id,
    status,
    currency: 'CAD',
    line_items: lineItems,
    ...(request.buyer ? { buyer: ucpBuyerOf(request.buyer) } : {}),
    totals: held
      ? heldTotals(checkout, locale)
      : unheldTotals(lineItems.reduce((n, l) => n + l.totals[0]!.amount, 0)),
    ...(messages.length > 0 ? { messages } : {}),
    links: [
      { type: 'terms_of_service', url: policyUrl(deps.publicBaseUrl, 'terms') },
      { type: 'privacy_policy', url: policyUrl(deps.publicBaseUrl, 'privacy') },
      {
        type: 'refund_policy',
        url: returnPolicyUrlFor(deps.publicBaseUrl, held ? checkout.parcels.map((p) => p.sellerId) : []),
      },
    ],
    expires_at: isoSecond(held ? checkout.expiresAt : row.expiresAt),
    // The spec: a continue_url while the person could still finish (a must when escalating).
    ...(handOff ? { continue_url: handOff } : {}),
  };
  if (negotiated.has(FULFILLMENT)) {
    const address = request.fulfillmentDetails?.address;
    const ids = lineItems.map((l) => l.id);
    answer.fulfillment = {
      methods: [
        {
          id: METHOD_ID,
          type: 'shipping',
          line_item_ids: ids,
          destinations: address
            ? [{ id: DESTINATION_ID, ...ucpAddressOf(address, request.fulfillmentDetails?.phone_number) }]
            : [],
          selected_destination_id: address ? DESTINATION_ID : null,
          groups: held
            ? parcelOptions(checkout.parcels).map((p) => ({
                id: groupIdOf(p.sellerId),
                line_item_ids: p.lineIds,
                options: p.options.map((o) => {
                  const window = dayWindow(o.deliveryDate);
                  return {
                    id: o.id,
                    title: serviceName(locale, o),
                    description: t(locale, 'ucp.shipping.parcel', {
                      shop: p.shopName,
                      n: p.itemCount,
                      ...(o.deliveryDate ? { date: new Date(`${o.deliveryDate}T12:00:00Z`) } : {}),
                      dated: o.deliveryDate ? 'yes' : 'no',
                    }),
                    ...(o.carrier === 'canada_post'
                      ? { carrier: t(locale, 'shipping.carrier.canadaPost') }
                      : {}),
                    ...(window
                      ? { earliest_fulfillment_time: window.earliest, latest_fulfillment_time: window.latest }
                      : {}),
                    totals: [{ type: 'total', amount: o.priceCents }],
                  };
                }),
                selected_option_id: p.chosen.id,
              }))
            : [],
        },
      ],
    };
  }
  const applied = held ? appliedDiscounts(checkout) : null;
  if (negotiated.has(DISCOUNT) && (request.coupons.length > 0 || (applied?.automatic.length ?? 0) > 0)) {
    // The rule's order, said when there is more than one kind: each shop's automatic one first.
    const automatic = applied?.automatic ?? [];
    const order = (n: number) => (automatic.length > 0 ? { priority: n } : {});
    answer.discounts = {
      codes: request.coupons,
      applied: [
        ...automatic.map((a) => ({
          title: t(locale, 'web.cart.shopDiscount', { shop: a.shopName }),
          amount: a.amountCents,
          automatic: true,
          ...order(1),
        })),
        ...(applied?.coupon
          ? [
              {
                code: applied.coupon.code,
                title: applied.coupon.code,
                amount: applied.coupon.amountCents,
                ...order(2),
              },
            ]
          : []),
      ],
    };
  }
  if (effective === 'completed' && checkout) {
    answer.order = {
      id: orderIdOf(checkout.id),
      permalink_url: `${deps.publicBaseUrl}/account/purchases/${encodeURIComponent(checkout.id)}`,
    };
  }
  return answer;
}

/** An unheld session's totals: its lines at their catalog prices, nothing quoted yet. */
const unheldTotals = (items: number): UcpTotal[] => [
  { type: 'subtotal', amount: items },
  { type: 'total', amount: items },
];

/** Items, discount (negative), shipping, tax with a line per parcel's tax, total: they add up to the total. */
function heldTotals(checkout: NonNullable<SessionState['checkout']>, locale: Locale): UcpTotal[] {
  const totals: UcpTotal[] = [{ type: 'subtotal', amount: checkout.subtotalCents }];
  if (checkout.discountCents > 0) totals.push({ type: 'discount', amount: -checkout.discountCents });
  totals.push({
    type: 'fulfillment',
    display_text: t(locale, 'ucp.total.shipping'),
    amount: checkout.shippingCostCents,
  });
  const lines = checkout.parcels.flatMap((p) =>
    p.taxLines.map((line) => ({
      display_text: t(locale, 'ucp.total.taxLine', {
        tax: line.name,
        rate: line.ratePercent,
        province: checkout.address.province,
        seller: p.shopName || p.sellerId,
      }),
      amount: line.amountCents,
    })),
  );
  totals.push({
    type: 'tax',
    display_text: t(locale, 'ucp.total.taxes'),
    amount: checkout.taxAmountCents,
    ...(lines.length > 0 ? { lines } : {}),
  });
  totals.push({ type: 'total', amount: checkout.totalCents });
  return totals;
}

function ucpBuyerOf(buyer: SessionBuyer) {
  return {
    email: buyer.email,
    ...(buyer.first_name ? { first_name: buyer.first_name } : {}),
    ...(buyer.last_name ? { last_name: buyer.last_name } : {}),
    ...(buyer.phone_number ? { phone_number: buyer.phone_number } : {}),
  };
}

export function ucpAddressOf(a: SessionAddress, phone: string | undefined): UcpPostalAddress {
  const [first, ...rest] = a.name.split(' ');
  return {
    street_address: a.line_one,
    ...(a.line_two ? { extended_address: a.line_two } : {}),
    address_locality: a.city,
    address_region: a.state,
    address_country: a.country,
    postal_code: a.postal_code,
    ...(first ? { first_name: first } : {}),
    ...(rest.length > 0 ? { last_name: rest.join(' ') } : {}),
    ...(phone ? { phone_number: phone } : {}),
  };
}

/** Where a field of the one destination lives in a UCP request. */
const DESTINATION = '$.fulfillment.methods[0].destinations[0]';
const PATHS: Record<string, string> = {
  'fulfillmentDetails.address': DESTINATION,
  'fulfillmentDetails.address.line_one': `${DESTINATION}.street_address`,
  'fulfillmentDetails.address.city': `${DESTINATION}.address_locality`,
  'fulfillmentDetails.address.state': `${DESTINATION}.address_region`,
  'fulfillmentDetails.address.postal_code': `${DESTINATION}.postal_code`,
  'fulfillmentDetails.address.country': `${DESTINATION}.address_country`,
  'fulfillmentDetails.phone_number': `${DESTINATION}.phone_number`,
  items: '$.line_items',
  coupons: '$.discounts.codes',
  shippingChoices: '$.fulfillment.methods[0].groups',
};

/** A neutral path as UCP's JSON path into its request (`items[0]` is `$.line_items[0]`). */
export function ucpPath(path: string): string {
  const exact = PATHS[path];
  if (exact) return exact;
  const line = /^items(\[\d+\].*)$/.exec(path);
  return line ? `$.line_items${line[1]}` : `$.${path}`;
}

const CODES: Record<string, string> = {
  not_found: 'item_unavailable',
  region_restricted: 'address_undeliverable',
  quantity_exceeded: 'invalid_quantity',
};

/**
 * A session's problem in UCP's words: its code (UCP's where it has one), its path into a UCP
 * request. Every error is `recoverable`: the platform can fix each through the API.
 */
function ucpMessageOf(locale: Locale, p: SessionProblem): UcpMessage {
  const path = ucpPath(p.path);
  const content = render(locale, p.words);
  if (p.severity === 'error') {
    const code =
      p.code === 'invalid' && path.startsWith(DESTINATION)
        ? path.endsWith('phone_number')
          ? 'invalid_phone'
          : 'invalid_address'
        : (CODES[p.code] ?? p.code);
    return { type: 'error', code, path, severity: 'recoverable', content };
  }
  return { type: 'warning', code: p.code, path, content } as UcpMessage;
}
