// Every word a person reads comes from the two catalogues (messages/en-CA.json, messages/fr-CA.json):
// ICU MessageFormat, formatted by FormatJS's intl-messageformat; money and dates through Intl.
// Codes, field names and enum values never go through here: they are the same in every locale.
import { IntlMessageFormat } from 'intl-messageformat';
import en from './messages/en-CA.json' with { type: 'json' };
import fr from './messages/fr-CA.json' with { type: 'json' };

export const LOCALES = ['en-CA', 'fr-CA'] as const;
export type Locale = (typeof LOCALES)[number];
/** The locale of what is written for no one in particular (logs, the CLI). */
export const BASE_LOCALE: Locale = 'en-CA';

export type MessageKey = keyof typeof en;
/** A value may itself be a message (a refusal quoted inside another): it is said in the same locale. */
export type MessageValues = { [name: string]: string | number | Date | Text };
/** A message not yet put into words: rendered in the reader's locale when it leaves. */
export interface Text {
  key: MessageKey;
  values?: MessageValues;
}

export const CATALOGUES: Record<Locale, Record<MessageKey, string>> = {
  'en-CA': en,
  'fr-CA': fr as Record<MessageKey, string>,
};

export const isLocale = (value: unknown): value is Locale => LOCALES.includes(value as Locale);

/** One compiled format per key and locale: bounded by the catalogues' size. */
const compiled = new Map<string, IntlMessageFormat>();

/** The message `key` in `locale`, its {placeholders} filled from `values`. */
export function t(locale: Locale, key: MessageKey, values?: MessageValues): string {
  const id = `${locale}\u0000${key}`;
  let format = compiled.get(id);
  if (!format) {
    const source = CATALOGUES[locale][key] ?? CATALOGUES[BASE_LOCALE][key];
    if (source === undefined) throw new Error(`no message ${key}`);
    format = new IntlMessageFormat(source, locale, undefined, { ignoreTag: true });
    compiled.set(id, format);
  }
  return String(format.format(values && sayValues(locale, values)));
}

const isText = (value: unknown): value is Text =>
  typeof value === 'object' && value !== null && !(value instanceof Date) && 'key' in value;

/** The values with each one that is a message put into words first (unchanged when none is). */
function sayValues(locale: Locale, values: MessageValues): Record<string, string | number | Date> {
  let said: Record<string, string | number | Date> | undefined;
  for (const [name, value] of Object.entries(values)) {
    if (!isText(value)) continue;
    said ??= { ...(values as Record<string, string | number | Date>) };
    said[name] = t(locale, value.key, value.values);
  }
  return said ?? (values as Record<string, string | number | Date>);
}

export const text = (key: MessageKey, values?: MessageValues): Text => (values ? { key, values } : { key });
export const render = (locale: Locale, message: Text): string => t(locale, message.key, message.values);

const money = new Map(
  LOCALES.map((l) => [l, new Intl.NumberFormat(l, { style: 'currency', currency: 'CAD' })] as const),
);
/** Formats of a long date by locale and time zone: a handful (two locales, the zones we name). */
const longDates = new Map<string, Intl.DateTimeFormat>();
const longDate = (locale: Locale, timeZone: string) => {
  const id = `${locale} ${timeZone}`;
  let format = longDates.get(id);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone });
    longDates.set(id, format);
  }
  return format;
};

/** Where Portage keeps its books: the calendar day of a moment (an invoice's date) is this zone's. */
export const BOOKS_TIME_ZONE = 'America/Toronto';

const dollars = new Map(
  LOCALES.map(
    (l) =>
      [
        l,
        new Intl.NumberFormat(l, { style: 'currency', currency: 'CAD', maximumFractionDigits: 0 }),
      ] as const,
  ),
);
/** Whole dollars as the locale writes them: 25 -> "$25" (en-CA), "25 $" (fr-CA). */
export const formatDollars = (locale: Locale, whole: number): string =>
  (dollars.get(locale) as Intl.NumberFormat).format(whole);

/** Integer cents as the locale writes dollars: 9152 -> "$91.52" (en-CA), "91,52 $" (fr-CA). */
export function formatMoney(locale: Locale, cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new Error(`an amount must be whole cents, got ${cents}`);
  // Cents to dollars by division is exact for display: Intl rounds to the currency's 2 digits.
  return (money.get(locale) as Intl.NumberFormat).format(cents / 100);
}

const numbers = new Map(
  LOCALES.map((l) => [l, new Intl.NumberFormat(l, { maximumFractionDigits: 1 })] as const),
);
const percents = new Map(
  LOCALES.map((l) => [l, new Intl.NumberFormat(l, { style: 'percent', maximumFractionDigits: 1 })] as const),
);

/** A count or a measure as the locale writes it: 1234.5 -> "1,234.5" (en-CA), "1 234,5" (fr-CA). */
export const formatNumber = (locale: Locale, n: number): string =>
  (numbers.get(locale) as Intl.NumberFormat).format(n);

/** A ratio as a percentage: 0.125 -> "12.5%" (en-CA), "12,5 %" (fr-CA). */
export const formatPercent = (locale: Locale, ratio: number): string =>
  (percents.get(locale) as Intl.NumberFormat).format(ratio);

/**
 * A calendar date as "November 24, 2026" / "24 novembre 2026": YYYY-MM-DD as that day, a moment
 * (a Date) as its day in `timeZone` (UTC unless said).
 */
export function formatDate(locale: Locale, date: Date | string, timeZone = 'UTC'): string {
  const [moment, zone] =
    typeof date === 'string' ? [new Date(`${date.slice(0, 10)}T00:00:00Z`), 'UTC'] : [date, timeZone];
  if (Number.isNaN(moment.getTime())) return String(date);
  const written = longDate(locale, zone).format(moment);
  // French writes the first of a month as an ordinal: "1er décembre 2026".
  return locale === 'fr-CA' ? written.replace(/^1 /, '1er ') : written;
}

/** "GST 5%", "TVQ 9,975 %": a tax line's label, its short name and rate as the locale writes them. */
export const taxLineLabel = (locale: Locale, tax: string, ratePercent: number): string =>
  t(locale, 'tax.line', { tax, rate: ratePercent });

/**
 * The best of our locales for an Accept-Language header (`fr-CA,fr;q=0.9,en;q=0.5`):
 * any French asks for fr-CA and any English for en-CA, highest q first; undefined when
 * the header names neither (the caller's default then applies).
 */
export function negotiateLocale(header: string | undefined | null): Locale | undefined {
  if (!header) return undefined;
  let best: { locale: Locale; q: number } | undefined;
  // Bounded: a header of hundreds of ranges costs no more than its first 20.
  for (const range of header.split(',', 20)) {
    const [tag = '', ...params] = range.trim().split(';');
    const q = params.reduce((acc, p) => {
      const m = /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p);
      return m ? Number(m[1]) : acc;
    }, 1);
    const language = tag.trim().toLowerCase().split('-')[0];
    const locale: Locale | undefined = language === 'fr' ? 'fr-CA' : language === 'en' ? 'en-CA' : undefined;
    if (locale && q > 0 && (!best || q > best.q)) best = { locale, q };
  }
  return best?.locale;
}
