// Reviews over HTTP on a real database: verified and unverified purchases, one review per buyer
// per product (also when submitted twice at once), links held for moderation, the admin's
// publish and reject, and the product's and seller's rating/reviewCount against a
// recomputation from the reviews themselves, after concurrent submissions and moderation
// (docs/api.md "Reviews"; docs/decisions.md "Reviews").
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { sellerProfiles } from '../src/modules/auth/tables.ts';
import { products } from '../src/modules/catalog/tables.ts';
import { containsLink } from '../src/modules/reviews/links.ts';
import { reviews } from '../src/modules/reviews/tables.ts';
import { type Api, type SignedIn, testApp, useTestApp } from './helpers/app.ts';
import { admin, buyer, expectError, expectInvalid, product, seller } from './helpers/builders.ts';
import { cancelledOrder, paidOrder, setClock, signIn } from './helpers/orders.ts';

const { t, database } = useTestApp();
let adm: SignedIn;

const STARTED_AT = '2026-11-20T15:00:00.000Z';
const nowUnix = () => Math.floor(t.clock.now().getTime() / 1000);

beforeAll(async () => {
  setClock(t, STARTED_AT);
  adm = await admin(t.api, database);
});

const submit = (who: SignedIn, body: unknown) => t.api.as(who).post('/reviews', body);

/** The review as POST /reviews answers it. */
const reviewBody = (fields: Record<string, unknown>) => ({
  review_id: expect.stringMatching(/^reviews:[A-Za-z0-9_-]{20}$/),
  title: '',
  comment: '',
  verified_purchase: false,
  published: true,
  created_at: nowUnix(),
  ...fields,
});

async function reviewRow(id: string) {
  const [row] = await database.db.select().from(reviews).where(eq(reviews.id, id));
  return row;
}

/** Rating rounded half-up to 2 decimals, in integers (as numeric round() does). */
const expectedRating = (sum: number, n: number) =>
  n === 0 ? 0 : Math.floor((sum * 200 + n) / (2 * n)) / 100;

/** The stored aggregates of a product and of its seller, and the same recomputed from published reviews. */
async function aggregates(productId: string) {
  const [p] = await database.db
    .select({
      sellerId: products.sellerId,
      reviewCount: products.reviewCount,
      ratingSum: products.ratingSum,
      rating: products.rating,
    })
    .from(products)
    .where(eq(products.id, productId));
  const [s] = await database.db
    .select({
      reviewCount: sellerProfiles.reviewCount,
      ratingSum: sellerProfiles.ratingSum,
      rating: sellerProfiles.rating,
    })
    .from(sellerProfiles)
    .where(eq(sellerProfiles.userId, p!.sellerId));
  const recount = async (where: ReturnType<typeof sql>) => {
    const [r] = await database.db
      .select({ n: sql<number>`count(*)::int`, sum: sql<number>`coalesce(sum(${reviews.rating}), 0)::int` })
      .from(reviews)
      .innerJoin(products, eq(products.id, reviews.productId))
      .where(sql`${reviews.published} and ${where}`);
    const n = Number(r!.n);
    const sum = Number(r!.sum);
    return { reviewCount: n, ratingSum: sum, rating: expectedRating(sum, n) };
  };
  return {
    stored: {
      product: { reviewCount: p!.reviewCount, ratingSum: p!.ratingSum, rating: Number(p!.rating) },
      seller: { reviewCount: s!.reviewCount, ratingSum: s!.ratingSum, rating: Number(s!.rating) },
    },
    recomputed: {
      product: await recount(sql`${reviews.productId} = ${productId}`),
      seller: await recount(sql`${products.sellerId} = ${p!.sellerId}`),
    },
  };
}

async function expectExactAggregates(productId: string) {
  const a = await aggregates(productId);
  expect(a.stored).toEqual(a.recomputed);
  return a.stored;
}

const listed = async (api: Api, productId: string) => {
  const res = await api.get(`/products/${productId}/reviews?limit=100`);
  expect(res.status).toBe(200);
  return res.body.reviews.map((r: { review_id: string }) => r.review_id) as string[];
};

describe('POST /reviews', () => {
  it("is a verified purchase with the buyer's own paid order of the product", async () => {
    const { buyer: b, product: p, orderId } = await paidOrder(t);
    const res = await submit(b, {
      product_id: p.id,
      rating: 5,
      title: '  Solid box  ',
      comment: 'Holds everything.',
      order_id: orderId,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(
      reviewBody({
        product_id: p.id,
        rating: 5,
        title: 'Solid box',
        comment: 'Holds everything.',
        verified_purchase: true,
      }),
    );
    expect(await reviewRow(res.body.review_id)).toMatchObject({
      buyerId: b.id,
      orderId,
      verifiedPurchase: true,
      published: true,
    });
    const detail = await t.api.as(b).get(`/products/${p.id}`);
    expect(detail.body).toMatchObject({
      rating: 5,
      reviewCount: 1,
      seller: { rating: 5, reviewCount: 1 },
      reviews: [{ rating: 5, comment: 'Holds everything.', author: 'Test buyer', dateCreated: nowUnix() }],
    });
  });

  it('is unverified without an order, with an order lacking the product, with someone else’s, an unknown or a cancelled order', async () => {
    const { seller: s, product: p, buyer: owner, orderId: ownersOrder } = await paidOrder(t);
    const other = await product(t.api, s, { priceCents: 1500 });
    // A buyer with a paid order of another product only.
    const { buyer: b2, orderId: otherOrder } = await paidOrder(t, { seller: s, product: other });
    // A buyer whose order of the product was cancelled (refunded).
    const { buyer: b3, orderId: cancelled } = await cancelledOrder(t, {
      seller: s,
      product: p,
      reason: 'changed my mind',
    });
    const b1 = await buyer(t.api);
    const b4 = await buyer(t.api);
    const b5 = await buyer(t.api);
    const cases: Array<[SignedIn, string | undefined]> = [
      [b1, undefined],
      [b2, otherOrder],
      [b3, cancelled],
      [b4, ownersOrder], // someone else's order, which does contain the product
      [b5, 'orders:AAAAAAAAAAAAAAAAAAAA'], // no such order
    ];
    const answers = await Promise.all(
      cases.map(([who, orderId]) =>
        submit(who, { product_id: p.id, rating: 3, comment: 'Fine', order_id: orderId }),
      ),
    );
    for (const res of answers) {
      expect(res.status).toBe(201);
      // The same answer for a foreign and an unknown order: nothing tells whether an order exists.
      expect(res.body).toEqual(reviewBody({ product_id: p.id, rating: 3, comment: 'Fine' }));
      expect(await reviewRow(res.body.review_id)).toMatchObject({ orderId: null, verifiedPurchase: false });
    }
    // A malformed order id is simply not the buyer's order either.
    const odd = await submit(await buyer(t.api), { product_id: p.id, rating: 2, order_id: 'not an id' });
    expect(odd.status).toBe(201);
    expect(odd.body.verified_purchase).toBe(false);
    // The owner of the order still can.
    const own = await submit(owner, { product_id: p.id, rating: 4, order_id: ownersOrder });
    expect(own.body.verified_purchase).toBe(true);
    await expectExactAggregates(p.id);
  });

  it('takes one review per buyer per product: 409 on a second, and one of two sent at once', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const b = await buyer(t.api);
    expect((await submit(b, { product_id: p.id, rating: 4 })).status).toBe(201);
    const again = await submit(b, { product_id: p.id, rating: 1, comment: 'Changed my mind' });
    expectError(again, 'CONFLICT', 409, `You have already reviewed ${p.id}; one review per product`);

    const racer = await buyer(t.api);
    const both = await Promise.all([
      submit(racer, { product_id: p.id, rating: 5 }),
      submit(racer, { product_id: p.id, rating: 1 }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    const rows = await database.db.select().from(reviews).where(eq(reviews.buyerId, racer.id));
    expect(rows).toHaveLength(1);
    expect(await expectExactAggregates(p.id)).toMatchObject({ product: { reviewCount: 2 } });
    // Another product is another review.
    const p2 = await product(t.api, s);
    expect((await submit(b, { product_id: p2.id, rating: 2 })).status).toBe(201);
  });

  it('answers 404 for a product that is unknown, malformed, deleted, a draft or inactive', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const draft = await product(t.api, s, { status: 'draft' });
    const inactive = await product(t.api, s);
    expect((await t.api.as(s).patch(`/products/${inactive.id}`, { status: 'inactive' })).status).toBe(200);
    const deleted = await product(t.api, s);
    expect((await t.api.as(s).delete(`/products/${deleted.id}`)).status).toBe(200);
    for (const id of ['products:AAAAAAAAAAAAAAAAAAAA', 'nope', draft.id, inactive.id, deleted.id]) {
      expectError(
        await submit(b, { product_id: id, rating: 4 }),
        'NOT_FOUND',
        404,
        `Product ${id} not found`,
      );
    }
    // Not even an admin, who may see a draft, reviews one.
    expectError(await submit(adm, { product_id: draft.id, rating: 4 }), 'NOT_FOUND', 404);
  });

  it('is for buyers (and admins); never for the product’s own seller', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    expectError(await submit(s, { product_id: p.id, rating: 5 }), 'AUTHZ_ERROR', 403);
    expectError(await t.api.post('/reviews', { product_id: p.id, rating: 5 }), 'AUTH_ERROR', 401);
    // A seller made a buyer again still owns the product: refused.
    expect((await t.api.as(adm).patch(`/admin/users/${s.id}`, { role: 'buyer' })).status).toBe(200);
    const again = await signIn(t.api, s);
    expectError(
      await submit(again, { product_id: p.id, rating: 5 }),
      'AUTHZ_ERROR',
      403,
      'AUTHZ_ERROR: You cannot review your own product',
    );
    const byAdmin = await submit(adm, { product_id: p.id, rating: 4 });
    expect(byAdmin.status).toBe(201);
    await expectExactAggregates(p.id);
  });

  it('refuses bad input with the fields named', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const b = await buyer(t.api);
    const rating = { field: 'rating', message: 'must be a whole number from 1 to 5' };
    expectInvalid(await submit(b, { product_id: p.id, rating: 0 }), [rating]);
    expectInvalid(await submit(b, { product_id: p.id, rating: 6 }), [rating]);
    expectInvalid(await submit(b, { product_id: p.id, rating: 2.5 }), [rating]);
    expectInvalid(await submit(b, { product_id: p.id, rating: '5' }), [rating]);
    expectInvalid(await submit(b, { product_id: p.id }), [{ field: 'rating', message: 'is required' }]);
    expectInvalid(await submit(b, { rating: 4 }), [{ field: 'product_id', message: 'is required' }]);
    expectInvalid(await submit(b, { product_id: p.id, rating: 4, title: 'x'.repeat(201) }), [
      { field: 'title', message: 'must be at most 200 characters' },
    ]);
    expectInvalid(await submit(b, { product_id: p.id, rating: 4, comment: 'x'.repeat(5001) }), [
      { field: 'comment', message: 'must be at most 5,000 characters' },
    ]);
    expectError(
      await submit(b, { product_id: p.id, rating: 4, comment: 'bad \ud800 text' }),
      'VALIDATION_ERROR',
      400,
    );
    expect(await database.db.select().from(reviews).where(eq(reviews.buyerId, b.id))).toEqual([]);
    // At the limits, and trimmed to them.
    const edge = await submit(b, {
      product_id: p.id,
      rating: 1,
      title: ` ${'t'.repeat(200)} `,
      comment: 'c'.repeat(5000),
    });
    expect(edge.status).toBe(201);
    expect(edge.body.title).toHaveLength(200);
  });
});

describe('links and moderation', () => {
  it('holds text with a link: unpublished, not listed, not counted', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const texts = [
      { title: 'Great', comment: 'Cheaper at https://example.com/deal' },
      { title: 'Visit www.example.org', comment: '' },
      { title: 'ok', comment: 'see cheap-boxes.ca for more' },
      { title: 'ok', comment: '[best price](http://spam.example)' },
      { title: 'ok', comment: '<a href="x">here</a>' },
      { title: 'ok', comment: 'example[.]com' },
    ];
    for (const text of texts) {
      const res = await submit(await buyer(t.api), { product_id: p.id, rating: 1, ...text });
      expect(res.status).toBe(201);
      expect(res.body.published).toBe(false);
    }
    const clean = await submit(await buyer(t.api), {
      product_id: p.id,
      rating: 4,
      comment: 'Sturdy. 10/10, e.g. for tools.',
    });
    expect(clean.body.published).toBe(true);
    expect(await listed(t.api.as(s), p.id)).toEqual([clean.body.review_id]);
    expect(await expectExactAggregates(p.id)).toMatchObject({ product: { reviewCount: 1, rating: 4 } });
    const detail = await t.api.as(s).get(`/products/${p.id}`);
    expect(detail.body.reviews).toHaveLength(1);
  });

  it('lets an admin list the held ones, publish one (listed and counted) and reject another (never counted)', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const [b1, b2, b3] = await Promise.all([buyer(t.api), buyer(t.api), buyer(t.api)]);
    const ok = await submit(b1, { product_id: p.id, rating: 5, comment: 'Lovely' });
    t.clock.advance(60);
    const held = await submit(b2, { product_id: p.id, rating: 2, comment: 'More at shop.example.com' });
    t.clock.advance(60);
    const spam = await submit(b3, { product_id: p.id, rating: 1, comment: 'Buy at http://spam.example' });
    expect([ok.body.published, held.body.published, spam.body.published]).toEqual([true, false, false]);
    expect(await expectExactAggregates(p.id)).toMatchObject({
      product: { reviewCount: 1, ratingSum: 5, rating: 5 },
    });

    const queue = await t.api.as(adm).get('/admin/reviews?published=false&limit=100');
    expect(queue.status).toBe(200);
    const inQueue = queue.body.reviews.filter((r: { product_id: string }) => r.product_id === p.id);
    expect(inQueue).toEqual([
      { ...spam.body, author: 'Test buyer', buyer_id: b3.id, status: 'pending', has_link: true },
      { ...held.body, author: 'Test buyer', buyer_id: b2.id, status: 'pending', has_link: true },
    ]);
    expect(queue.body).toMatchObject({ limit: 100, offset: 0, total: expect.any(Number) });

    // Publish: listed and counted, once however often it is asked for at once.
    const published = await Promise.all([
      t.api.as(adm).post(`/admin/reviews/${held.body.review_id}/publish`),
      t.api.as(adm).post(`/admin/reviews/${held.body.review_id}/publish`),
    ]);
    for (const res of published) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...held.body,
        published: true,
        author: 'Test buyer',
        buyer_id: b2.id,
        status: 'published',
        has_link: true,
      });
    }
    expect(await listed(t.api.as(b1), p.id)).toEqual([held.body.review_id, ok.body.review_id]);
    expect(await expectExactAggregates(p.id)).toMatchObject({
      product: { reviewCount: 2, ratingSum: 7, rating: 3.5 },
    });

    // Reject: kept, never listed nor counted; out of the queue; still the buyer's one review.
    const rejected = await t.api.as(adm).post(`/admin/reviews/${spam.body.review_id}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      review_id: spam.body.review_id,
      published: false,
      status: 'rejected',
    });
    expect((await t.api.as(adm).post(`/admin/reviews/${spam.body.review_id}/reject`)).body.status).toBe(
      'rejected',
    );
    expect(await listed(t.api.as(b1), p.id)).toEqual([held.body.review_id, ok.body.review_id]);
    expect(await expectExactAggregates(p.id)).toMatchObject({ product: { reviewCount: 2, ratingSum: 7 } });
    const queueAfter = await t.api.as(adm).get('/admin/reviews?published=false&limit=100');
    expect(queueAfter.body.reviews.map((r: { review_id: string }) => r.review_id)).not.toContain(
      spam.body.review_id,
    );
    const rejectedList = await t.api.as(adm).get('/admin/reviews?status=rejected&limit=100');
    expect(rejectedList.body.reviews.map((r: { review_id: string }) => r.review_id)).toContain(
      spam.body.review_id,
    );
    expectError(await submit(b3, { product_id: p.id, rating: 5, comment: 'Nice' }), 'CONFLICT', 409);

    // A published review taken down stops counting; published again, it counts again.
    const down = await t.api.as(adm).post(`/admin/reviews/${ok.body.review_id}/reject`);
    expect(down.body).toMatchObject({ published: false, status: 'rejected' });
    expect(await expectExactAggregates(p.id)).toMatchObject({
      product: { reviewCount: 1, ratingSum: 2, rating: 2 },
    });
    const up = await t.api.as(adm).post(`/admin/reviews/${ok.body.review_id}/publish`);
    expect(up.body).toMatchObject({ published: true, status: 'published' });
    expect(await expectExactAggregates(p.id)).toMatchObject({ product: { reviewCount: 2, ratingSum: 7 } });
    const publishedList = await t.api.as(adm).get('/admin/reviews?published=true&limit=100');
    expect(publishedList.body.reviews.map((r: { review_id: string }) => r.review_id)).toContain(
      ok.body.review_id,
    );
  });

  it('is for admins only (403), and 404 for an unknown review', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const p = await product(t.api, s);
    const held = await submit(b, { product_id: p.id, rating: 2, comment: 'www.spam.example' });
    for (const who of [b, s]) {
      expectError(await t.api.as(who).get('/admin/reviews?published=false'), 'AUTHZ_ERROR', 403);
      expectError(
        await t.api.as(who).post(`/admin/reviews/${held.body.review_id}/publish`),
        'AUTHZ_ERROR',
        403,
      );
      expectError(
        await t.api.as(who).post(`/admin/reviews/${held.body.review_id}/reject`),
        'AUTHZ_ERROR',
        403,
      );
    }
    expect((await reviewRow(held.body.review_id))?.published).toBe(false);
    for (const id of ['reviews:AAAAAAAAAAAAAAAAAAAA', 'nope']) {
      expectError(
        await t.api.as(adm).post(`/admin/reviews/${id}/publish`),
        'NOT_FOUND',
        404,
        `Review ${id} not found`,
      );
      expectError(await t.api.as(adm).post(`/admin/reviews/${id}/reject`), 'NOT_FOUND', 404);
    }
    expectInvalid(await t.api.as(adm).get('/admin/reviews?published=false&status=published'), [
      { field: 'published', message: 'published and status disagree; send one of them' },
    ]);
    expectInvalid(await t.api.as(adm).get('/admin/reviews?published=maybe'), [
      { field: 'published', message: 'must be true or false' },
    ]);
  });
});

describe('GET /products/:productId/reviews', () => {
  it('pages through published reviews, newest first, with their authors', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const b = await buyer(t.api, `reviewer${i}`);
      const res = await submit(b, { product_id: p.id, rating: i, title: `Review ${i}` });
      ids.push(res.body.review_id);
      t.clock.advance(10);
    }
    await submit(await buyer(t.api), { product_id: p.id, rating: 1, comment: 'http://held.example' });
    const page = await t.api.as(s).get(`/products/${p.id}/reviews?limit=2&offset=1`);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({
      reviews: [expect.any(Object), expect.any(Object)],
      total: 5,
      limit: 2,
      offset: 1,
    });
    expect(page.body.reviews[0]).toEqual({
      review_id: ids[3],
      product_id: p.id,
      rating: 4,
      title: 'Review 4',
      comment: '',
      verified_purchase: false,
      published: true,
      created_at: nowUnix() - 20,
      author: 'Test reviewer4',
    });
    expect(page.body.reviews[1].review_id).toBe(ids[2]);
    const all = await t.api.as(s).get(`/products/${p.id}/reviews`);
    expect(all.body).toMatchObject({ total: 5, limit: 20, offset: 0 });
    expect(all.body.reviews.map((r: { review_id: string }) => r.review_id)).toEqual([...ids].reverse());
    expect((await t.api.as(s).get(`/products/${p.id}/reviews?offset=5`)).body).toEqual({
      reviews: [],
      total: 5,
      limit: 20,
      offset: 5,
    });
    expect(await expectExactAggregates(p.id)).toMatchObject({
      product: { reviewCount: 5, ratingSum: 15, rating: 3 },
    });
  });

  it('answers 404 for an unknown product or one the caller may not see; 400 for bad paging; 401 signed out', async () => {
    const s = await seller(t.api);
    const b = await buyer(t.api);
    const draft = await product(t.api, s, { status: 'draft' });
    for (const id of ['products:AAAAAAAAAAAAAAAAAAAA', 'nope', draft.id]) {
      expectError(
        await t.api.as(b).get(`/products/${id}/reviews`),
        'NOT_FOUND',
        404,
        `Product ${id} not found`,
      );
    }
    expect((await t.api.as(s).get(`/products/${draft.id}/reviews`)).body).toEqual({
      reviews: [],
      total: 0,
      limit: 20,
      offset: 0,
    });
    expectInvalid(await t.api.as(b).get(`/products/${draft.id}/reviews?limit=0`), [
      { field: 'limit', message: 'must be at least 1' },
    ]);
    expectInvalid(await t.api.as(b).get(`/products/${draft.id}/reviews?limit=101`), [
      { field: 'limit', message: 'must be at most 100' },
    ]);
    expectInvalid(await t.api.as(b).get(`/products/${draft.id}/reviews?offset=-1`), [
      { field: 'offset', message: 'must be at least 0' },
    ]);
    expectError(await t.api.get(`/products/${draft.id}/reviews`), 'AUTH_ERROR', 401);
  });
});

describe('rating and reviewCount', () => {
  it('stay exact for the product and its seller under concurrent submissions, publishing and rejecting', async () => {
    const s = await seller(t.api);
    const [pa, pb] = [await product(t.api, s), await product(t.api, s)];
    const reviewers = await Promise.all(Array.from({ length: 12 }, (_, i) => buyer(t.api, `crowd${i}`)));
    const submissions = reviewers.flatMap((b, i) => [
      {
        who: b,
        body: {
          product_id: pa.id,
          rating: (i % 5) + 1,
          comment: i % 4 === 0 ? `see crowd${i}.example.com` : 'ok',
        },
      },
      {
        who: b,
        body: {
          product_id: pb.id,
          rating: ((i * 3) % 5) + 1,
          comment: i % 3 === 0 ? `www.crowd${i}.example` : 'ok',
        },
      },
    ]);
    const answers = await Promise.all(submissions.map((x) => submit(x.who, x.body)));
    expect(answers.map((r) => r.status)).toEqual(submissions.map(() => 201));
    const first = await expectExactAggregates(pa.id);
    await expectExactAggregates(pb.id);
    expect(first.product.reviewCount).toBe(9);
    expect(first.seller.reviewCount).toBe(9 + 8);

    const held = answers.filter((r) => !r.body.published).map((r) => r.body.review_id as string);
    const shown = answers.filter((r) => r.body.published).map((r) => r.body.review_id as string);
    expect(held).toHaveLength(7);
    // Publish some held ones and reject others and some published ones, all at once.
    const moderation = await Promise.all([
      ...held.slice(0, 4).map((id) => t.api.as(adm).post(`/admin/reviews/${id}/publish`)),
      ...held.slice(4).map((id) => t.api.as(adm).post(`/admin/reviews/${id}/reject`)),
      ...shown.slice(0, 3).map((id) => t.api.as(adm).post(`/admin/reviews/${id}/reject`)),
    ]);
    expect(moderation.map((r) => r.status)).toEqual(moderation.map(() => 200));
    const after = await expectExactAggregates(pa.id);
    await expectExactAggregates(pb.id);
    expect(after.seller.reviewCount).toBe(17 + 4 - 3);
  });

  it('keep two decimals exactly (rating_sum / review_count, rounded half up)', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s);
    for (const rating of [5, 4, 4]) await submit(await buyer(t.api), { product_id: p.id, rating });
    expect(await expectExactAggregates(p.id)).toMatchObject({
      product: { reviewCount: 3, ratingSum: 13, rating: 4.33 },
    });
    await submit(await buyer(t.api), { product_id: p.id, rating: 2 });
    await submit(await buyer(t.api), { product_id: p.id, rating: 5 });
    await submit(await buyer(t.api), { product_id: p.id, rating: 4 });
    // 24 / 6 = 4; then 25 / 7 = 3.5714... -> 3.57.
    expect(await expectExactAggregates(p.id)).toMatchObject({ product: { rating: 4 } });
    await submit(await buyer(t.api), { product_id: p.id, rating: 1 });
    expect(await expectExactAggregates(p.id)).toMatchObject({ product: { rating: 3.57 } });
    const detail = await t.api.as(s).get(`/products/${p.id}`);
    expect(detail.body).toMatchObject({ rating: 3.57, reviewCount: 7 });
  });
});

describe('rate limit', () => {
  it('allows a buyer 10 review submissions a minute (group reviews); the 11th is 429', async () => {
    const limited = await testApp(database, { env: { RATE_LIMITS: 'on' } });
    try {
      const b = await buyer(limited.api);
      const body = { product_id: 'products:AAAAAAAAAAAAAAAAAAAA', rating: 3 };
      for (let i = 0; i < 10; i++) expect((await limited.api.as(b).post('/reviews', body)).status).toBe(404);
      const res = await limited.api.as(b).post('/reviews', body);
      expectError(res, 'RATE_LIMIT', 429, /limit 10 a minute/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // Reading reviews is another group.
      expect((await limited.api.as(b).get('/products/nope/reviews')).status).toBe(404);
    } finally {
      await limited.close();
    }
  });
});

describe('containsLink', () => {
  it.each([
    'see http://x.example',
    'HTTPS://EXAMPLE.COM',
    'h t t p s : / / evil',
    'hxxp://defanged',
    'tg://join',
    'www.example',
    'WWW . example',
    'visit example.com today',
    'shop.example.ca/deals',
    'bit.ly/abc',
    'youtu.be/xyz',
    'write me@mail.example.com',
    '[click](evil)',
    '<a href="x">',
    '<img src=x>',
    '192.168.0.1',
    'example[.]com',
    'example(dot)com',
    'example dot com',
    'ｅｘａｍｐｌｅ．ｃｏｍ',
    'exa\u200Bmple.com',
    'example。com',
    'javascript:alert(1)',
    'mailto:x',
    'data:text/html,hi',
    // The pre-launch review's probes that were published before linkify-it and the full list
    // of top-level domains: short and new domains, spaced and odd dots, look-alike letters.
    'evil.me',
    'is.gd',
    't.me/joinchat',
    'go to t.me',
    'evil . com',
    'evil .com',
    'evil‧com',
    'evil·com',
    'evil•com',
    'evil∙com',
    'evil­com.me',
    'evil.сom',
    'еvil.cоm',
    'evil.οrg',
    'evil.shop',
    'evil.xyz',
    'evil.online',
    'deals.store now',
    'evil.co.uk',
    'evil.онлайн',
    'xn--80ak6aa92e.com',
    'buy at evil.ru!',
    'cheap.pharmacy',
    'write to spam@evil.me',
    '10.0.0.1/login',
    'evil.zzz/path',
    'example {dot} com',
    'example dot me',
    'great product.It works',
  ])('flags %j', (text) => {
    expect(containsLink(text)).toBe(true);
  });

  it.each([
    'Great product, works well.',
    'e.g. this, i.e. that',
    'It is 3.5 inches wide',
    'Great product. It works',
    'Great product .',
    'Missing data: none',
    'Size S/M/L, and/or XL',
    'rating < a 5',
    '[sic] (see above)',
    'Mr.Smith said so',
    'version 1.2.3',
    'Loved it!!! 10/10',
    "C'est super. Ça marche",
    'works with www',
    'Спасибо, отличный товар',
    'Το προϊόν είναι καλό',
    'I gave it 4.5 stars. Fine.',
    'No. 5 is my favourite',
  ])('passes %j', (text) => {
    expect(containsLink(text)).toBe(false);
  });

  // Catastrophic backtracking on 5,000 characters would not end within the test's timeout.
  it('ends on hostile text', () => {
    for (const big of [
      'a.'.repeat(2500),
      '['.repeat(5000),
      `${' '.repeat(4997)}dot`,
      '[]('.repeat(1666),
      'a'.repeat(5000),
    ]) {
      expect(containsLink(big)).toBe(false);
    }
  });
});
