// Step "persist": the session row as held (its parcels named by their shops, the quote's totals,
// the source's holder), written with the transaction's commit and answered as written.
import { shopNames } from '../../auth/sellers.ts';
import type { RequestContext } from '../../context.ts';
import type { Quote } from '../../pricing/index.ts';
import { insertSessionLater, type LineSource, type SessionRow } from '../queries.ts';
import type { StoredAddress, StoredParcel } from '../tables.ts';

export interface NewSession {
  id: string;
  buyerId: string;
  source: LineSource;
  fingerprint: string;
  address: StoredAddress;
  couponCode: string | null;
  priced: Quote;
  /** Each product's first image, shown with its line. */
  images: Map<string, string | null>;
  provider: string;
  /** The provider's page when the provider opens it with the row (the sandbox), else null. */
  local: { providerSessionId: string; url: string; clientSecret: string } | undefined;
  expiresAt: Date;
  now: Date;
}

export async function persistSession(tx: RequestContext, s: NewSession): Promise<SessionRow> {
  const { priced } = s;
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
    automaticDiscountCents: p.automaticDiscountCents,
    platformDiscountCents: p.platformDiscountCents,
    shippingCostCents: p.shippingCostCents,
    shipping: p.shipping,
    shippingOptions: p.shippingOptions,
    taxLines: p.taxLines,
    taxAmountCents: p.taxAmountCents,
    totalCents: p.totalCents,
    items: p.lines.map((l) => ({
      productId: l.productId,
      variantId: l.variantId,
      variantTitle: l.variantTitle,
      sku: l.sku,
      name: l.title,
      quantity: l.quantity,
      unitPriceCents: l.unitPriceCents,
      imageUrl: s.images.get(l.variantId) ?? null,
    })),
  }));
  const holder = s.source.kind === 'given' ? s.source.heldFor : undefined;
  const row: SessionRow = {
    id: s.id,
    buyerId: s.buyerId,
    status: 'ready_for_payment',
    fingerprint: s.fingerprint,
    address: s.address,
    couponCode: s.couponCode,
    parcels,
    taxLines: priced.taxLines,
    subtotalCents: priced.subtotalCents,
    discountCents: priced.discountCents,
    shippingCostCents: priced.shippingCostCents,
    taxAmountCents: priced.taxAmountCents,
    totalCents: priced.totalCents,
    provider: s.provider,
    adapterSessionId: holder?.key ?? null,
    adapterOwner: holder?.owner ?? null,
    providerSessionId: s.local?.providerSessionId ?? null,
    sessionUrl: s.local?.url ?? null,
    clientSecret: s.local?.clientSecret ?? null,
    paymentIntentId: null,
    expiresAt: s.expiresAt,
    createdAt: s.now,
    completedAt: null,
    expiredAt: null,
    canceledAt: null,
  };
  // The row is answered as written (every column is above): the insert goes out with the commit.
  await insertSessionLater(tx, row);
  return row;
}
