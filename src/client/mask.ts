// Credentials out of every message: docs/decisions.md "Agents (MCP)" says the tool
// server and the client never put a token, a password or URL userinfo in an error or a log.
// Every message the client and the tool server make from the address, a header or a thrown
// error passes through maskCredentials (fetch's own TypeError quotes a refused header value,
// token included, and the whole URL, password included).

export const REDACTED = '[redacted]';

/** `scheme://user:password@`: greedy, so that an `@` inside the password is covered too. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>`\\]*@/gi;
/** An Authorization value (token68 of RFC 9110); 8+ characters, so that prose stays readable. */
const AUTHORIZATION = /\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi;
/** A JWT: three base64url parts, the first two JSON objects (`eyJ`). */
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;

/** Shorter known secrets are left to the patterns above: masking "ab" would wreck the text. */
const MIN_SECRET = 4;
/** A secret with a line break or a space is also masked piece by piece (a header error splits it). */
const MIN_PIECE = 6;

/**
 * `text` with credentials replaced by [redacted]: URL userinfo, Authorization values, JWTs, and
 * each of `secrets` as written, percent-encoded, JSON-escaped or split at whitespace.
 */
export function maskCredentials(text: string, secrets: Iterable<string> = []): string {
  return maskForms(text, secretForms(secrets));
}

function maskForms(text: string, forms: readonly string[]): string {
  let masked = text;
  for (const form of forms) masked = masked.replaceAll(form, REDACTED);
  return masked
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(AUTHORIZATION, `$1$2${REDACTED}`)
    .replace(JWT, REDACTED);
}

/** Tokens a client remembers to mask: the current one and those it refreshed away from lately. */
const TOKENS_KEPT = 4;

/**
 * The credentials a client knows (its address's userinfo, its latest tokens), with their
 * masked forms worked out once per change rather than on every message. Bounded: a tool
 * server running for weeks refreshes its token every hour.
 */
export class KnownSecrets {
  readonly #address: string[];
  #tokens: string[] = [];
  #forms: string[] | undefined;

  constructor(addressSecrets: string[]) {
    this.#address = addressSecrets;
  }

  get hasAddressSecrets(): boolean {
    return this.#address.length > 0;
  }

  addToken(token: string) {
    this.#tokens = [...this.#tokens.filter((t) => t !== token), token].slice(-TOKENS_KEPT);
    this.#forms = undefined;
  }

  mask(text: string): string {
    this.#forms ??= secretForms([...this.#address, ...this.#tokens]);
    return maskForms(text, this.#forms);
  }
}

/** The body of an error answer with `mask` applied to its messages. */
export function maskErrorBody<
  T extends { error: string; details?: Array<{ field: string; message: string }> },
>(body: T, mask: (text: string) => string): T {
  return {
    ...body,
    error: mask(body.error),
    ...(body.details
      ? { details: body.details.map((d) => ({ field: mask(d.field), message: mask(d.message) })) }
      : {}),
  };
}

/**
 * A URL fit to show, userinfo replaced. The userinfo ends at the authority's last `@` (as the
 * URL parser reads it); in one that does not parse, everything up to its last `@` goes.
 */
export function maskUrl(url: string): string {
  const scheme = url.indexOf('://');
  if (scheme < 0) return maskCredentials(url);
  const rest = url.slice(scheme + 3);
  const end = URL.canParse(url) ? rest.search(/[/?#\\]/) : -1;
  const at = (end < 0 ? rest : rest.slice(0, end)).lastIndexOf('@');
  return at < 0 ? maskCredentials(url) : `${url.slice(0, scheme + 3)}${REDACTED}@${rest.slice(at + 1)}`;
}

/** The user name and password of a URL, as written and decoded; none when it has none. */
export function urlCredentials(url: string): string[] {
  if (!URL.canParse(url)) return [];
  const { username, password } = new URL(url);
  return [username, password].filter(Boolean).flatMap((s) => [s, safeDecode(s)]);
}

/**
 * A copy of an error, and of its causes, with every message and stack masked: what a caller
 * prints of `err.cause` (util.inspect prints the whole chain) must not carry a credential either.
 */
export function maskError(err: unknown, mask: (text: string) => string, depth = 0): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? mask(err) : err;
  const copy = new Error(mask(err.message));
  copy.name = err.name;
  const { code } = err as { code?: unknown };
  if (typeof code === 'string') Object.assign(copy, { code });
  copy.stack = err.stack === undefined ? undefined : mask(err.stack);
  if (err.cause !== undefined && depth < 4) copy.cause = maskError(err.cause, mask, depth + 1);
  return copy;
}

function secretForms(secrets: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(JSON.stringify(secret).slice(1, -1));
    for (const piece of secret.split(/[\s\p{Cc}]+/u)) if (piece.length >= MIN_PIECE) forms.add(piece);
  }
  // Longest first: a whole token goes before one of its pieces could split it.
  return [...forms].sort((a, b) => b.length - a.length);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
