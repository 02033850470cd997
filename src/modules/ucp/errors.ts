// UCP's two kinds of refusal (docs/ucp.md "Errors"): a protocol error is an HTTP status with
// `{code, content}` (discovery, signatures, authentication, idempotency, a bad request); a
// business outcome is 200 with the checkout's messages, or with `ucp.status: "error"` when
// there is no resource to show (not found). `content` is put into words in the request's
// locale when it leaves; `code` never changes.
import { BASE_LOCALE, type Locale, render, type Text } from '../../contract/i18n.ts';

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
