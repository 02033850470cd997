// Text the database cannot hold, or structures no client needs, refused as 400 before any
// service sees them (docs/decisions.md "Security"): a NUL character
// (PostgreSQL text cannot hold one), a lone UTF-16 surrogate (PostgreSQL's JSON and text
// refuse it), and JSON nested deeper than MAX_JSON_DEPTH. Checked by an explicit walk: a
// recursion over hostile nesting would overflow the stack.
import type { FastifyInstance } from 'fastify';
import { invalid } from '../contract/errors.ts';
import type { Text } from '../contract/i18n.ts';

const MAX_JSON_DEPTH = 32;

const NUL: Text = { key: 'error.input.nul' };
const SURROGATE: Text = { key: 'error.input.loneSurrogate' };
const DEEP: Text = { key: 'error.input.tooDeep', values: { max: MAX_JSON_DEPTH } };

const LONE_SURROGATE = /\p{Cs}/u;

function textProblem(text: string): Text | undefined {
  if (text.includes('\u0000')) return NUL;
  if (LONE_SURROGATE.test(text)) return SURROGATE;
  return undefined;
}

/** Why a parsed input (a JSON body, a query, path parameters) cannot be accepted, if it cannot. */
function inputProblem(value: unknown): Text | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const v = next.value;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return problem;
      continue;
    }
    // A raw body (the payment webhook's) is checked by its own route, as bytes.
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v)) continue;
    if (next.depth >= MAX_JSON_DEPTH) return DEEP;
    for (const [key, item] of Object.entries(v)) {
      const problem = textProblem(key);
      if (problem) return problem;
      stack.push({ value: item, depth: next.depth + 1 });
    }
  }
  return undefined;
}

/** Refuses unsafe input on every route, before validation and the handler. */
export function refuseUnsafeInput(app: FastifyInstance) {
  app.addHook('preValidation', async (req) => {
    // %00 in the raw URL: a decoded NUL may also sit in the path, where params show it.
    const problem = req.url.includes('%00')
      ? NUL
      : (inputProblem(req.params) ?? inputProblem(req.query) ?? inputProblem(req.body));
    if (problem) throw invalid(problem.key, problem.values);
  });
}

/**
 * Reads HTML forms (application/x-www-form-urlencoded) in a plugin's routes, up to `limit` bytes:
 * each field a string, a field sent twice a list (OAuth refuses a repeated parameter; the pages'
 * checkboxes send one name many times).
 */
export function acceptForms(app: FastifyInstance, limit: number) {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: limit },
    (_req, body, done) => {
      const form: Record<string, string | string[]> = {};
      for (const [k, v] of new URLSearchParams(body as string)) {
        const had = form[k];
        form[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
      }
      done(null, form);
    },
  );
}
