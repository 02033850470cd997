// Checkout: the cart priced by the one quote for the buyer's address, its stock reserved for 30
// minutes, and a session opened at the payment provider. It creates no order: only the
// provider's confirmation of the payment does (docs/api.md "Checkout";
// docs/decisions.md "Checkout and holds"). The provider is called after the reservation commits, never
// inside a transaction; if it fails the reservation is released.
// Its length is one session's life (open, pay, expire, read); the next split is the protocols' adapters.
import { createHash } from 'node:crypto';
import { and, eq, getTableColumns, inArray, lte, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { type checkoutSession, type createCheckoutBody, PAYMENT_METHODS } from '../../contract/checkout.ts';
import { isoSecond, isRecordId, newId, type Province, toUnix } from '../../contract/common.ts';
import { AppError, conflict, notFound } from '../../contract/errors.ts';
import { BASE_LOCALE, type Locale, t } from '../../contract/i18n.ts';
import { insertInto, pipeline, query, statement } from '../../db/sql.ts';
import { type MailNames, shopNames } from '../auth/sellers.ts';
import { isEmailVerified } from '../auth/users.ts';
import { lockedCartForCheckout, quoteLines } from '../cart/service.ts';
import type { SaleProductRow } from '../catalog/service.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { couponProblem, couponUses, lockedCoupon, noSuchCoupon } from '../coupons/service.ts';
import { lockProducts, releaseCheckout, reserve } from '../inventory/service.ts';
import { type PaymentProvider, ProviderError } from '../payments/provider.ts';
import { quote, quoteRefusal } from '../pricing/index.ts';
import { checkoutMachine } from './states.ts';
import { checkoutSessions, type StoredAddress, type StoredParcel } from './tables.ts';

/** How long a checkout holds its stock (docs/api.md "Stock holds"). */
const CHECKOUT_TTL_SECONDS = 30 * 60;
/** After a hold lapses unpaid, how long its buyer waits before holding that product again. */
const HOLD_COOLDOWN_SECONDS = 15 * 60;
/** The most units of one product an account whose email is not verified may hold. */
export const UNVERIFIED_MAX_UNITS = 5;
/** How long a session may wait for its provider session before a new checkout may supersede it. */
const OPENING_GRACE_SECONDS = 120;

export interface CheckoutDeps {
  provider: PaymentProvider;
  publicBaseUrl: string;
}

/** Why a checkout could not hold: the 409 (or 400, 404) POST /checkout answers, and what a protocol adapter tells its agent. */
export type RefusalReason =
  | 'empty'
  | 'unavailable'
  | 'unverified_limit'
  | 'cooling_down'
  | 'no_such_coupon'
  | 'coupon'
  | 'unshippable'
  | 'out_of_stock'
  | 'opening';

/** A checkout refused: an AppError as before, with the reason and the products it names. */
export class CheckoutRefusal extends AppError {
  constructor(
    readonly reason: RefusalReason,
    error: AppError,
    readonly productIds: string[] = [],
  ) {
    super(error.code, error.statusCode, error.text, error.problems);
  }
}

/**
 * A message built of a list (several products' problems) is put into words in the request's
 * locale when it is made; a single quoted message stays a Text, said with the one around it.
 */
const localeOf = (ctx: RequestContext): Locale => ctx.locale ?? BASE_LOCALE;

export interface Recipient {
  name: string;
  line2?: string;
}

/** What a checkout holds: the buyer's cart, or lines an adapter's session names (ACP). */
export interface HoldRequest {
  shipping_address: z.infer<typeof createCheckoutBody>['shipping_address'];
  coupon?: string;
  /** Who receives the parcels and a unit line: the pages' form only (the API's address has neither). */
  recipient?: Recipient;
  /**
   * A protocol adapter's session (ACP): its lines are given (the cart is not read, nor cleared
   * when paid), its coupon only the one named, no provider page is opened (the adapter charges
   * a delegated token), and the hold ends by `notAfter`.
   */
  adapter?: {
    sessionId: string;
    lines: Array<{ productId: string; quantity: number }>;
    notAfter: Date;
    /** Whom the hold counts against (a platform's id: liveHoldsOf), if anyone. */
    owner?: string;
  };
}

type SessionRow = typeof checkoutSessions.$inferSelect;
type Session = z.infer<typeof checkoutSession>;

function answer(
  row: SessionRow,
  publishableKey: string,
  paid: Array<{ id: string; number: string }>,
): Session {
  return {
    sessionId: row.id,
    sessionUrl: row.sessionUrl ?? '',
    clientSecret: row.clientSecret ?? '',
    publishableKey,
    subtotalCents: row.subtotalCents,
    taxAmountCents: row.taxAmountCents,
    shippingCostCents: row.shippingCostCents,
    discountCents: row.discountCents,
    totalCents: row.totalCents,
    status: row.status,
    paymentMethods: [...PAYMENT_METHODS],
    expiresAt: toUnix(row.expiresAt),
    taxLines: row.taxLines,
    coupon: row.couponCode,
    parcels: row.parcels.map((p) => ({
      sellerId: p.sellerId,
      subtotalCents: p.subtotalCents,
      discountCents: p.discountCents,
      shippingCostCents: p.shippingCostCents,
      taxAmountCents: p.taxAmountCents,
      taxLines: p.taxLines,
      totalCents: p.totalCents,
      items: p.items.map((i) => ({
        productId: i.productId,
        name: i.name,
        quantity: i.quantity,
        unitPriceCents: i.unitPriceCents,
      })),
    })),
    orderIds: paid.map((o) => o.id),
    orderNumbers: paid.map((o) => o.number),
  };
}

const insertSession = insertInto('checkout_sessions_insert', checkoutSessions);

/**
 * POST /checkout (create_checkout). Answers the session and whether it is new: an unchanged
 * cart (same lines, prices, coupon and address) with an open session gets that session back.
 */
export async function createCheckout(
  ctx: RequestContext,
  deps: CheckoutDeps & { publishableKey: string },
  input: z.infer<typeof createCheckoutBody> & { recipient?: Recipient },
): Promise<{ session: Session; created: boolean }> {
  const { row, created } = await holdCheckout(ctx, deps, input);
  return { session: answer(row, deps.publishableKey, []), created };
}

/**
 * Prices and holds a checkout for the caller (the buyer): POST /checkout's work, and a protocol
 * adapter's. Answers the session row and whether it is new; refusals are CheckoutRefusal.
 */
export async function holdCheckout(
  ctx: RequestContext,
  deps: CheckoutDeps,
  input: HoldRequest,
): Promise<{ row: SessionRow; created: boolean; superseded: string[] }> {
  const me = caller(ctx);
  const adapter = input.adapter;
  const prepared = await inTransaction(ctx, async (tx) => {
    const now = tx.now();
    // One round trip: the cart's lock, then the buyer's open checkouts locked, then reads.
    const adapterSessionId = adapter?.sessionId ?? null;
    const [cart, open, verified, lapsed, heldElsewhere] = await pipeline(tx, [
      (c) => (adapter ? givenLinesLocked(c, me.id, adapter.lines) : lockedCartForCheckout(c, me.id)),
      (c) => openSessionsLocked(c.db, { buyerId: me.id, adapterSessionId }),
      (c) => isEmailVerified(c, me.id),
      (c) =>
        lapsedHolds(c.db, {
          buyerId: me.id,
          ofCart: !adapter,
          now,
          since: new Date(now.getTime() - HOLD_COOLDOWN_SECONDS * 1000),
        }),
      (c) => unitsHeldElsewhere(c.db, { buyerId: me.id, adapterSessionId, now }),
    ]);
    if (cart.unavailable.length > 0) {
      throw new CheckoutRefusal(
        'unavailable',
        notFound('error.checkout.notOnSale', { ids: cart.unavailable.join(', ') }),
        cart.unavailable,
      );
    }
    if (cart.lines.length === 0) {
      throw new CheckoutRefusal('empty', conflict('error.checkout.emptyCart'));
    }
    // Nobody keeps stock from others: an unverified account holds a few units of a product, in
    // all its checkouts together (the cart's and every protocol session's), and a hold let lapse
    // or canceled is not taken again at once (a re-checkout does not extend one: below).
    if (!verified) {
      const held = new Map(heldElsewhere.map((h) => [h.productId, h.units]));
      const over = cart.lines.filter((l) => l.quantity + (held.get(l.productId) ?? 0) > UNVERIFIED_MAX_UNITS);
      if (over.length > 0) {
        throw new CheckoutRefusal(
          'unverified_limit',
          conflict('error.checkout.unverifiedLimit', {
            max: UNVERIFIED_MAX_UNITS,
            lines: over
              .map((l) => {
                const elsewhere = held.get(l.productId) ?? 0;
                const line = { title: l.title, id: l.productId, quantity: l.quantity, held: elsewhere };
                return elsewhere > 0
                  ? t(localeOf(ctx), 'error.checkout.unverifiedHeldLine', line)
                  : t(localeOf(ctx), 'error.checkout.unverifiedLine', line);
              })
              .join('; '),
          }),
          over.map((l) => l.productId),
        );
      }
    }
    const cooling = cart.lines.flatMap((l) => {
      const at = lapsed.find((h) => h.productId === l.productId)?.lapsedAt;
      return at ? [{ line: l, until: new Date((Number(at) + HOLD_COOLDOWN_SECONDS) * 1000) }] : [];
    });
    if (cooling.length > 0) {
      throw new CheckoutRefusal(
        'cooling_down',
        conflict('error.checkout.coolingDown', {
          products: cooling.map((c) => `${c.line.title} (${c.line.productId})`).join(', '),
          at: isoSecond(new Date(Math.max(...cooling.map((c) => c.until.getTime())))),
          minutes: HOLD_COOLDOWN_SECONDS / 60,
        }),
        cooling.map((c) => c.line.productId),
      );
    }

    const subtotal = cart.lines.reduce((n, l) => n + l.priceCents * l.quantity, 0);
    const code = input.coupon ?? cart.couponCode;
    let discount = null;
    if (code) {
      // One round trip: the coupon's row locked, then under the lock its redemptions and the
      // uses other buyers' open checkouts hold.
      const upper = code.toUpperCase();
      const [coupon, used, held] = await pipeline(tx, [
        (c) => lockedCoupon(c, upper),
        (c) => couponUses(c, upper, me.id),
        (c) => heldCouponUses(c, upper, me.id),
      ]);
      if (!coupon && input.coupon) throw new CheckoutRefusal('no_such_coupon', noSuchCoupon(upper));
      if (coupon) {
        const checked = couponProblem(tx, coupon, used, subtotal, held);
        if (checked.reason) {
          throw new CheckoutRefusal(
            'coupon',
            conflict('error.checkout.couponRefused', { problem: checked.reason }),
          );
        }
        discount = checked.discount;
      }
    }
    const r = input.recipient;
    const address: StoredAddress = {
      ...input.shipping_address,
      ...(r ? { recipientName: r.name, ...(r.line2 ? { line2: r.line2 } : {}) } : {}),
    };
    const priced = quote({
      lines: quoteLines(cart.lines),
      destinationProvince: address.province as Province,
      discount,
      on: now,
    });
    const refusal = quoteRefusal(priced, localeOf(ctx));
    if (refusal) {
      throw new CheckoutRefusal(
        'unshippable',
        refusal,
        priced.problems.map((p) => p.productId),
      );
    }

    const fingerprint = createHash('sha256')
      .update(
        JSON.stringify({
          lines: cart.lines.map((l) => [l.productId, l.quantity, l.priceCents]),
          coupon: discount ? code : null,
          address,
          adapter: adapter?.sessionId,
        }),
      )
      .digest('base64url');
    const same = open.find((s) => s.fingerprint === fingerprint && s.expiresAt > now);
    // (An adapter's session has no provider page: it is open as soon as it is held.)
    if (same && (same.sessionUrl || adapter))
      return { row: same, created: false, superseded: [] as SessionRow[] };
    // The same cart still being opened at the provider by a request that is running (a double
    // click, an agent's retry): 409, as a repeated Idempotency-Key still running is. One left
    // unopened longer than that (its process died) is superseded below.
    if (same && now.getTime() - same.createdAt.getTime() < OPENING_GRACE_SECONDS * 1000) {
      throw new CheckoutRefusal('opening', conflict('error.checkout.opening'));
    }

    // One open checkout per buyer: a new one ends the others and gives back their stock. The
    // products of both are locked first, all in id order (then released and reserved).
    if (open.length > 0) {
      await lockProducts(tx, [
        ...cart.lines.map((l) => l.productId),
        ...open.flatMap((s) => s.parcels.flatMap((p) => p.items.map((i) => i.productId))),
      ]);
      for (const s of open) await expire(tx, s.id);
    }

    const id = newId('checkouts');
    // A checkout that replaces open ones keeps their end: checking out again never holds stock
    // longer than 30 minutes from the first reservation.
    const expiresAt = new Date(
      Math.min(
        now.getTime() + CHECKOUT_TTL_SECONDS * 1000,
        ...open.filter((s) => s.expiresAt > now).map((s) => s.expiresAt.getTime()),
        adapter?.notAfter.getTime() ?? Number.POSITIVE_INFINITY,
      ),
    );
    const images = new Map(cart.lines.map((l) => [l.productId, l.imageUrls[0] ?? null]));
    const refused = await reserve(
      tx,
      id,
      cart.lines.map((l) => ({ productId: l.productId, quantity: l.quantity })),
      expiresAt,
    );
    if (refused.length > 0) {
      const problems = refused.map(({ productId, quantity, left }) => {
        const title = cart.lines.find((l) => l.productId === productId)?.title ?? productId;
        return left === 0
          ? t(localeOf(ctx), 'error.checkout.soldOut', { title, id: productId })
          : t(localeOf(ctx), 'error.checkout.onlyLeft', { left, title, id: productId, quantity });
      });
      throw new CheckoutRefusal(
        'out_of_stock',
        conflict('error.checkout.outOfStock', { problems: problems.join('. ') }),
        refused.map((r) => r.productId),
      );
    }
    // People read a parcel's tax lines by its shop's name (the agent protocols' totals).
    const shops = await shopNames(
      tx,
      priced.parcels.map((p) => p.sellerId),
    );
    const parcels: StoredParcel[] = priced.parcels.map((p) => ({
      sellerId: p.sellerId,
      shopName: shops.get(p.sellerId) ?? '',
      originProvince: p.originProvince,
      subtotalCents: p.subtotalCents,
      discountCents: p.discountCents,
      shippingCostCents: p.shippingCostCents,
      taxLines: p.taxLines,
      taxAmountCents: p.taxAmountCents,
      totalCents: p.totalCents,
      items: p.lines.map((l) => ({
        productId: l.productId,
        name: l.title,
        quantity: l.quantity,
        unitPriceCents: l.unitPriceCents,
        imageUrl: images.get(l.productId) ?? null,
      })),
    }));
    // The sandbox's session is ours: written with the row, no call after the commit.
    const local = adapter ? undefined : deps.provider.localSession?.({ checkoutId: id });
    const row: SessionRow = {
      id,
      buyerId: me.id,
      status: 'ready_for_payment',
      fingerprint,
      address,
      couponCode: discount ? (code ?? null) : null,
      parcels,
      taxLines: priced.taxLines,
      subtotalCents: priced.subtotalCents,
      discountCents: priced.discountCents,
      shippingCostCents: priced.shippingCostCents,
      taxAmountCents: priced.taxAmountCents,
      totalCents: priced.totalCents,
      provider: deps.provider.name,
      adapterSessionId: adapter?.sessionId ?? null,
      adapterOwner: adapter?.owner ?? null,
      providerSessionId: local?.providerSessionId ?? null,
      sessionUrl: local?.url ?? null,
      clientSecret: local?.clientSecret ?? null,
      paymentIntentId: null,
      expiresAt,
      createdAt: now,
      completedAt: null,
      expiredAt: null,
      canceledAt: null,
    };
    // The row is answered as written (every column is above): the insert goes out with the commit.
    await insertSession.later(tx.db, [row]);
    return { row, created: true, superseded: open };
  });

  const superseded = prepared.superseded.flatMap((s) => (s.providerSessionId ? [s.providerSessionId] : []));
  // An adapter holds inside its own transaction: it ends them at the provider after its commit.
  if (adapter) return { row: prepared.row, created: prepared.created, superseded };
  await endProviderSessions(ctx, deps, superseded);
  if (!prepared.created || prepared.row.sessionUrl) {
    return { row: prepared.row, created: prepared.created, superseded: [] };
  }
  const row = prepared.row;
  try {
    const opened = await deps.provider.createSession({
      checkoutId: row.id,
      buyerEmail: me.email,
      parcels: row.parcels,
      address: row.address,
      subtotalCents: row.subtotalCents,
      discountCents: row.discountCents,
      shippingCostCents: row.shippingCostCents,
      taxAmountCents: row.taxAmountCents,
      totalCents: row.totalCents,
      paymentMethods: PAYMENT_METHODS,
      expiresAt: row.expiresAt,
      idempotencyKey: `checkout:${row.id}`,
      returnUrl: `${deps.publicBaseUrl}/checkout/${encodeURIComponent(row.id)}/return`,
      pageUrl: `${deps.publicBaseUrl}/checkout/${encodeURIComponent(row.id)}/pay`,
      ...(ctx.locale ? { locale: ctx.locale } : {}),
    });
    const [updated] = await ctx.db
      .update(checkoutSessions)
      .set({
        providerSessionId: opened.providerSessionId,
        sessionUrl: opened.url,
        clientSecret: opened.clientSecret,
      })
      .where(and(eq(checkoutSessions.id, row.id), eq(checkoutSessions.status, 'ready_for_payment')))
      .returning();
    if (!updated) {
      // A newer checkout of this buyer ended this one while the provider was opening it.
      await deps.provider.expireSession(opened.providerSessionId).catch(() => {});
      throw conflict('error.checkout.replacedWhileOpening');
    }
    return { row: updated, created: true, superseded: [] };
  } catch (err) {
    await inTransaction(ctx, (tx) => expire(tx, row.id));
    if (err instanceof ProviderError) {
      ctx.log.warn({ err: err.message, checkoutId: row.id }, 'payment provider refused the session');
      // A provider that is down or busy is 503 (not stored under an Idempotency-Key: the same
      // retry runs again); a refusal is 400.
      throw new AppError('PAYMENT_PROVIDER_ERROR', err.retryable ? 503 : 400, err.publicMessage);
    }
    throw err;
  }
}

/** Ends at the provider the sessions of checkouts a newer one replaced (after the commit; best effort). */
export async function endProviderSessions(
  ctx: RequestContext,
  deps: CheckoutDeps,
  providerSessionIds: string[],
) {
  for (const id of providerSessionIds) {
    await deps.provider.expireSession(id).catch((err) => {
      ctx.log.warn({ err, providerSessionId: id }, 'could not end a superseded session at the provider');
    });
  }
}

const ph = sql.placeholder;

/**
 * An adapter's lines as checkout prices them, under the buyer's cart lock (taken as the cart's
 * own checkout takes it: the payment flow locks cart, then session, for every checkout). The
 * products are read through the catalog's sale view; ids not on sale are listed apart.
 */
async function givenLinesLocked(
  ctx: RequestContext,
  buyerId: string,
  given: Array<{ productId: string; quantity: number }>,
) {
  const [, rows] = await pipeline(ctx, [
    (c) => lockCartOfBuyer(c.db, { buyerId, now: c.now() }),
    (c) =>
      givenLines(c.db, {
        lines: JSON.stringify(given.map((l) => ({ productId: l.productId, quantity: l.quantity }))),
      }),
  ]);
  const lines = rows.flatMap(({ productId, quantity, product: p }) =>
    p ? [{ ...p, sellerProvince: p.sellerProvince ?? undefined, productId, quantity }] : [],
  );
  return {
    couponCode: null,
    lines,
    unavailable: rows.filter((r) => !r.product).map((r) => r.productId),
  };
}

const lockCartOfBuyer = statement(
  'checkout_lock_cart_of',
  sql`select portage_lock_cart(${ph('buyerId')}::text, ${ph('now')}::timestamptz)`,
);

// `offset 0` keeps the lateral lookup a subquery: flattened, the planner guesses 100 lines and
// hash-joins every product (a full scan, 7 ms at 1,000 products); kept, each line is one index probe.
const givenLines = statement<{ productId: string; quantity: number; product: SaleProductRow | null }>(
  'checkout_given_lines',
  sql`select g.line->>'productId' as "productId", (g.line->>'quantity')::int as quantity, p.product
    from jsonb_array_elements(${ph('lines')}::jsonb) with ordinality as g(line, n)
      left join lateral (select s from portage_sale_product(g.line->>'productId') as s offset 0) as p(product) on true
    order by g.n`,
);

/**
 * The products of the buyer's holds that lapsed unpaid since `since`, with when: a session past
 * its end that the expiry job has not ended yet, one it (or the provider's expiry) ended at or
 * after its end, or one its holder canceled (canceled_at). A session replaced by a newer
 * checkout, or refused, ended before its end without lapsing. Of one kind: the cart's checkouts,
 * or the protocol adapters' (a platform's lapses never cool the person's own checkout down).
 */
const lapsedHolds = statement<{ productId: string; lapsedAt: number }>(
  'checkout_lapsed_holds',
  sql`select item->>'productId' as "productId",
      extract(epoch from max(coalesce(s.canceled_at, s.expires_at)))::float8 as "lapsedAt"
    from ${checkoutSessions} s, jsonb_array_elements(s.parcels) parcel, jsonb_array_elements(parcel->'items') item
    where s.buyer_id = ${ph('buyerId')}::text
      and coalesce(s.canceled_at, s.expires_at) <= ${ph('now')}::timestamptz
      and coalesce(s.canceled_at, s.expires_at) > ${ph('since')}::timestamptz
      and (s.status = 'ready_for_payment' or (s.status = 'expired' and s.expired_at >= s.expires_at)
        or s.canceled_at is not null)
      and (s.adapter_session_id is null) = ${ph('ofCart')}::boolean
    group by 1`,
);

/**
 * The units of each product the buyer holds in open checkouts other than those this checkout
 * replaces (its own kind: the cart's, or this adapter session's): what an unverified account's
 * cap counts besides the lines it asks for now.
 */
const unitsHeldElsewhere = statement<{ productId: string; units: number }>(
  'checkout_units_held_elsewhere',
  sql`select item->>'productId' as "productId", sum((item->>'quantity')::int)::int as units
    from ${checkoutSessions} s, jsonb_array_elements(s.parcels) parcel, jsonb_array_elements(parcel->'items') item
    where s.buyer_id = ${ph('buyerId')}::text and s.status = 'ready_for_payment'
      and s.expires_at > ${ph('now')}::timestamptz
      and s.adapter_session_id is distinct from ${ph('adapterSessionId')}::text
    group by 1`,
);

/**
 * The buyer's open sessions of one kind, locked (prepared: every checkout reads them): the cart's
 * (no adapter session), or one adapter session's. A platform's hold for a person never ends the
 * person's own checkout, nor theirs a platform's (docs/acp.md "Guest buyers").
 */
const openSessionsLocked = query('checkout_open_of_buyer', (db, name) =>
  db
    .select()
    .from(checkoutSessions)
    // The status as a literal, not a parameter: the plan kept for the statement can then use
    // the partial index of open sessions (with a parameter, every call was planned anew).
    .where(
      and(
        eq(checkoutSessions.buyerId, ph('buyerId')),
        sql`${checkoutSessions.status} = 'ready_for_payment'`,
        sql`${checkoutSessions.adapterSessionId} is not distinct from ${ph('adapterSessionId')}::text`,
      ),
    )
    .for('update')
    .prepare(name),
);

const sessionById = query('checkout_by_id', (db, name) =>
  db
    .select()
    .from(checkoutSessions)
    .where(eq(checkoutSessions.id, ph('id')))
    .prepare(name),
);

/** A session's columns, with the names its order email needs (read with it: one statement). */
const withMailNames = {
  ...getTableColumns(checkoutSessions),
  mailNames: sql<MailNames>`(select n from portage_mail_names(${checkoutSessions}.buyer_id,
    array(select x->>'sellerId' from jsonb_array_elements(${checkoutSessions}.parcels) x)) as n)`,
};

/**
 * lockSessionForPayment's two statements for the checkout whose id `idOf` answers: the buyer's
 * cart locked through the cart's database function, then the checkout locked with its mail names.
 * Both are sent at the call, in that order: the cart's lock goes out with the checkout's read (no
 * checkout: neither finds a row).
 */
function paymentLock(name: string, idOf: SQL) {
  const cart = statement(
    `${name}_cart`,
    sql`select portage_lock_cart(s.buyer_id, ${ph('now')}::timestamptz) from ${checkoutSessions} s where s.id = ${idOf}`,
  );
  const checkout = query(`${name}_checkout`, (db, n) =>
    db
      .select(withMailNames)
      .from(checkoutSessions)
      .where(sql`${checkoutSessions.id} = ${idOf}`)
      .for('update')
      .prepare(n),
  );
  return async (ctx: RequestContext, values: Record<string, unknown>) => {
    const [, [row]] = await Promise.all([
      cart.later(ctx.db, { ...values, now: ctx.now() }),
      checkout(ctx.db, values),
    ]);
    return row;
  };
}

const lockCheckoutById = paymentLock('checkout_payment_lock', sql`${ph('checkoutId')}`);

const completeStatement = query('checkout_complete', (db, name) =>
  db
    .update(checkoutSessions)
    .set({
      status: checkoutMachine.to('complete'),
      paymentIntentId: sql`${ph('paymentIntentId')}`,
      completedAt: sql`${ph('now')}::timestamptz`,
    })
    .where(and(eq(checkoutSessions.id, ph('id')), checkoutMachine.where('complete', checkoutSessions.status)))
    .prepare(name),
);

/** Uses of a coupon held by other buyers' open checkouts (this buyer's open ones end now). */
async function heldCouponUses(ctx: RequestContext, code: string, buyerId: string) {
  // Still payable a little after our expiry at the provider (Stripe's session outlives the hold
  // by a minute): counted until then.
  const [row] = await heldUsesStatement(ctx.db, {
    code,
    buyerId,
    after: new Date(ctx.now().getTime() - 120_000),
  });
  return { total: row?.n ?? 0, mine: 0 };
}

const heldUsesStatement = statement<{ n: number }>(
  'checkout_held_coupon_uses',
  // The status as a literal (the partial index of open sessions serves the kept plan).
  sql`select count(*)::int as n from ${checkoutSessions}
    where ${checkoutSessions.status} = 'ready_for_payment' and ${checkoutSessions.couponCode} = ${ph('code')}
      and ${checkoutSessions.expiresAt} > ${ph('after')}::timestamptz and ${checkoutSessions.buyerId} <> ${ph('buyerId')}`,
);

/** Ends an open session and gives back its stock (in ctx's transaction). */
async function expire(ctx: RequestContext, checkoutId: string, how?: { canceled: true }): Promise<boolean> {
  const [ended] = await ctx.db
    .update(checkoutSessions)
    .set({
      status: checkoutMachine.to('expire'),
      expiredAt: ctx.now(),
      ...(how ? { canceledAt: ctx.now() } : {}),
    })
    .where(and(eq(checkoutSessions.id, checkoutId), checkoutMachine.where('expire', checkoutSessions.status)))
    .returning({ id: checkoutSessions.id });
  if (ended) await releaseCheckout(ctx, checkoutId);
  return Boolean(ended);
}

/** GET /checkout/:id: the buyer's own session (another's is 404), with its orders once paid. */
export async function getCheckout(
  ctx: RequestContext,
  publishableKey: string,
  checkoutId: string,
  /** The orders module's reading of a checkout's orders (it imports this module, not the reverse). */
  ordersOf: (ctx: RequestContext, checkoutId: string) => Promise<Array<{ id: string; number: string }>>,
): Promise<Session> {
  const me = caller(ctx);
  const row = isRecordId('checkouts', checkoutId)
    ? (await ctx.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, checkoutId)))[0]
    : undefined;
  if (!row || (row.buyerId !== me.id && me.role !== 'admin')) {
    throw notFound('error.checkout.sessionNotFound', { id: checkoutId });
  }
  return answer(row, publishableKey, await ordersOf(ctx, row.id));
}

/** A session as the sandbox's page shows it (anyone holding its id, which is its capability). */
export async function sessionForPayment(ctx: RequestContext, checkoutId: string) {
  if (!isRecordId('checkouts', checkoutId)) return undefined;
  const [row] = await sessionById(ctx.db, { id: checkoutId });
  return row;
}

/**
 * Whether a stored POST /checkout answer names a session still open for payment: only such an
 * answer is replayed under its Idempotency-Key; an ended one is made anew (an agent's retry
 * must not hand back a dead payment page).
 */
export async function checkoutStillOpen(ctx: RequestContext, status: number, body: string): Promise<boolean> {
  if (status !== 200 && status !== 201) return true;
  let sessionId: unknown;
  try {
    sessionId = (JSON.parse(body) as { sessionId?: unknown }).sessionId;
  } catch {
    return true;
  }
  if (typeof sessionId !== 'string') return true;
  const session = await sessionForPayment(ctx, sessionId);
  return session?.status === 'ready_for_payment' && session.expiresAt > ctx.now();
}

/**
 * Locks a session for turning its payment into orders: the buyer's cart first, then the
 * session row (the order checkout takes them in, so the two never wait on each other). Answers
 * it with the names its order email needs.
 */
export async function lockSessionForPayment(ctx: RequestContext, checkoutId: string) {
  if (!isRecordId('checkouts', checkoutId)) return undefined;
  return lockCheckoutById(ctx, { checkoutId });
}

/**
 * lockSessionForPayment for the checkout an adapter's session names, found by `checkoutIdOf`:
 * SQL answering the checkout's id from the placeholder `ph('sessionId')` (the adapter's session
 * row). Its statements are sent at the call, so that they go out in the round trip of the
 * statement that locks that row, after it (a pipeline step); no such checkout: undefined.
 */
export function paymentLockOf(name: string, checkoutIdOf: SQL) {
  const lock = paymentLock(name, sql`(${checkoutIdOf})`);
  return (ctx: RequestContext, sessionId: string) => lock(ctx, { sessionId });
}

/**
 * How many live holds an owner (a platform) has: its adapters' checkouts still ready for payment
 * and unexpired, but for the one of adapter session `except` (a quote replaces its own hold).
 * Paid, expired and replaced checkouts no longer count. The statement is sent at the call.
 */
export async function liveHoldsOf(
  ctx: RequestContext,
  owner: string,
  except: string,
  now: Date,
): Promise<number> {
  const [row] = await liveHoldsStatement(ctx.db, { owner, except, now });
  return row?.n ?? 0;
}

const liveHoldsStatement = statement<{ n: number }>(
  'checkout_live_holds_of_owner',
  sql`select count(*)::int as n from ${checkoutSessions}
    where adapter_owner = ${ph('owner')} and status = 'ready_for_payment'
      and expires_at > ${ph('now')}::timestamptz and adapter_session_id <> ${ph('except')}`,
);

/** Which of these checkouts were paid (the protocols' cleanup keeps the sessions that made orders). */
export async function paidCheckoutIds(ctx: RequestContext, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await ctx.db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(and(inArray(checkoutSessions.id, ids), eq(checkoutSessions.status, 'complete')));
  return new Set(rows.map((r) => r.id));
}

/** Marks a session paid (in the transaction that creates its orders). */
export async function completeSession(ctx: RequestContext, checkoutId: string, paymentIntentId: string) {
  await completeStatement.later(ctx.db, { id: checkoutId, paymentIntentId, now: ctx.now() });
}

/** The session of a provider session id (a provider's expiry event). */
export async function checkoutIdOfProviderSession(ctx: RequestContext, providerSessionId: string) {
  const [row] = await ctx.db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(eq(checkoutSessions.providerSessionId, providerSessionId));
  return row?.id;
}

/** Ends a session the provider says expired (its stock goes back). */
export async function expireCheckout(ctx: RequestContext, checkoutId: string): Promise<boolean> {
  return inTransaction(ctx, (tx) => expire(tx, checkoutId));
}

/**
 * Ends a checkout its holder let go of (an agent platform's cancel): its stock back at once, and
 * a lapse as far as the cool-down is concerned (a cancel and a new hold do not renew a hold).
 */
export async function cancelCheckout(ctx: RequestContext, checkoutId: string): Promise<boolean> {
  return inTransaction(ctx, (tx) => expire(tx, checkoutId, { canceled: true }));
}

/**
 * The expiry job's pass over sessions: ends up to `limit` open sessions past their expiry,
 * each claimed with SKIP LOCKED in its own transaction, and gives back their stock.
 */
export async function expireLapsedSessions(
  ctx: RequestContext,
  provider: PaymentProvider,
  limit: number,
): Promise<number> {
  const due = await ctx.db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.status, 'ready_for_payment'), lte(checkoutSessions.expiresAt, ctx.now())))
    .orderBy(checkoutSessions.expiresAt)
    .limit(limit);
  const ended: Array<{ providerSessionId: string | null }> = [];
  // Each session in its own short transaction: its products are locked in id order, never
  // interleaved with another session's, and a session another instance holds is skipped.
  for (const { id } of due) {
    const done = await inTransaction(ctx, async (tx) => {
      const [claimed] = await tx.db
        .select({ id: checkoutSessions.id, providerSessionId: checkoutSessions.providerSessionId })
        .from(checkoutSessions)
        .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.status, 'ready_for_payment')))
        .for('update', { skipLocked: true });
      if (!claimed) return undefined;
      await expire(tx, claimed.id);
      return claimed;
    });
    if (done) ended.push(done);
  }
  for (const s of ended) {
    if (s.providerSessionId) await provider.expireSession(s.providerSessionId).catch(() => {});
  }
  return ended.length;
}

/** The province a seller's parcel of a checkout ships from (as it was when sold). */
export async function shipFromOf(ctx: RequestContext, checkoutId: string, sellerId: string) {
  const [row] = await ctx.db
    .select({ parcels: checkoutSessions.parcels })
    .from(checkoutSessions)
    .where(eq(checkoutSessions.id, checkoutId));
  return row?.parcels.find((p) => p.sellerId === sellerId)?.originProvince;
}
