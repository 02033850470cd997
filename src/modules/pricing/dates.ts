// The marketplace's calendar: today in Toronto, and the delivery date an order promises.
const TERRITORIES = new Set(['YT', 'NT', 'NU']);

/** The formatter of torontoDate (made once: making one costs more than using it). */
const TORONTO_DAY = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Toronto',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/**
 * The date (YYYY-MM-DD) in America/Toronto at `at`: the marketplace's calendar (coupons expire at
 * the end of their last day there, analytics count its days, delivery dates are its days).
 */
export function torontoDate(at: Date): string {
  return TORONTO_DAY.format(at);
}

const TORONTO_WALL = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/Toronto',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  hourCycle: 'h23',
});

/** The wall clock in Toronto at `at` (ms), written as if it were UTC (its milliseconds dropped). */
export function torontoWall(at: number): number {
  const parts: Record<string, number> = {};
  for (const p of TORONTO_WALL.formatToParts(new Date(at))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/**
 * The instant (ms) Toronto's clock reads `wall` (a time written as UTC). Midnight and 09:00
 * always exist once: daylight saving changes at 02:00.
 */
export function torontoInstant(wall: number): number {
  // The offset at a first guess, then at the answer (they differ only across a change).
  let at = wall - (torontoWall(wall) - wall);
  at = wall - (torontoWall(at) - at);
  return at;
}

/** The day (YYYY-MM-DD) `businessDays` working days (Monday to Friday) after the day `from` (YYYY-MM-DD). */
export function addBusinessDays(from: string, businessDays: number): string {
  const day = new Date(`${from}T12:00:00Z`);
  let left = businessDays;
  while (left > 0) {
    day.setUTCDate(day.getUTCDate() + 1);
    const weekday = day.getUTCDay();
    if (weekday !== 0 && weekday !== 6) left--;
  }
  return day.toISOString().slice(0, 10);
}

/**
 * The last days answered, by minute and count of days: a day in Toronto starts on a whole
 * minute, so one minute has one answer, and every payment of that minute shares it (the date's
 * formatting in its time zone was about 1% of the service's CPU per payment). Bounded.
 */
const deliveryDays = new Map<string, string>();

/** Confirmation date plus 3 business days within a province, 7 to another, 12 to the territories. */
export function estimatedDelivery(from: Date, origin: string, destination: string): string {
  const days = TERRITORIES.has(destination) ? 12 : origin === destination ? 3 : 7;
  const key = `${Math.floor(from.getTime() / 60_000)}:${days}`;
  let day = deliveryDays.get(key);
  if (day === undefined) {
    if (deliveryDays.size >= 16) deliveryDays.clear();
    day = addBusinessDays(torontoDate(from), days);
    deliveryDays.set(key, day);
  }
  return day;
}
