// A UCP platform as the tests drive it: its profile served on a local port, its key issued by an
// admin with that profile registered, every request sent with the spec's headers, and every
// request and answer checked against our zod contract of UCP v2026-04-08, and every answer the
// official REST binding defines against its official schemas (helpers/official-schemas.ts).
import { createHash, createPublicKey, randomUUID, verify } from 'node:crypto';
import { createServer } from 'node:http';
import { httpbis } from 'http-message-signatures';
import { expect } from 'vitest';
import {
  UCP_VERSION,
  ucpBusinessProfile,
  ucpCheckout,
  ucpCheckoutCompleteRequest,
  ucpCheckoutCreateRequest,
  ucpCheckoutUpdateRequest,
  ucpErrorResponse,
  ucpOrder,
  ucpProtocolError,
} from '../../src/contract/ucp.ts';
import type { Answer, Api, SignedIn } from './app.ts';
import { expectOfficial, ucpOrderProblems, ucpProfileProblems, ucpRestProblems } from './official-schemas.ts';

const SPEC = `https://ucp.dev/${UCP_VERSION}/specification`;
const SCHEMAS = `https://ucp.dev/${UCP_VERSION}/schemas`;

/** A Canadian shipping destination as UCP sends it. */
export const UCP_ON = {
  first_name: 'Avery',
  last_name: 'Tremblay',
  street_address: '100 Queen St W',
  address_locality: 'Toronto',
  address_region: 'ON',
  address_country: 'CA',
  postal_code: 'M5H 2N2',
  phone_number: '+14165550123',
};

export const UCP_QC = {
  ...UCP_ON,
  street_address: '1000 Rue Sherbrooke O',
  address_locality: 'Montréal',
  address_region: 'QC',
  postal_code: 'H3A 3G4',
  phone_number: '+15145550123',
};

type Capabilities = Record<string, Array<Record<string, unknown>>>;

/** A platform profile declaring checkout (+ fulfillment, discount) and order with its webhook URL. */
export function platformProfile(webhookUrl: string, capabilities?: Capabilities, version = UCP_VERSION) {
  const cap = (doc: string, schema: string, extra: Record<string, unknown> = {}) => [
    { version: UCP_VERSION, spec: `${SPEC}/${doc}`, schema: `${SCHEMAS}/${schema}`, ...extra },
  ];
  return {
    ucp: {
      version,
      services: {
        'dev.ucp.shopping': [
          {
            version: UCP_VERSION,
            spec: `${SPEC}/overview`,
            transport: 'rest',
            schema: `https://ucp.dev/${UCP_VERSION}/services/shopping/rest.openapi.json`,
          },
        ],
      },
      capabilities: capabilities ?? {
        'dev.ucp.shopping.checkout': cap('checkout', 'shopping/checkout.json'),
        'dev.ucp.shopping.fulfillment': cap('fulfillment', 'shopping/fulfillment.json', {
          extends: 'dev.ucp.shopping.checkout',
        }),
        'dev.ucp.shopping.discount': cap('discount', 'shopping/discount.json', {
          extends: 'dev.ucp.shopping.checkout',
        }),
        'dev.ucp.shopping.order': cap('order', 'shopping/order.json', {
          config: { webhook_url: webhookUrl },
        }),
        'dev.ucp.shopping.catalog.search': cap('catalog/search', 'shopping/catalog_search.json'),
        'dev.ucp.shopping.catalog.lookup': cap('catalog/lookup', 'shopping/catalog_lookup.json'),
      },
      payment_handlers: {},
    },
  };
}

/** Serves documents at paths of a local port (the platform's profile), counting the requests. */
export interface ProfileServer {
  base: string;
  documents: Map<string, { body: unknown; cacheControl?: string }>;
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startProfileServer(): Promise<ProfileServer> {
  const documents = new Map<string, { body: unknown; cacheControl?: string }>();
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const doc = documents.get(path);
    if (!doc) return res.writeHead(404).end();
    res
      .writeHead(200, {
        'content-type': 'application/json',
        'cache-control': doc.cacheControl ?? 'public, max-age=60',
      })
      .end(typeof doc.body === 'string' ? doc.body : JSON.stringify(doc.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return {
    base: `http://127.0.0.1:${address.port}`,
    documents,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface UcpPlatform {
  id: string;
  apiKey: string;
  profileUrl: string;
}

/** Registers a platform with its UCP profile URL. */
export async function issueUcpPlatform(api: Api, boss: SignedIn, profileUrl: string): Promise<UcpPlatform> {
  const res = await api.as(boss).post('/admin/platforms', {
    name: 'Maple Agent',
    webhookUrl: 'http://127.0.0.1:9/hooks',
    ucpProfileUrl: profileUrl,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id, apiKey: res.body.apiKey, profileUrl };
}

/**
 * A checkout (or the no-resource error) on 2xx, also as the official binding defines the answer of
 * `operation`; the protocol error's `{code, content}` otherwise (the spec gives it no schema).
 */
function checked(res: Answer, operation: string): Answer {
  if (res.status < 300) {
    if (res.body?.ucp?.status === 'error') ucpErrorResponse.parse(res.body);
    else ucpCheckout.parse(res.body);
    expectOfficial(ucpRestProblems(operation, res.status, res.body), res.body);
  } else {
    ucpProtocolError.parse(res.body);
  }
  return res;
}

export class UcpClient {
  constructor(
    readonly api: Api,
    readonly platform: UcpPlatform,
    readonly base = '/ucp/v1/checkout-sessions',
  ) {}

  headers(extra: Record<string, string> = {}, write = true): Record<string, string> {
    return {
      'x-api-key': this.platform.apiKey,
      'ucp-agent': `profile="${this.platform.profileUrl}"`,
      'request-id': randomUUID(),
      ...(write ? { 'idempotency-key': randomUUID() } : {}),
      ...extra,
    };
  }

  async create(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    ucpCheckoutCreateRequest.parse(body);
    return checked(await this.api.post(this.base, body, this.headers(headers)), 'create_checkout');
  }

  async update(id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    ucpCheckoutUpdateRequest.parse(body);
    return checked(await this.api.put(`${this.base}/${id}`, body, this.headers(headers)), 'update_checkout');
  }

  async get(id: string, headers: Record<string, string> = {}) {
    return checked(await this.api.get(`${this.base}/${id}`, this.headers(headers, false)), 'get_checkout');
  }

  async complete(
    id: string,
    token: string,
    headers: Record<string, string> = {},
    handlerId = 'portage_sandbox_card',
  ) {
    const payment = {
      instruments: [
        {
          id: 'pi_1',
          handler_id: handlerId,
          type: 'card',
          selected: true,
          credential: { type: 'token', token },
        },
      ],
    };
    return checked(
      await this.api.post(
        `${this.base}/${id}/complete`,
        ucpCheckoutCompleteRequest.parse({ payment }),
        this.headers(headers),
      ),
      'complete_checkout',
    );
  }

  async cancel(id: string, headers: Record<string, string> = {}) {
    return checked(
      await this.api.post(`${this.base}/${id}/cancel`, undefined, this.headers(headers)),
      'cancel_checkout',
    );
  }
}

/**
 * Verifies an order webhook as a platform would: its Content-Digest, then its RFC 9421 signature
 * with a key of our published profile. Answers the order it carries (checked against the contract).
 */
export async function verifiedUcpWebhook(
  api: Api,
  url: string,
  hook: { headers: Record<string, string | string[] | undefined>; body: string },
) {
  const headers = hook.headers as Record<string, string>;
  expect(headers['content-digest']).toBe(
    `sha-256=:${createHash('sha256').update(hook.body).digest('base64')}:`,
  );
  const profile = (await api.get('/.well-known/ucp')).body;
  expectOfficial(ucpProfileProblems(profile), profile);
  const published = ucpBusinessProfile.parse(profile).signing_keys ?? [];
  const verified = await httpbis.verifyMessage(
    {
      keyLookup: async (params) => {
        const jwk = published.find((k) => k.kid === params.keyid);
        if (!jwk) return null;
        const key = createPublicKey({ key: jwk as never, format: 'jwk' });
        return {
          id: jwk.kid,
          verify: async (data: Buffer, signature: Buffer) =>
            verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature),
        };
      },
      requiredFields: ['@method', '@authority', '@path', 'ucp-agent', 'content-digest', 'content-type'],
    },
    { method: 'POST', url, headers },
  );
  expect(verified).toBe(true);
  const order = JSON.parse(hook.body);
  expectOfficial(ucpOrderProblems(order), order);
  return ucpOrder.parse(order);
}
