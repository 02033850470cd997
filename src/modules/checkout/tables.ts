import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { CHECKOUT_STATUSES } from '../../contract/checkout.ts';
import { users } from '../auth/tables.ts';
import type { ShippingOption } from '../pricing/shipping.ts';

/** What a session stores of its quote: enough to create its orders without pricing again. */
export interface StoredParcel {
  sellerId: string;
  /** The seller's shop name when the checkout was made: what its tax lines are labelled with (absent on older checkouts). */
  shopName?: string;
  originProvince: string;
  subtotalCents: number;
  /** Everything taken off the items; of it, the shop's automatic discount and the platform's coupon share (absent on older checkouts: 0). */
  discountCents: number;
  automaticDiscountCents?: number;
  platformDiscountCents?: number;
  shippingCostCents: number;
  /** The option chosen, and every option the parcel had (absent on checkouts made before options). */
  shipping?: ShippingOption;
  shippingOptions?: ShippingOption[];
  taxLines: Array<{ name: 'GST' | 'HST' | 'PST' | 'QST'; ratePercent: number; amountCents: number }>;
  taxAmountCents: number;
  totalCents: number;
  items: Array<{
    productId: string;
    /** What was held; absent on checkouts made before variants (then the product's id, its one variant's). */
    variantId?: string;
    /** The variant's option values ('' for a product sold one way) and SKU, as held. */
    variantTitle?: string;
    sku?: string;
    name: string;
    quantity: number;
    unitPriceCents: number;
    imageUrl: string | null;
  }>;
}

export interface StoredAddress {
  street: string;
  city: string;
  province: string;
  postalCode: string;
  country: string;
  phone: string;
  /** Given on the pages' form only; kept with the orders' address (orders/create.ts). */
  recipientName?: string;
  /** A unit, an apartment: the pages' form only. */
  line2?: string;
}

/**
 * A checkout: the priced cart, the address and the payment provider's session. It becomes
 * orders only when the provider confirms the payment (docs/api.md "Checkout").
 */
export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    buyerId: text('buyer_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: CHECKOUT_STATUSES }).notNull().default('ready_for_payment'),
    /** A hash of the cart's lines, the coupon and the address: an unchanged cart gets this session back. */
    fingerprint: text('fingerprint').notNull(),
    address: jsonb('address').$type<StoredAddress>().notNull(),
    couponCode: text('coupon_code'),
    parcels: jsonb('parcels').$type<StoredParcel[]>().notNull(),
    taxLines: jsonb('tax_lines').$type<StoredParcel['taxLines']>().notNull(),
    subtotalCents: integer('subtotal_cents').notNull(),
    discountCents: integer('discount_cents').notNull(),
    shippingCostCents: integer('shipping_cost_cents').notNull(),
    taxAmountCents: integer('tax_amount_cents').notNull(),
    totalCents: integer('total_cents').notNull(),
    provider: text('provider').notNull(),
    /** The key of whom given lines are held for (an agent-checkout session), null for the cart's (LineSource). */
    adapterSessionId: text('adapter_session_id'),
    /** The owner of given lines' hold (a platform's id), counted against its cap; null otherwise. */
    adapterOwner: text('adapter_owner'),
    /** The provider's session; null until it is opened (after the reservation commits). */
    providerSessionId: text('provider_session_id').unique(),
    sessionUrl: text('session_url'),
    clientSecret: text('client_secret'),
    /** The payment that completed the session. */
    paymentIntentId: text('payment_intent_id').unique(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    expiredAt: timestamp('expired_at', { withTimezone: true }),
    /**
     * When its holder let it go before its end (an agent platform's cancel): a lapse, as far as
     * the cool-down is concerned (checkout/queries.ts lapsedHolds); null otherwise.
     */
    canceledAt: timestamp('canceled_at', { withTimezone: true }),
  },
  (t) => [
    check(
      'checkout_sessions_status_check',
      sql`${t.status} in (${sql.raw(CHECKOUT_STATUSES.map((s) => `'${s}'`).join(', '))})`,
    ),
    index('checkout_sessions_buyer_open_idx').on(t.buyerId).where(sql`${t.status} = 'ready_for_payment'`),
    index('checkout_sessions_open_expiry_idx').on(t.expiresAt).where(sql`${t.status} = 'ready_for_payment'`),
    // A platform's live holds: counted before it holds another (agent-checkout/quote.ts).
    index('checkout_sessions_owner_open_idx')
      .on(t.adapterOwner, t.expiresAt)
      .where(sql`${t.status} = 'ready_for_payment' and ${t.adapterOwner} is not null`),
    // A buyer's holds that lapsed lately (the cool-down before holding a product again).
    index('checkout_sessions_buyer_expiry_idx').on(t.buyerId, t.expiresAt),
  ],
);
