// How the typed client makes one call of the Portage API over HTTP, whatever the call: the client
// rules of docs/api.md "Typed client" (renew an expired token once through /auth/refresh, retry
// RATE_LIMIT with backoff, retry nothing else, say plainly when the service cannot be reached),
// the answer checked against its schema, and every error masked of credentials. The calls
// themselves, one per operation, are index.ts (the Portage API), acp.ts and ucp.ts.
import type { z } from 'zod';
import { refreshAnswer } from '../contract/auth.ts';
import { BASE_LOCALE, type Locale, negotiateLocale, t } from '../contract/i18n.ts';
import {
  AcpApiError,
  acpErrorFromAnswer,
  acpErrorOf,
  errorFromAnswer,
  networkError,
  PortageApiError,
  UcpApiError,
  ucpErrorFromAnswer,
  ucpErrorOf,
} from './errors.ts';
import { KnownSecrets, maskUrl, urlCredentials } from './mask.ts';

export interface PortageClientOptions {
  /** The deployment's address (SERVICE_URL), e.g. `https://api.example.ca`; a path prefix is kept. */
  baseUrl: string;
  /** The user's JWT (SERVICE_JWT_TOKEN). */
  token: string;
  /** Retries of a RATE_LIMIT answer before it is thrown. Default 3. */
  maxRetries?: number;
  /** Longest single wait before retrying a RATE_LIMIT answer, in ms. Default 30 000. */
  maxBackoffMs?: number;
  /**
   * Called with the new token after an automatic refresh, e.g. to keep it for the next run.
   * An exception thrown here reaches the calls that waited for that refresh.
   */
  onTokenRefreshed?: (token: string) => void;
  /** The fetch to use; the global one by default. */
  fetch?: typeof fetch;
  /**
   * How an HTTP exchange is made, in place of fetch: for a service in the same process (the
   * tool server of /mcp), which answers without building a web Request and Response.
   */
  exchange?: Exchange;
  /**
   * Whether a 401 is answered by renewing the token through /auth/refresh (default true).
   * False for an agent's token, which only the authorization server renews (/oauth/token).
   */
  refresh?: boolean;
  /**
   * The language of the person the calls are made for, sent as Accept-Language (the service
   * answers in the user's saved language first, this one second). Without it, the client's own
   * messages follow the language the service last answered in (Content-Language).
   */
  locale?: Locale;
}

/** An HTTP request as the client makes it, and the answer as it reads it. */
export type Exchange = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
) => Promise<ExchangeAnswer>;

export interface ExchangeAnswer {
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  text: string;
}

/** An exchange made with fetch (the client's default, with the global fetch). */
export const fetchExchange =
  (f: typeof fetch): Exchange =>
  async (url, init) => {
    const res = await f(url, init);
    return { status: res.status, statusText: res.statusText, headers: res.headers, text: await res.text() };
  };

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions<S extends z.ZodType | undefined = undefined> {
  /** Query parameters; undefined and null values are left out. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as the `Idempotency-Key` header (the same key on every retry of this call). */
  idempotencyKey?: string;
  /** More headers for this call (a protocol's own, e.g. ACP's API-Version); ours win a clash. */
  headers?: Record<string, string>;
  /**
   * 'acp': the route answers ACP's flat error, thrown as AcpApiError; every other failure (no
   * answer, a broken contract) is thrown as one too, made from our error.
   */
  errors?: 'acp' | 'ucp';
  /** Validates (and types) a success answer. */
  schema?: S;
  /** Told when the answer is one stored under the Idempotency-Key (`Idempotent-Replayed: true`). */
  replayed?: () => void;
}

/** Exponential backoff without Retry-After: 250 ms, 500 ms, 1 s, ... */
const BACKOFF_BASE_MS = 250;

/**
 * What a token can hold: a JWT is base64url and dots. Anything else (a line break pasted
 * along, a space) cannot go in a header, and fetch's refusal would quote the header, token
 * and all.
 */
const TOKEN_CHARACTERS = /^[\x21-\x7e]*$/;

/** Paths whose 401 means bad credentials, not an expired token: never answered by a refresh. */
const NO_REFRESH = /^\/auth\/(login|register|refresh)(\/|\?|$)/;

interface RawAnswer extends ExchangeAnswer {
  json: unknown;
}

/** The HTTP side of PortageClient: its token, language and masking, and `request`. */
export class HttpClient {
  readonly baseUrl: string;
  readonly maxRetries: number;
  readonly maxBackoffMs: number;
  #token: string;
  readonly #onTokenRefreshed: ((token: string) => void) | undefined;
  readonly #exchange: Exchange;
  readonly #refreshes: boolean;
  /** The refresh under way, shared by every call that got a 401 meanwhile. */
  #refreshing: Promise<boolean> | undefined;
  /** A token the service refused to refresh: later 401s with it are thrown at once. */
  #unrefreshable: string | undefined;
  /** Its latest tokens and the address's userinfo: masked in every error. */
  readonly #secrets: KnownSecrets;
  /** Why no call can be made with this address (it carries a user name or password). */
  readonly #addressRefusal: PortageApiError | undefined;
  /** The language asked for (Accept-Language), when configured. */
  readonly locale: Locale | undefined;
  /** The language the service's last answer was written in (its Content-Language). */
  #answeredLocale: Locale | undefined;

  constructor(options: PortageClientOptions) {
    if (!URL.canParse(options.baseUrl)) {
      throw new TypeError(
        `baseUrl must be an absolute URL such as https://api.example.ca, not ${maskUrl(options.baseUrl)}`,
      );
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.locale = options.locale;
    this.#secrets = new KnownSecrets(urlCredentials(this.baseUrl));
    if (this.#secrets.hasAddressSecrets) {
      this.#addressRefusal = new PortageApiError({
        error: t(this.messageLocale, 'tool.client.addressCredentials', { url: maskUrl(this.baseUrl) }),
        code: 'VALIDATION_ERROR',
        statusCode: 400,
      });
    }
    this.#token = options.token;
    this.#secrets.addToken(options.token);
    this.maxRetries = Math.max(0, options.maxRetries ?? 3);
    this.maxBackoffMs = Math.max(0, options.maxBackoffMs ?? 30_000);
    this.#onTokenRefreshed = options.onTokenRefreshed;
    this.#exchange =
      options.exchange ?? fetchExchange(options.fetch ?? ((input, init) => globalThis.fetch(input, init)));
    this.#refreshes = options.refresh ?? true;
  }

  /** The token in use now (a refreshed one after an automatic refresh). */
  get token(): string {
    return this.#token;
  }

  /** The language the service's last answer was written in (Content-Language), once it answered. */
  get answeredLocale(): Locale | undefined {
    return this.#answeredLocale;
  }

  /**
   * The language to write to the person in: the one asked for, else the one the service last
   * answered in (the user's saved choice, or the service's default), else the base locale.
   */
  get messageLocale(): Locale {
    return this.locale ?? this.#answeredLocale ?? BASE_LOCALE;
  }

  /**
   * `text` without the credentials this client knows (its tokens, the address's userinfo) nor
   * anything shaped like one: for every message made from the address, a header or an error.
   */
  maskCredentials(text: string): string {
    return this.#secrets.mask(text);
  }

  // ---- any call -------------------------------------------------------------------------------

  /**
   * One call of the API. `path` is relative to the base URL and starts with `/`; encode
   * path segments with encodeURIComponent. Answers the parsed JSON (validated by `schema`
   * when given); throws PortageApiError for any non-2xx answer, a network failure, or an
   * answer that breaks the schema (AcpApiError instead with `errors: 'acp'`).
   */
  request<S extends z.ZodType>(
    method: HttpMethod,
    path: string,
    options: RequestOptions<S> & { schema: S },
  ): Promise<z.output<S>>;
  request(method: HttpMethod, path: string, options?: RequestOptions): Promise<unknown>;
  async request(method: HttpMethod, path: string, options: RequestOptions<z.ZodType | undefined> = {}) {
    try {
      return await this.#request(method, path, options);
    } catch (err) {
      // The one place errors leave the client: none carries a credential (mask.ts).
      const mask = (text: string) => this.maskCredentials(text);
      if (err instanceof PortageApiError) {
        const masked = err.masked(mask);
        throw options.errors === 'acp'
          ? acpErrorOf(masked)
          : options.errors === 'ucp'
            ? ucpErrorOf(masked)
            : masked;
      }
      if (err instanceof AcpApiError || err instanceof UcpApiError) throw err.masked(mask);
      throw err;
    }
  }

  // ---- internals ------------------------------------------------------------------------------

  async #request(method: HttpMethod, path: string, options: RequestOptions<z.ZodType | undefined>) {
    if (!path.startsWith('/'))
      throw new TypeError(`path must start with /, not ${this.maskCredentials(path)}`);
    if (this.#addressRefusal) throw this.#addressRefusal;
    const url = this.baseUrl + path + queryString(options.query);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      // fetch's own refusal would quote the value; a header holds one line of text.
      if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(value)) {
        throw new TypeError(`The ${name.slice(0, 100)} header's value must be one line of text`);
      }
      headers[name.toLowerCase()] = value;
    }
    headers.accept = 'application/json';
    // A call's own language (ACP's meta.accept_language) wins over the client's.
    if (this.locale && headers['accept-language'] === undefined) headers['accept-language'] = this.locale;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);

    let refreshed = false;
    let retries = 0;
    for (;;) {
      const sentToken = this.#token;
      if (!TOKEN_CHARACTERS.test(sentToken)) {
        throw new PortageApiError({
          error: t(this.messageLocale, 'tool.client.tokenCharacters'),
          code: 'AUTH_ERROR',
          statusCode: 401,
        });
      }
      const answer = await this.#send(method, url, { ...headers, ...authorization(sentToken) }, body);
      if (answer.status >= 200 && answer.status < 300) {
        if (answer.headers.get('idempotent-replayed') === 'true') options.replayed?.();
        return this.#parse(method, path, answer, options.schema);
      }

      // Masked before errorFromAnswer cuts it short: a cut token would no longer be recognised.
      const text = this.maskCredentials(answer.text);
      const ours = errorFromAnswer(answer.status, answer.statusText, answer.json, text, this.messageLocale);
      const err =
        options.errors === 'acp'
          ? acpErrorFromAnswer(answer.status, answer.json, ours)
          : options.errors === 'ucp'
            ? ucpErrorFromAnswer(answer.status, answer.json, ours)
            : ours;
      // Spec 7: an expired token is renewed once; AUTH_ERROR itself is never retried.
      if (answer.status === 401 && this.#refreshes && !refreshed && sentToken && !NO_REFRESH.test(path)) {
        refreshed = true;
        if (await this.#renew(sentToken)) continue;
        throw err;
      }
      if (answer.status === 429 && retries < this.maxRetries) {
        await sleep(this.#rateLimitWait(answer.headers, retries));
        retries++;
        continue;
      }
      throw err;
    }
  }

  async #send(
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<RawAnswer> {
    let res: ExchangeAnswer | undefined;
    // A keep-alive connection the server closed just as it was reused fails with a reset before
    // the request is read: a GET, or a request with an Idempotency-Key, is sent once more.
    const safe = method === 'GET' || Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');
    for (let attempt = 0; !res; attempt++) {
      try {
        res = await this.#exchange(url, { method, headers, body });
      } catch (err) {
        res = undefined;
        if (safe && attempt === 0 && connectionReset(err)) continue;
        throw networkError(this.baseUrl, err, this.messageLocale);
      }
    }
    // The language the service wrote in: what the client's own messages follow when none was asked for.
    const answered = negotiateLocale(res.headers.get('content-language'));
    if (answered) this.#answeredLocale = answered;
    const text = res.text;
    let json: unknown;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {}
    }
    return { status: res.status, statusText: res.statusText, headers: res.headers, text, json };
  }

  #parse(method: string, path: string, answer: RawAnswer, schema: z.ZodType | undefined): unknown {
    const value = answer.json !== undefined ? answer.json : answer.text || undefined;
    if (!schema) return value;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const details = parsed.error.issues.map((i) => ({
      field: i.path.map(String).join('.') || '(body)',
      message: i.message,
    }));
    throw new PortageApiError({
      // zod's words for each mismatch (English): they are for whoever upgrades the client.
      error: t(this.messageLocale, 'tool.client.contractMismatch', {
        method,
        path,
        list: details.map((d) => `${d.field}: ${d.message}`).join('; '),
      }),
      code: 'INTERNAL_ERROR',
      statusCode: 502,
      details,
    });
  }

  /**
   * After a 401 to a call sent with `sentToken`: true when a usable newer token is in place
   * (renewed by this call, by a concurrent one, or earlier), false when the refresh failed.
   */
  async #renew(sentToken: string): Promise<boolean> {
    if (this.#token !== sentToken) return true;
    if (this.#unrefreshable === sentToken) return false;
    this.#refreshing ??= this.#refresh(sentToken).finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #refresh(token: string): Promise<boolean> {
    let answer: RawAnswer;
    try {
      answer = await this.#send('POST', `${this.baseUrl}/auth/refresh`, {
        accept: 'application/json',
        ...authorization(token),
      });
    } catch {
      return false;
    }
    if (answer.status === 401) {
      // Refused for good (too old, revoked, forged): asking again cannot help.
      this.#unrefreshable = token;
      return false;
    }
    const parsed = refreshAnswer.safeParse(answer.json);
    if (answer.status !== 200 || !parsed.success) return false;
    this.#token = parsed.data.token;
    this.#secrets.addToken(parsed.data.token);
    this.#onTokenRefreshed?.(parsed.data.token);
    return true;
  }

  /** Retry-After (seconds or an HTTP date), else 250 ms * 2^attempt; at most maxBackoffMs. */
  #rateLimitWait(headers: ExchangeAnswer['headers'], attempt: number): number {
    const header = headers.get('retry-after')?.trim();
    let ms: number | undefined;
    if (header) {
      if (/^\d+(\.\d+)?$/.test(header)) ms = Number(header) * 1000;
      else if (!Number.isNaN(Date.parse(header))) ms = Date.parse(header) - Date.now();
    }
    ms ??= BACKOFF_BASE_MS * 2 ** attempt;
    return Math.min(Math.max(ms, 0), this.maxBackoffMs);
  }
}

/**
 * One path segment: ids contain `:` and may contain anything a caller typed. An empty, `.`
 * or `..` segment would name another path (URLs resolve dot segments even when encoded).
 */
export function pathSegment(value: string, locale: Locale): string {
  if (value === '' || value === '.' || value === '..') {
    throw new PortageApiError({
      error: t(locale, 'tool.client.notAnId', { value }),
      code: 'VALIDATION_ERROR',
      statusCode: 400,
    });
  }
  return encodeURIComponent(value);
}

const authorization = (token: string): Record<string, string> =>
  token ? { authorization: `Bearer ${token}` } : {};

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.append(key, String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Whether a fetch failed because the server reset a (reused) connection. */
function connectionReset(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } })?.cause;
  return cause?.code === 'ECONNRESET' || cause?.code === 'UND_ERR_SOCKET';
}
