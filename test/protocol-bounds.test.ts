// Nothing a platform sends grows a stored row without a bound: every string and list the ACP and
// UCP request contracts declare has a maximum (a map: its keys, its values and their count), and a
// request over one is refused before anything is stored (a session keeps its request).
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  acpCancelSessionRequest,
  acpCompleteSessionRequest,
  acpCreateSessionRequest,
  acpDelegatePaymentRequest,
  acpUpdateSessionRequest,
} from '../src/contract/acp.ts';
import {
  ucpCheckoutCompleteRequest,
  ucpCheckoutCreateRequest,
  ucpCheckoutUpdateRequest,
} from '../src/contract/ucp.ts';
import { rowsOf } from '../src/db/sql.ts';
import { ACP_ON, AcpClient, issuePlatform } from './helpers/acp.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, product, seller, uniqueEmail } from './helpers/builders.ts';

// biome-ignore lint/suspicious/noExplicitAny: zod's internals, read to walk a schema
type Internal = any;
const checksOf = (def: Internal) => (def.checks ?? []).map((c: Internal) => c._zod.def);
/** A pattern that bounds its match: no repetition without an upper bound. */
const bounding = (pattern: unknown) => !/[*+]|\{\d+,\}/.test(String(pattern));

/** The paths of `schema` whose strings, lists or maps have no maximum. */
function unbounded(
  schema: z.ZodType,
  path: string,
  found: string[] = [],
  seen = new Set<unknown>(),
): string[] {
  const s = schema as Internal;
  if (!s?._zod || seen.has(s)) return found;
  seen.add(s);
  const def = s._zod.def;
  const checks = checksOf(def);
  const hasMax = checks.some((c: Internal) => c.check === 'max_length' || c.check === 'length_equals');
  switch (def.type) {
    case 'string': {
      const fixed =
        ['datetime', 'date', 'time', 'uuid', 'ipv4', 'ipv6'].includes(def.format) ||
        checks.some(
          (c: Internal) => c.check === 'string_format' && c.format === 'regex' && bounding(c.pattern),
        );
      if (!hasMax && !fixed) found.push(path);
      break;
    }
    case 'array':
      if (!hasMax) found.push(`${path}[]`);
      unbounded(def.element, `${path}[]`, found, seen);
      break;
    case 'object':
      for (const [key, value] of Object.entries(def.shape))
        unbounded(value as z.ZodType, `${path}.${key}`, found, seen);
      break;
    case 'record':
      // Its count is a refinement (the number of keys): present, and its keys and values bounded.
      if (!checks.some((c: Internal) => c.check === 'custom')) found.push(`${path}{count}`);
      unbounded(def.keyType, `${path}{key}`, found, seen);
      unbounded(def.valueType, `${path}{}`, found, seen);
      break;
    case 'union':
      for (const [i, o] of (def.options as z.ZodType[]).entries()) unbounded(o, `${path}|${i}`, found, seen);
      break;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
      unbounded(def.innerType, path, found, seen);
      break;
    case 'pipe':
      unbounded(def.in, path, found, seen);
      break;
  }
  return found;
}

describe('the request contracts', () => {
  it.each([
    ['ACP create', acpCreateSessionRequest],
    ['ACP update', acpUpdateSessionRequest],
    ['ACP complete', acpCompleteSessionRequest],
    ['ACP cancel', acpCancelSessionRequest],
    ['ACP delegate payment', acpDelegatePaymentRequest],
    ['UCP create', ucpCheckoutCreateRequest],
    ['UCP update', ucpCheckoutUpdateRequest],
    ['UCP complete', ucpCheckoutCompleteRequest],
  ] as const)('%s: every string, list and map has a maximum', (_name, schema) => {
    expect(unbounded(schema as z.ZodType, '$')).toEqual([]);
  });

  it('the walk finds what is unbounded (a check that can fail)', async () => {
    const { z } = await import('zod');
    expect(
      unbounded(
        z.object({ a: z.string(), b: z.array(z.string().max(3)), c: z.record(z.string(), z.string()) }),
        '$',
      ),
    ).toEqual(['$.a', '$.b[]', '$.c{count}', '$.c{key}', '$.c{}']);
  });
});

describe('over HTTP', () => {
  const { t, database } = useTestApp();
  let acp: AcpClient;
  let shop: SignedIn;
  beforeAll(async () => {
    shop = await seller(t.api);
    acp = new AcpClient(
      t.api,
      (await issuePlatform(t.api, await admin(t.api, database))).apiKey,
      t.clock.now,
    );
  });

  const stored = async () =>
    (await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from acp_sessions`))[0]!.n;

  it('a 60 KB locale is refused (400, naming it), and nothing is kept', async () => {
    const p = await product(t.api, shop);
    const before = await stored();
    const res = await acp.create({
      line_items: [{ id: p.id }],
      buyer: { email: uniqueEmail('big'), first_name: 'Avery' },
      fulfillment_details: ACP_ON,
      locale: 'fr-CA'.padEnd(60_000, 'x'),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'invalid_request', code: 'invalid', param: '$.locale' });
    expect(await stored()).toBe(before);
  });

  it('a long Accept-Language is not kept as the session’s locale', async () => {
    const p = await product(t.api, shop);
    const res = await acp.create(
      {
        line_items: [{ id: p.id }],
        buyer: { email: uniqueEmail('lang'), first_name: 'Avery' },
        fulfillment_details: ACP_ON,
      },
      { 'accept-language': `fr-${'abcdefgh-'.repeat(1000)}CA` },
    );
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('locale');
  });
});
