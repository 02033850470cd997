// The pieces of the API fuzz test (test/fuzz.test.ts): a seeded random source, malformed values,
// request cases made from an OpenAPI operation, and the checks every answer must pass.
import { acpError } from '../../src/contract/acp.ts';
import { codeForStatus } from '../../src/contract/errors.ts';
import { ucpProtocolError } from '../../src/contract/ucp.ts';
import { prng } from '../../src/db/seed.ts';

// ---- a seeded random source ---------------------------------------------------------------

/** The seed's generator (mulberry32, as the catalog seed uses), with a shuffled sample. */
export function seeded(seed: number) {
  const { next } = prng(seed);
  return {
    next,
    /** `n` items of `list` (all of them when it is shorter), in a random order. */
    sample<T>(list: readonly T[], n: number): T[] {
      const copy = [...list];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy.slice(0, n);
    },
  };
}

// ---- malformed values ---------------------------------------------------------------------

const LONG = 'x'.repeat(10_240);
const DEEP = 10_000;

/**
 * Text that has broken services before. The SQL is written so that an echo of it does not look
 * like a leaked statement (no "select " with a space, no "insert into"): the leak check below
 * must not fire on our own input.
 */
export const NASTY_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202eevil\u202d',
  '\u200f\u200e\u2066rtl\u2069',
  '\ufeff',
  '',
  '   ',
  LONG,
  "' OR '1'='1' --",
  '"; DROP TABLE products; --',
  '1) UNION(SELECT(password_hash)FROM(users))--',
  '%27%20OR%201=1',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose
  '{{7*7}}${7*7}',
  '../../../../etc/passwd',
  '😀🇨🇦\u0301',
  'products:',
  ':',
  '\\',
  '\r\n',
];

/** JSON texts (raw, so that 1e309 and lone surrogates really are sent) of the wrong kind. */
export const WRONG_JSON_VALUES = [
  '[]',
  '[1,"a",null]',
  '{}',
  '{"$gt":""}',
  'null',
  'true',
  'false',
  '1e309',
  '-1e309',
  '-1',
  '0',
  '-0',
  '0.5',
  '1e-7',
  '9007199254740992',
  '-9007199254740993',
  '123456789012345678901234567890',
  '"12"',
  '"\\u0000"',
  '"\\ud800"',
  '"a\\udc00b"',
  ...NASTY_STRINGS.filter((s) => !/[\ud800-\udfff]/.test(s)).map((s) => JSON.stringify(s)),
  `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`,
  `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`,
];

/** Whole bodies that are not what any route takes. */
export const BAD_BODIES = [
  '',
  ' ',
  'null',
  '[]',
  '"a string"',
  '1e309',
  'true',
  '{',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  '\ufeff{}',
  '{"a":"\\ud800"}',
  '{"__proto__":{"role":"admin"}}',
  '{"constructor":{"prototype":{"role":"admin"}}}',
  `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`,
  `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`,
  `{"a":"${LONG}"}`,
];

/** Query values, already in the URL's encoding: bad escapes included. */
export const BAD_QUERY_VALUES = [
  '%',
  '%zz',
  '%c0%ae',
  '%00',
  '%ED%A0%80',
  '%FF%FE',
  '-1',
  '0.5',
  '1e309',
  '9007199254740992',
  'abc',
  '',
  'true',
  LONG,
  ...NASTY_STRINGS.filter((s) => !/[\ud800-\udfff]/.test(s) && s.length < 100).map(encodeURIComponent),
];

/** Path parameters, already in the URL's encoding. */
export const BAD_PATH_VALUES = [
  `products:${'a'.repeat(120)}`,
  'a'.repeat(101),
  'a'.repeat(10_000),
  '%',
  '%zz',
  '%c0%ae',
  '%00',
  '%ED%A0%80',
  '%2e%2e',
  '..%2F..%2Fetc',
  ' ',
  '%20',
  ...NASTY_STRINGS.filter((s) => !/[\ud800-\udfff]/.test(s) && s.length < 100).map(encodeURIComponent),
];

export const BAD_CONTENT_TYPES: Array<{
  contentType?: string;
  body: (json: string) => string;
  extra?: Record<string, string>;
}> = [
  { contentType: 'text/plain', body: (json) => json },
  { contentType: 'application/x-www-form-urlencoded', body: () => 'a=1&b=%zz' },
  { contentType: 'multipart/form-data', body: () => '--x\r\n\r\n' },
  { contentType: 'application/json; charset=utf-16', body: (json) => json },
  { contentType: 'application/xml', body: () => '<a/>' },
  { contentType: 'application/json', body: (json) => json, extra: { 'content-encoding': 'gzip' } },
  { contentType: 'application/json', body: () => 'not json at all' },
  { contentType: '', body: (json) => json },
  { contentType: undefined, body: (json) => json },
  { contentType: '*/*', body: (json) => json },
  { contentType: 'application/json;;;', body: (json) => json },
];

export const BAD_AUTHORIZATIONS = (token: string | undefined) => [
  'Bearer',
  'Bearer ',
  `Bearer ${'a'.repeat(10_000)}`,
  'Basic dXNlcjpwYXNz',
  'Bearer a.b.c',
  'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1c2VyczphZG1pbiIsInJvbGUiOiJhZG1pbiJ9.',
  ...(token
    ? [
        `Bearer ${token}x`,
        `bearer ${token}`,
        `Bearer  ${token}`,
        `Bearer ${token.split('.').slice(0, 2).join('.')}.`,
      ]
    : []),
];

// ---- an operation of /openapi.json --------------------------------------------------------

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema as /openapi.json serves it
export type Schema = any;

export interface Operation {
  method: string;
  /** The path as OpenAPI writes it: `/products/{productId}`. */
  path: string;
  pathParams: string[];
  queryParams: Array<{ name: string; schema: Schema; required: boolean }>;
  body: Schema | undefined;
}

/**
 * Routes listed in the document that answer in another specification's format, not ours: the
 * MCP endpoints (JSON-RPC: /mcp and UCP's /ucp/mcp), OAuth (RFC 6749 errors, HTML sign-in and
 * consent pages) and the sandbox's payment page (HTML). Their refusals are tested in their own files.
 */
const OTHER_FORMATS = /^\/(mcp$|ucp\/mcp$|oauth\/|\.well-known\/oauth-|sandbox\/checkout\/\{sessionId\}$)/;

export function operationsOf(openapi: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(openapi.paths ?? {})) {
    if (OTHER_FORMATS.test(path)) continue;
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params: Schema[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) =>
        resolve(openapi, p),
      );
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: p.schema, required: p.required === true })),
        body: op.requestBody
          ? resolve(openapi, resolve(openapi, op.requestBody).content?.['application/json']?.schema)
          : undefined,
      });
    }
  }
  return ops;
}

export function resolve(openapi: Schema, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) {
    s = String(s.$ref)
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: Schema, key: string) => node?.[key], openapi);
  }
  return s;
}

/** What the test made, for ids and values found by name. */
export interface Fixtures {
  /** A record id per collection (`products`, `users`, ...). */
  ids: Record<string, string>;
  /**
   * Values by property or parameter name (`code`, `email`, ...): a function for fresh ones;
   * undefined leaves the property out (one of two that exclude each other).
   */
  values: Record<string, () => unknown>;
  /** The id used when a name says nothing: an existing product. */
  fallbackId: string;
}

const plural = (stem: string) => (/[^aeiou]y$/.test(stem) ? `${stem.slice(0, -1)}ies` : `${stem}s`);

/**
 * The id for a path parameter or an id-valued property, by its name: `productId`/`product_id`
 * names products; a bare `id` takes the collection from the path segment before it.
 */
export function idFor(fixtures: Fixtures, name: string, path = ''): string | undefined {
  const stem = /^(.+?)_?[iI]d$/.exec(name)?.[1];
  if (stem) return fixtures.ids[plural(stem.toLowerCase())] ?? fixtures.ids[stem.toLowerCase()];
  if (name === 'id') {
    const segments = path.split('/').filter(Boolean);
    const at = segments.indexOf(`{${name}}`);
    const collection = at > 0 ? segments[at - 1] : undefined;
    return (collection && fixtures.ids[collection]) || fixtures.fallbackId;
  }
  return undefined;
}

/** A value the schema accepts, made from the fixtures where a name says what it is. */
export function validValue(
  openapi: Schema,
  fixtures: Fixtures,
  schema: Schema,
  name = '',
  path = '',
): unknown {
  const s = resolve(openapi, schema) ?? {};
  if (name in fixtures.values) return fixtures.values[name]!();
  const id = name ? idFor(fixtures, name, path) : undefined;
  if (/ur[il]$/i.test(name)) return 'https://example.ca/fuzz.png';
  if (id && (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string')))) return id;
  if (s.default !== undefined) return s.default;
  if (s.enum) return s.enum[0];
  const choice = s.anyOf ?? s.oneOf;
  if (choice)
    return validValue(
      openapi,
      fixtures,
      choice.find((c: Schema) => c.type !== 'null') ?? choice[0],
      name,
      path,
    );
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'string': {
      const candidates = [
        'fuzz',
        'fuzz-1',
        '2030-01-01',
        'A1A 1A1',
        '+15555550123',
        'https://example.ca/a.png',
      ];
      const pattern = s.pattern ? new RegExp(s.pattern, 'u') : undefined;
      const found = candidates.find((c) => !pattern || pattern.test(c)) ?? 'fuzz';
      return found.padEnd(s.minLength ?? 0, 'z');
    }
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries<Schema>(s.properties ?? {})) {
        out[key] = validValue(openapi, fixtures, prop, key, path);
      }
      return out;
    }
    default:
      return null;
  }
}

// ---- the checks ---------------------------------------------------------------------------

/** The code of a status, as the contract maps it (src/contract/errors.ts); 5xx is INTERNAL_ERROR. */
export function expectedCode(status: number): string | undefined {
  return status >= 500 ? 'INTERNAL_ERROR' : codeForStatus(status);
}

/** What must never leave the process: a stack trace, a file path, SQL. */
export const LEAKS: Array<[string, RegExp]> = [
  ['stack trace', /\bat .+\(.+:\d+:\d+\)/],
  ['file path', /node_modules|\/src\/|\.ts:\d|\.js:\d|file:\/\//],
  [
    'SQL',
    /select |insert into|syntax error at|violates .* constraint|relation ".*"|\bpg_|duplicate key value/i,
  ],
];

/** The routes that answer ACP's flat error (`{type, code, message, param?}`) instead of ours. */
export const ACP_PATHS = /^\/(acp\/|agentic_commerce\/)/;
/** The routes that answer UCP's protocol error (`{code, content}`) instead of ours. */
export const UCP_PATHS = /^\/ucp\//;

/** The error model a path answers in. */
export const modelOf = (path: string) =>
  ACP_PATHS.test(path) ? 'acp' : UCP_PATHS.test(path) ? 'ucp' : 'portage';

/**
 * Why an answer breaks the error model (ours, or ACP's on the ACP routes), or undefined when it
 * keeps to it.
 */
export function problemsOf(
  status: number,
  contentType: string | undefined,
  text: string,
  model: 'portage' | 'acp' | 'ucp' = 'portage',
): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`status ${status}`);
  for (const [what, pattern] of LEAKS) {
    // A success answer may echo what was sent; an error answer has no business naming these.
    if (status >= 400 || what === 'stack trace') if (pattern.test(text)) problems.push(`${what} in the body`);
  }
  if (status < 400) return problems;
  if (!/^application\/json/.test(contentType ?? '')) problems.push(`content-type ${contentType ?? '(none)'}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    problems.push('body is not JSON');
    return problems;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [...problems, 'body is not an object'];
  if (model === 'acp') {
    const parsed = acpError.safeParse(body);
    return parsed.success ? problems : [...problems, `not ACP's error: ${parsed.error.issues[0]?.message}`];
  }
  if (model === 'ucp') {
    const parsed = ucpProtocolError.safeParse(body);
    const b = body as Record<string, unknown>;
    const extra = Object.keys(b).filter((k) => !['code', 'content', 'continue_url'].includes(k));
    if (!parsed.success) return [...problems, `not UCP's protocol error: ${parsed.error.issues[0]?.message}`];
    return extra.length ? [...problems, `unexpected keys ${extra.join(', ')}`] : problems;
  }
  const b = body as Record<string, unknown>;
  const allowed = ['error', 'code', 'statusCode', 'details', ...(status === 500 ? ['requestId'] : [])];
  const extra = Object.keys(b).filter((k) => !allowed.includes(k));
  if (extra.length) problems.push(`unexpected keys ${extra.join(', ')}`);
  if (typeof b.error !== 'string' || b.error === '') problems.push('error is not a non-empty string');
  if (b.statusCode !== status) problems.push(`statusCode ${JSON.stringify(b.statusCode)} is not ${status}`);
  const code = expectedCode(status);
  if (b.code !== code)
    problems.push(`code ${JSON.stringify(b.code)} is not ${code ?? '(no code for this status)'}`);
  if (b.details !== undefined) {
    const ok =
      Array.isArray(b.details) &&
      b.details.every(
        (d) =>
          d &&
          typeof d === 'object' &&
          typeof d.field === 'string' &&
          typeof d.message === 'string' &&
          Object.keys(d).length === 2,
      );
    if (!ok) problems.push('details is not an array of {field, message}');
  }
  return problems;
}
