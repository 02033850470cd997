// Step "rate", before the transaction: the carrier's rates of the parcels the checkout will
// price, fetched now (never inside the transaction, docs/shipping.md). The parcels are found by
// running the same quote over the lines as they are now and noting which it asks rates for: the
// quote inside the transaction then finds them cached. Lines changed in between are priced by
// the table for the parcels that changed.
import type { Province } from '../../../contract/common.ts';
import { cartQuoteLines, quoteLines } from '../../cart/service.ts';
import { caller, type RequestContext } from '../../context.ts';
import { type QuoteLine, quote } from '../../pricing/index.ts';
import type { ParcelSpec } from '../../shipping/carrier.ts';
import type { CarrierRates } from '../../shipping/rates.ts';
import { givenSaleLines } from '../queries.ts';

type Address = { province: string; postalCode: string };

/** The buyer's cart rated for `address`. */
export async function rateCart(ctx: RequestContext, rates: CarrierRates, address: Address): Promise<void> {
  await rateLines(ctx, rates, await cartQuoteLines(ctx, caller(ctx).id), address);
}

/** Lines a platform gives (an agent session's items) rated for `address`. */
export async function rateGiven(
  ctx: RequestContext,
  rates: CarrierRates,
  given: Array<{ variantId: string; quantity: number }>,
  address: Address,
): Promise<void> {
  await rateLines(ctx, rates, quoteLines(await givenSaleLines(ctx, given)), address);
}

async function rateLines(ctx: RequestContext, rates: CarrierRates, lines: QuoteLine[], address: Address) {
  const wanted: ParcelSpec[] = [];
  quote({
    lines,
    destinationProvince: address.province as Province,
    destinationPostalCode: address.postalCode,
    on: ctx.now(),
    carrierRates: (spec) => {
      wanted.push(spec);
      return undefined;
    },
  });
  if (wanted.length > 0) await rates.fetch(wanted, ctx.locale ?? 'en-CA');
}
