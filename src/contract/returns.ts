// Wire schemas of returns (docs/api.md "Returns"; `request_return`). The request body is
// exactly the `request_return` tool's input (snake_case, described for agents); the answer is the
// spec's Return request object, with a few more fields (a superset).
import { z } from 'zod';
import { intParam } from './catalog.ts';
import { unixSeconds } from './common.ts';

export const RETURN_REASONS = ['damaged', 'wrong_item', 'not_as_described', 'other'] as const;
export type ReturnReason = (typeof RETURN_REASONS)[number];

/**
 * pending -> approved (refund without a return) | awaiting_parcel (approved with instructions to
 * send it back) | rejected, by the seller or an admin; awaiting_parcel -> received (the seller
 * has the parcel: the refund goes); approved | received -> refunded (the provider confirmed).
 * docs/lifecycles.md "Return (`src/modules/returns/states.ts`)".
 */
export const RETURN_STATUSES = [
  'pending',
  'awaiting_parcel',
  'received',
  'approved',
  'rejected',
  'refunded',
] as const;
export type ReturnStatus = (typeof RETURN_STATUSES)[number];
export const returnStatus = z.enum(RETURN_STATUSES);

/** A return names at most this many products (an order holds at most 50 lines). */
export const MAX_RETURN_ITEMS = 50;

export const requestReturnBody = z
  .object({
    order_id: z
      .string()
      .max(100)
      .describe('The delivered order to return, `orders:<key>` (from list_orders or get_order)'),
    reason: z.enum(RETURN_REASONS).describe('Why: damaged, wrong_item, not_as_described or other'),
    description: z
      .string()
      .trim()
      .max(2000)
      .optional()
      .describe('What happened, in the words of the person returning it (shown to the seller)'),
    items: z
      .array(z.string().max(100))
      .min(1, 'validation.returnItemsNone')
      .max(MAX_RETURN_ITEMS, 'validation.returnItemsTooMany')
      .refine((ids) => new Set(ids).size === ids.length, 'validation.productTwice')
      .optional()
      .describe(
        'Product ids (`products:<key>`) of the order to return, for a partial return; leave out to return the whole order (shipping is refunded only then)',
      ),
  })
  .meta({ id: 'RequestReturn' });

/**
 * POST /returns: the tool's input (exactly the spec's fields), and over HTTP (the pages, a client
 * of its own) `quantities` to return fewer units of a line.
 */
export const requestReturnApiBody = requestReturnBody.extend({
  quantities: z
    .record(
      z.string().max(100),
      z
        .number()
        .int('validation.positiveInteger')
        .min(1, 'validation.positiveInteger')
        .max(1000, 'validation.atMost'),
    )
    .optional()
    .describe(
      'Units to return of some of `items` (a product or variant id of one order line each, as in `items`): fewer than were bought; every unit left unless given',
    ),
});

export const returnRequest = z
  .object({
    return_id: z.string().describe('`returns:<key>`'),
    order_id: z.string(),
    status: returnStatus,
    reason: z.enum(RETURN_REASONS),
    created_at: unixSeconds,
    window_closes_at: unixSeconds.describe('The last second at which a return of this order is accepted'),
    estimated_refund_amount_cents: z
      .number()
      .int()
      .describe(
        "The returned items' share of what was paid (their price less their share of the discount, plus their tax; shipping only for a whole-order return), in integer cents (CAD)",
      ),
    message: z.string(),
    // Beyond the spec's fields (a superset):
    description: z.string().nullable(),
    items: z
      .array(z.string())
      .describe('The products returned (every product of the order for a whole-order return)'),
    whole_order: z.boolean().describe('Whether the whole order is returned (shipping included)'),
    buyer_id: z.string(),
    seller_id: z.string(),
    refund_amount_cents: z
      .number()
      .int()
      .nullable()
      .describe(
        'What approval refunds (null until approved): the estimate, capped by what is left unrefunded',
      ),
    order_refunded_cents: z
      .number()
      .int()
      .describe(
        "What the order has refunded so far, or has a refund on the way for, in cents (every return's and cancellation's): what a decision weighs this return's estimate against",
      ),
    note: z.string().nullable().describe("The seller's note with the decision"),
    instructions: z
      .string()
      .nullable()
      .describe('Where and how to send the items back (awaiting_parcel): the refund follows their receipt'),
    lines: z
      .array(
        z.object({ id: z.string(), product_id: z.string(), name: z.string(), quantity: z.number().int() }),
      )
      .describe("The lines returned: each order line's id (its variant's), product, name and units returned"),
    restocked: z
      .record(z.string(), z.number().int())
      .nullable()
      .describe('Units the seller put back in stock of each line when the parcel came (null until received)'),
    decided_at: unixSeconds.nullable(),
    received_at: unixSeconds.nullable(),
    escalated_at: unixSeconds
      .nullable()
      .describe("When a return left pending past the seller's time to answer went to the platform's admins"),
    refunded_at: unixSeconds.nullable(),
  })
  .meta({ id: 'ReturnRequest' });
export type ReturnRequest = z.infer<typeof returnRequest>;

export const listReturnsQuery = z.object({
  limit: intParam('limit', 1, 100).default(20),
  offset: intParam('offset', 0, 1_000_000).default(0),
});

export const listSellerReturnsQuery = listReturnsQuery.extend({ status: returnStatus.optional() });

export const returnList = z.object({
  returns: z.array(returnRequest),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const returnParams = z.object({ returnId: z.string() });

const note = z.string().trim().max(1000);

/** Optional: approving needs no body. */
export const approveReturnBody = z
  .object({
    note: note.optional().describe('A note to the buyer (optional)'),
    instructions: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .optional()
      .describe(
        'Where and how to send the items back: the return then waits for the parcel (POST /returns/:id/receive) and is refunded once received; without, it is refunded now, nothing sent back',
      ),
  })
  .nullish();

/** The pages' "ask for the items back" form: the approval with its instructions, required there. */
export const askForParcelBody = approveReturnBody.unwrap().unwrap().required({ instructions: true });

/** The parcel came back: how many units of each returned line go back in stock (0 when left out). */
export const receiveReturnBody = z
  .object({
    restock: z
      .record(
        z.string().max(100),
        z
          .number()
          .int('validation.nonNegativeInteger')
          .min(0, 'validation.nonNegativeInteger')
          .max(1000, 'validation.atMost'),
      )
      .default({})
      .describe(
        "Units put back on sale, by the returned line's id (as in `lines`); at most the units returned",
      ),
  })
  .nullish();

export const rejectReturnBody = z.object({
  note: note.min(1, 'validation.rejectNeedsNote').describe('Why the return is rejected (sent to the buyer)'),
});
