// UCP's two kinds of refusal (docs/ucp.md "Errors"): a protocol error is an HTTP status with
// `{code, content}` (discovery, signatures, authentication, idempotency, a bad request); a
// business outcome is 200 with the checkout's messages, or with `ucp.status: "error"` when
// there is no resource to show (not found). `content` is put into words in the request's
// locale when it leaves; `code` never changes.
import { BASE_LOCALE, type Locale, render, type Text } from '../../contract/i18n.ts';
import type { AgentCheckoutRefusal, RefusalKind } from '../agent-checkout/problems.ts';

export class UcpFailure extends Error {
  readonly statusCode: number;
  constructor(
    statusCode: number,
    readonly code: string,
    /** What `content` says, put into words as it leaves. */
    readonly words: Text,
    /** Seconds to wait before trying again (Retry-After), for 409 in flight, 429 and 503. */
    readonly retryAfter?: number,
  ) {
    super(render(BASE_LOCALE, words));
    this.statusCode = statusCode;
  }

  /** The refusal's content in `locale`. */
  content(locale: Locale): string {
    return render(locale, this.words);
  }
}

/** Each kind of the core's refusal: its HTTP status in UCP (not found is a business outcome, routes.ts). */
const STATUS: Record<Exclude<RefusalKind, 'not_found'>, number> = {
  invalid: 400,
  payment_refused: 400,
  card_refused: 400,
  payment_declined: 402,
  needs_authentication: 402,
  // A session whose state forbids the operation, a cancel of an ended one included.
  not_cancelable: 409,
  wrong_state: 409,
  too_many_holds: 429,
  provider_unavailable: 503,
};

/** The core's refusal as UCP's protocol error: a session's state is `invalid_state`, else its reason. */
export function ucpFailureOf(refused: AgentCheckoutRefusal & { kind: Exclude<RefusalKind, 'not_found'> }) {
  const status = STATUS[refused.kind];
  return new UcpFailure(
    status,
    status === 409 ? 'invalid_state' : refused.code,
    refused.words,
    refused.retryAfter,
  );
}
