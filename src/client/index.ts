// Typed HTTP client of the Portage API, built on the wire contract (src/contract) and
// nothing else, so the tool server and any other program can use it. PortageClient has one method
// per API operation; how a call is made (token refresh, RATE_LIMIT backoff, masking) is http.ts,
// and the agent-commerce protocols' calls are acp.ts and ucp.ts, each a method here too.
import type { z } from 'zod';
import { type AnalyticsQuery, analyticsAnswer } from '../contract/analytics.ts';
import { me } from '../contract/auth.ts';
import {
  addToCartAnswer,
  type addToCartBody,
  applyCouponAnswer,
  cart,
  inventoryAnswer,
  removeFromCartAnswer,
} from '../contract/cart.ts';
import { productDetail, type SORTS, searchAnswer } from '../contract/catalog.ts';
import { checkoutSession, type createCheckoutBody } from '../contract/checkout.ts';
import { cancelOrderAnswer, type ORDER_STATUSES, orderDetail, orderList } from '../contract/orders.ts';
import { type requestReturnBody, returnRequest } from '../contract/returns.ts';
import { review, type submitReviewBody } from '../contract/reviews.ts';
import * as acp from './acp.ts';
import { HttpClient, pathSegment } from './http.ts';
import { checkoutIdempotencyKey, tokenSubject } from './idempotency.ts';
import * as ucp from './ucp.ts';

export type {
  AcpCancelSessionInput,
  AcpCheckoutSession,
  AcpCompleteSessionInput,
  AcpCreateSessionInput,
  AcpRequestMeta,
  AcpUpdateSessionInput,
} from './acp.ts';
export {
  AcpApiError,
  type ErrorBody,
  type ErrorCode,
  type FieldProblem,
  PortageApiError,
  UcpApiError,
} from './errors.ts';
export {
  type Exchange,
  type ExchangeAnswer,
  fetchExchange,
  type HttpMethod,
  type PortageClientOptions,
  type QueryValue,
  type RequestOptions,
} from './http.ts';
export { acpIdempotencyKey, canonicalJson, checkoutIdempotencyKey, tokenSubject } from './idempotency.ts';
export { maskCredentials, maskErrorBody, maskUrl } from './mask.ts';
export type { UcpRequestMeta } from './ucp.ts';

export type Me = z.output<typeof me>;
export type ProductDetail = z.output<typeof productDetail>;
export type SearchAnswer = z.output<typeof searchAnswer>;
export type Inventory = z.output<typeof inventoryAnswer>;
export type Cart = z.output<typeof cart>;
export type AddToCartInput = z.input<typeof addToCartBody>;
export type AddToCartAnswer = z.output<typeof addToCartAnswer>;
export type RemoveFromCartAnswer = z.output<typeof removeFromCartAnswer>;
export type AppliedCoupon = z.output<typeof applyCouponAnswer>;
/** The body of POST /checkout (create_checkout's input) as sent: coupon upper-cased, text trimmed. */
export type CreateCheckoutInput = z.output<typeof createCheckoutBody>;
export type CheckoutSession = z.output<typeof checkoutSession>;
export type OrderList = z.output<typeof orderList>;
export type OrderDetail = z.output<typeof orderDetail>;
export type CancelledOrder = z.output<typeof cancelOrderAnswer>;

export type RequestReturnInput = z.input<typeof requestReturnBody>;
export type ReturnRequest = z.output<typeof returnRequest>;
export type SubmitReviewInput = z.input<typeof submitReviewBody>;
export type Review = z.output<typeof review>;
export type Analytics = z.output<typeof analyticsAnswer>;

export interface ListOrdersParams {
  status?: (typeof ORDER_STATUSES)[number];
  limit?: number;
  offset?: number;
  sort?: 'newest' | 'oldest';
}

export interface SearchParams {
  q: string;
  /** Clauses `field:value` separated by commas (AND); `a|b` is OR, `lo..hi` a range. */
  filters?: string;
  sort?: (typeof SORTS)[number];
  limit?: number;
  offset?: number;
}

export class PortageClient extends HttpClient {
  // ---- typed calls ----------------------------------------------------------------------------

  /** GET /me: the signed-in user. */
  async me(): Promise<Me> {
    return this.request('GET', '/me', { schema: me });
  }

  /** GET /products/:id: product detail. */
  async getProduct(id: string): Promise<ProductDetail> {
    return this.request('GET', `/products/${this.#segment(id)}`, { schema: productDetail });
  }

  /** GET /search/products: full-text search with filters, sort and facets. */
  async searchProducts(params: SearchParams): Promise<SearchAnswer> {
    const { q, filters, sort, limit, offset } = params;
    return this.request('GET', '/search/products', {
      query: { q, filters, sort, limit, offset },
      schema: searchAnswer,
    });
  }

  /** GET /products/:id/inventory?quantity=N&variant=V: whether `quantity` units of the variant can be bought now. */
  async checkInventory(productId: string, quantity?: number, variant?: string): Promise<Inventory> {
    return this.request('GET', `/products/${this.#segment(productId)}/inventory`, {
      query: { quantity, variant },
      schema: inventoryAnswer,
    });
  }

  /** GET /cart. */
  async getCart(): Promise<Cart> {
    return this.request('GET', '/cart', { schema: cart });
  }

  /** POST /cart/items. */
  async addToCart(item: AddToCartInput): Promise<AddToCartAnswer> {
    return this.request('POST', '/cart/items', { body: item, schema: addToCartAnswer });
  }

  /** DELETE /cart/items/:productId?quantity=N&variant=V: `quantity` units, or the whole line when absent. */
  async removeFromCart(
    productId: string,
    quantity?: number,
    variant?: string,
  ): Promise<RemoveFromCartAnswer> {
    return this.request('DELETE', `/cart/items/${this.#segment(productId)}`, {
      query: { quantity, variant },
      schema: removeFromCartAnswer,
    });
  }

  /** PUT /cart/items/:productId: the line's quantity (0 removes it); answers the cart. */
  async setCartQuantity(productId: string, quantity: number): Promise<Cart> {
    return this.request('PUT', `/cart/items/${this.#segment(productId)}`, {
      body: { quantity },
      schema: cart,
    });
  }

  /** POST /cart/coupon. */
  async applyCoupon(code: string): Promise<AppliedCoupon> {
    return this.request('POST', '/cart/coupon', { body: { code }, schema: applyCouponAnswer });
  }

  /** DELETE /cart/coupon: the cart without its coupon. */
  async removeCoupon(): Promise<Cart> {
    return this.request('DELETE', '/cart/coupon', { schema: cart });
  }

  /**
   * POST /checkout (create_checkout): opens a checkout session for the cart, or answers the
   * open one of an unchanged cart. Sent with `idempotencyKey` as the `Idempotency-Key` header;
   * without one, the key is derived from the user, the input and the cart as it is now
   * (checkoutKey): a retry of the same call on the same cart replays the first answer.
   */
  async createCheckout(input: CreateCheckoutInput, idempotencyKey?: string): Promise<CheckoutSession> {
    const key = idempotencyKey ?? (await this.checkoutKey(input));
    return this.request('POST', '/checkout', { body: input, idempotencyKey: key, schema: checkoutSession });
  }

  /**
   * The Idempotency-Key of a POST /checkout with `input` now: reads the cart (GET /cart) and
   * derives the key from the signed-in user, the input and that cart (see idempotency.ts).
   */
  async checkoutKey(input: CreateCheckoutInput): Promise<string> {
    const current = await this.getCart();
    const userId = tokenSubject(this.token) ?? (await this.me()).id;
    return checkoutIdempotencyKey(userId, input, current);
  }

  /** GET /checkout/:sessionId: a checkout session of the user's, with its orders once paid. */
  async getCheckout(sessionId: string): Promise<CheckoutSession> {
    return this.request('GET', `/checkout/${this.#segment(sessionId)}`, { schema: checkoutSession });
  }

  /** GET /orders (list_orders): the user's orders, filtered by status, sorted and paged. */
  async listOrders(params: ListOrdersParams = {}): Promise<OrderList> {
    const { status, limit, offset, sort } = params;
    return this.request('GET', '/orders', { query: { status, limit, offset, sort }, schema: orderList });
  }

  /** GET /orders/:id (get_order): one of the user's orders in detail. */
  async getOrder(orderId: string): Promise<OrderDetail> {
    return this.request('GET', `/orders/${this.#segment(orderId)}`, { schema: orderDetail });
  }

  /** POST /orders/:id/cancel (cancel_order): cancels an order not yet shipped, refunding it in full. */
  async cancelOrder(orderId: string, reason?: string): Promise<CancelledOrder> {
    return this.request('POST', `/orders/${this.#segment(orderId)}/cancel`, {
      body: reason === undefined ? {} : { reason },
      schema: cancelOrderAnswer,
    });
  }

  /** POST /returns (request_return): asks to return a delivered order, or some of its products. */
  async requestReturn(input: RequestReturnInput): Promise<ReturnRequest> {
    return this.request('POST', '/returns', { body: input, schema: returnRequest });
  }

  /** POST /reviews (submit_review): the user's review of a product (verified with their order's id). */
  async submitReview(input: SubmitReviewInput): Promise<Review> {
    return this.request('POST', '/reviews', { body: input, schema: review });
  }

  /** GET /admin/analytics (get_analytics): the platform's figures for a window (admins only). */
  async getAnalytics(query: AnalyticsQuery = {}): Promise<Analytics> {
    const { period, start_date, end_date } = query;
    return this.request('GET', '/admin/analytics', {
      query: { period, start_date, end_date },
      schema: analyticsAnswer,
    });
  }

  // ---- ACP (acp.ts) ---------------------------------------------------------------------------

  /** POST /acp/checkout_sessions: opens a session; a retry never answers an ended one. */
  createAcpSession(
    payload: acp.AcpCreateSessionInput,
    meta: acp.AcpRequestMeta,
  ): Promise<acp.AcpCheckoutSession> {
    return acp.createAcpSession(this, payload, meta);
  }

  /** GET /acp/checkout_sessions/:id. */
  getAcpSession(id: string, meta: acp.AcpRequestMeta): Promise<acp.AcpCheckoutSession> {
    return acp.getAcpSession(this, id, meta);
  }

  /** POST /acp/checkout_sessions/:id: changes the session and prices it again. */
  updateAcpSession(
    id: string,
    payload: acp.AcpUpdateSessionInput,
    meta: acp.AcpRequestMeta,
  ): Promise<acp.AcpCheckoutSession> {
    return acp.updateAcpSession(this, id, payload, meta);
  }

  /** POST /acp/checkout_sessions/:id/complete: pays the session with a delegated token. */
  completeAcpSession(
    id: string,
    payload: acp.AcpCompleteSessionInput,
    meta: acp.AcpRequestMeta,
  ): Promise<acp.AcpCheckoutSession> {
    return acp.completeAcpSession(this, id, payload, meta);
  }

  /** POST /acp/checkout_sessions/:id/cancel. */
  cancelAcpSession(
    id: string,
    payload: acp.AcpCancelSessionInput | undefined,
    meta: acp.AcpRequestMeta,
  ): Promise<acp.AcpCheckoutSession> {
    return acp.cancelAcpSession(this, id, payload, meta);
  }

  // ---- UCP (ucp.ts) ---------------------------------------------------------------------------

  /** POST /ucp/v1/checkout-sessions; a retry never answers an ended checkout. */
  createUcpCheckout(checkout: unknown, meta: ucp.UcpRequestMeta): Promise<Record<string, unknown>> {
    return ucp.createUcpCheckout(this, checkout, meta);
  }

  /** GET /ucp/v1/checkout-sessions/{id}. */
  getUcpCheckout(id: string, meta: ucp.UcpRequestMeta): Promise<Record<string, unknown>> {
    return ucp.getUcpCheckout(this, id, meta);
  }

  /** PUT /ucp/v1/checkout-sessions/{id}: the whole checkout again. */
  updateUcpCheckout(
    id: string,
    checkout: unknown,
    meta: ucp.UcpRequestMeta,
  ): Promise<Record<string, unknown>> {
    return ucp.updateUcpCheckout(this, id, checkout, meta);
  }

  /** POST /ucp/v1/checkout-sessions/{id}/complete. */
  completeUcpCheckout(
    id: string,
    checkout: unknown,
    meta: ucp.UcpRequestMeta,
  ): Promise<Record<string, unknown>> {
    return ucp.completeUcpCheckout(this, id, checkout, meta);
  }

  /** POST /ucp/v1/checkout-sessions/{id}/cancel. */
  cancelUcpCheckout(id: string, meta: ucp.UcpRequestMeta): Promise<Record<string, unknown>> {
    return ucp.cancelUcpCheckout(this, id, meta);
  }

  /** GET /ucp/v1/orders/{id}. */
  getUcpOrder(id: string, meta: ucp.UcpRequestMeta): Promise<Record<string, unknown>> {
    return ucp.getUcpOrder(this, id, meta);
  }

  /** POST /ucp/v1/catalog/search, /catalog/lookup, /catalog/product. */
  ucpCatalog(
    operation: 'search' | 'lookup' | 'product',
    catalog: unknown,
    meta: ucp.UcpRequestMeta,
  ): Promise<Record<string, unknown>> {
    return ucp.ucpCatalog(this, operation, catalog, meta);
  }

  /** One path segment of an id (http.ts pathSegment). */
  #segment(value: string): string {
    return pathSegment(value, this.messageLocale);
  }
}
