// An ACP platform as the tests drive it: its key issued by an admin, every request sent with the
// spec's headers, and every answer checked against our zod contract of ACP 2026-04-17 and against
// the official JSON Schemas of that version (helpers/official-schemas.ts).
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import {
  acpCheckoutSession,
  acpDelegatePaymentError,
  acpDelegatePaymentResponse,
  acpError,
} from '../../src/contract/acp.ts';
import { agentSessions, webhookDeliveries } from '../../src/modules/agent-checkout/tables.ts';
import type { RequestContext } from '../../src/modules/context.ts';
import { ordersOfOneCheckout } from '../../src/modules/orders/service.ts';
import type { Answer, Api, SignedIn } from './app.ts';
import { product } from './builders.ts';
import type { TestDatabase } from './db.ts';
import { acpProblems, expectOfficial } from './official-schemas.ts';

export const ACP_VERSION = '2026-04-17';

/** A Canadian address as ACP sends it, with the buyer's phone in fulfillment_details. */
export const ACP_ON = {
  name: 'Avery Tremblay',
  phone_number: '4165550123',
  address: {
    name: 'Avery Tremblay',
    line_one: '100 Queen St W',
    city: 'Toronto',
    state: 'ON',
    country: 'CA',
    postal_code: 'M5H2N2',
  },
};

export const ACP_QC = {
  name: 'Avery Tremblay',
  phone_number: '+1 514 555 0123',
  address: {
    name: 'Avery Tremblay',
    line_one: '1000 Rue Sherbrooke O',
    city: 'Montréal',
    state: 'QC',
    country: 'CA',
    postal_code: 'H3A 3G4',
  },
};

export const CAPABILITIES = { payment: { handlers: [] } };

export interface Platform {
  id: string;
  apiKey: string;
  webhookSecret: string;
}

export async function issuePlatform(
  api: Api,
  boss: SignedIn,
  webhookUrl = 'http://127.0.0.1:9/hooks',
): Promise<Platform> {
  const res = await api.as(boss).post('/admin/platforms', { name: 'Maple Chat', webhookUrl });
  expect(res.status).toBe(201);
  return res.body;
}

/** Refusals delegate payment's own error codes cannot say, answered as the checkout API's. */
const KEPT_CODES = [
  'unauthorized',
  'forbidden',
  'not_found',
  'missing_api_version',
  'unsupported_api_version',
];

/**
 * Checks an answer against the contract and the official schema: a session or the delegate answer
 * on success, the flat error otherwise. Complete's answer is CheckoutSessionWithOrder once
 * completed; a payment still settling answers `complete_in_progress`, which has no order yet
 * (docs/acp.md "Choices"), as a CheckoutSession.
 */
function checked(res: Answer, kind: 'session' | 'complete' | 'delegate'): Answer {
  if (res.status < 300) {
    (kind === 'delegate' ? acpDelegatePaymentResponse : acpCheckoutSession).parse(res.body);
    const definition =
      kind === 'delegate'
        ? 'delegated'
        : kind === 'complete' && res.body.status === 'completed'
          ? 'completed'
          : 'session';
    expectOfficial(acpProblems(definition, res.body), res.body);
  } else if (kind === 'delegate' && res.status < 500 && !KEPT_CODES.includes(res.body?.code)) {
    // Delegate payment's own closed list of codes, but for what it has none for.
    acpDelegatePaymentError.parse(res.body);
    expectOfficial(acpProblems('delegateError', res.body), res.body);
  } else {
    acpError.parse(res.body);
    expectOfficial(acpProblems('error', res.body), res.body);
  }
  return res;
}

export class AcpClient {
  constructor(
    readonly api: Api,
    readonly token: string,
    /** The service's clock (a vault allowance expires an hour after it). */
    readonly now: () => Date = () => new Date(),
    /** The payment handler complete names: the sandbox's vault, or Stripe's shared payment tokens. */
    readonly handlerId: 'portage_sandbox_card' | 'stripe_shared_payment_token' = 'portage_sandbox_card',
  ) {}

  headers(extra: Record<string, string> = {}, post = true): Record<string, string> {
    return { 'api-version': ACP_VERSION, ...(post ? { 'idempotency-key': randomUUID() } : {}), ...extra };
  }

  async create(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return checked(
      await this.api
        .as(this.token)
        .post(
          '/acp/checkout_sessions',
          { currency: 'cad', capabilities: CAPABILITIES, ...body },
          this.headers(headers),
        ),
      'session',
    );
  }

  async update(id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return checked(
      await this.api.as(this.token).post(`/acp/checkout_sessions/${id}`, body, this.headers(headers)),
      'session',
    );
  }

  async get(id: string, headers: Record<string, string> = {}) {
    return checked(
      await this.api.as(this.token).get(`/acp/checkout_sessions/${id}`, this.headers(headers, false)),
      'session',
    );
  }

  async complete(id: string, token: string, headers: Record<string, string> = {}) {
    return checked(
      await this.api.as(this.token).post(
        `/acp/checkout_sessions/${id}/complete`,
        {
          payment_data: {
            handler_id: this.handlerId,
            instrument: { type: 'card', credential: { type: 'spt', token } },
          },
        },
        this.headers(headers),
      ),
      'complete',
    );
  }

  async cancel(id: string, headers: Record<string, string> = {}) {
    return checked(
      await this.api.as(this.token).post(`/acp/checkout_sessions/${id}/cancel`, {}, this.headers(headers)),
      'session',
    );
  }

  async delegate(
    sessionId: string,
    opts: { card?: string; maxAmount?: number; expiresAt?: string } = {},
    headers: Record<string, string> = {},
  ) {
    return checked(
      await this.api.as(this.token).post(
        '/agentic_commerce/delegate_payment',
        {
          payment_method: {
            type: 'card',
            card_number_type: 'fpan',
            number: opts.card ?? '4242424242424242',
            exp_month: '12',
            exp_year: '2030',
            display_card_funding_type: 'credit',
            display_last4: (opts.card ?? '4242424242424242').slice(-4),
            metadata: {},
          },
          allowance: {
            reason: 'one_time',
            max_amount: opts.maxAmount ?? 1_000_000,
            currency: 'cad',
            checkout_session_id: sessionId,
            merchant_id: 'portage',
            expires_at: opts.expiresAt ?? new Date(this.now().getTime() + 3600_000).toISOString(),
          },
          risk_signals: [],
          metadata: { source: 'test' },
        },
        this.headers(headers),
      ),
      'delegate',
    );
  }

  /** Vaults the paying test card for a session and completes it: answers the completed session. */
  async pay(sessionId: string) {
    const vaulted = await this.delegate(sessionId);
    expect(vaulted.status, JSON.stringify(vaulted.body)).toBe(201);
    return this.complete(sessionId, vaulted.body.id);
  }
}

/** A platform's webhook endpoint on a local port: records what it is sent, answers `status`. */
export interface Receiver {
  url: string;
  received: Array<{ headers: Record<string, string | string[] | undefined>; body: string }>;
  status: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const { createServer } = await import('node:http');
  const receiver: Receiver = { url: '', received: [], status: 200, close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      receiver.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  receiver.url = `http://127.0.0.1:${address.port}/acp/webhooks`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

/** A new product (stock 5, $25.00) and a session of `client` holding `quantity` of it for `buyer`, shipped in Ontario. */
export async function heldSessionOf(
  api: Api,
  shop: SignedIn,
  client: AcpClient,
  opts: { quantity?: number; buyer: Record<string, string> },
) {
  const p = await product(api, shop, { priceCents: 2500, stockQuantity: 5 });
  const res = await client.create({
    line_items: [{ id: p.id, quantity: opts.quantity ?? 1 }],
    buyer: opts.buyer,
    fulfillment_details: ACP_ON,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.status).toBe('ready_for_payment');
  return { session: res.body, product: p };
}

/** The Portage checkout holding a session's stock. */
export async function checkoutOfSession(database: TestDatabase, sessionId: string): Promise<string> {
  const [row] = await database.db.select().from(agentSessions).where(eq(agentSessions.id, sessionId));
  return row!.checkoutId!;
}

/** The outbox rows of an adapter session (ACP's or UCP's): each event's id and body. */
export function outboxOf(database: TestDatabase, sessionId: string) {
  return database.db
    .select({ eventId: webhookDeliveries.eventId, body: webhookDeliveries.body })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.sessionId, sessionId));
}

/** A checkout's orders as the adapters read them back from the database. */
export function ordersReadBack(database: TestDatabase, checkoutId: string) {
  return ordersOfOneCheckout({ db: database.db } as RequestContext, { checkoutId });
}
