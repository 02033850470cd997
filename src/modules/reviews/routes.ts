// HTTP adapter of reviews: submitting one (submit_review), a product's published reviews, and
// the admin's moderation. GET /products/:productId/reviews lives here: its rules are the
// reviews', and /admin/reviews too (as /admin/coupons lives with coupons).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { productIdParams } from '../../contract/catalog.ts';
import {
  adminReviewList,
  adminReviewsQuery,
  moderatedReview,
  productReviewList,
  productReviewsQuery,
  review,
  reviewParams,
  submitReviewBody,
} from '../../contract/reviews.ts';
import * as reviewsService from './service.ts';

const tags = ['reviews'];

export async function reviewRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/reviews',
    {
      config: { auth: ['buyer'], limit: 'reviews', scope: 'orders' },
      schema: {
        tags,
        summary:
          'Review a product you may buy, once (submit_review); a link in the text holds it for moderation',
        body: submitReviewBody,
        response: { 201: review },
      },
    },
    async (req, reply) => reply.code(201).send(await reviewsService.submitReview(req.ctx, req.body)),
  );

  app.get(
    '/products/:productId/reviews',
    {
      config: { auth: 'user', limit: 'search', scope: 'shop' },
      schema: {
        tags,
        summary: "A product's published reviews, newest first",
        params: productIdParams,
        querystring: productReviewsQuery,
        response: { 200: productReviewList },
      },
    },
    async (req) => reviewsService.listProductReviews(req.ctx, req.params.productId, req.query),
  );

  app.get(
    '/admin/reviews',
    {
      config: { auth: ['admin'], limit: 'search' },
      schema: {
        tags: ['admin'],
        summary: 'Reviews to moderate: published=false is the queue; status=pending|published|rejected',
        querystring: adminReviewsQuery,
        response: { 200: adminReviewList },
      },
    },
    async (req) => reviewsService.listReviewsForModeration(req.ctx, req.query),
  );

  app.post(
    '/admin/reviews/:reviewId/publish',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary: 'Publish a held (or rejected) review; it is listed and counted from now on',
        params: reviewParams,
        response: { 200: moderatedReview },
      },
    },
    async (req) => reviewsService.publishReview(req.ctx, req.params.reviewId),
  );

  app.post(
    '/admin/reviews/:reviewId/reject',
    {
      config: { auth: ['admin'], limit: 'productWrites' },
      schema: {
        tags: ['admin'],
        summary:
          'Reject a review: kept unpublished and uncounted; still the buyer’s one review of the product',
        params: reviewParams,
        response: { 200: moderatedReview },
      },
    },
    async (req) => reviewsService.rejectReview(req.ctx, req.params.reviewId),
  );
}
