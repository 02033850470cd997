// Typed HTTP client of the Portage API, built on the wire contract (src/contract) and
// nothing else, so the tool server and any other program can use it. It follows the
// client rules of docs/api.md "Typed client": renew an expired token once
// through /auth/refresh, retry RATE_LIMIT with backoff, retry nothing else, and say plainly
// when the service cannot be reached. The ACP calls (the checkout sessions under /acp) send ACP's
// headers and throw ACP's own error (AcpApiError) rather than ours.
// Long because it is one method per API operation, for the tool server and any other program.
import type { z } from 'zod';
import {
  type AcpCheckoutSession,
  type acpCancelSessionRequest,
  acpCheckoutSession,
  type acpCompleteSessionRequest,
  type acpCreateSessionRequest,
  type acpUpdateSessionRequest,
} from '../contract/acp.ts';
import { type AnalyticsQuery, analyticsAnswer } from '../contract/analytics.ts';
import { me, refreshAnswer } from '../contract/auth.ts';
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
import { BASE_LOCALE, type Locale, negotiateLocale, t } from '../contract/i18n.ts';
import { cancelOrderAnswer, type ORDER_STATUSES, orderDetail, orderList } from '../contract/orders.ts';
import { type requestReturnBody, returnRequest } from '../contract/returns.ts';
import { review, type submitReviewBody } from '../contract/reviews.ts';
import {
  AcpApiError,
  acpErrorFromAnswer,
  acpErrorOf,
  errorFromAnswer,
  networkError,
  PortageApiError,
  UcpApiError,
  ucpErrorFromAnswer,
  ucpErrorOf,
} from './errors.ts';
import { acpIdempotencyKey, checkoutIdempotencyKey, tokenSubject } from './idempotency.ts';
import { KnownSecrets, maskUrl, urlCredentials } from './mask.ts';

export {
  AcpApiError,
  type ErrorBody,
  type ErrorCode,
  type FieldProblem,
  PortageApiError,
  UcpApiError,
} from './errors.ts';
export { acpIdempotencyKey, canonicalJson, checkoutIdempotencyKey, tokenSubject } from './idempotency.ts';
export { maskCredentials, maskErrorBody, maskUrl } from './mask.ts';

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

export type { AcpCheckoutSession };
export type AcpCreateSessionInput = z.input<typeof acpCreateSessionRequest>;
export type AcpUpdateSessionInput = z.input<typeof acpUpdateSessionRequest>;
export type AcpCompleteSessionInput = z.input<typeof acpCompleteSessionRequest>;
export type AcpCancelSessionInput = z.input<typeof acpCancelSessionRequest>;

/**
 * ACP's request headers of one call, named as the MCP binding's `meta` names them. Without
 * `idempotency_key`, a POST gets a key derived from the call (acpIdempotencyKey).
 */
export interface AcpRequestMeta {
  api_version: string;
  idempotency_key?: string;
  request_id?: string;
  user_agent?: string;
  accept_language?: string;
  signature?: string;
  timestamp?: string;
}

/** The header each `meta` field is sent as (Idempotency-Key aside: it is the key option). */
const ACP_HEADERS = {
  api_version: 'api-version',
  request_id: 'request-id',
  user_agent: 'user-agent',
  accept_language: 'accept-language',
  signature: 'signature',
  timestamp: 'timestamp',
} as const satisfies Partial<Record<keyof AcpRequestMeta, string>>;

/** The UCP MCP binding's `meta`: the platform's profile, and an Idempotency-Key for a write. */
export interface UcpRequestMeta {
  'ucp-agent': { profile: string };
  'idempotency-key'?: string;
}

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

export interface PortageClientOptions {
  /** The deployment's address (SERVICE_URL), e.g. `https://api.example.ca`; a path prefix is kept. */
  baseUrl: string;
  /** The user's JWT (SERVICE_JWT_TOKEN). */
  token: string;
  /** Retries of a RATE_LIMIT answer before it is thrown. Default 3. */
  maxRetries?: number;
  /** Longest single wait before retrying a RATE_LIMIT answer, in ms. Default 30 000. */
  maxBackoffMs?: number;
  /**
   * Called with the new token after an automatic refresh, e.g. to keep it for the next run.
   * An exception thrown here reaches the calls that waited for that refresh.
   */
  onTokenRefreshed?: (token: string) => void;
  /** The fetch to use; the global one by default. */
  fetch?: typeof fetch;
  /**
   * How an HTTP exchange is made, in place of fetch: for a service in the same process (the
   * tool server of /mcp), which answers without building a web Request and Response.
   */
  exchange?: Exchange;
  /**
   * Whether a 401 is answered by renewing the token through /auth/refresh (default true).
   * False for an agent's token, which only the authorization server renews (/oauth/token).
   */
  refresh?: boolean;
  /**
   * The language of the person the calls are made for, sent as Accept-Language (the service
   * answers in the user's saved language first, this one second). Without it, the client's own
   * messages follow the language the service last answered in (Content-Language).
   */
  locale?: Locale;
}

/** An HTTP request as the client makes it, and the answer as it reads it. */
export type Exchange = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
) => Promise<ExchangeAnswer>;

export interface ExchangeAnswer {
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  text: string;
}

/** An exchange made with fetch (the client's default, with the global fetch). */
export const fetchExchange =
  (f: typeof fetch): Exchange =>
  async (url, init) => {
    const res = await f(url, init);
    return { status: res.status, statusText: res.statusText, headers: res.headers, text: await res.text() };
  };

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions<S extends z.ZodType | undefined = undefined> {
  /** Query parameters; undefined and null values are left out. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as the `Idempotency-Key` header (the same key on every retry of this call). */
  idempotencyKey?: string;
  /** More headers for this call (a protocol's own, e.g. ACP's API-Version); ours win a clash. */
  headers?: Record<string, string>;
  /**
   * 'acp': the route answers ACP's flat error, thrown as AcpApiError; every other failure (no
   * answer, a broken contract) is thrown as one too, made from our error.
   */
  errors?: 'acp' | 'ucp';
  /** Validates (and types) a success answer. */
  schema?: S;
  /** Told when the answer is one stored under the Idempotency-Key (`Idempotent-Replayed: true`). */
  replayed?: () => void;
}

/** A create with a derived key opens a new session over at most this many ended ones of its own. */
const MAX_GENERATIONS = 10;

/**
 * A protocol's create under a key derived from the call (createAcpSession, createUcpCheckout): a
 * replayed answer is read again as the session is now, and a session that has ended is not handed
 * back: the call is made again under a key naming the ended one, which opens a new session (and
 * whose own retry answers that one), as `create_checkout` never hands back a dead checkout.
 */
async function freshCreate<T>(o: {
  create: (after: string | undefined, replayed: () => void) => Promise<T>;
  idOf: (answer: T) => string | undefined;
  now: (id: string) => Promise<T>;
  ended: (answer: T) => boolean;
}): Promise<T> {
  let after: string | undefined;
  for (let generation = 0; ; generation++) {
    let replayed = false;
    const answer = await o.create(after, () => {
      replayed = true;
    });
    const id = o.idOf(answer);
    if (!replayed || id === undefined) return answer;
    const now = await o.now(id);
    if (!o.ended(now) || generation >= MAX_GENERATIONS) return now;
    after = id;
  }
}

/** Exponential backoff without Retry-After: 250 ms, 500 ms, 1 s, ... */
const BACKOFF_BASE_MS = 250;

/**
 * What a token can hold: a JWT is base64url and dots. Anything else (a line break pasted
 * along, a space) cannot go in a header, and fetch's refusal would quote the header, token
 * and all.
 */
const TOKEN_CHARACTERS = /^[\x21-\x7e]*$/;

/** Paths whose 401 means bad credentials, not an expired token: never answered by a refresh. */
const NO_REFRESH = /^\/auth\/(login|register|refresh)(\/|\?|$)/;

interface RawAnswer extends ExchangeAnswer {
  json: unknown;
}

export class PortageClient {
  readonly baseUrl: string;
  readonly maxRetries: number;
  readonly maxBackoffMs: number;
  #token: string;
  readonly #onTokenRefreshed: ((token: string) => void) | undefined;
  readonly #exchange: Exchange;
  readonly #refreshes: boolean;
  /** The refresh under way, shared by every call that got a 401 meanwhile. */
  #refreshing: Promise<boolean> | undefined;
  /** A token the service refused to refresh: later 401s with it are thrown at once. */
  #unrefreshable: string | undefined;
  /** Its latest tokens and the address's userinfo: masked in every error. */
  readonly #secrets: KnownSecrets;
  /** Why no call can be made with this address (it carries a user name or password). */
  readonly #addressRefusal: PortageApiError | undefined;
  /** The language asked for (Accept-Language), when configured. */
  readonly locale: Locale | undefined;
  /** The language the service's last answer was written in (its Content-Language). */
  #answeredLocale: Locale | undefined;

  constructor(options: PortageClientOptions) {
    if (!URL.canParse(options.baseUrl)) {
      throw new TypeError(
        `baseUrl must be an absolute URL such as https://api.example.ca, not ${maskUrl(options.baseUrl)}`,
      );
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.locale = options.locale;
    this.#secrets = new KnownSecrets(urlCredentials(this.baseUrl));
    if (this.#secrets.hasAddressSecrets) {
      this.#addressRefusal = new PortageApiError({
        error: t(this.messageLocale, 'tool.client.addressCredentials', { url: maskUrl(this.baseUrl) }),
        code: 'VALIDATION_ERROR',
        statusCode: 400,
      });
    }
    this.#token = options.token;
    this.#secrets.addToken(options.token);
    this.maxRetries = Math.max(0, options.maxRetries ?? 3);
    this.maxBackoffMs = Math.max(0, options.maxBackoffMs ?? 30_000);
    this.#onTokenRefreshed = options.onTokenRefreshed;
    this.#exchange =
      options.exchange ?? fetchExchange(options.fetch ?? ((input, init) => globalThis.fetch(input, init)));
    this.#refreshes = options.refresh ?? true;
  }

  /** The token in use now (a refreshed one after an automatic refresh). */
  get token(): string {
    return this.#token;
  }

  /** The language the service's last answer was written in (Content-Language), once it answered. */
  get answeredLocale(): Locale | undefined {
    return this.#answeredLocale;
  }

  /**
   * The language to write to the person in: the one asked for, else the one the service last
   * answered in (the user's saved choice, or the service's default), else the base locale.
   */
  get messageLocale(): Locale {
    return this.locale ?? this.#answeredLocale ?? BASE_LOCALE;
  }

  /**
   * `text` without the credentials this client knows (its tokens, the address's userinfo) nor
   * anything shaped like one: for every message made from the address, a header or an error.
   */
  maskCredentials(text: string): string {
    return this.#secrets.mask(text);
  }

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

  /** GET /products/:id/inventory?quantity=N: whether `quantity` units can be bought now. */
  async checkInventory(productId: string, quantity?: number): Promise<Inventory> {
    return this.request('GET', `/products/${this.#segment(productId)}/inventory`, {
      query: { quantity },
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

  /** DELETE /cart/items/:productId?quantity=N: `quantity` units, or the whole line when absent. */
  async removeFromCart(productId: string, quantity?: number): Promise<RemoveFromCartAnswer> {
    return this.request('DELETE', `/cart/items/${this.#segment(productId)}`, {
      query: { quantity },
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
    const userId = tokenSubject(this.#token) ?? (await this.me()).id;
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

  // ---- ACP: the checkout sessions under /acp (docs/acp.md), as a buyer's agent ------------------
  // Each answers the session, checked against the ACP contract, and throws AcpApiError with ACP's
  // error as the route sent it.

  /**
   * POST /acp/checkout_sessions: opens a session (201), priced and held when it can be. With a
   * derived key, a retry answers the session the first call opened as it is now; one that has
   * ended (canceled, expired, paid) is not handed back: the call opens a new one, under a key that
   * names the ended one (so its own retry answers that new one).
   */
  async createAcpSession(payload: AcpCreateSessionInput, meta: AcpRequestMeta): Promise<AcpCheckoutSession> {
    if (meta.idempotency_key !== undefined) {
      return this.#acp('POST', undefined, '', meta, { operation: 'create', body: payload });
    }
    const { idempotency_key: _, ...read } = meta;
    return freshCreate({
      create: (after, replayed) =>
        this.#acp('POST', undefined, '', meta, {
          operation: 'create',
          body: payload,
          ...(after === undefined ? {} : { key: { after } }),
          replayed,
        }),
      idOf: (session) => session.id,
      now: (id) => this.getAcpSession(id, read),
      ended: (session) => ['canceled', 'expired', 'completed'].includes(session.status),
    });
  }

  /** GET /acp/checkout_sessions/:id. */
  async getAcpSession(id: string, meta: AcpRequestMeta): Promise<AcpCheckoutSession> {
    return this.#acp('GET', id, '', meta);
  }

  /** POST /acp/checkout_sessions/:id: changes the session and prices it again. */
  async updateAcpSession(
    id: string,
    payload: AcpUpdateSessionInput,
    meta: AcpRequestMeta,
  ): Promise<AcpCheckoutSession> {
    // A derived key covers the whole session as it is: any update applied since is a new call.
    return this.#acp('POST', id, '', meta, { operation: 'update', body: payload, state: (s) => s });
  }

  /** POST /acp/checkout_sessions/:id/complete: pays the session with a delegated token. */
  async completeAcpSession(
    id: string,
    payload: AcpCompleteSessionInput,
    meta: AcpRequestMeta,
  ): Promise<AcpCheckoutSession> {
    // A derived key covers what is paid for, not the session's progress through paying: a retry
    // while the first call pays (complete_in_progress) or after it (completed) keeps the key.
    return this.#acp('POST', id, '/complete', meta, {
      operation: 'complete',
      body: payload,
      state: ({ status: _s, updated_at: _u, order: _o, ...paidFor }) => paidFor,
    });
  }

  /** POST /acp/checkout_sessions/:id/cancel: cancels the session, its stock back at once. */
  async cancelAcpSession(
    id: string,
    payload: AcpCancelSessionInput | undefined,
    meta: AcpRequestMeta,
  ): Promise<AcpCheckoutSession> {
    return this.#acp('POST', id, '/cancel', meta, { operation: 'cancel', body: payload ?? {} });
  }

  /**
   * One ACP call: `meta` as headers; a POST without meta.idempotency_key gets a key derived from
   * the operation, the session id, the body and, when `state` is given, what it takes of the
   * session read just before (acpIdempotencyKey).
   */
  async #acp(
    method: 'GET' | 'POST',
    id: string | undefined,
    suffix: string,
    meta: AcpRequestMeta,
    post?: {
      operation: string;
      body: unknown;
      state?: (session: AcpCheckoutSession) => unknown;
      /** What else a derived key covers (a create's: the ended session it replaces). */
      key?: unknown;
      replayed?: () => void;
    },
  ): Promise<AcpCheckoutSession> {
    let path: string;
    try {
      path = `/acp/checkout_sessions${id === undefined ? '' : `/${this.#segment(id)}`}${suffix}`;
    } catch (err) {
      throw err instanceof PortageApiError ? acpErrorOf(err) : err;
    }
    const headers: Record<string, string> = {};
    for (const [field, header] of Object.entries(ACP_HEADERS)) {
      const value = meta[field as keyof typeof ACP_HEADERS];
      if (value !== undefined) headers[header] = value;
    }
    let idempotencyKey: string | undefined;
    if (post) {
      const { idempotency_key: given, ...read } = meta;
      idempotencyKey =
        given ??
        acpIdempotencyKey(
          post.operation,
          id ?? '',
          post.body,
          post.state && id !== undefined ? post.state(await this.getAcpSession(id, read)) : post.key,
        );
    }
    return this.request(method, path, {
      headers,
      body: post?.body,
      idempotencyKey,
      schema: acpCheckoutSession,
      errors: 'acp',
      ...(post?.replayed ? { replayed: post.replayed } : {}),
    });
  }

  // ---- UCP: the checkout sessions and orders under /ucp/v1 (docs/ucp.md), as a platform ---------
  // `meta` is the MCP binding's: the platform's profile (sent as UCP-Agent) and, for a write, an
  // Idempotency-Key (derived from the call when none is given). Each answers the UCP payload: the
  // checkout or order, or the business outcome without one (`ucp.status: "error"`); a protocol
  // error is thrown as UcpApiError.

  /**
   * POST /ucp/v1/checkout-sessions. With a derived key, as createAcpSession: a retry answers the
   * checkout the first call opened as it is now, unless it has ended (canceled, completed): then
   * the call opens a new one.
   */
  async createUcpCheckout(checkout: unknown, meta: UcpRequestMeta): Promise<Record<string, unknown>> {
    if (meta['idempotency-key'] !== undefined) {
      return this.#ucp('POST', '/checkout-sessions', meta, { operation: 'create', body: checkout });
    }
    return freshCreate({
      create: (after, replayed) =>
        this.#ucp('POST', '/checkout-sessions', meta, {
          operation: 'create',
          body: checkout,
          ...(after === undefined ? {} : { key: { after } }),
          replayed,
        }),
      idOf: (answer) => (typeof answer.id === 'string' ? answer.id : undefined),
      now: (id) => this.getUcpCheckout(id, meta),
      ended: (answer) => ['canceled', 'completed'].includes(String(answer.status)),
    });
  }

  /** GET /ucp/v1/checkout-sessions/{id}. */
  getUcpCheckout(id: string, meta: UcpRequestMeta): Promise<Record<string, unknown>> {
    return this.#ucp('GET', `/checkout-sessions/${this.#segment(id)}`, meta);
  }

  /** PUT /ucp/v1/checkout-sessions/{id}: the whole checkout again. */
  updateUcpCheckout(id: string, checkout: unknown, meta: UcpRequestMeta): Promise<Record<string, unknown>> {
    // A derived key covers the checkout as it is: the same body after another change is a new call.
    return this.#ucp('PUT', `/checkout-sessions/${this.#segment(id)}`, meta, {
      operation: `update ${id}`,
      body: checkout,
      state: { id, of: (c) => c },
    });
  }

  /** POST /ucp/v1/checkout-sessions/{id}/complete. */
  completeUcpCheckout(id: string, checkout: unknown, meta: UcpRequestMeta): Promise<Record<string, unknown>> {
    // A derived key covers what is paid for and whether it is still to pay: a retry while it pays
    // (complete_in_progress) keeps the key; a checkout changed, or paid on the person's page
    // since, is a new call (its refusal or escalation is not replayed).
    return this.#ucp('POST', `/checkout-sessions/${this.#segment(id)}/complete`, meta, {
      operation: `complete ${id}`,
      body: checkout,
      state: {
        id,
        of: ({ status, order: _o, messages: _m, continue_url: _c, expires_at: _e, ...paidFor }) => ({
          ...paidFor,
          paying: status === 'complete_in_progress' ? 'ready_for_complete' : status,
        }),
      },
    });
  }

  /** POST /ucp/v1/checkout-sessions/{id}/cancel. */
  cancelUcpCheckout(id: string, meta: UcpRequestMeta): Promise<Record<string, unknown>> {
    return this.#ucp('POST', `/checkout-sessions/${this.#segment(id)}/cancel`, meta, {
      operation: `cancel ${id}`,
      body: {},
    });
  }

  /** GET /ucp/v1/orders/{id}. */
  getUcpOrder(id: string, meta: UcpRequestMeta): Promise<Record<string, unknown>> {
    return this.#ucp('GET', `/orders/${this.#segment(id)}`, meta);
  }

  /** POST /ucp/v1/catalog/search, /catalog/lookup, /catalog/product: reads (no Idempotency-Key). */
  ucpCatalog(
    operation: 'search' | 'lookup' | 'product',
    catalog: unknown,
    meta: UcpRequestMeta,
  ): Promise<Record<string, unknown>> {
    return this.#ucp('POST', `/catalog/${operation}`, meta, { body: catalog });
  }

  async #ucp(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    meta: UcpRequestMeta,
    write?: {
      operation?: string;
      body: unknown;
      /** What of the checkout, read just before, the derived key covers too. */
      state?: { id: string; of: (checkout: Record<string, unknown>) => unknown };
      /** What else a derived key covers (a create's: the ended checkout it replaces). */
      key?: unknown;
      replayed?: () => void;
    },
  ): Promise<Record<string, unknown>> {
    const profile = meta['ucp-agent'].profile.replace(/["\\]/g, '');
    let idempotencyKey = write?.operation ? meta['idempotency-key'] : undefined;
    if (write?.operation && idempotencyKey === undefined) {
      const { 'idempotency-key': _, ...read } = meta;
      const state = write.state ? write.state.of(await this.getUcpCheckout(write.state.id, read)) : write.key;
      idempotencyKey = acpIdempotencyKey(`ucp ${write.operation}`, profile, write.body, state);
    }
    return (await this.request(method, `/ucp/v1${path}`, {
      headers: { 'ucp-agent': `profile="${profile}"` },
      body: write?.body,
      idempotencyKey,
      errors: 'ucp',
      ...(write?.replayed ? { replayed: write.replayed } : {}),
    })) as Record<string, unknown>;
  }

  // ---- any call -------------------------------------------------------------------------------

  /**
   * One call of the API. `path` is relative to the base URL and starts with `/`; encode
   * path segments with encodeURIComponent. Answers the parsed JSON (validated by `schema`
   * when given); throws PortageApiError for any non-2xx answer, a network failure, or an
   * answer that breaks the schema (AcpApiError instead with `errors: 'acp'`).
   */
  request<S extends z.ZodType>(
    method: HttpMethod,
    path: string,
    options: RequestOptions<S> & { schema: S },
  ): Promise<z.output<S>>;
  request(method: HttpMethod, path: string, options?: RequestOptions): Promise<unknown>;
  async request(method: HttpMethod, path: string, options: RequestOptions<z.ZodType | undefined> = {}) {
    try {
      return await this.#request(method, path, options);
    } catch (err) {
      // The one place errors leave the client: none carries a credential (mask.ts).
      const mask = (text: string) => this.maskCredentials(text);
      if (err instanceof PortageApiError) {
        const masked = err.masked(mask);
        throw options.errors === 'acp'
          ? acpErrorOf(masked)
          : options.errors === 'ucp'
            ? ucpErrorOf(masked)
            : masked;
      }
      if (err instanceof AcpApiError || err instanceof UcpApiError) throw err.masked(mask);
      throw err;
    }
  }

  // ---- internals ------------------------------------------------------------------------------

  /**
   * One path segment: ids contain `:` and may contain anything a caller typed. An empty, `.`
   * or `..` segment would name another path (URLs resolve dot segments even when encoded).
   */
  #segment(value: string): string {
    if (value === '' || value === '.' || value === '..') {
      throw new PortageApiError({
        error: t(this.messageLocale, 'tool.client.notAnId', { value }),
        code: 'VALIDATION_ERROR',
        statusCode: 400,
      });
    }
    return encodeURIComponent(value);
  }

  async #request(method: HttpMethod, path: string, options: RequestOptions<z.ZodType | undefined>) {
    if (!path.startsWith('/'))
      throw new TypeError(`path must start with /, not ${this.maskCredentials(path)}`);
    if (this.#addressRefusal) throw this.#addressRefusal;
    const url = this.baseUrl + path + queryString(options.query);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      // fetch's own refusal would quote the value; a header holds one line of text.
      if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(value)) {
        throw new TypeError(`The ${name.slice(0, 100)} header's value must be one line of text`);
      }
      headers[name.toLowerCase()] = value;
    }
    headers.accept = 'application/json';
    // A call's own language (ACP's meta.accept_language) wins over the client's.
    if (this.locale && headers['accept-language'] === undefined) headers['accept-language'] = this.locale;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);

    let refreshed = false;
    let retries = 0;
    for (;;) {
      const sentToken = this.#token;
      if (!TOKEN_CHARACTERS.test(sentToken)) {
        throw new PortageApiError({
          error: t(this.messageLocale, 'tool.client.tokenCharacters'),
          code: 'AUTH_ERROR',
          statusCode: 401,
        });
      }
      const answer = await this.#send(method, url, { ...headers, ...authorization(sentToken) }, body);
      if (answer.status >= 200 && answer.status < 300) {
        if (answer.headers.get('idempotent-replayed') === 'true') options.replayed?.();
        return this.#parse(method, path, answer, options.schema);
      }

      // Masked before errorFromAnswer cuts it short: a cut token would no longer be recognised.
      const text = this.maskCredentials(answer.text);
      const ours = errorFromAnswer(answer.status, answer.statusText, answer.json, text, this.messageLocale);
      const err =
        options.errors === 'acp'
          ? acpErrorFromAnswer(answer.status, answer.json, ours)
          : options.errors === 'ucp'
            ? ucpErrorFromAnswer(answer.status, answer.json, ours)
            : ours;
      // Spec 7: an expired token is renewed once; AUTH_ERROR itself is never retried.
      if (answer.status === 401 && this.#refreshes && !refreshed && sentToken && !NO_REFRESH.test(path)) {
        refreshed = true;
        if (await this.#renew(sentToken)) continue;
        throw err;
      }
      if (answer.status === 429 && retries < this.maxRetries) {
        await sleep(this.#rateLimitWait(answer.headers, retries));
        retries++;
        continue;
      }
      throw err;
    }
  }

  async #send(
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<RawAnswer> {
    let res: ExchangeAnswer | undefined;
    // A keep-alive connection the server closed just as it was reused fails with a reset before
    // the request is read: a GET, or a request with an Idempotency-Key, is sent once more.
    const safe = method === 'GET' || Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');
    for (let attempt = 0; !res; attempt++) {
      try {
        res = await this.#exchange(url, { method, headers, body });
      } catch (err) {
        res = undefined;
        if (safe && attempt === 0 && connectionReset(err)) continue;
        throw networkError(this.baseUrl, err, this.messageLocale);
      }
    }
    // The language the service wrote in: what the client's own messages follow when none was asked for.
    const answered = negotiateLocale(res.headers.get('content-language'));
    if (answered) this.#answeredLocale = answered;
    const text = res.text;
    let json: unknown;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {}
    }
    return { status: res.status, statusText: res.statusText, headers: res.headers, text, json };
  }

  #parse(method: string, path: string, answer: RawAnswer, schema: z.ZodType | undefined): unknown {
    const value = answer.json !== undefined ? answer.json : answer.text || undefined;
    if (!schema) return value;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const details = parsed.error.issues.map((i) => ({
      field: i.path.map(String).join('.') || '(body)',
      message: i.message,
    }));
    throw new PortageApiError({
      // zod's words for each mismatch (English): they are for whoever upgrades the client.
      error: t(this.messageLocale, 'tool.client.contractMismatch', {
        method,
        path,
        list: details.map((d) => `${d.field}: ${d.message}`).join('; '),
      }),
      code: 'INTERNAL_ERROR',
      statusCode: 502,
      details,
    });
  }

  /**
   * After a 401 to a call sent with `sentToken`: true when a usable newer token is in place
   * (renewed by this call, by a concurrent one, or earlier), false when the refresh failed.
   */
  async #renew(sentToken: string): Promise<boolean> {
    if (this.#token !== sentToken) return true;
    if (this.#unrefreshable === sentToken) return false;
    this.#refreshing ??= this.#refresh(sentToken).finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #refresh(token: string): Promise<boolean> {
    let answer: RawAnswer;
    try {
      answer = await this.#send('POST', `${this.baseUrl}/auth/refresh`, {
        accept: 'application/json',
        ...authorization(token),
      });
    } catch {
      return false;
    }
    if (answer.status === 401) {
      // Refused for good (too old, revoked, forged): asking again cannot help.
      this.#unrefreshable = token;
      return false;
    }
    const parsed = refreshAnswer.safeParse(answer.json);
    if (answer.status !== 200 || !parsed.success) return false;
    this.#token = parsed.data.token;
    this.#secrets.addToken(parsed.data.token);
    this.#onTokenRefreshed?.(parsed.data.token);
    return true;
  }

  /** Retry-After (seconds or an HTTP date), else 250 ms * 2^attempt; at most maxBackoffMs. */
  #rateLimitWait(headers: ExchangeAnswer['headers'], attempt: number): number {
    const header = headers.get('retry-after')?.trim();
    let ms: number | undefined;
    if (header) {
      if (/^\d+(\.\d+)?$/.test(header)) ms = Number(header) * 1000;
      else if (!Number.isNaN(Date.parse(header))) ms = Date.parse(header) - Date.now();
    }
    ms ??= BACKOFF_BASE_MS * 2 ** attempt;
    return Math.min(Math.max(ms, 0), this.maxBackoffMs);
  }
}

const authorization = (token: string): Record<string, string> =>
  token ? { authorization: `Bearer ${token}` } : {};

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.append(key, String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Whether a fetch failed because the server reset a (reused) connection. */
function connectionReset(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } })?.cause;
  return cause?.code === 'ECONNRESET' || cause?.code === 'UND_ERR_SOCKET';
}
