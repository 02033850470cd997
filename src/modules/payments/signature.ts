// Webhook signatures in the payment provider's format: header `t=<unix>,v1=<hex HMAC-SHA256 of
// "t.body">`, checked on the raw body with 5 minutes of tolerance
// (docs/api.md "Payments"). The sandbox signs with it;
// Stripe's events are checked by its SDK, which implements the same scheme.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookSignatureError } from './provider.ts';

export const TOLERANCE_SECONDS = 300;

export function signatureHeader(payload: string | Buffer, secret: string, timestamp: number): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/** Throws WebhookSignatureError unless one v1 signature of `header` matches and `t` is recent. */
export function verifySignature(rawBody: Buffer, header: string | undefined, secret: string, now: Date) {
  if (!header || header.length > 2048) throw new WebhookSignatureError('No signature header');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new WebhookSignatureError('Malformed signature header');
  }
  if (Math.abs(Math.floor(now.getTime() / 1000) - timestamp) > TOLERANCE_SECONDS) {
    throw new WebhookSignatureError('Signature timestamp outside the tolerance');
  }
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  if (!signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected))) {
    throw new WebhookSignatureError('Signature does not match');
  }
}
