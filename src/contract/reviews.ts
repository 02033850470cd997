// Wire schemas of reviews (docs/api.md "Reviews"; `submit_review`).
import { z } from 'zod';
import { intParam } from './catalog.ts';
import { recordId, unixSeconds } from './common.ts';

export const REVIEW_TITLE_MAX = 200;
export const REVIEW_COMMENT_MAX = 5000;

/** Where a review stands: shown and counted, waiting for an admin, or refused by one. */
export const REVIEW_STATUSES = ['published', 'pending', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
export const reviewStatus = z.enum(REVIEW_STATUSES);

/** The `submit_review` tool's input, exactly; also the body of POST /reviews. */
export const submitReviewBody = z.object({
  product_id: z.string().max(100).describe('The product reviewed (`products:<key>`)'),
  rating: z
    .number({
      error: (issue) => (issue.input === undefined ? 'validation.required' : 'validation.rating'),
    })
    .int('validation.rating')
    .min(1, 'validation.rating')
    .max(5, 'validation.rating')
    .describe('Stars, a whole number from 1 to 5'),
  title: z
    .string()
    .trim()
    .max(REVIEW_TITLE_MAX)
    .default('')
    .describe(`A headline, at most ${REVIEW_TITLE_MAX} characters; text with a link waits for moderation`),
  comment: z
    .string()
    .trim()
    .max(REVIEW_COMMENT_MAX)
    .default('')
    .describe(`The review, at most ${REVIEW_COMMENT_MAX} characters; text with a link waits for moderation`),
  order_id: z
    .string()
    .max(100)
    .optional()
    .describe(
      'Your paid order (`orders:<key>`) that contains the product: marks the review a verified purchase',
    ),
});
export type SubmitReviewInput = z.infer<typeof submitReviewBody>;

/** The spec's Review object. */
export const review = z
  .object({
    review_id: recordId('reviews'),
    product_id: recordId('products'),
    rating: z.number().int().describe('1 to 5'),
    title: z.string(),
    comment: z.string(),
    verified_purchase: z
      .boolean()
      .describe("True when the review names the reviewer's paid order of the product"),
    published: z.boolean().describe('False while the review waits for moderation (it contains a link)'),
    created_at: unixSeconds,
  })
  .meta({ id: 'Review' });
export type Review = z.infer<typeof review>;

/** A published review as anyone signed in sees it: the Review and its author's name. */
export const publicReview = review.extend({ author: z.string() }).meta({ id: 'PublicReview' });

export const productReviewsQuery = z.object({
  limit: intParam('limit', 1, 100).default(20),
  offset: intParam('offset', 0, 1_000_000).default(0),
});

export const productReviewList = z.object({
  reviews: z.array(publicReview).describe('Published reviews, newest first'),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

/** A review as the moderating admin sees it. */
export const moderatedReview = publicReview
  .extend({
    buyer_id: recordId('users'),
    status: reviewStatus,
    /** Why it was held: the review contains a link. */
    has_link: z.boolean().describe('The title or comment contains a link'),
  })
  .meta({ id: 'ModeratedReview' });

const boolParam = z
  .enum(['true', 'false'], { message: 'validation.trueOrFalse' })
  .transform((v) => v === 'true');

export const adminReviewsQuery = z
  .object({
    published: boolParam
      .optional()
      .describe('true: published reviews; false: the moderation queue (pending), as status=pending'),
    status: reviewStatus.optional(),
    limit: intParam('limit', 1, 100).default(20),
    offset: intParam('offset', 0, 1_000_000).default(0),
  })
  .refine(
    (q) => q.published === undefined || q.status === undefined || q.published === (q.status === 'published'),
    { message: 'validation.publishedStatusDisagree', path: ['published'] },
  );

export const adminReviewList = z.object({
  reviews: z.array(moderatedReview).describe('Newest first'),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const reviewParams = z.object({ reviewId: z.string() });
