// UCP's two kinds of refusal (docs/ucp.md "Errors"): a protocol error is an HTTP status with
// `{code, content}` (discovery, signatures, authentication, idempotency, a bad request); a
// business outcome is 200 with the checkout's messages, or with `ucp.status: "error"` when
// there is no resource to show (not found).
export class UcpFailure extends Error {
  readonly statusCode: number;
  constructor(
    statusCode: number,
    readonly code: string,
    readonly content: string,
    /** Seconds to wait before trying again (Retry-After), for 409 in flight, 429 and 503. */
    readonly retryAfter?: number,
  ) {
    super(content);
    this.statusCode = statusCode;
  }
}
