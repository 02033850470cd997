// Holding a checkout, as named steps: read lines, check holds, lock coupon, quote (with the
// carrier rates fetched before, steps/rate.ts), reserve, persist (steps/*.ts), all in one transaction; then, for the cart's checkout, the provider's
// page opened after the commit (never inside a transaction; if it fails the hold is released).
// Where the lines come from is one parameter (LineSource): the buyer's cart, or lines a platform
// gave for a hold it keeps (its session's key, owner and latest end; no provider page, as the
// platform charges itself).
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { type createCheckoutBody, PAYMENT_METHODS } from '../../contract/checkout.ts';
import { newId, type Province } from '../../contract/common.ts';
import { AppError, conflict } from '../../contract/errors.ts';
import { inChildSpan } from '../../telemetry/tracing.ts';
import { caller, inTransaction, type RequestContext } from '../context.ts';
import { type PaymentProvider, ProviderError } from '../payments/provider.ts';
import type { CarrierRates } from '../shipping/rates.ts';
import { endSession } from './end-session.ts';
import {
  holderKeyOf,
  type LineSource,
  readCheckoutStart,
  recordProviderSession,
  type SessionRow,
} from './queries.ts';
import { CheckoutRefusal } from './refusal.ts';
import { checkHolds, HOLD_COOLDOWN_SECONDS } from './steps/check-holds.ts';
import { lockCoupon } from './steps/lock-coupon.ts';
import { persistSession } from './steps/persist.ts';
import { quoteCheckout } from './steps/quote.ts';
import { ratesLookup } from './steps/rate.ts';
import { checkLines } from './steps/read-lines.ts';
import { reserveLines, supersedeOpen } from './steps/reserve.ts';
import type { StoredAddress } from './tables.ts';

/** How long a checkout holds its stock (docs/api.md "Stock holds"). */
const CHECKOUT_TTL_SECONDS = 30 * 60;
/** How long a session may wait for its provider session before a new checkout may supersede it. */
const OPENING_GRACE_SECONDS = 120;

export interface CheckoutDeps {
  provider: PaymentProvider;
  publicBaseUrl: string;
  /** Carrier rates, fetched before the transaction (shipping/rates.ts); absent: the built-in table. */
  rates?: CarrierRates | undefined;
}

export interface Recipient {
  name: string;
  line2?: string;
}

/** What a checkout ships where: the address, a coupon to apply, and who receives the parcels. */
export interface HoldRequest {
  shipping_address: z.infer<typeof createCheckoutBody>['shipping_address'];
  coupon?: string;
  /** Who receives the parcels and a unit line: the pages' form only (the API's address has neither). */
  recipient?: Recipient;
  shipping_choices?: Array<{ seller_id: string; option_id: string }>;
  /** The hold after carrier rates were fetched for it (steps/rate.ts): parcels still unknown use the table. */
  ratesFetched?: boolean;
}

export interface Held {
  row: SessionRow;
  created: boolean;
  /** Provider sessions of checkouts this one replaced, still to end there (given lines: the caller ends them after its commit). */
  superseded: string[];
}

/**
 * Prices and holds a checkout of `source`'s lines for the caller (the buyer): POST /checkout's
 * work, and a platform's hold. Answers the session row and whether it is new; refusals are
 * CheckoutRefusal. Given lines are held in the caller's transaction, if it has one.
 */
export async function holdCheckout(
  ctx: RequestContext,
  deps: CheckoutDeps,
  source: LineSource,
  request: HoldRequest,
): Promise<Held> {
  const me = caller(ctx);
  const held = await inTransaction(ctx, async (tx) => {
    const now = tx.now();
    // Read lines and what the holds depend on, in one round trip.
    const start = await inChildSpan('checkout.read', () =>
      readCheckoutStart(tx, {
        buyerId: me.id,
        source,
        now,
        coolSince: new Date(now.getTime() - HOLD_COOLDOWN_SECONDS * 1000),
      }),
    );
    const lines = checkLines(start.lines);
    checkHolds(lines, start);
    const code = request.coupon ?? start.lines.couponCode;
    const discount = await inChildSpan('checkout.coupon', () =>
      lockCoupon(tx, { buyerId: me.id, code, named: request.coupon !== undefined, items: lines }),
    );
    const address = storedAddress(request);
    const choices = new Map((request.shipping_choices ?? []).map((c) => [c.seller_id, c.option_id]));
    const rated = deps.rates ? ratesLookup(deps.rates, request.ratesFetched ?? false) : undefined;
    const priced = quoteCheckout(lines, {
      province: address.province as Province,
      postalCode: address.postalCode,
      discount,
      on: now,
      choices,
      ...(rated ? { carrierRates: rated.carrierRates } : {}),
    });
    rated?.check();

    const fingerprint = createHash('sha256')
      .update(
        JSON.stringify({
          lines: lines.map((l) => [l.variantId, l.quantity, l.priceCents]),
          coupon: discount ? code : null,
          // Its fields in name order: the same address read back from a session (chooseShipping) is the same.
          address: Object.fromEntries(Object.entries(address).sort(([a], [b]) => (a < b ? -1 : 1))),
          adapter: holderKeyOf(source) ?? undefined,
          // The options chosen (not the choices asked): choosing the cheapest again is the same checkout.
          shipping: priced.parcels.map((p) => p.shipping.id),
        }),
      )
      .digest('base64url');
    const same = start.open.find((s) => s.fingerprint === fingerprint && s.expiresAt > now);
    // (Given lines have no provider page: their hold is open as soon as it is held.)
    if (same && (same.sessionUrl || source.kind === 'given')) {
      return { row: same, created: false, superseded: [] as SessionRow[] };
    }
    // The same cart still being opened at the provider by a request that is running (a double
    // click, an agent's retry): 409, as a repeated Idempotency-Key still running is. One left
    // unopened longer than that (its process died) is superseded below.
    if (same && now.getTime() - same.createdAt.getTime() < OPENING_GRACE_SECONDS * 1000) {
      throw new CheckoutRefusal('opening', conflict('error.checkout.opening'));
    }

    await supersedeOpen(tx, start.open, lines);
    const id = newId('checkouts');
    // A checkout that replaces open ones keeps their end: checking out again never holds stock
    // longer than 30 minutes from the first reservation.
    const expiresAt = new Date(
      Math.min(
        now.getTime() + CHECKOUT_TTL_SECONDS * 1000,
        ...start.open.filter((s) => s.expiresAt > now).map((s) => s.expiresAt.getTime()),
        source.kind === 'given' ? source.heldFor.until.getTime() : Number.POSITIVE_INFINITY,
      ),
    );
    await inChildSpan('checkout.reserve', () => reserveLines(tx, id, lines, expiresAt));
    const row = await inChildSpan('checkout.persist', () =>
      persistSession(tx, {
        id,
        buyerId: me.id,
        source,
        fingerprint,
        address,
        couponCode: discount ? (code ?? null) : null,
        priced,
        images: new Map(lines.map((l) => [l.variantId, l.imageUrls[0] ?? null])),
        provider: deps.provider.name,
        // The sandbox's session is ours: written with the row, no call after the commit.
        local: source.kind === 'cart' ? deps.provider.localSession?.({ checkoutId: id }) : undefined,
        expiresAt,
        now,
      }),
    );
    return { row, created: true, superseded: start.open };
  });

  const superseded = held.superseded.flatMap((s) => (s.providerSessionId ? [s.providerSessionId] : []));
  // Given lines are held inside the caller's transaction: it ends them at the provider after its commit.
  if (source.kind === 'given') return { row: held.row, created: held.created, superseded };
  await endProviderSessions(ctx, deps, superseded);
  if (!held.created || held.row.sessionUrl) return { row: held.row, created: held.created, superseded: [] };
  const opened = await inChildSpan('checkout.provider', () => openAtProvider(ctx, deps, held.row));
  return { row: opened, created: true, superseded: [] };
}

function storedAddress(request: HoldRequest): StoredAddress {
  const r = request.recipient;
  return {
    ...request.shipping_address,
    ...(r ? { recipientName: r.name, ...(r.line2 ? { line2: r.line2 } : {}) } : {}),
  };
}

/** Opens the provider's payment page of a new cart checkout (after its commit); releases the hold if it fails. */
async function openAtProvider(ctx: RequestContext, deps: CheckoutDeps, row: SessionRow): Promise<SessionRow> {
  const me = caller(ctx);
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
    const updated = await recordProviderSession(ctx, row.id, opened);
    if (!updated) {
      // A newer checkout of this buyer ended this one while the provider was opening it.
      await deps.provider.expireSession(opened.providerSessionId).catch(() => {});
      throw conflict('error.checkout.replacedWhileOpening');
    }
    return updated;
  } catch (err) {
    await inTransaction(ctx, (tx) => endSession(tx, row.id));
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
