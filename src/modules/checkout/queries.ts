// The checkout module's statements: named functions over the database handle. Only this file
// knows the speed tricks (named prepared statements, pipelining, statements sent with the next
// one); the steps and the service call these by what they do.
import { and, eq, getTableColumns, inArray, lte, type SQL, sql } from 'drizzle-orm';
import { insertInto, ph, pipeline, query, statement } from '../../db/sql.ts';
import type { MailNames } from '../auth/sellers.ts';
import { isEmailVerified } from '../auth/users.ts';
import { lockedCartForCheckout } from '../cart/service.ts';
import type { SaleProductRow } from '../catalog/service.ts';
import type { RequestContext } from '../context.ts';
import { couponUses, lockedCoupon } from '../coupons/service.ts';
import { checkoutMachine } from './states.ts';
import { checkoutSessions } from './tables.ts';

export type SessionRow = typeof checkoutSessions.$inferSelect;

/** Where a checkout's lines come from: the buyer's cart, or lines a platform gave for a hold it keeps. */
export type LineSource =
  | { kind: 'cart' }
  | {
      kind: 'given';
      lines: Array<{ variantId: string; quantity: number }>;
      /** The hold's key in the module that asked (one open checkout per key), its owner (counted against its cap), its latest end. */
      heldFor: { key: string; owner?: string; until: Date };
    };

/** The key a source's checkouts are scoped by: null for the cart's, the holder's key for given lines. */
export const holderKeyOf = (source: LineSource): string | null =>
  source.kind === 'given' ? source.heldFor.key : null;

/**
 * What a checkout reads before it decides, in one round trip: the lines (the cart's lock first,
 * then its lines), the buyer's open checkouts of the source's kind locked, whether the buyer's
 * email is verified, the holds that lapsed since `coolSince`, and the units held elsewhere.
 */
export async function readCheckoutStart(
  tx: RequestContext,
  args: { buyerId: string; source: LineSource; now: Date; coolSince: Date },
) {
  const { buyerId, source, now, coolSince } = args;
  const holderKey = holderKeyOf(source);
  const [lines, open, verified, lapsed, heldElsewhere] = await pipeline(tx, [
    (c) =>
      source.kind === 'given'
        ? givenLinesLocked(c, buyerId, source.lines)
        : lockedCartForCheckout(c, buyerId),
    (c) => openSessionsLocked(c.db, { buyerId, adapterSessionId: holderKey }),
    (c) => isEmailVerified(c, buyerId),
    (c) => lapsedHolds(c.db, { buyerId, ofCart: holderKey === null, now, since: coolSince }),
    (c) => unitsHeldElsewhere(c.db, { buyerId, adapterSessionId: holderKey, now }),
  ]);
  return { lines, open, verified, lapsed, heldElsewhere };
}

/**
 * Given lines as checkout prices them, under the buyer's cart lock (taken as the cart's own
 * checkout takes it: the payment flow locks cart, then session, for every checkout). The
 * products are read through the catalog's sale view; ids not on sale are listed apart.
 */
async function givenLinesLocked(
  ctx: RequestContext,
  buyerId: string,
  given: Array<{ variantId: string; quantity: number }>,
) {
  const [, rows] = await pipeline(ctx, [
    (c) => lockCartOfBuyer(c.db, { buyerId, now: c.now() }),
    (c) =>
      givenLines(c.db, {
        lines: JSON.stringify(given.map((l) => ({ variantId: l.variantId, quantity: l.quantity }))),
      }),
  ]);
  const lines = rows.flatMap(({ variantId, quantity, product: p }) =>
    p
      ? [{ ...p, sellerProvince: p.sellerProvince ?? undefined, productId: p.productId, variantId, quantity }]
      : [],
  );
  return {
    couponCode: null,
    lines,
    unavailable: rows.filter((r) => !r.product).map((r) => r.variantId),
  };
}

const lockCartOfBuyer = statement(
  'checkout_lock_cart_of',
  sql`select portage_lock_cart(${ph('buyerId')}::text, ${ph('now')}::timestamptz)`,
);

// `offset 0` keeps the lateral lookup a subquery: flattened, the planner guesses 100 lines and
// hash-joins every product (a full scan, 7 ms at 1,000 products); kept, each line is one index probe.
// Given lines are a platform's (ACP, UCP): a product its seller keeps out of agent channels
// (products.agent_channels false) is not on sale to them, refused as any product not on sale.
// The cart's lines (the store, the API, the MCP tools) read portage_sale_variant alone.
const givenLines = statement<{ variantId: string; quantity: number; product: SaleProductRow | null }>(
  'checkout_given_lines',
  sql`select g.line->>'variantId' as "variantId", (g.line->>'quantity')::int as quantity, p.product
    from jsonb_array_elements(${ph('lines')}::jsonb) with ordinality as g(line, n)
      left join lateral (select s from portage_sale_variant(g.line->>'variantId') as s
        where exists (select 1 from products a where a.id = s->>'productId' and a.agent_channels)
        offset 0) as p(product) on true
    order by g.n`,
);

/**
 * The products of the buyer's holds that lapsed unpaid since `since`, with when: a session past
 * its end that the expiry job has not ended yet, one it (or the provider's expiry) ended at or
 * after its end, or one its holder canceled (canceled_at). A session replaced by a newer
 * checkout, or refused, ended before its end without lapsing. Of one kind: the cart's checkouts,
 * or given lines' (a platform's lapses never cool the person's own checkout down).
 */
const lapsedHolds = statement<{ variantId: string; lapsedAt: number }>(
  'checkout_lapsed_holds',
  sql`select coalesce(item->>'variantId', item->>'productId') as "variantId",
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
 * replaces (its own kind: the cart's, or this holder's): what an unverified account's cap counts
 * besides the lines it asks for now.
 */
const unitsHeldElsewhere = statement<{ variantId: string; units: number }>(
  'checkout_units_held_elsewhere',
  sql`select coalesce(item->>'variantId', item->>'productId') as "variantId", sum((item->>'quantity')::int)::int as units
    from ${checkoutSessions} s, jsonb_array_elements(s.parcels) parcel, jsonb_array_elements(parcel->'items') item
    where s.buyer_id = ${ph('buyerId')}::text and s.status = 'ready_for_payment'
      and s.expires_at > ${ph('now')}::timestamptz
      and s.adapter_session_id is distinct from ${ph('adapterSessionId')}::text
    group by 1`,
);

/**
 * The buyer's open sessions of one kind, locked (prepared: every checkout reads them): the cart's
 * (no holder), or one holder's. A platform's hold for a person never ends the person's own
 * checkout, nor theirs a platform's (docs/acp.md "Guest buyers").
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

/**
 * A coupon in one round trip: its row locked, then under the lock its redemptions and the uses
 * other buyers' open checkouts hold.
 */
export async function readCouponLocked(tx: RequestContext, code: string, buyerId: string) {
  const [coupon, used, held] = await pipeline(tx, [
    (c) => lockedCoupon(c, code),
    (c) => couponUses(c, code, buyerId),
    (c) => heldCouponUses(c, code, buyerId),
  ]);
  return { coupon, used, held };
}

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

const insertSession = insertInto('checkout_sessions_insert', checkoutSessions);

/** Writes a new session with the transaction's next statement (or its commit): nobody reads its answer. */
export async function insertSessionLater(ctx: RequestContext, row: SessionRow): Promise<void> {
  await insertSession.later(ctx.db, [row]);
}

/** Records the provider's session of a checkout still open; undefined when it ended meanwhile. */
export async function recordProviderSession(
  ctx: RequestContext,
  checkoutId: string,
  opened: { providerSessionId: string; url: string; clientSecret: string },
): Promise<SessionRow | undefined> {
  const [updated] = await ctx.db
    .update(checkoutSessions)
    .set({
      providerSessionId: opened.providerSessionId,
      sessionUrl: opened.url,
      clientSecret: opened.clientSecret,
    })
    .where(and(eq(checkoutSessions.id, checkoutId), eq(checkoutSessions.status, 'ready_for_payment')))
    .returning();
  return updated;
}

/** Moves an open session to expired (and canceled, when its holder let it go); whether it was open. */
export async function markExpired(
  ctx: RequestContext,
  checkoutId: string,
  canceled: boolean,
): Promise<boolean> {
  const [ended] = await ctx.db
    .update(checkoutSessions)
    .set({
      status: checkoutMachine.to('expire'),
      expiredAt: ctx.now(),
      ...(canceled ? { canceledAt: ctx.now() } : {}),
    })
    .where(and(eq(checkoutSessions.id, checkoutId), checkoutMachine.where('expire', checkoutSessions.status)))
    .returning({ id: checkoutSessions.id });
  return Boolean(ended);
}

const sessionByIdStatement = query('checkout_by_id', (db, name) =>
  db
    .select()
    .from(checkoutSessions)
    .where(eq(checkoutSessions.id, ph('id')))
    .prepare(name),
);

/** A session by its id (prepared: the sandbox's page and the Idempotency-Key replay read it). */
export async function sessionById(ctx: RequestContext, id: string): Promise<SessionRow | undefined> {
  const [row] = await sessionByIdStatement(ctx.db, { id });
  return row;
}

/** A session by its id, read with the query builder (GET /checkout/:id). */
export async function findSession(ctx: RequestContext, id: string): Promise<SessionRow | undefined> {
  return (await ctx.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id)))[0];
}

/** A session's columns, with the names its order email needs (read with it: one statement). */
const withMailNames = {
  ...getTableColumns(checkoutSessions),
  mailNames: sql<MailNames>`(select n from portage_mail_names(${checkoutSessions}.buyer_id,
    array(select x->>'sellerId' from jsonb_array_elements(${checkoutSessions}.parcels) x)) as n)`,
};

/**
 * The payment lock's two statements for the checkout whose id `idOf` answers: the buyer's cart
 * locked through the cart's database function, then the checkout locked with its mail names.
 * Both are sent at the call, in that order: the cart's lock goes out with the checkout's read (no
 * checkout: neither finds a row).
 */
export function paymentLock(name: string, idOf: SQL) {
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
    if (row && ctx.inTransaction) lockedIn.set(ctx.db, row);
    return row;
  };
}

export type LockedForPayment = SessionRow & { mailNames: MailNames };

/** The session each open transaction locked for its payment: its subscribers read it without a round trip. */
const lockedIn = new WeakMap<object, LockedForPayment>();

/** The session this transaction locked for its payment, if it is `checkoutId`. */
export function lockedForPaymentIn(ctx: RequestContext, checkoutId: string): LockedForPayment | undefined {
  const row = ctx.inTransaction ? lockedIn.get(ctx.db) : undefined;
  return row?.id === checkoutId ? row : undefined;
}

export const lockCheckoutById = paymentLock('checkout_payment_lock', sql`${ph('checkoutId')}`);

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

/** Marks a session complete with its payment, sent with the transaction's next statement. */
export async function markCompleteLater(ctx: RequestContext, checkoutId: string, paymentIntentId: string) {
  await completeStatement.later(ctx.db, { id: checkoutId, paymentIntentId, now: ctx.now() });
}

const liveHoldsStatement = statement<{ n: number }>(
  'checkout_live_holds_of_owner',
  sql`select count(*)::int as n from ${checkoutSessions}
    where adapter_owner = ${ph('owner')} and status = 'ready_for_payment'
      and expires_at > ${ph('now')}::timestamptz and adapter_session_id <> ${ph('except')}`,
);

/** How many live holds an owner has but for holder `except`'s (sent at the call). */
export async function countLiveHolds(ctx: RequestContext, owner: string, except: string, now: Date) {
  const [row] = await liveHoldsStatement(ctx.db, { owner, except, now });
  return row?.n ?? 0;
}

/** Which of these checkouts are complete. */
export async function completeAmong(ctx: RequestContext, ids: string[]): Promise<Set<string>> {
  const rows = await ctx.db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(and(inArray(checkoutSessions.id, ids), eq(checkoutSessions.status, 'complete')));
  return new Set(rows.map((r) => r.id));
}

/** The checkout of a provider session id. */
export async function checkoutIdOfProvider(ctx: RequestContext, providerSessionId: string) {
  const [row] = await ctx.db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(eq(checkoutSessions.providerSessionId, providerSessionId));
  return row?.id;
}

/** Up to `limit` open sessions past their end, the oldest first. */
export async function lapsedOpenSessions(ctx: RequestContext, limit: number) {
  return ctx.db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.status, 'ready_for_payment'), lte(checkoutSessions.expiresAt, ctx.now())))
    .orderBy(checkoutSessions.expiresAt)
    .limit(limit);
}

/** Claims an open session (SKIP LOCKED: one another instance holds is skipped); undefined if none. */
export async function claimOpenSession(ctx: RequestContext, id: string) {
  const [claimed] = await ctx.db
    .select({ id: checkoutSessions.id, providerSessionId: checkoutSessions.providerSessionId })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.status, 'ready_for_payment')))
    .for('update', { skipLocked: true });
  return claimed;
}

/** A checkout's parcels as sold. */
export async function parcelsOf(ctx: RequestContext, checkoutId: string) {
  const [row] = await ctx.db
    .select({ parcels: checkoutSessions.parcels })
    .from(checkoutSessions)
    .where(eq(checkoutSessions.id, checkoutId));
  return row?.parcels;
}
