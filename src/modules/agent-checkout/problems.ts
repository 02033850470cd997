// The core's refusals and a session's problems, in no protocol's words: a kind (what went wrong,
// which each skin turns into its status and body), a reason code, a message key with its values,
// and a path into the session's request (`buyer.email`, `items[0]`,
// `fulfillmentDetails.address.city`; `payment.token` and `card.number` for what a payment or the
// vault was given). Each skin's error and answer mappers say them in its protocol.
import { type MessageKey, type MessageValues, type Text, text } from '../../contract/i18n.ts';

/** What kind of refusal: each skin maps it to its status and body. */
export type RefusalKind =
  /** The request asks for something the core does not take (a line too large, too many lines). */
  | 'invalid'
  /** No such session of this caller and protocol. */
  | 'not_found'
  /** The session's state does not allow the operation. */
  | 'wrong_state'
  /** A cancel of a session completed or canceled already. */
  | 'not_cancelable'
  /** The payment could not be made with what was given (handler, token): nothing charged. */
  | 'payment_refused'
  /** The card was declined: nothing charged. */
  | 'payment_declined'
  /** The card must be confirmed by its holder (3-D Secure): nothing charged. */
  | 'needs_authentication'
  /** A card the vault does not take. */
  | 'card_refused'
  /** Too many holds of one platform live at once. */
  | 'too_many_holds'
  /** The payment provider did not answer: the money may have moved. */
  | 'provider_unavailable';

export class AgentCheckoutRefusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    /** The reason in one word (`invalid`, `expired`, a status), which a protocol may show as its code. */
    readonly code: string,
    readonly words: Text,
    /** Where in the request (or the payment) the problem is; none when it is the session's. */
    readonly path?: string,
    /** Seconds to wait before trying again. */
    readonly retryAfter?: number,
  ) {
    super(words.key);
    this.name = 'AgentCheckoutRefusal';
  }
}

export const refusal = (
  kind: RefusalKind,
  code: string,
  key: MessageKey,
  values?: MessageValues,
  path?: string,
  retryAfter?: number,
) => new AgentCheckoutRefusal(kind, code, text(key, values), path, retryAfter);

export const sessionNotFound = (id: string) =>
  refusal('not_found', 'not_found', 'error.checkout.sessionNotFound', { id });

/** Why a problem is the buyer's to fix, or the platform's. */
export type Resolution = 'recoverable' | 'requires_buyer_input';

/**
 * A problem a quote left on its session (kept with it, said by each skin when read): what stops
 * the hold (an error), or what the buyer should know (a warning: a coupon quoted without).
 */
export interface SessionProblem {
  severity: 'error' | 'warning';
  /** missing, invalid, not_found, quantity_exceeded, conflict, coupon_invalid, region_restricted, out_of_stock, discount_code_invalid */
  code: string;
  path: string;
  resolution: Resolution;
  words: Text;
}

/** The words of a hold ended early (the buyer checked out elsewhere): update the session to hold again. */
export const HOLD_ENDED = text('agent.message.holdEnded');

/**
 * A session's kept problems. Rows written before the core was protocol-neutral kept ACP's
 * messages (`param` a JSON path); those are read into problems here, once, for every skin.
 */
export function problemsOf(messages: readonly unknown[]): SessionProblem[] {
  return messages.map((m) => {
    const kept = m as Partial<SessionProblem> & {
      type?: 'error' | 'warning';
      param?: string;
      content?: string;
    };
    if (kept.severity) return kept as SessionProblem;
    const path = (kept.param ?? '$.items')
      .replace(/^\$\./, '')
      .replace(/^line_items/, 'items')
      .replace(/^fulfillment_details/, 'fulfillmentDetails')
      .replace(/^discounts\.codes/, 'coupons');
    return {
      severity: kept.type === 'warning' ? 'warning' : 'error',
      code: kept.code ?? 'invalid',
      path,
      resolution: kept.resolution === 'requires_buyer_input' ? 'requires_buyer_input' : 'recoverable',
      words: kept.words ?? text('agent.message.kept', { content: kept.content ?? '' }),
    };
  });
}

/**
 * A refusal of the framework's before any route ran (a body too large, not JSON, of another
 * type): its own words in English, ours in French.
 */
export function frameworkWords(err: { code?: string; name?: string; message: string }): Text {
  const code = err.code ?? (err.name === 'SyntaxError' ? 'FST_ERR_CTP_INVALID_JSON_BODY' : 'other');
  return text('agent.error.framework', { code, message: err.message });
}
