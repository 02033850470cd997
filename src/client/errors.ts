// The one error a client call throws: the service's own {error, code, statusCode} answer, or
// one shaped the same way for what never reached the service (network) or broke the contract.
// The ACP routes answer ACP's own flat error instead: AcpApiError carries it as sent; the UCP
// routes answer UCP's protocol error `{code, content}`: UcpApiError.
import { type AcpError, acpError } from '../contract/acp.ts';
import {
  ERROR_CODES,
  type ErrorBody,
  type ErrorCode,
  type FieldProblem,
  codeForStatus as knownCode,
} from '../contract/errors.ts';
import { BASE_LOCALE, type Locale, t } from '../contract/i18n.ts';
import { ucpProtocolError } from '../contract/ucp.ts';
import { maskError, maskErrorBody, maskUrl } from './mask.ts';

export type { ErrorBody, ErrorCode, FieldProblem };

export class PortageApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** The error answer as the service sent it (or as the client made it when there was none). */
  readonly body: ErrorBody;

  constructor(body: ErrorBody, options?: { cause?: unknown }) {
    super(body.error, options);
    this.name = 'PortageApiError';
    this.code = body.code;
    this.statusCode = body.statusCode;
    this.body = body;
  }

  /** This error with `mask` applied to its messages and its cause (see mask.ts). */
  masked(mask: (text: string) => string): PortageApiError {
    return new PortageApiError(
      maskErrorBody(this.body, mask),
      this.cause === undefined ? undefined : { cause: maskError(this.cause, mask) },
    );
  }

  get details(): FieldProblem[] | undefined {
    return this.body.details;
  }

  /**
   * The spec's error shape `{error, code, statusCode}`, with `details` (which fields were
   * invalid) and `requestId` (to quote when reporting a server error) when the service sent them.
   */
  toJSON(): ErrorBody {
    const { error, code, statusCode, details, requestId } = this.body;
    return {
      error,
      code,
      statusCode,
      ...(details ? { details } : {}),
      ...(requestId ? { requestId } : {}),
    };
  }
}

export const codeForStatus = (status: number): ErrorCode => knownCode(status) ?? 'INTERNAL_ERROR';

const isErrorCode = (v: unknown): v is ErrorCode => (ERROR_CODES as readonly unknown[]).includes(v);

/**
 * The error of a non-2xx answer. The service's body is kept as sent when it has the error
 * shape (worded in its Content-Language); anything else (a proxy's HTML page, an empty body)
 * gets a body made from the status, worded in `locale`.
 */
export function errorFromAnswer(
  status: number,
  statusText: string,
  json: unknown,
  text: string,
  locale: Locale = BASE_LOCALE,
) {
  if (json && typeof json === 'object' && typeof (json as { error?: unknown }).error === 'string') {
    const body = json as Record<string, unknown>;
    if (isErrorCode(body.code) && body.statusCode === status) return new PortageApiError(body as ErrorBody);
    return new PortageApiError({ ...(body as ErrorBody), code: codeForStatus(status), statusCode: status });
  }
  const snippet = text.trim().replace(/\s+/g, ' ').slice(0, 200);
  const reason = statusText ? ` ${statusText}` : '';
  return new PortageApiError({
    error: snippet
      ? t(locale, 'tool.client.httpAnswer', { status, reason, snippet })
      : t(locale, 'tool.client.httpNoBody', { status, reason }),
    code: codeForStatus(status),
    statusCode: status,
  });
}

/**
 * An ACP route's error answer, `{type, code, message, param?}` (the spec's Error), with its
 * status: thrown by the client's ACP calls in place of PortageApiError, so that a caller can pass
 * the spec's error on as it is (the MCP binding puts it in the JSON-RPC error's data).
 */
export class AcpApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: AcpError,
    options?: { cause?: unknown },
  ) {
    super(body.message, options);
    this.name = 'AcpApiError';
  }

  masked(mask: (text: string) => string): AcpApiError {
    const { message, param, ...rest } = this.body;
    return new AcpApiError(
      this.statusCode,
      { ...rest, message: mask(message), ...(param === undefined ? {} : { param: mask(param) }) },
      this.cause === undefined ? undefined : { cause: maskError(this.cause, mask) },
    );
  }
}

/**
 * The AcpApiError of a non-2xx answer of an ACP route. An answer that is not ACP's error (one
 * made before the route: a proxy's page, our own error model) becomes one from its status.
 */
export function acpErrorFromAnswer(status: number, json: unknown, fallback: PortageApiError): AcpApiError {
  const parsed = acpError.safeParse(json);
  if (parsed.success) return new AcpApiError(status, parsed.data);
  return acpErrorOf(fallback);
}

/** A PortageApiError (no answer, a broken contract, a refused id) as ACP's error. */
export function acpErrorOf(err: PortageApiError): AcpApiError {
  const { statusCode, code, body } = err;
  // 503: the service could not be reached; another 5xx: its answer broke the contract.
  const type =
    statusCode === 503 ? 'service_unavailable' : statusCode >= 500 ? 'processing_error' : 'invalid_request';
  return new AcpApiError(
    statusCode,
    { type, code: statusCode === 429 ? 'rate_limited' : code.toLowerCase(), message: body.error },
    { cause: err },
  );
}

/** UCP's protocol error, `{code, content}`, with its status (a business outcome is a 200 answer, not this). */
export class UcpApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: { code: string; content: string },
    options?: { cause?: unknown },
  ) {
    super(body.content, options);
    this.name = 'UcpApiError';
  }

  masked(mask: (text: string) => string): UcpApiError {
    return new UcpApiError(
      this.statusCode,
      { code: this.body.code, content: mask(this.body.content) },
      this.cause === undefined ? undefined : { cause: maskError(this.cause, mask) },
    );
  }
}

/** The UcpApiError of a non-2xx answer of a UCP route; another answer becomes one from our error. */
export function ucpErrorFromAnswer(status: number, json: unknown, fallback: PortageApiError): UcpApiError {
  const parsed = ucpProtocolError.safeParse(json);
  if (parsed.success)
    return new UcpApiError(status, { code: parsed.data.code, content: parsed.data.content });
  return ucpErrorOf(fallback);
}

/** A PortageApiError (no answer, a broken contract, a refused id) as UCP's protocol error. */
export function ucpErrorOf(err: PortageApiError): UcpApiError {
  const code =
    err.statusCode === 429
      ? 'rate_limited'
      : err.statusCode >= 500
        ? 'internal_error'
        : err.code.toLowerCase();
  return new UcpApiError(err.statusCode, { code, content: err.body.error }, { cause: err });
}

/**
 * Why fetch failed, in words (of `locale`) that tell the caller what to check. The address is
 * shown without its userinfo; the caller masks the rest (fetch's messages quote headers and URLs).
 */
export function networkError(baseUrl: string, err: unknown, locale: Locale = BASE_LOCALE): PortageApiError {
  const code = systemCode(err);
  const url = maskUrl(baseUrl);
  let error: string;
  if (code === 'ECONNREFUSED') {
    error = t(locale, 'tool.client.connectionRefused', { url });
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    error = t(locale, 'tool.client.hostNotFound', { url });
  } else {
    // fetch's own words (English, from Node): the cause, for whoever checks the network.
    const detail = describeCause(err);
    error = t(locale, 'tool.client.networkError', { url, detail: detail ? ` (${detail})` : '' });
  }
  return new PortageApiError({ error, code: 'INTERNAL_ERROR', statusCode: 503 }, { cause: err });
}

/** The system error code (ECONNREFUSED, ...) under undici's "fetch failed" TypeError. */
function systemCode(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const { code, cause, errors } = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return undefined;
}

function describeCause(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    if (e instanceof Error) {
      const code = (e as { code?: unknown }).code;
      parts.push(
        typeof code === 'string' && !e.message.includes(code) ? `${e.message} [${code}]` : e.message,
      );
      e = e.cause;
    } else {
      parts.push(String(e));
      break;
    }
  }
  return parts.filter(Boolean).join(': ');
}
