// A held session's parcels and their shipping options, as both skins show them (ACP's
// fulfillment_options, UCP's fulfillment groups; docs/shipping.md "Options").
import type { StoredParcel } from '../checkout/tables.ts';
import type { ShippingOption } from '../pricing/shipping.ts';
import { itemIdOf, lineId } from './status.ts';

export interface ParcelOptions {
  sellerId: string;
  shopName: string;
  /** The session's line ids of the parcel's items. */
  lineIds: string[];
  itemCount: number;
  options: ShippingOption[];
  chosen: ShippingOption;
}

/** Each parcel with its options (a checkout held before options: its one price, as the platform's). */
export function parcelOptions(parcels: StoredParcel[]): ParcelOptions[] {
  return parcels.map((p) => {
    const chosen: ShippingOption = p.shipping ?? {
      id: 'portage:standard',
      carrier: 'portage',
      service: 'standard',
      priceCents: p.shippingCostCents,
      deliveryDate: '',
      businessDays: 0,
      ratedBy: 'platform',
    };
    return {
      sellerId: p.sellerId,
      shopName: p.shopName || p.sellerId,
      lineIds: p.items.map((i) => lineId(itemIdOf(i))),
      itemCount: p.items.reduce((n, i) => n + i.quantity, 0),
      options: p.shippingOptions?.length ? p.shippingOptions : [chosen],
      chosen,
    };
  });
}

const OFFSET = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Toronto', timeZoneName: 'longOffset' });

/**
 * The day `date` (YYYY-MM-DD) as a window of RFC 3339 times in Toronto, the marketplace's
 * calendar: from its first second to its last. Undefined for no date.
 */
export function dayWindow(date: string): { earliest: string; latest: string } | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const zone = OFFSET.formatToParts(new Date(`${date}T12:00:00Z`)).find(
    (p) => p.type === 'timeZoneName',
  )?.value;
  const offset = zone?.replace('GMT', '') || '+00:00';
  return { earliest: `${date}T00:00:00${offset}`, latest: `${date}T23:59:59${offset}` };
}
