// Which failures mean "the database cannot be reached right now" (a restart, a failover, a network
// cut), as opposed to a statement that failed: those are answered 503 with Retry-After, never 500
// (src/http/errors.ts), and end nothing but the request (db/batching-client.ts, db/index.ts).

/** Socket errors of a connection that broke or could not be made. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away or not taking connections: class 08 (connection exception),
 * 57P01-57P03 (shut down by an operator, after a crash, or still starting up) and 53300 (too many
 * connections).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;

/**
 * node-postgres's and PGlite's own words for a connection that is gone, or a statement never
 * answered (they carry no code).
 */
const GONE =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect|Query read timeout|PGlite is closed)/;

/**
 * Whether `err` (or what it wraps: the query builder wraps the driver's error) says the database is
 * unreachable. An outbound HTTP call's failure (fetch's TypeError) is never one, whatever socket
 * error it wraps.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    if (e instanceof TypeError && e.message === 'fetch failed') return false;
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return true;
    if (typeof message === 'string' && GONE.test(message)) return true;
    e = cause;
  }
  return false;
}
