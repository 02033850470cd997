// Quoting a session: a change applied and the session quoted again, in one transaction under its
// lock. What the buyer must fix becomes the session's problems (not_ready_for_payment, no hold);
// otherwise the checkout holds the items (ready_for_payment), replacing the session's earlier hold.
import { shippingAddressInput } from '../../contract/checkout.ts';
import { inputProblems } from '../../contract/errors.ts';
import { type Text, text } from '../../contract/i18n.ts';
import { accountForEmail } from '../auth/users.ts';
import {
  CheckoutRefusal,
  endProviderSessions,
  expireCheckout,
  liveHoldsOf,
  withCarrierRates,
} from '../checkout/service.ts';
import { type AuthUser, inTransaction, type RequestContext } from '../context.ts';
import type { AgentCaller } from './caller.ts';
import { holdForSession, type SessionHold } from './hold.ts';
import { type Resolution, refusal, type SessionProblem } from './problems.ts';
import { insertSession, writeQuote } from './queries.ts';
import type { SessionBuyer, SessionChange, SessionRequest } from './request.ts';
import { lockedSession } from './session-reads.ts';
import { agentSessionMachine } from './states.ts';
import { effectiveStatus } from './status.ts';
import type { AgentCheckoutDeps, Finish, SessionProtocol, SessionRow, SessionState } from './types.ts';

export async function requote(
  ctx: RequestContext,
  deps: AgentCheckoutDeps,
  who: AgentCaller,
  protocol: SessionProtocol,
  /** The session's id, or a new session's row (written in the same transaction). */
  target: string | SessionRow,
  change: SessionChange,
  finish?: Finish,
): Promise<SessionState> {
  // A quote needing carrier rates not fetched yet stops the transaction; fetched, it runs again.
  const done = await withCarrierRates(deps.rates, ctx.locale, (ratesFetched) =>
    inTransaction(ctx, async (tx) => {
      if (typeof target !== 'string') await insertSession(tx, target);
      const locked =
        typeof target === 'string'
          ? await lockedSession(tx, who, protocol, target)
          : { row: target, checkout: undefined };
      const before = locked.row;
      const status = effectiveStatus(before, locked.checkout, tx.now());
      if (status !== 'not_ready_for_payment' && status !== 'ready_for_payment') {
        throw refusal('wrong_state', 'invalid', 'agent.error.cannotChange', { status });
      }
      const request: SessionRequest = { ...before.request, ...change };
      // The platform's holds are counted in the buyer's round trip (sent first, awaited after).
      const overHolds = 'platform' in who ? refuseOverHolds(tx, deps, who.platform.id, before.id) : undefined;
      overHolds?.catch(() => {});
      const buyer = await buyerOf(tx, who, request.buyer);
      await overHolds;
      const address = addressOf(request);
      const problems: SessionProblem[] = [...buyer.problems, ...address.problems];
      let held: SessionHold | undefined;
      if (problems.length === 0 && buyer.user && address.value) {
        const attempt = (coupon: string | undefined) =>
          holdForSession(tx, deps, {
            who,
            session: before,
            buyer: buyer.user!,
            request,
            address: address.value!,
            coupon,
            ratesFetched,
          });
        const coupon = request.coupons[0];
        try {
          held = await attempt(coupon);
        } catch (err) {
          if (!(err instanceof CheckoutRefusal)) throw err;
          if (coupon && (err.reason === 'coupon' || err.reason === 'no_such_coupon')) {
            // A refused coupon does not stop the purchase: quoted without it, and said so.
            problems.push(couponProblem(err));
            try {
              held = await attempt(undefined);
            } catch (again) {
              if (!(again instanceof CheckoutRefusal)) throw again;
              problems.push(...refusalProblems(again, request));
            }
          } else {
            problems.push(...refusalProblems(err, request));
          }
        }
      }
      const holding = held?.row;
      // The earlier hold ends when this quote does not take its place (a new hold replaced it already).
      if (before.checkoutId && before.checkoutId !== holding?.id) await expireCheckout(tx, before.checkoutId);
      const transition = holding ? 'hold' : 'refuse';
      const row: SessionRow = {
        ...before,
        request,
        buyerId: buyer.user?.id ?? null,
        checkoutId: holding?.id ?? null,
        messages: problems,
        status: agentSessionMachine.to(transition),
        updatedAt: tx.now(),
      };
      // Written with the commit, and answered from the values written: the session is locked (or
      // new in this transaction) and its state was checked above, so the write cannot miss it.
      await writeQuote(tx, transition, row);
      const state: SessionState = { row, checkout: holding };
      await finish?.(tx, state);
      return { state, superseded: held?.superseded ?? [], signedOutUserId: buyer.signedOutUserId };
    }),
  );
  // After the commit: a concurrent read cannot cache the account's old sign-ins again.
  if (done.signedOutUserId) deps.auth?.forget(done.signedOutUserId);
  await endProviderSessions(ctx, deps, done.superseded);
  return done.state;
}

/**
 * A platform holds stock for people it names by email, guest accounts included: without a cap,
 * one key could hold a catalog's whole stock for 30 minutes at a time. Past `maxPlatformHolds`
 * live holds (sessions held or paying, this one aside) a quote is refused until some are paid,
 * canceled or lapse. A soft cap: requests in flight together may each pass it once.
 */
async function refuseOverHolds(
  tx: RequestContext,
  deps: AgentCheckoutDeps,
  platformId: string,
  sessionId: string,
) {
  const max = deps.maxPlatformHolds;
  if ((await liveHoldsOf(tx, platformId, sessionId, tx.now())) >= max) {
    throw refusal('too_many_holds', 'rate_limited', 'agent.error.tooManyHolds', { max }, undefined, 60);
  }
}

/** The session's buyer: the agent's person, or the account of the email the platform names (a guest one if new). */
async function buyerOf(
  ctx: RequestContext,
  who: AgentCaller,
  buyer: SessionBuyer | undefined,
): Promise<{ user?: AuthUser; problems: SessionProblem[]; signedOutUserId?: string }> {
  if ('user' in who) return { user: who.user, problems: [] };
  if (!buyer?.email) {
    return {
      problems: [
        error('missing', 'buyer.email', 'requires_buyer_input', text('agent.message.buyerEmailNeeded')),
      ],
    };
  }
  const name =
    buyer.full_name ?? ([buyer.first_name, buyer.last_name].filter(Boolean).join(' ') || buyer.email);
  const { account, signedOut } = await accountForEmail(ctx, buyer.email, name.slice(0, 100));
  if (account.role !== 'buyer') {
    return {
      problems: [
        error('invalid', 'buyer.email', 'requires_buyer_input', text('agent.message.emailCannotBuy')),
      ],
    };
  }
  return {
    user: { id: account.id, email: account.email, role: 'buyer' },
    problems: [],
    ...(signedOut ? { signedOutUserId: account.id } : {}),
  };
}

/** Where each field of checkout's address comes from in the session's request. */
const ADDRESS_PATHS: Record<string, string> = {
  street: 'fulfillmentDetails.address.line_one',
  city: 'fulfillmentDetails.address.city',
  province: 'fulfillmentDetails.address.state',
  postalCode: 'fulfillmentDetails.address.postal_code',
  country: 'fulfillmentDetails.address.country',
  phone: 'fulfillmentDetails.phone_number',
};

/** The session's address as checkout takes it, or the problems naming what to fix. */
function addressOf(request: SessionRequest) {
  const details = request.fulfillmentDetails;
  const a = details?.address;
  if (!a) {
    return {
      problems: [
        error(
          'missing',
          'fulfillmentDetails.address',
          'requires_buyer_input',
          text('agent.message.addressNeeded'),
        ),
      ],
    };
  }
  const digits = (details.phone_number ?? '').replace(/\D/g, '');
  const compact = a.postal_code.toUpperCase().replace(/\s+/g, '');
  const candidate = {
    street: [a.line_one, a.line_two].filter(Boolean).join(', '),
    city: a.city,
    province: a.state.toUpperCase(),
    postalCode: compact.length === 6 ? `${compact.slice(0, 3)} ${compact.slice(3)}` : a.postal_code,
    country: a.country.toUpperCase(),
    phone: digits.length === 10 ? `+1${digits}` : `+${digits}`,
  };
  const parsed = shippingAddressInput.safeParse(candidate);
  if (parsed.success) return { value: parsed.data, problems: [] as SessionProblem[] };
  // Each problem in our words (the address schema's own, or zod's worded from the field).
  const worded = inputProblems(shippingAddressInput, parsed.error);
  return {
    problems: parsed.error.issues.map((issue, i) => {
      const field = String(issue.path[0] ?? 'street');
      const missing = field === 'phone' && digits.length === 0;
      const path = ADDRESS_PATHS[field];
      return error(
        missing ? 'missing' : 'invalid',
        path ?? 'fulfillmentDetails.address',
        'requires_buyer_input',
        missing
          ? text('agent.message.phoneNeeded')
          : text('agent.message.fieldProblem', {
              field: String(path?.split('.').pop()),
              problem: worded[i]!.message,
            }),
      );
    }),
  };
}

/** A checkout's refusal as a session keeps it: one problem per product it names, with its line. */
function refusalProblems(err: CheckoutRefusal, request: SessionRequest): SessionProblem[] {
  const code: Record<CheckoutRefusal['reason'], string> = {
    empty: 'missing',
    unavailable: 'not_found',
    unverified_limit: 'quantity_exceeded',
    cooling_down: 'conflict',
    no_such_coupon: 'coupon_invalid',
    coupon: 'coupon_invalid',
    unshippable: 'region_restricted',
    out_of_stock: 'out_of_stock',
    opening: 'conflict',
    shipping_choice: 'invalid',
  };
  const resolution: Resolution =
    err.reason === 'unverified_limit' || err.reason === 'unshippable' || err.reason === 'shipping_choice'
      ? 'requires_buyer_input'
      : 'recoverable';
  if (err.reason === 'shipping_choice')
    return [error(code[err.reason], 'shippingChoices', resolution, err.text)];
  const lines = err.productIds.map((p) => request.items.findIndex((i) => i.id === p)).filter((n) => n >= 0);
  const paths = lines.length > 0 ? lines.map((n) => `items[${n}]`) : ['items'];
  return paths.map((path) => error(code[err.reason], path, resolution, err.text));
}

/** A refused coupon, the purchase quoted without it: the refusal's own words (not its advice to remove it). */
function couponProblem(err: CheckoutRefusal): SessionProblem {
  const refused = err.text;
  const problem =
    refused.key === 'error.checkout.couponRefused' && refused.values?.problem !== undefined
      ? refused.values.problem
      : refused;
  return {
    severity: 'warning',
    code: 'discount_code_invalid',
    path: 'coupons',
    resolution: 'recoverable',
    words: text('agent.message.couponQuotedWithout', { problem }),
  };
}

function error(code: string, path: string, resolution: Resolution, words: Text): SessionProblem {
  return { severity: 'error', code, path, resolution, words };
}
