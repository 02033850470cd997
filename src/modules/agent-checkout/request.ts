// What a session keeps of what its platform asked for, whichever protocol asked: the skins read
// their wire requests into this (their request mappers), and the core quotes from it. Buyer,
// items and address keep the fields the platform sent (a skin echoes them); the core reads only
// the ones named here.
import { refusal } from './problems.ts';

export interface SessionItem {
  id: string;
  quantity: number;
  [field: string]: unknown;
}

export interface SessionBuyer {
  email: string;
  first_name?: string;
  last_name?: string;
  full_name?: string;
  phone_number?: string;
  [field: string]: unknown;
}

export interface SessionAddress {
  name: string;
  line_one: string;
  line_two?: string;
  city: string;
  state: string;
  country: string;
  postal_code: string;
  [field: string]: unknown;
}

export interface SessionRequest {
  items: SessionItem[];
  buyer?: SessionBuyer;
  fulfillmentDetails?: {
    name?: string;
    phone_number?: string;
    email?: string;
    address?: SessionAddress;
  };
  coupons: string[];
  locale?: string;
  orderNotes?: string;
  /** The shipping option chosen per seller's parcel (docs/shipping.md); a parcel not named: its cheapest. */
  shippingChoices?: ShippingChoice[];
}

export interface ShippingChoice {
  sellerId: string;
  optionId: string;
}

/** What an update may change (absent: kept as it was). */
export type SessionChange = Partial<
  Pick<
    SessionRequest,
    'items' | 'buyer' | 'fulfillmentDetails' | 'coupons' | 'orderNotes' | 'shippingChoices'
  >
>;

/** The most parcels a session may choose for (a session has at most 50 lines). */
const MAX_CHOICES = 50;

/**
 * Choices as a session keeps them: one per seller (the last one named wins), at most 50. Ids are
 * the skins' to decode and bounded by their schemas.
 */
export function shippingChoicesOf(choices: ShippingChoice[]): ShippingChoice[] {
  const bySeller = new Map(choices.map((c) => [c.sellerId, c]));
  if (bySeller.size > MAX_CHOICES) {
    throw refusal('invalid', 'invalid', 'agent.error.tooManyLines', { max: MAX_CHOICES }, 'shippingChoices');
  }
  return [...bySeller.values()];
}

/** The most a line may ask for, and the most lines a session may have. */
const MAX_QUANTITY = 999;
const MAX_LINES = 50;

/** One line per product: a product named twice is one line of the summed quantity. */
export function mergedItems(items: ReadonlyArray<{ id: string; quantity?: number }>): SessionItem[] {
  const byId = new Map<string, SessionItem>();
  for (const item of items) {
    const seen = byId.get(item.id);
    const quantity = (seen?.quantity ?? 0) + (item.quantity ?? 1);
    byId.set(item.id, { ...seen, ...item, quantity });
  }
  const merged = [...byId.values()];
  const over = merged.findIndex((i) => i.quantity > MAX_QUANTITY);
  if (over >= 0) {
    throw refusal(
      'invalid',
      'invalid',
      'agent.error.lineTooBig',
      { max: MAX_QUANTITY },
      `items[${over}].quantity`,
    );
  }
  if (merged.length > MAX_LINES) {
    throw refusal('invalid', 'invalid', 'agent.error.tooManyLines', { max: MAX_LINES }, 'items');
  }
  return merged;
}

/** The coupon codes asked for: trimmed, each once, at most five. */
export function couponsOf(input: { coupons?: string[]; discounts?: { codes?: string[] } }): string[] {
  const codes = [...(input.discounts?.codes ?? []), ...(input.coupons ?? [])]
    .map((c) => c.trim())
    .filter(Boolean);
  return [...new Set(codes)].slice(0, 5);
}
