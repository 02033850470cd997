// ACP's error mapper: the spec's flat error, `{type, code, message, param?}`, thrown by the skin
// (AcpFailure) or made from the core's neutral refusals (acpFailureOf), and answered as is by its
// routes (routes.ts maps our own AppErrors onto it). Its `message` is put into words in the
// request's locale when it leaves; the rest never changes.
import type { AcpError } from '../../contract/acp.ts';
import { BASE_LOCALE, type Locale, render, type Text } from '../../contract/i18n.ts';
import type { AgentCheckoutRefusal, RefusalKind } from '../agent-checkout/problems.ts';

/** The fields of an ACP error that never change with the locale. */
export type AcpErrorFields = Omit<AcpError, 'message'>;

export class AcpFailure extends Error {
  constructor(
    readonly statusCode: number,
    readonly fields: AcpErrorFields,
    /** The error's message, put into words as it leaves. */
    readonly words: Text,
    /** Seconds for a Retry-After header (an in-flight request). */
    readonly retryAfter?: number,
  ) {
    super(render(BASE_LOCALE, words));
    this.name = 'AcpFailure';
  }

  /** The spec's flat error, its message in `locale`. */
  body(locale: Locale): AcpError {
    const { type, code, ...rest } = this.fields;
    return { type, code, message: render(locale, this.words), ...rest };
  }
}

export const acpInvalid = (code: string, said: Text, param?: string, status = 400) =>
  new AcpFailure(status, { type: 'invalid_request', code, ...(param ? { param } : {}) }, said);

/** Each kind of the core's refusal: its HTTP status in ACP. */
const STATUS: Record<RefusalKind, number> = {
  invalid: 400,
  payment_refused: 400,
  card_refused: 400,
  payment_declined: 402,
  needs_authentication: 402,
  not_found: 404,
  // ACP's cancel of a session that has ended: the method is not allowed on it any more.
  not_cancelable: 405,
  wrong_state: 409,
  too_many_holds: 429,
  provider_unavailable: 503,
};

/** The core's refusal in ACP's words: its status, code and (for a field's problem) param. */
export function acpFailureOf(refused: AgentCheckoutRefusal): AcpFailure {
  const param = refused.path && refused.kind !== 'not_found' ? acpParam(refused.path) : undefined;
  return new AcpFailure(
    STATUS[refused.kind],
    {
      type: refused.kind === 'provider_unavailable' ? 'service_unavailable' : 'invalid_request',
      code: refused.code,
      ...(param ? { param } : {}),
    },
    refused.words,
    refused.retryAfter,
  );
}

/** Where the core's request fields are in an ACP request (a path's first segments). */
const FIELDS: Array<[string, string]> = [
  ['items', 'line_items'],
  ['fulfillmentDetails', 'fulfillment_details'],
  ['shippingChoices', 'selected_fulfillment_options'],
  ['coupons', 'discounts.codes'],
  ['payment.handler', 'payment_data.handler_id'],
  ['payment.token', 'payment_data.instrument.credential.token'],
  ['payment', 'payment_data'],
  ['card.number', 'payment_method.number'],
];

/** A neutral path (`items[0].quantity`) as ACP's JSON path (`$.line_items[0].quantity`). */
export function acpParam(path: string): string {
  for (const [ours, theirs] of FIELDS) {
    if (path === ours || path.startsWith(`${ours}.`) || path.startsWith(`${ours}[`)) {
      return `$.${theirs}${path.slice(ours.length)}`;
    }
  }
  return `$.${path}`;
}
