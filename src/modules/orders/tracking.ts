// Where a parcel is followed: the carrier's own tracking page, for the carriers Canadians use.

/** The carrier's tracking page for `number`; none for another carrier. */
export function trackingUrl(carrier: string | null, number: string): string | undefined {
  const n = encodeURIComponent(number);
  switch ((carrier ?? '').toLowerCase().replace(/[^a-z]/g, '')) {
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
