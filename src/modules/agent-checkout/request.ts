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
}

/** What an update may change (absent: kept as it was). */
export type SessionChange = Partial<
  Pick<SessionRequest, 'items' | 'buyer' | 'fulfillmentDetails' | 'coupons' | 'orderNotes'>
>;

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
