// UCP's checkout operations over the agent checkout's core: a UCP request is read into the
// core's input (request.ts: items, buyer, the one shipping destination, coupons), the core
// quotes, holds, pays and cancels, and the state is said in UCP (answer.ts). A session made
// through UCP is only ever seen through UCP (its id's prefix). A refused payment is UCP's
// business outcome (the checkout with a message); other refusals leave as UCP's errors (errors.ts).
import { BASE_LOCALE, render, text } from '../../contract/i18n.ts';
import {
  type UcpCheckout,
  type UcpCheckoutCompleteRequest,
  type UcpCheckoutCreateRequest,
  type UcpCheckoutUpdateRequest,
  type UcpMessage,
  ucpCheckout,
} from '../../contract/ucp.ts';
import type { AgentCaller } from '../agent-checkout/caller.ts';
import { AgentCheckoutRefusal } from '../agent-checkout/problems.ts';
import type { SessionChange, SessionRequest } from '../agent-checkout/request.ts';
import {
  cancelSession,
  completeAgentSession,
  createSession,
  readSession,
  updateSession,
} from '../agent-checkout/sessions.ts';
import { itemIdOf } from '../agent-checkout/status.ts';
import type { AgentCheckoutDeps, Finish, SessionState } from '../agent-checkout/types.ts';
import { agentSaleItemsByIds } from '../catalog/service.ts';
import type { RequestContext } from '../context.ts';
import type { Negotiated } from './agent.ts';
import { type ProductFacts, toUcpCheckout, type UcpAnswerDeps } from './answer.ts';
import { UcpFailure } from './errors.ts';
import { codesOf, requestOf } from './request.ts';

/** What UCP's operations need: the core's, and what its answers show. */
export type UcpDeps = AgentCheckoutDeps & { ucp: UcpAnswerDeps };

/** A session's id prefix: UCP's sessions are `ucp_cs_…`. */
const PROTOCOL = 'ucp';

/** POST /checkout-sessions: 201 with the session, quoted and held when it can be. */
export async function createUcpSession(
  ctx: RequestContext,
  deps: UcpDeps,
  who: AgentCaller,
  negotiated: Negotiated,
  input: UcpCheckoutCreateRequest,
): Promise<UcpCheckout> {
  const request: SessionRequest = { ...requestOf(input, negotiated), coupons: codesOf(input, negotiated) };
  const answering = answeredWithCommit(deps, negotiated, 201);
  await createSession(ctx, deps, who, PROTOCOL, request, answering.finish);
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
  who: AgentCaller,
  negotiated: Negotiated,
  id: string,
  input: UcpCheckoutUpdateRequest,
): Promise<UcpCheckout> {
  const { items, buyer, fulfillmentDetails, shippingChoices } = requestOf(input, negotiated);
  // Absent is cleared: the request replaces the checkout's fields, as PUT says.
  const change: SessionChange = {
    items,
    buyer,
    fulfillmentDetails,
    coupons: codesOf(input, negotiated),
    shippingChoices: shippingChoices ?? [],
  };
  const answering = answeredWithCommit(deps, negotiated, 200);
  await updateSession(ctx, deps, who, PROTOCOL, id, change, answering.finish);
  return answering.answer();
}

/** GET /checkout-sessions/{id}. */
export async function getUcpSession(
  ctx: RequestContext,
  deps: UcpDeps,
  who: AgentCaller,
  negotiated: Negotiated,
  id: string,
): Promise<UcpCheckout> {
  return answer(ctx, deps, negotiated, await readSession(ctx, who, PROTOCOL, id));
}

/** POST /checkout-sessions/{id}/cancel: canceled, its stock back at once. */
export async function cancelUcpSession(
  ctx: RequestContext,
  deps: UcpDeps,
  who: AgentCaller,
  negotiated: Negotiated,
  id: string,
): Promise<UcpCheckout> {
  const answering = answeredWithCommit(deps, negotiated, 200);
  await cancelSession(ctx, who, PROTOCOL, id, answering.finish);
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
  who: AgentCaller,
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
    const state = await completeAgentSession(ctx, deps, who, PROTOCOL, id, {
      handlerId: instrument.handler_id,
      token,
    });
    return answer(ctx, deps, negotiated, state);
  } catch (err) {
    if (!(err instanceof AgentCheckoutRefusal)) throw err;
    if (err.kind === 'needs_authentication') {
      // The person must confirm the card: the spec's escalation, to the payment page.
      const needsBuyer: UcpMessage = {
        type: 'error',
        code: 'requires_3ds',
        path: `$.payment.instruments[${index}]`,
        severity: 'requires_buyer_input',
        content: render(ctx.locale ?? BASE_LOCALE, text('ucp.message.requires3ds')),
      };
      return answer(ctx, deps, negotiated, await readSession(ctx, who, PROTOCOL, id), [needsBuyer], true);
    }
    if (err.kind !== 'payment_refused' && err.kind !== 'payment_declined') throw err;
    const failed: UcpMessage = {
      type: 'error',
      code: 'payment_failed',
      path: `$.payment.instruments[${index}]`,
      severity: 'recoverable',
      content: render(ctx.locale ?? BASE_LOCALE, err.words),
    };
    return answer(ctx, deps, negotiated, await readSession(ctx, who, PROTOCOL, id), [failed]);
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
  const held = state.checkout?.parcels.flatMap((p) => p.items.map(itemIdOf)) ?? [];
  const missing = state.row.request.items.map((i) => i.id).filter((id) => !held.includes(id));
  if (missing.length > 0) {
    // A draft's title, or a closed shop's, is its seller's business.
    for (const p of await agentSaleItemsByIds(ctx, missing)) {
      facts.set(p.id, {
        title: p.title,
        priceCents: p.priceCents,
        ...(p.imageUrls[0] ? { imageUrl: p.imageUrls[0] } : {}),
      });
    }
  }
  return toUcpCheckout(
    deps.ucp,
    negotiated,
    state,
    facts,
    ctx.now(),
    ctx.locale ?? BASE_LOCALE,
    extra,
    escalate,
  );
}
