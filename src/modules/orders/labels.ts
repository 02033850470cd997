// An order's carrier label and the following of its parcel (docs/shipping.md "Labels", "Tracking").
// Buying a label is three steps, none holding a transaction while the carrier is asked:
//   1. claim: in a transaction holding the order's row, check it may ship and write the label's
//      claim (order_labels' primary key: one label per order, however many ask at once);
//   2. buy: the carrier's shipment and its label's PDF, outside any transaction (a refusal or an
//      outage deletes the claim: nothing changed; a lost answer keeps it `uncertain`, and the next
//      purchase first looks for the shipment Canada Post may have made, adopts it if it finds it,
//      and buys only once Canada Post says it has none);
//   3. ship: the label stored, then the order shipped as a person's "mark shipped" ships it
//      (service.ts shipRow: the same event, email and webhooks) and its parcel followed.
// A purchase asked again answers the label bought; one stopped between 2 and 3 is finished by it.
import { and, asc, eq, lte, sql } from 'drizzle-orm';
import { toUnix } from '../../contract/common.ts';
import { AppError, conflict, notFound } from '../../contract/errors.ts';
import { type Locale, text } from '../../contract/i18n.ts';
import { labelPath } from '../../contract/labels.ts';
import { parcelRecipient } from '../addresses/service.ts';
import { invoiceParties, shopNames } from '../auth/sellers.ts';
import { products, productVariants } from '../catalog/tables.ts';
import { type AuthUser, caller, inTransaction, type RequestContext } from '../context.ts';
import { torontoDate } from '../pricing/dates.ts';
import { CarrierError, isCarrierService } from '../shipping/carrier.ts';
import {
  type LabelDeps,
  type ShipmentInfo,
  type ShipmentSpec,
  UncertainOutcome,
} from '../shipping/labels.ts';
import { shipFromOfSeller } from '../shipping/origin.ts';
import { renderPackingSlip } from './packing-slip.ts';
import {
  deliverRow,
  detailOf,
  itemsOf,
  LABEL_CLAIM_SECONDS,
  type OrderRow,
  type OrdersDeps,
  orderRow,
  shipRow,
  soldItems,
} from './service.ts';
import { orderMachine } from './states.ts';
import { orderItems, orderLabels, orderTracking } from './tables.ts';

/** The orders' dependencies with the label carrier (app.ts always sets it). */
export type LabelsDeps = OrdersDeps & { labels: LabelDeps };

/** The label carrier of `deps`; the app always has one (a test's partial deps may not). */
function labelsOf(deps: OrdersDeps): LabelDeps {
  if (!deps.labels) throw new Error("The orders' dependencies have no label carrier (app.ts sets it)");
  return deps.labels;
}

/** The carrier's name on the order, as a person shipping by hand writes it (tracking.ts links it). */
export const LABEL_CARRIER_NAME = 'Canada Post';
const TRACKING_TIMEOUT_MS = 10_000;
/**
 * How long after a purchase whose answer was lost Canada Post's "none" is believed: until then the
 * lost request may still be running there, and a search finding nothing buys nothing.
 */
export const UNCERTAIN_SETTLE_SECONDS = LABEL_CLAIM_SECONDS;
/** A parcel not delivered this long after it shipped is no longer followed. */
const FOLLOW_DAYS = 60;

type LabelRow = typeof orderLabels.$inferSelect;

/** The label as the API answers it. */
function labelAnswer(publicBaseUrl: string, row: LabelRow) {
  return {
    carrier: 'canada_post' as const,
    service: row.service,
    trackingNumber: row.trackingPin!,
    sandbox: row.sandbox,
    labelUrl: `${publicBaseUrl}${labelPath(row.orderId)}`,
    boughtAt: toUnix(row.boughtAt!),
  };
}

/** The order if the caller may act for its shop (its seller, an admin); anyone else's is 404. */
async function shopRow(ctx: RequestContext, me: AuthUser, orderId: string, lock = false) {
  const row = await orderRow(ctx, orderId, lock);
  if (!row || (row.sellerId !== me.id && me.role !== 'admin'))
    throw notFound('error.orders.notFound', { id: orderId });
  return row;
}

/** The service a label buys: the Canada Post option the buyer chose, else Regular Parcel. */
export function labelService(shippingOption: string | null) {
  const service = shippingOption?.startsWith('canada_post:') ? shippingOption.slice(12) : '';
  return isCarrierService(service) ? service : 'DOM.RP';
}

/** The parcel's weight: its items' (a variant's, else its product's), else the seller's default. */
async function parcelGrams(ctx: RequestContext, orderId: string, defaultKg: number) {
  const [row] = await ctx.db
    .select({
      grams: sql<
        string | null
      >`sum(round(coalesce(${productVariants.weightKg}, ${products.weightKg}, 0) * 1000) * ${orderItems.quantity})`,
    })
    .from(orderItems)
    .leftJoin(productVariants, eq(productVariants.id, orderItems.variantId))
    .leftJoin(products, eq(products.id, orderItems.productId))
    .where(eq(orderItems.orderId, orderId));
  const grams = Number(row?.grams ?? 0);
  return grams > 0 ? grams : Math.max(1, Math.round(defaultKg * 1000));
}

/** What the label says: from the seller's address and shipping profile to the order's address. */
async function shipmentOf(ctx: RequestContext, deps: LabelDeps, row: OrderRow): Promise<ShipmentSpec> {
  const [from, { seller }, to, shops] = await Promise.all([
    shipFromOfSeller(ctx, row.sellerId),
    invoiceParties(ctx, row.sellerId),
    parcelRecipient(ctx, row.id, row.sellerId),
    shopNames(ctx, [row.sellerId]),
  ]);
  const postalCode = from.originPostalCode ?? seller.postalCode;
  if (!seller.street || !seller.city || !postalCode) throw conflict('error.labels.noSenderAddress');
  return {
    reference: row.number,
    service: labelService(row.shippingOption),
    mailingDate: torontoDate(ctx.now()),
    sender: {
      company: shops.get(row.sellerId) ?? seller.name,
      name: seller.name,
      street: seller.street,
      city: seller.city,
      province: from.originProvince ?? seller.province ?? '',
      postalCode,
      phone: deps.senderPhone,
    },
    destination: {
      name: to.recipientName,
      street: to.street,
      line2: to.line2,
      city: to.city,
      province: to.province,
      postalCode: to.postalCode,
      phone: to.phone,
    },
    weightGrams: await parcelGrams(ctx, row.id, from.parcel.weightKg),
    dimensionsCm: { length: from.parcel.lengthCm, width: from.parcel.widthCm, height: from.parcel.heightCm },
  };
}

/** A carrier's failure as the caller reads it: try again later, or what the carrier refused. */
function carrierRefusal(err: unknown): AppError {
  if (err instanceof CarrierError && !err.retryable) {
    const said = err.messages.map((m) => `${m.code} ${m.description}`).join('; ') || err.message;
    return new AppError('VALIDATION_ERROR', 422, text('error.labels.refused', { said }));
  }
  return new AppError(
    'INTERNAL_ERROR',
    503,
    text('error.labels.carrierDown', { seconds: 30 }),
    undefined,
    30,
  );
}

/** 503 for a purchase whose outcome is unknown: maybe bought, nothing more bought, checked before the next. */
function uncertainAnswer(seconds: number): AppError {
  const wait = Math.max(5, Math.ceil(seconds));
  return new AppError(
    'INTERNAL_ERROR',
    503,
    text('error.labels.uncertain', { seconds: wait }),
    undefined,
    wait,
  );
}

/**
 * POST /orders/:orderId/label: buys the order's label and ships the order by it; asked again, the
 * label bought (`bought` false). 409 while another request is buying it. After a purchase whose
 * answer was lost (`uncertain`), it first looks for the shipment Canada Post may have made and
 * adopts it; 503 while Canada Post cannot say.
 */
export async function buyLabel(ctx: RequestContext, deps: OrdersDeps, orderId: string) {
  const me = caller(ctx);
  const labels = labelsOf(deps);
  // 1. The claim, in a transaction holding the order (cancel and hand shipping wait for it).
  const claim = await inTransaction(ctx, async (tx) => {
    const row = await shopRow(tx, me, orderId, true);
    const [held] = await tx.db.select().from(orderLabels).where(eq(orderLabels.orderId, orderId));
    if (held?.state === 'bought') return { bought: held };
    const since = new Date(tx.now().getTime() - LABEL_CLAIM_SECONDS * 1000);
    if (held?.state === 'buying' && held.claimedAt > since) throw conflict('error.labels.beingBought');
    if (row.status !== 'confirmed') {
      const refused = orderMachine.refusal('ship', row.status);
      throw conflict(refused.key, refused.values);
    }
    // Left uncertain, or lapsed mid-purchase (its instance stopped, maybe after asking): Canada
    // Post may hold this order's shipment, to be looked for before buying.
    const uncertainSince = held
      ? held.state === 'uncertain'
        ? (held.uncertainSince ?? held.claimedAt)
        : held.claimedAt
      : null;
    if (held?.state === 'uncertain' && !held.sandbox && labels.carrier.sandbox) {
      // Canada Post's credentials are gone: it cannot be asked, and nothing is bought blind.
      throw uncertainAnswer(UNCERTAIN_SETTLE_SECONDS);
    }
    const spec = await shipmentOf(tx, labels, row);
    const claimedAt = tx.now();
    const values = {
      orderId,
      sellerId: row.sellerId,
      state: 'buying' as const,
      claimedAt,
      sandbox: labels.carrier.sandbox,
      service: spec.service,
      uncertainSince,
    };
    await tx.db
      .insert(orderLabels)
      .values(values)
      .onConflictDoUpdate({ target: orderLabels.orderId, set: values });
    return { spec, claimedAt, uncertainSince };
  });

  let label: LabelRow;
  let bought = false;
  if ('bought' in claim) {
    label = claim.bought!;
  } else {
    // 2. The carrier, outside any transaction: the shipment it may already have, else a new one.
    const locale: Locale = ctx.locale ?? 'en-CA';
    const ask = () => ({ locale, signal: AbortSignal.timeout(labels.timeoutMs) });
    const ours = and(
      eq(orderLabels.orderId, orderId),
      eq(orderLabels.state, 'buying'),
      eq(orderLabels.claimedAt, claim.claimedAt),
    );
    /** Our claim left uncertain, `since` the request whose answer may be lost; a 503 saying so. */
    const stayUncertain = async (since: Date) => {
      await ctx.db.update(orderLabels).set({ state: 'uncertain', uncertainSince: since }).where(ours);
      const settled = since.getTime() + UNCERTAIN_SETTLE_SECONDS * 1000 - ctx.now().getTime();
      return uncertainAnswer(settled > 0 ? settled / 1000 : 30);
    };
    let info: ShipmentInfo | null = null;
    if (claim.uncertainSince) {
      try {
        info = await labels.carrier.findShipment(claim.spec.reference, ask());
      } catch (err) {
        ctx.log.warn(
          { err, orderId },
          'label: may have been bought, and the carrier cannot say; nothing bought',
        );
        throw await stayUncertain(claim.uncertainSince);
      }
      const settledAt = claim.uncertainSince.getTime() + UNCERTAIN_SETTLE_SECONDS * 1000;
      if (info) {
        ctx.log.info(
          { orderId, shipmentId: info.shipmentId },
          'label: adopted the shipment the carrier had made',
        );
      } else if (ctx.now().getTime() < settledAt) {
        // Too soon to believe "none": the lost request may still be running at Canada Post.
        throw await stayUncertain(claim.uncertainSince);
      }
    }
    if (!info) {
      try {
        info = await labels.carrier.createShipment(claim.spec, ask());
      } catch (err) {
        if (err instanceof UncertainOutcome) {
          ctx.log.warn({ err, orderId }, 'label: its answer was lost; it may have been bought');
          throw await stayUncertain(claim.claimedAt);
        }
        ctx.log.warn({ err, orderId }, 'label: the carrier did not sell it; nothing changed');
        await ctx.db.delete(orderLabels).where(ours);
        throw carrierRefusal(err);
      }
    }
    // The label's PDF: a failure here keeps the shipment (it is paid); the PDF is fetched when asked for.
    const pdf = await labels.carrier
      .label(info.labelUrl, { signal: AbortSignal.timeout(labels.timeoutMs) })
      .catch((err: unknown) => {
        ctx.log.warn({ err, orderId }, 'label: bought, its PDF not fetched yet');
        return null;
      });
    // 3a. The label, stored before anything else can fail (on our claim only: one taken over
    // after LABEL_CLAIM_SECONDS belongs to the request that took it).
    const [stored] = await ctx.db
      .update(orderLabels)
      .set({
        state: 'bought',
        shipmentId: info.shipmentId,
        trackingPin: info.trackingPin,
        labelUrl: info.labelUrl,
        pdf,
        boughtAt: ctx.now(),
      })
      .where(ours)
      .returning();
    if (!stored) {
      ctx.log.error(
        { orderId, shipmentId: info.shipmentId },
        'label: bought after its claim lapsed; void it with the carrier',
      );
      throw conflict('error.labels.beingBought');
    }
    label = stored;
    bought = true;
  }

  // 3b. The order shipped by it, and its parcel followed (again, when a purchase stopped here).
  const order = await inTransaction(ctx, async (tx) => {
    const row = await shopRow(tx, me, orderId, true);
    if (row.status !== 'confirmed') return detailOf(tx, row);
    const shipped = await shipRow(tx, deps, me, row, {
      trackingNumber: label.trackingPin!,
      carrier: LABEL_CARRIER_NAME,
    });
    await tx.db
      .insert(orderTracking)
      .values({
        orderId,
        pin: label.trackingPin!,
        sandbox: label.sandbox,
        nextCheckAt: new Date(
          tx.now().getTime() + (label.sandbox ? labels.sandboxDeliveryMs : labels.recheckMs),
        ),
      })
      .onConflictDoNothing();
    return detailOf(tx, shipped);
  });
  deps.nudge('mail');
  return { bought, label: labelAnswer(deps.publicBaseUrl, label), order };
}

/** GET /orders/:orderId/label.pdf: the label's PDF, for the order's seller or an admin (404 otherwise). */
export async function labelPdf(ctx: RequestContext, deps: OrdersDeps, orderId: string) {
  const me = caller(ctx);
  const row = await shopRow(ctx, me, orderId);
  const [label] = await ctx.db
    .select()
    .from(orderLabels)
    .where(and(eq(orderLabels.orderId, orderId), eq(orderLabels.state, 'bought')));
  if (!label) throw notFound('error.labels.none', { number: row.number });
  if (label.pdf) return { pdf: label.pdf, fileName: `label-${row.number}.pdf` };
  // Bought but not fetched then: fetched now, outside any transaction, and kept.
  const carrier = label.sandbox ? labelsOf(deps).sandbox : labelsOf(deps).carrier;
  let pdf: Buffer;
  try {
    pdf = await carrier.label(label.labelUrl!, { signal: AbortSignal.timeout(labelsOf(deps).timeoutMs) });
  } catch (err) {
    ctx.log.warn({ err, orderId }, 'label: its PDF could not be fetched');
    throw carrierRefusal(err instanceof CarrierError ? err : new CarrierError(String(err), true));
  }
  await ctx.db.update(orderLabels).set({ pdf }).where(eq(orderLabels.orderId, orderId));
  return { pdf, fileName: `label-${row.number}.pdf` };
}

/** An order's label as the console shows it: the one bought (or null), the service a purchase buys, whether it is the sandbox. */
export async function labelStateOf(ctx: RequestContext, deps: OrdersDeps, orderId: string) {
  const me = caller(ctx);
  const row = await shopRow(ctx, me, orderId);
  const [claim] = await ctx.db.select().from(orderLabels).where(eq(orderLabels.orderId, orderId));
  const label = claim?.state === 'bought' ? claim : undefined;
  return {
    label: label ? labelAnswer(deps.publicBaseUrl, label) : null,
    /** A purchase under way, or one whose answer was lost (the next purchase checks with Canada Post first). */
    pending: claim && claim.state !== 'bought' ? claim.state : null,
    service: label?.service ?? labelService(row.shippingOption),
    sandbox: label?.sandbox ?? labelsOf(deps).carrier.sandbox,
  };
}

/** GET /orders/:orderId/packing-slip: the parcel's packing slip, for the order's seller or an admin. */
export async function packingSlipPdf(ctx: RequestContext, orderId: string) {
  const me = caller(ctx);
  const row = await shopRow(ctx, me, orderId);
  const [items, to, shops] = await Promise.all([
    itemsOf(ctx, orderId),
    parcelRecipient(ctx, orderId, row.sellerId),
    shopNames(ctx, [row.sellerId]),
  ]);
  const pdf = await renderPackingSlip(
    {
      orderNumber: row.number,
      orderedAt: row.createdAt,
      shop: shops.get(row.sellerId) ?? '',
      shipTo: {
        name: to.recipientName,
        street: to.street,
        line2: to.line2,
        city: to.city,
        province: to.province,
        postalCode: to.postalCode,
      },
      lines: soldItems(items).map((i) => ({ name: i.name, sku: i.sku, quantity: i.quantity })),
      tracking: row.trackingNumber,
    },
    ctx.now(),
  );
  return { pdf, fileName: `packing-slip-${row.number}.pdf` };
}

// ---- tracking ---------------------------------------------------------------------------------

/** How long a claimed parcel is left to the pass that claimed it (then another may take it). */
const TRACKING_LEASE_MS = 10 * 60_000;
/** The wait after a failure: 5 minutes, doubled each time, at most a day. */
export const trackingBackoffMs = (failures: number) => Math.min(5 * 60_000 * 2 ** (failures - 1), 86_400_000);

/**
 * The tracking job's pass: claims at most `limit` parcels due (FOR UPDATE SKIP LOCKED, then a
 * lease), asks their carrier outside any transaction, and marks delivered those it says are, as a
 * person's "mark delivered" does (service.ts deliverRow: the same event and webhooks). Answers
 * how many it asked about.
 */
export async function followTracking(ctx: RequestContext, deps: OrdersDeps, limit: number): Promise<number> {
  const labels = labelsOf(deps);
  const now = ctx.now();
  const due = await inTransaction(ctx, async (tx) => {
    const rows = await tx.db
      .select()
      .from(orderTracking)
      .where(lte(orderTracking.nextCheckAt, now))
      .orderBy(asc(orderTracking.nextCheckAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    for (const r of rows) {
      await tx.db
        .update(orderTracking)
        .set({ nextCheckAt: new Date(now.getTime() + TRACKING_LEASE_MS) })
        .where(eq(orderTracking.orderId, r.orderId));
    }
    return rows;
  });
  for (const parcel of due) {
    const row = await orderRow(ctx, parcel.orderId);
    if (row?.status !== 'shipped' || !row.shippedAt) {
      // Delivered by a person, or otherwise no longer on its way: nothing more to follow.
      await ctx.db.delete(orderTracking).where(eq(orderTracking.orderId, parcel.orderId));
      continue;
    }
    if (now.getTime() - row.shippedAt.getTime() > FOLLOW_DAYS * 86_400_000) {
      ctx.log.warn(
        { orderId: row.id },
        `tracking: not delivered ${FOLLOW_DAYS} days after shipping; no longer followed`,
      );
      await ctx.db.delete(orderTracking).where(eq(orderTracking.orderId, parcel.orderId));
      continue;
    }
    const carrier = parcel.sandbox ? labels.sandbox : labels.carrier;
    try {
      if (!parcel.sandbox && carrier.sandbox)
        throw new CarrierError('no carrier credentials to follow it with', true);
      const summary = await carrier.trackingSummary(parcel.pin, {
        locale: ctx.defaultLocale ?? 'en-CA',
        signal: AbortSignal.timeout(TRACKING_TIMEOUT_MS),
        shippedAt: row.shippedAt,
        now,
      });
      if (summary.deliveredOn) {
        await inTransaction(ctx, async (tx) => {
          const locked = await orderRow(tx, parcel.orderId, true);
          if (locked?.status === 'shipped') await deliverRow(tx, locked, 'system');
          else await tx.db.delete(orderTracking).where(eq(orderTracking.orderId, parcel.orderId));
        });
        continue;
      }
      const next = parcel.sandbox
        ? Math.max(row.shippedAt.getTime() + labels.sandboxDeliveryMs, now.getTime() + 1000)
        : now.getTime() + labels.recheckMs;
      await ctx.db
        .update(orderTracking)
        .set({
          nextCheckAt: new Date(next),
          failures: 0,
          lastCheckedAt: now,
          lastEvent: summary.event,
          lastError: null,
        })
        .where(eq(orderTracking.orderId, parcel.orderId));
    } catch (err) {
      const failures = parcel.failures + 1;
      ctx.log.warn(
        { err, orderId: parcel.orderId, failures },
        'tracking: the carrier did not answer; asked again later',
      );
      await ctx.db
        .update(orderTracking)
        .set({
          nextCheckAt: new Date(now.getTime() + trackingBackoffMs(failures)),
          failures,
          lastCheckedAt: now,
          lastError: String((err as Error).message ?? err).slice(0, 500),
        })
        .where(eq(orderTracking.orderId, parcel.orderId));
    }
  }
  return due.length;
}
