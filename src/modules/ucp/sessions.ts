// UCP's checkout operations over the adapter sessions' core (acp/sessions.ts): a UCP request is
// read into the session's request (items, buyer, the one shipping destination, coupons), the
// core quotes, holds, pays and cancels as it does for ACP, and the state is said in UCP
// (answer.ts). A session made through UCP is only ever seen through UCP (its id's prefix).

import { z } from 'zod';
import { BASE_LOCALE, render, text } from '../../contract/i18n.ts';
import {
  type UcpCheckout,
  type UcpCheckoutCompleteRequest,
  type UcpCheckoutCreateRequest,
  type UcpCheckoutUpdateRequest,
  type UcpMessage,
  ucpCheckout,
} from '../../contract/ucp.ts';
import type { AcpCaller } from '../acp/caller.ts';
import { AcpFailure } from '../acp/errors.ts';
import {
  type AcpDeps,
  type Change,
  cancelSession,
  completeSession,
  couponsOf,
  createSession,
  type Finish,
  mergedItems,
  readSession,
  type SessionState,
  updateSession,
} from '../acp/sessions.ts';
import type { AcpSessionRequest } from '../acp/tables.ts';
import { listItemsByIds } from '../catalog/service.ts';
import type { RequestContext } from '../context.ts';
import type { Negotiated } from './agent.ts';
import { type ProductFacts, toUcpCheckout } from './answer.ts';
import { UcpFailure } from './errors.ts';
import { DISCOUNT, FULFILLMENT } from './profile.ts';

export type UcpDeps = AcpDeps;

const BUYER_EMAIL = z.email().max(254);

/** POST /checkout-sessions: 201 with the session, quoted and held when it can be. */
export async function createUcpSession(
  ctx: RequestContext,
  deps: UcpDeps,
  who: AcpCaller,
  negotiated: Negotiated,
  input: UcpCheckoutCreateRequest,
): Promise<UcpCheckout> {
  const request: AcpSessionRequest = { ...requestOf(input, negotiated), coupons: codesOf(input, negotiated) };
  const answering = answeredWithCommit(deps, negotiated, 201);
  await createSession(ctx, deps, who, 'ucp', request, answering.finish);
  return answering.answer();
}

/**
 * A write's answer, made in its transaction and stored under the request's Idempotency-Key with
 * its commit (serialized, so checked against the route's schema, before anything is committed): an
 * answer that could not be sent rolls its write back (a hold is never made twice by a retry).
 */
function answeredWithCommit(deps: UcpDeps, negotiated: Negotiated, status: number) {
  let made: UcpCheckout | undefined;
  const finish: Finish = async (tx, state) => {
    made = await answer(tx, deps, negotiated, state);
    if (tx.answerWithCommit) await tx.answerWithCommit(tx, status, made);
    else ucpCheckout.parse(made);
  };
  return {
    finish,
    answer: () => {
      if (!made) throw new Error('a UCP write answered without its transaction');
      return made;
    },
  };
}

/** PUT /checkout-sessions/{id}: the whole checkout again (a full replacement), quoted again. */
export async function updateUcpSession(
  ctx: RequestContext,
  deps: UcpDeps,
  who: AcpCaller,
  negotiated: Negotiated,
  id: string,
  input: UcpCheckoutUpdateRequest,
): Promise<UcpCheckout> {
  const { items, buyer, fulfillmentDetails } = requestOf(input, negotiated);
  // Absent is cleared: the request replaces the checkout's fields, as PUT says.
  const change: Change = { items, buyer, fulfillmentDetails, coupons: codesOf(input, negotiated) };
  const answering = answeredWithCommit(deps, negotiated, 200);
  await updateSession(ctx, deps, who, 'ucp', id, change, answering.finish);
  return answering.answer();
}

/** GET /checkout-sessions/{id}. */
export async function getUcpSession(
  ctx: RequestContext,
  deps: UcpDeps,
  who: AcpCaller,
  negotiated: Negotiated,
  id: string,
): Promise<UcpCheckout> {
  return answer(ctx, deps, negotiated, await readSession(ctx, who, 'ucp', id));
}

/** POST /checkout-sessions/{id}/cancel: canceled, its stock back at once. */
export async function cancelUcpSession(
  ctx: RequestContext,
  deps: UcpDeps,
  who: AcpCaller,
  negotiated: Negotiated,
  id: string,
): Promise<UcpCheckout> {
  const answering = answeredWithCommit(deps, negotiated, 200);
  await cancelSession(ctx, who, 'ucp', id, answering.finish);
  return answering.answer();
}

/**
 * POST /checkout-sessions/{id}/complete: the selected instrument's token, through its handler.
 * A refused payment (declined, or a token that cannot pay this session) is the spec's business
 * outcome: the checkout as it is, with a `payment_failed` message; nothing was charged.
 */
export async function completeUcpSession(
  ctx: RequestContext,
  deps: UcpDeps,
  who: AcpCaller,
  negotiated: Negotiated,
  id: string,
  input: UcpCheckoutCompleteRequest,
): Promise<UcpCheckout> {
  const instruments = input.payment.instruments ?? [];
  const index = Math.max(
    0,
    instruments.findIndex((i) => i.selected),
  );
  const instrument = instruments[index];
  const token = instrument?.credential?.token;
  if (!instrument || !token) {
    throw new UcpFailure(400, 'invalid_request', text('ucp.error.completeNeedsToken'));
  }
  try {
    const state = await completeSession(ctx, deps, who, 'ucp', id, {
      handlerId: instrument.handler_id,
      token,
    });
    return answer(ctx, deps, negotiated, state);
  } catch (err) {
    if (err instanceof AcpFailure && err.fields.code === 'requires_3ds') {
      // The person must confirm the card: the spec's escalation, to the payment page.
      const needsBuyer: UcpMessage = {
        type: 'error',
        code: 'requires_3ds',
        path: `$.payment.instruments[${index}]`,
        severity: 'requires_buyer_input',
        content: render(ctx.locale ?? BASE_LOCALE, text('ucp.message.requires3ds')),
      };
      return answer(ctx, deps, negotiated, await readSession(ctx, who, 'ucp', id), [needsBuyer], true);
    }
    const refused =
      err instanceof AcpFailure &&
      (err.statusCode === 402 || (err.statusCode === 400 && err.fields.param?.startsWith('$.payment_data')));
    if (!refused) throw err;
    const failed: UcpMessage = {
      type: 'error',
      code: 'payment_failed',
      path: `$.payment.instruments[${index}]`,
      severity: 'recoverable',
      content: render(ctx.locale ?? BASE_LOCALE, err.words),
    };
    return answer(ctx, deps, negotiated, await readSession(ctx, who, 'ucp', id), [failed]);
  }
}

/** The state in UCP, with the titles and prices of an unheld session's products read for it. */
async function answer(
  ctx: RequestContext,
  deps: UcpDeps,
  negotiated: Negotiated,
  state: SessionState,
  extra: UcpMessage[] = [],
  escalate = false,
): Promise<UcpCheckout> {
  const facts: ProductFacts = new Map();
  const held = state.checkout?.parcels.flatMap((p) => p.items.map((i) => i.productId)) ?? [];
  const missing = state.row.request.items.map((i) => i.id).filter((id) => !held.includes(id));
  if (missing.length > 0) {
    for (const p of await listItemsByIds(ctx, missing)) {
      if (p.status !== 'active') continue; // a draft's title is its seller's business
      facts.set(p.id, {
        title: p.title,
        priceCents: p.priceCents,
        ...(p.imageUrls[0] ? { imageUrl: p.imageUrls[0] } : {}),
      });
    }
  }
  return toUcpCheckout(deps, negotiated, state, facts, ctx.now(), ctx.locale ?? BASE_LOCALE, extra, escalate);
}

/** The discount codes asked for, when the discount extension was negotiated (else none). */
function codesOf(
  input: UcpCheckoutCreateRequest | UcpCheckoutUpdateRequest,
  negotiated: Negotiated,
): string[] {
  return negotiated.has(DISCOUNT) && input.discounts ? couponsOf({ discounts: input.discounts }) : [];
}

/** A UCP create or update read into the session's request (its items merged, its one destination). */
function requestOf(
  input: UcpCheckoutCreateRequest | UcpCheckoutUpdateRequest,
  negotiated: Negotiated,
): Omit<AcpSessionRequest, 'coupons'> {
  const items = mergedItems(input.line_items.map((l) => ({ id: l.item.id, quantity: l.quantity })));
  const email = input.buyer?.email?.trim();
  // UCP's buyer.email is any string: ours names an account, so it must be an address.
  if (email && !BUYER_EMAIL.safeParse(email).success) {
    throw new UcpFailure(400, 'invalid_request', text('ucp.error.buyerEmail', { max: 254 }));
  }
  const given = input.buyer;
  const buyer =
    email && given
      ? {
          email,
          ...(given.first_name ? { first_name: given.first_name } : {}),
          ...(given.last_name ? { last_name: given.last_name } : {}),
          ...(given.phone_number ? { phone_number: given.phone_number } : {}),
        }
      : undefined;
  const method = negotiated.has(FULFILLMENT) ? input.fulfillment?.methods?.[0] : undefined;
  if (method?.type && method.type !== 'shipping') {
    throw new UcpFailure(400, 'invalid_request', text('ucp.error.shippingOnly'));
  }
  const destinations = (method?.destinations ?? []) as Array<Record<string, unknown>>;
  const d = destinations[0];
  const field = (key: string) => (typeof d?.[key] === 'string' ? (d[key] as string) : '');
  const phone = field('phone_number') || input.buyer?.phone_number;
  const name = [field('first_name'), field('last_name')].filter(Boolean).join(' ');
  const fulfillmentDetails = d
    ? {
        ...(phone ? { phone_number: phone } : {}),
        address: {
          name:
            name || [buyer?.first_name, buyer?.last_name].filter(Boolean).join(' ') || (buyer?.email ?? ''),
          line_one: field('street_address'),
          ...(field('extended_address') ? { line_two: field('extended_address') } : {}),
          city: field('address_locality'),
          state: field('address_region'),
          country: field('address_country'),
          postal_code: field('postal_code'),
        },
      }
    : undefined;
  const locale = input.context?.language;
  return {
    items,
    ...(buyer ? { buyer } : {}),
    ...(fulfillmentDetails ? { fulfillmentDetails } : {}),
    ...(typeof locale === 'string' && locale.length <= 35 ? { locale } : {}),
  };
}
