// UCP's order webhooks (docs/ucp.md "Order webhooks"): each order event of a UCP session is an
// outbox row holding the whole order as it then is (ucpOrderEventBody, written by the core's
// subscriber, agent-checkout/outbox.ts); the outbox job hands UCP's rows to this deliverer, which POSTs them to the
// `webhook_url` of the platform's profile with Standard Webhooks' Webhook-Id and
// Webhook-Timestamp, and an RFC 9421 signature (ES256, our key in /.well-known/ucp) over the
// method, authority, path, UCP-Agent, Content-Digest and Content-Type.
import { createHash, sign } from 'node:crypto';
import { httpbis } from 'http-message-signatures';
import type { UcpOrder } from '../../contract/ucp.ts';
import { postFenced } from '../../http/outbound.ts';
import { type Claimed, type Deliverer, eventSubject, type OrderEventBody } from '../agent-checkout/outbox.ts';
import { keyOf } from '../agent-checkout/status.ts';
import type { Profiles } from './agent.ts';
import type { UcpKeyRing } from './keys.ts';
import { toUcpOrder } from './orders.ts';
import { ORDER } from './profile.ts';

const POST_TIMEOUT_MS = 5_000;

/** A stable UUID for a string (the Webhook-Id must be one): its SHA-256 laid out as a version-8 UUID. */
export function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The outbox row of a UCP session's order event: the whole order, under a stable UUID. */
export const ucpOrderEventBody: OrderEventBody = (event, session, checkoutId, orders) => {
  const subject = event.type === 'checkout.completed' ? 'created' : `${event.type}:${eventSubject(event)}`;
  return {
    eventId: uuidOf(`ucp:${keyOf(checkoutId)}:${subject}`),
    body: JSON.stringify(toUcpOrder('', session.id, checkoutId, orders)),
  };
};

/** `sha-256=:<base64>:` (RFC 9530) of a body's bytes. */
export const contentDigest = (body: string | Buffer) =>
  `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;

export function ucpDeliverer(deps: {
  publicBaseUrl: string;
  keys: UcpKeyRing;
  profiles: Profiles;
  development: boolean;
}): Deliverer {
  const signer = {
    id: deps.keys.kid,
    // UCP names no alg in Signature-Input: the verifier derives ES256 from the key's curve.
    sign: async (data: Buffer) =>
      sign('sha256', data, { key: deps.keys.privateKey, dsaEncoding: 'ieee-p1363' }),
  };
  const agent = `profile="${deps.publicBaseUrl}/.well-known/ucp"`;
  return async (ctx, row: Claimed) => {
    if (!row.ucpProfileUrl) return 'the platform has no UCP profile';
    let target: string | undefined;
    try {
      const profile = await deps.profiles.get(row.ucpProfileUrl);
      const order = profile.ucp.capabilities?.[ORDER]?.[0] as
        | { config?: { webhook_url?: string } }
        | undefined;
      target = order?.config?.webhook_url;
    } catch (err) {
      return `its profile: ${err instanceof Error ? err.message.slice(0, 150) : 'unreadable'}`;
    }
    if (!target) return "the platform's profile names no order webhook_url";
    const order = JSON.parse(row.body) as UcpOrder;
    order.permalink_url = `${deps.publicBaseUrl}${order.permalink_url}`;
    const body = JSON.stringify(order);
    const unsigned = {
      method: 'POST',
      url: target,
      headers: {
        'content-type': 'application/json',
        'content-digest': contentDigest(body),
        'ucp-agent': agent,
        'webhook-id': row.eventId,
        // The attempt's time (Standard Webhooks receivers refuse an old one), not the event's.
        'webhook-timestamp': String(Math.floor(ctx.now().getTime() / 1000)),
        'user-agent': 'Portage-UCP-Webhooks',
      },
    };
    const signed = await httpbis.signMessage(
      {
        key: signer,
        fields: ['@method', '@authority', '@path', 'ucp-agent', 'content-digest', 'content-type'],
        params: ['keyid', 'created'],
      },
      unsigned,
    );
    try {
      const status = await postFenced(
        target,
        signed.headers as Record<string, string>,
        body,
        deps.development,
        POST_TIMEOUT_MS,
      );
      return status >= 200 && status < 300 ? undefined : `answered ${status}`;
    } catch (err) {
      return err instanceof Error ? err.message.slice(0, 200) : 'failed';
    }
  };
}
