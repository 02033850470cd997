// Where a parcel is followed: the carrier's own tracking page, for the carriers Canadians use.

/** The carrier's name as people write it, reduced to its letters ("Canada Post", "canada-post"). */
const carrierKey = (carrier: string | null) => (carrier ?? '').toLowerCase().replace(/[^a-z]/g, '');

/** Whether `carrier` names Canada Post, in English or French. */
export const isCanadaPost = (carrier: string | null) =>
  ['canadapost', 'postescanada'].includes(carrierKey(carrier));

/** The carrier's tracking page for `number`; none for another carrier. */
export function trackingUrl(carrier: string | null, number: string): string | undefined {
  const n = encodeURIComponent(number);
  switch (carrierKey(carrier)) {
    case 'canadapost':
    case 'postescanada':
      return `https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=${n}`;
    case 'purolator':
      return `https://www.purolator.com/en/shipping/tracker?pin=${n}`;
    case 'ups':
      return `https://www.ups.com/track?tracknum=${n}`;
    case 'fedex':
      return `https://www.fedex.com/fedextrack/?trknbr=${n}`;
    case 'dhl':
      return `https://www.dhl.com/ca-en/home/tracking.html?tracking-id=${n}`;
    default:
      return undefined;
  }
}
