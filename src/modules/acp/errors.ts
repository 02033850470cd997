// ACP's flat error, `{type, code, message, param?}` (the spec's Error), thrown by the adapter's
// services and answered as is by its routes (routes.ts maps our own AppErrors onto it).
import type { AcpError } from '../../contract/acp.ts';

export class AcpFailure extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: AcpError,
    /** Seconds for a Retry-After header (an in-flight request). */
    readonly retryAfter?: number,
  ) {
    super(body.message);
    this.name = 'AcpFailure';
  }
}

export const acpInvalid = (code: string, message: string, param?: string, status = 400) =>
  new AcpFailure(status, { type: 'invalid_request', code, message, ...(param ? { param } : {}) });

export const acpNotFound = (id: string) =>
  acpInvalid('not_found', `Checkout session ${id} not found`, undefined, 404);

/** Where a complete request carries its delegated token. */
export const TOKEN_PARAM = '$.payment_data.instrument.credential.token';
