// A link to an invoice that works from an email without signing in: the order's and its buyer's
// ids and an expiry, signed with HMAC-SHA256 under a secret derived from the token signing key (every
// instance derives the same one; rotating the key retires old links). Whoever holds the email
// holds the link, as they hold the order it describes; a year later the buyer signs in instead.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Locale } from '../../contract/i18n.ts';

export const INVOICE_LINK_DAYS = 365;

export interface InvoiceLinks {
  /** The link to the invoice of `orderId` for its buyer, in `locale`, valid INVOICE_LINK_DAYS from `now`. */
  urlOf(order: LinkedOrder, locale: Locale, now: Date): string;
  /** The order and buyer a link's token names, when its signature holds and it has not expired. */
  orderOf(token: string, now: Date): LinkedOrder | undefined;
}

export interface LinkedOrder {
  orderId: string;
  buyerId: string;
}

/** Of the MAC: 128 bits, plenty against forgery, and the link stays under the path limit. */
const MAC_BYTES = 16;

export function createInvoiceLinks(secret: Buffer, publicBaseUrl: string): InvoiceLinks {
  const base = publicBaseUrl.replace(/\/+$/, '');
  const mac = (payload: string) =>
    createHmac('sha256', secret).update(`invoice.${payload}`).digest().subarray(0, MAC_BYTES);
  return {
    urlOf({ orderId, buyerId }, locale, now) {
      const expires = Math.floor(now.getTime() / 1000) + INVOICE_LINK_DAYS * 86_400;
      // `orders:<key>.users:<key>` would not fit a path segment: the keys alone, the prefixes implied.
      const payload = `${keyOf(orderId)}.${keyOf(buyerId)}.${expires.toString(36)}`;
      return `${base}/invoices/${payload}.${mac(payload).toString('base64url')}?locale=${locale}`;
    },
    orderOf(token, now) {
      const parts = token.split('.');
      if (parts.length !== 4) return undefined;
      const [order, buyer, exp, given] = parts as [string, string, string, string];
      const payload = `${order}.${buyer}.${exp}`;
      const expected = mac(payload);
      const sent = Buffer.from(given, 'base64url');
      if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) return undefined;
      if (Number.parseInt(exp, 36) * 1000 <= now.getTime()) return undefined;
      return { orderId: `orders:${order}`, buyerId: `users:${buyer}` };
    },
  };
}

const keyOf = (id: string) => id.slice(id.indexOf(':') + 1);
