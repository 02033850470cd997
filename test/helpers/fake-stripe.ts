// A local stand-in for Stripe's API, speaking its wire format to the official SDK (which the
// provider points here with its host/port/protocol options): form-encoded request bodies,
// Stripe-shaped JSON objects and errors, Idempotency-Key replay. Only what the Stripe providers
// call: checkout sessions (create, expire), coupons, refunds, payment intents confirmed with a
// Shared Payment Token (the ACP handler's charge), and Connect: accounts, account links,
// transfers and their reversals, file uploads (multipart; the SDK sends them to this host too
// when its host is overridden) and dispute evidence. The platform's balance transactions are the
// ones its own operations make (refunds, transfers, reversals, disputes) and the charges a test
// records (recordCharge: a checkout's payment reaches the app by webhook, unseen here), listed by
// GET /v1/balance_transactions.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import Stripe from 'stripe';
import { afterAll, beforeAll } from 'vitest';
import { type TestApp, useTestApp } from './app.ts';
import { standIn, type TestDatabase } from './db.ts';

export interface FakeStripeRequest {
  method: string;
  path: string;
  /** The form body parsed into nested objects and arrays, as Stripe reads it (values are strings). */
  body: Record<string, unknown>;
  /** The body as text (a multipart upload's file bytes decoded as UTF-8: read `body` instead). */
  rawBody: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  stripeVersion: string | undefined;
  /** The answer's status and body. */
  status: number;
  response: unknown;
}

export interface StripeErrorBody {
  type: 'card_error' | 'invalid_request_error' | 'api_error' | 'idempotency_error' | string;
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
}

export interface FakeStripe {
  /** The API base, for STRIPE_API_BASE / config.payments.stripeApiBase. */
  url: string;
  requests: FakeStripeRequest[];
  /** Checkout sessions by id, as the fake holds them (tests may set `status`). */
  sessions: Map<string, Record<string, unknown>>;
  /**
   * The next request is answered with this error before it reaches the idempotency layer
   * (nothing stored: a retry with the same key is processed afresh). Calls queue: each fails
   * one more request.
   */
  failNext(status: number, error: StripeErrorBody, headers?: Record<string, string>): void;
  /** Payment intents by id, as created (a granted token's charge). */
  paymentIntents: Map<string, Record<string, unknown>>;
  /**
   * Runs after a payment intent is made and before it is answered: a test delivers its
   * `payment_intent.succeeded` webhook here to have the webhook arrive first, as it may.
   */
  beforePaymentIntentAnswer: ((intent: Record<string, unknown>) => Promise<void>) | undefined;
  /** Connected accounts by id (`acct_…`), as the fake holds them. */
  accounts: Map<string, Record<string, unknown>>;
  /** Transfers by id (`tr_…`), with their `amount_reversed` and `reversals`. */
  transfers: Map<string, Record<string, unknown>>;
  /** Disputes by id (`dp_…`): made by openDispute, their evidence updated by POST /v1/disputes/:id. */
  disputes: Map<string, Record<string, unknown>>;
  /** Uploaded files by id (`file_…`); `data` holds the bytes (not a Stripe field). */
  files: Map<string, Record<string, unknown> & { data: Buffer }>;
  /**
   * What onboarding does at Stripe: a bank account ending in `last4`, nothing more due, payouts
   * and the transfers capability on. Answers the account (for accountUpdatedEvent).
   */
  enableAccount(accountId: string, last4?: string): Record<string, unknown>;
  /**
   * A buyer's bank disputes a payment: a dispute (`needs_response`, evidence due in 7 days) with
   * its withdrawal's balance transaction (amount and fee). Answers it (for disputeEvent).
   */
  openDispute(input: {
    paymentIntentId: string | null;
    amount: number;
    reason?: string;
    /** Stripe's dispute fee; Canada: 1500. */
    fee?: number;
    status?: string;
  }): Record<string, unknown>;
  /**
   * The bank decides: `won` returns the amount (a reinstatement balance transaction, fee 0: the
   * dispute fee stays taken), `lost` keeps it. Answers the dispute (for disputeEvent('closed', …)).
   */
  closeDispute(disputeId: string, outcome: 'won' | 'lost'): Record<string, unknown>;
  /** The platform's balance transactions (`txn_…`), oldest first, as GET /v1/balance_transactions lists them. */
  balanceTransactions: Array<Record<string, unknown>>;
  /**
   * The time balance transactions are dated by (`created`): the machine's by default; a test
   * that moves its app's clock points this at it, so that both sides fall in the same period.
   */
  balanceClock: () => Date;
  /**
   * A payment intent's charge succeeded at Stripe: its `charge` balance transaction, `amount`
   * less Stripe's processing fee (Canada's 2.9% + 30¢ unless `fee` says). Answers it.
   */
  recordCharge(paymentIntentId: string, amount: number, fee?: number): Record<string, unknown>;
  /** Any other movement of the balance (an adjustment Stripe made, a payout…). Answers it. */
  addBalanceTransaction(input: {
    type: string;
    amount: number;
    fee?: number;
    source?: string | null;
    description?: string;
    reportingCategory?: string;
  }): Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * Shared Payment Tokens the fake knows by their name: `spt_test_declined…` is declined,
 * `spt_test_processing…` settles later, `spt_test_3ds…` wants 3-D Secure; any other `spt_` pays.
 */
const sptOutcome = (token: string) =>
  token.startsWith('spt_test_declined')
    ? 'declined'
    : token.startsWith('spt_test_processing')
      ? 'processing'
      : token.startsWith('spt_test_3ds')
        ? 'requires_action'
        : 'succeeded';

type Json = Record<string, unknown>;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
  ) {
    super(body.message);
  }
}

const id = (prefix: string, n = 24) => `${prefix}${randomBytes(n).toString('base64url').slice(0, n)}`;

/** `a[b][0][c]=1` into `{a: {b: [{c: '1'}]}}`, as Stripe (and the qs library) reads form bodies. */
export function parseStripeForm(raw: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const path = key.split('[').map((part, i) => (i === 0 ? part : part.replace(/\]$/, '')));
    let node: Json | unknown[] = root;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      const last = i === path.length - 1;
      const index: string | number = Array.isArray(node) ? (seg === '' ? node.length : Number(seg)) : seg;
      const slots = node as Record<string | number, unknown>;
      if (last) {
        slots[index] = value;
      } else {
        if (slots[index] === undefined) slots[index] = /^\d*$/.test(path[i + 1]!) ? [] : {};
        node = slots[index] as Json | unknown[];
      }
    }
  }
  return root;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export interface FakeStripeUpload {
  name: string;
  type: string;
  data: Buffer;
}

/** A multipart/form-data body (the SDK's file uploads): fields as strings, files as FakeStripeUpload. */
function parseMultipart(raw: Buffer, contentType: string): Promise<Json> {
  return new Promise((resolve, reject) => {
    const out: Json = {};
    const parser = busboy({ headers: { 'content-type': contentType } });
    parser.on('field', (name, value) => {
      out[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        out[name] = { name: info.filename, type: info.mimeType, data: Buffer.concat(chunks) };
      });
    });
    parser.on('close', () => resolve(out));
    parser.on('error', reject);
    parser.end(raw);
  });
}

const int = (v: unknown, param: string): number => {
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) {
    throw invalid(`Invalid integer: ${String(v)}`, param);
  }
  return Number(v);
};

const invalid = (message: string, param?: string, status = 400) =>
  new ApiError(status, { type: 'invalid_request_error', message, ...(param ? { param } : {}) });

const missing = (kind: string, value: string) =>
  new ApiError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${kind}: '${value}'`,
  });

/** An unknown id given as a parameter (not in the path): 400, as Stripe answers it. */
const missingParam = (kind: string, value: string, param: string) =>
  new ApiError(400, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${kind}: '${value}'`,
    param,
  });

/** How Stripe shows a key in its errors: its start and last four characters. */
const maskKey = (key: string) =>
  `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`;

/** What Stripe takes as dispute evidence (its file upload guide): PDF, JPEG or PNG. */
const EVIDENCE_TYPES: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/jpeg': 'jpg',
  'image/png': 'png',
};
const FILE_PURPOSES = [
  'account_requirement',
  'additional_verification',
  'business_icon',
  'business_logo',
  'customer_signature',
  'dispute_evidence',
  'identity_document',
  'pci_document',
  'tax_document_user_upload',
];

export async function startFakeStripe(opts: { apiKey?: string } = {}): Promise<FakeStripe> {
  const requests: FakeStripeRequest[] = [];
  const sessions = new Map<string, Json>();
  const coupons = new Map<string, Json>();
  const idempotent = new Map<string, { fingerprint: string; status: number; body: Json }>();
  const failures: Array<{ status: number; error: StripeErrorBody; headers: Record<string, string> }> = [];
  const fake = { beforePaymentIntentAnswer: undefined, balanceClock: () => new Date() } as FakeStripe;
  const nowSec = () => Math.floor(Date.now() / 1000);

  // The platform's balance: a transaction for each movement, dated by fake.balanceClock.
  const balanceTransactions: Json[] = [];
  /** Each recorded charge of a payment intent: its id, amount and what its refunds took so far. */
  const charges = new Map<string, { chargeId: string; amount: number; refunded: number }>();
  const balanceSec = () => Math.floor(fake.balanceClock().getTime() / 1000);
  function addBalanceTransaction(input: {
    type: string;
    amount: number;
    fee?: number;
    source?: string | null;
    description?: string;
    reportingCategory?: string;
    /** What the fee is (fee_details' description). */
    feeDescription?: string;
  }): Json {
    const created = balanceSec();
    const fee = input.fee ?? 0;
    const txn: Json = {
      id: id('txn_1', 24),
      object: 'balance_transaction',
      amount: input.amount,
      available_on: created + 2 * 86_400,
      created,
      currency: 'cad',
      description: input.description ?? null,
      exchange_rate: null,
      fee,
      fee_details: fee
        ? [
            {
              amount: fee,
              application: null,
              currency: 'cad',
              description: input.feeDescription ?? 'Stripe processing fees',
              type: 'stripe_fee',
            },
          ]
        : [],
      net: input.amount - fee,
      reporting_category: input.reportingCategory ?? input.type,
      source: input.source ?? null,
      status: 'pending',
      type: input.type,
    };
    balanceTransactions.push(txn);
    return txn;
  }

  function recordCharge(paymentIntentId: string, amount: number, fee?: number): Json {
    const chargeId = id('ch_1', 24);
    charges.set(paymentIntentId, { chargeId, amount, refunded: 0 });
    return addBalanceTransaction({
      type: 'charge',
      amount,
      fee: fee ?? Math.round(amount * 0.029) + 30,
      source: chargeId,
      reportingCategory: 'charge',
    });
  }

  /** GET /v1/balance_transactions: newest first, by `created` range, a page after `starting_after`. */
  function listBalanceTransactions(q: Json): Json {
    const created = (q.created ?? {}) as Json;
    const bound = (name: string) =>
      created[name] === undefined ? undefined : int(created[name], `created[${name}]`);
    const [gte, gt, lte, lt] = [bound('gte'), bound('gt'), bound('lte'), bound('lt')];
    const limit = q.limit === undefined ? 10 : int(q.limit, 'limit');
    if (limit < 1 || limit > 100) throw invalid('This value must be between 1 and 100.', 'limit');
    let rows = [...balanceTransactions]
      .reverse()
      .filter((b) => {
        const at = b.created as number;
        return (
          (gte === undefined || at >= gte) &&
          (gt === undefined || at > gt) &&
          (lte === undefined || at <= lte) &&
          (lt === undefined || at < lt)
        );
      })
      // Newest first; the same second in the order they were made, newest first.
      .sort((a, b) => (b.created as number) - (a.created as number));
    if (q.starting_after !== undefined) {
      const at = rows.findIndex((b) => b.id === q.starting_after);
      if (at < 0) throw missingParam('balance_transaction', String(q.starting_after), 'starting_after');
      rows = rows.slice(at + 1);
    }
    return {
      object: 'list',
      data: structuredClone(rows.slice(0, limit)),
      has_more: rows.length > limit,
      url: '/v1/balance_transactions',
    };
  }

  function createSession(b: Json): Json {
    if (b.mode !== 'payment') throw invalid('This fake only knows mode `payment`.', 'mode');
    const uiMode = (b.ui_mode as string | undefined) ?? 'hosted_page';
    if (!['hosted_page', 'embedded_page', 'elements', 'form'].includes(uiMode)) {
      throw invalid(
        `Invalid ui_mode: must be one of hosted_page, embedded_page, elements or form`,
        'ui_mode',
      );
    }
    const embedded = uiMode !== 'hosted_page';
    if (embedded && b.success_url) {
      throw invalid(`success_url is not allowed when ui_mode is \`${uiMode}\`.`, 'success_url');
    }
    if (embedded && !b.return_url && b.redirect_on_completion !== 'never') {
      throw invalid(`return_url is required when ui_mode is \`${uiMode}\`.`, 'return_url');
    }
    if (!embedded && !b.success_url) throw invalid('Missing required param: success_url.', 'success_url');
    if ('payment_method_types' in b) {
      throw invalid('Received unknown parameter: payment_method_types', 'payment_method_types');
    }
    const items = b.line_items as Json[] | undefined;
    if (!items?.length) throw invalid('line_items is required in `payment` mode.', 'line_items');
    let subtotal = 0;
    items.forEach((item, i) => {
      const price = item.price_data as Json | undefined;
      if (!price) throw invalid('Missing required param: line_items[0][price_data].', `line_items[${i}]`);
      if (price.currency !== b.currency && b.currency) {
        throw invalid('All line items must have the same currency as the session.', `line_items[${i}]`);
      }
      if (!(price.product_data as Json | undefined)?.name) {
        throw invalid('Missing required param: product_data[name].', `line_items[${i}][price_data]`);
      }
      const unit = int(price.unit_amount, `line_items[${i}][price_data][unit_amount]`);
      const quantity = int(item.quantity, `line_items[${i}][quantity]`);
      if (unit < 0 || quantity < 1) throw invalid('Invalid amount or quantity.', `line_items[${i}]`);
      subtotal += unit * quantity;
    });
    let discount = 0;
    for (const [i, d] of ((b.discounts as Json[] | undefined) ?? []).entries()) {
      const coupon = coupons.get(d.coupon as string);
      if (!coupon) throw missing('coupon', String(d.coupon));
      if (i > 0) throw invalid('You may only specify one discount.', 'discounts');
      discount += Math.min(coupon.amount_off as number, subtotal);
    }
    const shipping = ((b.shipping_options as Json[] | undefined) ?? []).map((o, i) => {
      const data = o.shipping_rate_data as Json | undefined;
      const fixed = data?.fixed_amount as Json | undefined;
      if (!data?.display_name || !fixed)
        throw invalid('Invalid shipping_rate_data.', `shipping_options[${i}]`);
      return { shipping_amount: int(fixed.amount, `shipping_options[${i}]`), shipping_rate: id('shr_') };
    });
    if (shipping.length > 5)
      throw invalid('You may only specify up to 5 shipping options.', 'shipping_options');
    const created = nowSec();
    let expiresAt = created + 86_400;
    if (b.expires_at !== undefined) {
      expiresAt = int(b.expires_at, 'expires_at');
      if (expiresAt < created + 1800 || expiresAt > created + 86_400) {
        throw invalid(
          'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.',
          'expires_at',
        );
      }
    }
    const sessionId = id('cs_test_a1', 40);
    const session: Json = {
      id: sessionId,
      object: 'checkout.session',
      allowed_payment_method_types: b.allowed_payment_method_types ?? null,
      amount_subtotal: subtotal,
      amount_total: subtotal - discount + (shipping[0]?.shipping_amount ?? 0),
      automatic_tax: { enabled: (b.automatic_tax as Json | undefined)?.enabled === 'true', status: null },
      client_reference_id: b.client_reference_id ?? null,
      client_secret: embedded ? `${sessionId}_secret_${id('', 24)}` : null,
      created,
      currency: b.currency ?? 'cad',
      customer_email: b.customer_email ?? null,
      expires_at: expiresAt,
      livemode: false,
      metadata: b.metadata ?? {},
      mode: b.mode,
      payment_intent: null,
      payment_status: 'unpaid',
      return_url: b.return_url ?? null,
      shipping_address_collection: b.shipping_address_collection ?? null,
      shipping_options: shipping,
      status: 'open',
      ui_mode: uiMode,
      url: embedded ? null : `https://checkout.stripe.com/c/pay/${sessionId}`,
    };
    sessions.set(sessionId, session);
    return session;
  }

  function expireSession(sessionId: string): Json {
    const session = sessions.get(sessionId);
    if (!session) throw missing('checkout.session', sessionId);
    if (session.status !== 'open') {
      throw invalid('Only Checkout Sessions with a status in ["open"] can be expired.');
    }
    session.status = 'expired';
    return session;
  }

  function createCoupon(b: Json): Json {
    const amountOff = b.amount_off === undefined ? undefined : int(b.amount_off, 'amount_off');
    if (amountOff === undefined && b.percent_off === undefined) {
      throw invalid('Must provide either amount_off or percent_off.');
    }
    if (amountOff !== undefined && !b.currency) {
      throw invalid('You must pass currency when passing amount_off.', 'currency');
    }
    if (amountOff !== undefined && amountOff < 1) throw invalid('Invalid amount_off.', 'amount_off');
    const coupon: Json = {
      id: (b.id as string | undefined) ?? id('', 8),
      object: 'coupon',
      amount_off: amountOff ?? null,
      currency: b.currency ?? null,
      duration: b.duration ?? 'once',
      max_redemptions: b.max_redemptions === undefined ? null : int(b.max_redemptions, 'max_redemptions'),
      metadata: b.metadata ?? {},
      name: b.name ?? null,
      percent_off: b.percent_off === undefined ? null : Number(b.percent_off),
      times_redeemed: 0,
      valid: true,
      created: nowSec(),
      livemode: false,
    };
    coupons.set(coupon.id as string, coupon);
    return coupon;
  }

  function createRefund(b: Json): Json {
    const intent = b.payment_intent as string | undefined;
    if (!intent && !b.charge)
      throw invalid('One of the following params should be provided: charge, payment_intent.');
    if (intent && !intent.startsWith('pi_')) throw missing('payment_intent', intent);
    const amount = b.amount === undefined ? undefined : int(b.amount, 'amount');
    if (amount !== undefined && amount < 1) throw invalid('Invalid positive integer', 'amount');
    const refundId = id('re_test_');
    // The money leaves the balance: the whole charge's rest when no amount is said.
    const charge = intent ? charges.get(intent) : undefined;
    const out = amount ?? (charge ? charge.amount - charge.refunded : 0);
    if (charge) charge.refunded += out;
    const txn =
      out > 0
        ? addBalanceTransaction({
            type: 'refund',
            amount: -out,
            source: refundId,
            description: 'REFUND FOR CHARGE',
            reportingCategory: 'refund',
          })
        : undefined;
    return {
      id: refundId,
      object: 'refund',
      amount: amount ?? out,
      balance_transaction: txn?.id ?? null,
      charge: charge?.chargeId ?? id('ch_test_'),
      created: nowSec(),
      currency: 'cad',
      metadata: b.metadata ?? {},
      payment_intent: intent ?? null,
      reason: b.reason ?? null,
      status: 'succeeded',
    };
  }

  const paymentIntents = new Map<string, Json>();
  function createPaymentIntent(b: Json): Json {
    const amount = int(b.amount, 'amount');
    if (amount < 50) throw invalid('Amount must be at least $0.50 cad', 'amount');
    if (b.currency !== 'cad') throw invalid(`Invalid currency: ${String(b.currency)}`, 'currency');
    const token = (b.payment_method_data as Json | undefined)?.shared_payment_granted_token;
    if (typeof token !== 'string' || !token.startsWith('spt_')) {
      throw invalid(
        'This fake charges only payment_method_data[shared_payment_granted_token]',
        'payment_method_data',
      );
    }
    if (b.confirm !== 'true') throw invalid('This fake confirms at once: send confirm=true', 'confirm');
    const outcome = sptOutcome(token);
    const intent: Json = {
      id: id('pi_test_'),
      object: 'payment_intent',
      amount,
      amount_received: outcome === 'succeeded' ? amount : 0,
      currency: 'cad',
      created: nowSec(),
      metadata: b.metadata ?? {},
      status: outcome === 'declined' ? 'requires_payment_method' : outcome,
    };
    if (outcome === 'declined') {
      throw new ApiError(402, {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
      });
    }
    paymentIntents.set(intent.id as string, intent);
    return intent;
  }

  // Connect (separate charges and transfers): Express accounts, onboarding links, transfers.
  const accounts = new Map<string, Json>();
  const transfers = new Map<string, Json>();
  const disputes = new Map<string, Json>();
  const files = new Map<string, Json & { data: Buffer }>();

  function createAccount(b: Json): Json {
    const controller = b.controller as Json | undefined;
    if (controller && b.type !== undefined) {
      throw invalid('You cannot specify `type` together with `controller`.', 'type');
    }
    const fees = (controller?.fees as Json | undefined)?.payer ?? 'account';
    const losses = (controller?.losses as Json | undefined)?.payments ?? 'stripe';
    const collection = controller?.requirement_collection ?? 'stripe';
    const dashboard = (controller?.stripe_dashboard as Json | undefined)?.type ?? 'full';
    if (losses === 'application' && fees !== 'application') {
      throw invalid(
        'Setting `controller.losses.payments=application` requires `controller.fees.payer=application`.',
        'controller[fees][payer]',
      );
    }
    if (collection === 'application' && dashboard !== 'none') {
      throw invalid(
        'A Stripe-hosted dashboard requires `controller.requirement_collection=stripe`.',
        'controller[stripe_dashboard][type]',
      );
    }
    const type =
      b.type ?? (dashboard === 'express' ? 'express' : dashboard === 'none' ? 'custom' : 'standard');
    const accountId = id('acct_1', 15);
    const requested = Object.entries((b.capabilities as Record<string, Json> | undefined) ?? {})
      .filter(([, c]) => c.requested === 'true')
      .map(([name]) => [name, 'inactive'] as const);
    const due = ['external_account', 'tos_acceptance.date'];
    const account: Json = {
      id: accountId,
      object: 'account',
      business_profile: { mcc: null, name: null, product_description: null, support_email: null, url: null },
      business_type: (b.business_type as string | undefined) ?? null,
      capabilities: Object.fromEntries(requested),
      charges_enabled: false,
      controller: {
        fees: { payer: fees },
        is_controller: true,
        losses: { payments: losses },
        requirement_collection: collection,
        stripe_dashboard: { type: dashboard },
        type: 'application',
      },
      country: b.country ?? 'CA',
      created: nowSec(),
      default_currency: 'cad',
      details_submitted: false,
      email: b.email ?? null,
      external_accounts: {
        object: 'list',
        data: [],
        has_more: false,
        url: `/v1/accounts/${accountId}/external_accounts`,
      },
      future_requirements: {
        alternatives: [],
        current_deadline: null,
        currently_due: [],
        disabled_reason: null,
        errors: [],
        eventually_due: [],
        past_due: [],
        pending_verification: [],
      },
      metadata: b.metadata ?? {},
      payouts_enabled: false,
      requirements: {
        alternatives: [],
        current_deadline: null,
        currently_due: [...due],
        disabled_reason: 'requirements.past_due',
        errors: [],
        eventually_due: [...due],
        past_due: [...due],
        pending_verification: [],
      },
      tos_acceptance: { date: null, ip: null, user_agent: null },
      type,
    };
    accounts.set(accountId, account);
    return account;
  }

  function retrieveAccount(accountId: string, key: string): Json {
    const account = accounts.get(accountId);
    if (!account) {
      throw new ApiError(403, {
        type: 'invalid_request_error',
        code: 'account_invalid',
        message: `The provided key '${maskKey(key)}' does not have access to account '${accountId}' (or that account does not exist). Application access may have been revoked.`,
      });
    }
    return account;
  }

  function enableAccount(accountId: string, last4 = '6789'): Json {
    const account = accounts.get(accountId);
    if (!account) throw new Error(`The fake Stripe has no account ${accountId}`);
    const created = nowSec();
    Object.assign(account, {
      details_submitted: true,
      payouts_enabled: true,
      capabilities: { ...(account.capabilities as Json), transfers: 'active' },
      external_accounts: {
        ...(account.external_accounts as Json),
        data: [
          {
            id: id('ba_1', 22),
            object: 'bank_account',
            account: accountId,
            account_holder_name: null,
            account_holder_type: null,
            bank_name: 'TD CANADA TRUST',
            country: 'CA',
            currency: 'cad',
            default_for_currency: true,
            fingerprint: id('', 16),
            last4,
            metadata: {},
            routing_number: '11000-004',
            status: 'new',
          },
        ],
      },
      requirements: {
        ...(account.requirements as Json),
        currently_due: [],
        disabled_reason: null,
        eventually_due: [],
        past_due: [],
      },
      tos_acceptance: { date: created, ip: '203.0.113.7', user_agent: null },
    });
    return account;
  }

  function createAccountLink(b: Json): Json {
    const accountId = b.account as string | undefined;
    if (!accountId) throw invalid('Missing required param: account.', 'account');
    if (!accounts.has(accountId)) throw missingParam('account', accountId, 'account');
    if (b.type !== 'account_onboarding' && b.type !== 'account_update') {
      throw invalid(`Invalid type: must be one of account_onboarding or account_update`, 'type');
    }
    const created = nowSec();
    return {
      object: 'account_link',
      created,
      expires_at: created + 300,
      url: `https://connect.stripe.com/setup/e/${accountId}/${id('', 12)}`,
    };
  }

  function createTransfer(b: Json): Json {
    if (b.amount === undefined) throw invalid('Missing required param: amount.', 'amount');
    const amount = int(b.amount, 'amount');
    if (amount < 1) throw invalid('This value must be greater than or equal to 1.', 'amount');
    if (!b.currency) throw invalid('Missing required param: currency.', 'currency');
    const destination = b.destination as string | undefined;
    if (!destination) throw invalid('Missing required param: destination.', 'destination');
    const account = accounts.get(destination);
    if (!account) throw missingParam('destination', destination, 'destination');
    if ((account.capabilities as Json).transfers !== 'active') {
      throw invalid(
        'Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments',
        'destination',
      );
    }
    const transferId = id('tr_1', 24);
    const txn = addBalanceTransaction({
      type: 'transfer',
      amount: -amount,
      source: transferId,
      reportingCategory: 'transfer',
    });
    const transfer: Json = {
      id: transferId,
      object: 'transfer',
      amount,
      amount_reversed: 0,
      balance_transaction: txn.id,
      created: nowSec(),
      currency: b.currency,
      description: b.description ?? null,
      destination,
      destination_payment: id('py_', 14),
      livemode: false,
      metadata: b.metadata ?? {},
      reversals: { object: 'list', data: [], has_more: false, url: `/v1/transfers/${transferId}/reversals` },
      reversed: false,
      source_transaction: b.source_transaction ?? null,
      source_type: 'card',
      transfer_group: b.transfer_group ?? null,
    };
    transfers.set(transferId, transfer);
    return transfer;
  }

  function reverseTransfer(transferId: string, b: Json): Json {
    const transfer = transfers.get(transferId);
    if (!transfer) throw missing('transfer', transferId);
    const left = (transfer.amount as number) - (transfer.amount_reversed as number);
    const amount = b.amount === undefined ? left : int(b.amount, 'amount');
    if (amount < 1) throw invalid('This value must be greater than or equal to 1.', 'amount');
    if (amount > left) {
      throw invalid(
        `Reversal amount (${amount}) is greater than the amount left on the transfer (${left}).`,
        'amount',
      );
    }
    const reversalId = id('trr_1', 24);
    // Stripe's type for a transfer reversal's balance transaction on the platform.
    const txn = addBalanceTransaction({
      type: 'transfer_refund',
      amount,
      source: reversalId,
      reportingCategory: 'transfer_reversal',
    });
    const reversal: Json = {
      id: reversalId,
      object: 'transfer_reversal',
      amount,
      balance_transaction: txn.id,
      created: nowSec(),
      currency: transfer.currency,
      destination_payment_refund: id('pyr_1', 24),
      metadata: b.metadata ?? {},
      source_refund: null,
      transfer: transferId,
    };
    transfer.amount_reversed = (transfer.amount_reversed as number) + amount;
    transfer.reversed = transfer.amount_reversed === transfer.amount;
    ((transfer.reversals as Json).data as Json[]).push(reversal);
    return reversal;
  }

  function createFile(b: Json): Json {
    const purpose = b.purpose as string | undefined;
    if (!purpose) throw invalid('Missing required param: purpose.', 'purpose');
    if (!FILE_PURPOSES.includes(purpose)) throw invalid(`Invalid purpose: ${purpose}`, 'purpose');
    const upload = b.file as FakeStripeUpload | undefined;
    if (!upload || typeof upload !== 'object' || !Buffer.isBuffer(upload.data)) {
      throw invalid('Missing required param: file.', 'file');
    }
    const type = EVIDENCE_TYPES[upload.type];
    if (purpose === 'dispute_evidence' && !type) {
      throw invalid(
        `Invalid file: the file type ${upload.type} is not supported for purpose dispute_evidence (pdf, jpeg, png).`,
        'file',
      );
    }
    const fileId = id('file_1', 24);
    const created = nowSec();
    const file = {
      id: fileId,
      object: 'file',
      created,
      expires_at: created + 365 * 86_400,
      filename: upload.name,
      links: { object: 'list', data: [], has_more: false, url: `/v1/file_links?file=${fileId}` },
      purpose,
      size: upload.data.length,
      title: null,
      type: type ?? (upload.name.split('.').pop() || null),
      url: `https://files.stripe.com/v1/files/${fileId}/contents`,
      data: upload.data,
    };
    files.set(fileId, file);
    const { data: _bytes, ...answer } = file;
    return answer;
  }

  function openDispute(input: {
    paymentIntentId: string | null;
    amount: number;
    reason?: string;
    fee?: number;
    status?: string;
  }): Json {
    const disputeId = id('dp_1', 24);
    const created = nowSec();
    const fee = input.fee ?? 1500;
    // The disputed amount and the dispute fee leave the platform's balance.
    const withdrawal = addBalanceTransaction({
      type: 'adjustment',
      amount: -input.amount,
      fee,
      source: disputeId,
      description: `Chargeback withdrawal for ${disputeId}`,
      reportingCategory: 'dispute',
      feeDescription: 'Dispute fee',
    });
    const dispute: Json = {
      id: disputeId,
      object: 'dispute',
      amount: input.amount,
      balance_transactions: [structuredClone(withdrawal)],
      charge: (input.paymentIntentId && charges.get(input.paymentIntentId)?.chargeId) || id('ch_1', 24),
      created,
      currency: 'cad',
      evidence: {
        customer_communication: null,
        product_description: null,
        receipt: null,
        shipping_documentation: null,
        shipping_tracking_number: null,
        uncategorized_file: null,
        uncategorized_text: null,
      },
      evidence_details: {
        due_by: created + 7 * 86_400,
        has_evidence: false,
        past_due: false,
        submission_count: 0,
      },
      is_charge_refundable: false,
      livemode: false,
      metadata: {},
      payment_intent: input.paymentIntentId,
      reason: input.reason ?? 'product_not_received',
      status: input.status ?? 'needs_response',
    };
    disputes.set(disputeId, dispute);
    return dispute;
  }

  function closeDispute(disputeId: string, outcome: 'won' | 'lost'): Json {
    const dispute = disputes.get(disputeId);
    if (!dispute) throw new Error(`The fake Stripe has no dispute ${disputeId}`);
    dispute.status = outcome;
    if (outcome === 'won') {
      const reinstated = addBalanceTransaction({
        type: 'adjustment',
        amount: dispute.amount as number,
        source: disputeId,
        description: `Chargeback reversal for ${disputeId}`,
        reportingCategory: 'dispute_reversal',
      });
      (dispute.balance_transactions as Json[]).push(structuredClone(reinstated));
    }
    return dispute;
  }

  function updateDispute(disputeId: string, b: Json): Json {
    const dispute = disputes.get(disputeId);
    if (!dispute) throw missing('dispute', disputeId);
    const status = dispute.status as string;
    if (status !== 'needs_response' && status !== 'warning_needs_response') {
      throw invalid(
        `This dispute is ${status.replace(/_/g, ' ')}: its evidence can no longer be updated.`,
        'evidence',
      );
    }
    const evidence = (b.evidence as Json | undefined) ?? {};
    const fileId = evidence.uncategorized_file as string | undefined;
    if (fileId && files.get(fileId)?.purpose !== 'dispute_evidence') {
      throw missingParam('file', fileId, 'evidence[uncategorized_file]');
    }
    Object.assign(dispute.evidence as Json, evidence);
    const details = dispute.evidence_details as Json;
    details.has_evidence = true;
    if (b.metadata) dispute.metadata = { ...(dispute.metadata as Json), ...(b.metadata as Json) };
    if (b.submit === 'true') {
      details.submission_count = (details.submission_count as number) + 1;
      dispute.status = status === 'needs_response' ? 'under_review' : 'warning_under_review';
    }
    return dispute;
  }

  function route(method: string, path: string, body: Json, key: string): Json {
    const account = /^\/v1\/accounts\/([^/]+)$/.exec(path);
    if (method === 'GET' && account) return retrieveAccount(decodeURIComponent(account[1]!), key);
    if (method === 'GET' && path === '/v1/balance_transactions') return listBalanceTransactions(body);
    if (method !== 'POST') throw invalid(`Unrecognized request URL (${method}: ${path}).`, undefined, 404);
    if (path === '/v1/accounts') return createAccount(body);
    if (path === '/v1/account_links') return createAccountLink(body);
    if (path === '/v1/transfers') return createTransfer(body);
    const reversal = /^\/v1\/transfers\/([^/]+)\/reversals$/.exec(path);
    if (reversal) return reverseTransfer(decodeURIComponent(reversal[1]!), body);
    if (path === '/v1/files') return createFile(body);
    const dispute = /^\/v1\/disputes\/([^/]+)$/.exec(path);
    if (dispute) return updateDispute(decodeURIComponent(dispute[1]!), body);
    if (path === '/v1/checkout/sessions') return createSession(body);
    const expire = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
    if (expire) return expireSession(decodeURIComponent(expire[1]!));
    if (path === '/v1/coupons') return createCoupon(body);
    if (path === '/v1/refunds') return createRefund(body);
    if (path === '/v1/payment_intents') return createPaymentIntent(body);
    throw invalid(`Unrecognized request URL (${method}: ${path}).`, undefined, 404);
  }

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'request-id': id('req_', 14),
      ...headers,
    });
    res.end(JSON.stringify(body));
  };

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const rawBody = raw.toString('utf8');
    const [path = '/', query = ''] = (req.url ?? '/').split('?');
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const contentType = header('content-type') ?? '';
    const record: FakeStripeRequest = {
      method: req.method ?? 'GET',
      path,
      // A GET's parameters are its query, encoded as a form body is.
      body: contentType.startsWith('multipart/form-data')
        ? await parseMultipart(raw, contentType)
        : parseStripeForm(req.method === 'GET' ? query : rawBody),
      rawBody,
      idempotencyKey: header('idempotency-key'),
      authorization: header('authorization'),
      stripeVersion: header('stripe-version'),
      status: 0,
      response: undefined,
    };
    requests.push(record);
    const answer = (status: number, body: unknown, headers?: Record<string, string>) => {
      record.status = status;
      record.response = body;
      send(res, status, body, headers);
    };

    const key = /^Bearer (.+)$/.exec(record.authorization ?? '')?.[1];
    if (!key || (opts.apiKey && key !== opts.apiKey)) {
      const shown = key ? maskKey(key) : '';
      return answer(401, {
        error: {
          type: 'invalid_request_error',
          message: key ? `Invalid API Key provided: ${shown}` : 'You did not provide an API key.',
        },
      });
    }
    const f = failures.shift();
    if (f) {
      return answer(f.status, { error: f.error }, f.headers);
    }
    const fingerprint = `${record.method} ${path} ${rawBody}`;
    const stored = record.idempotencyKey ? idempotent.get(record.idempotencyKey) : undefined;
    if (stored) {
      if (stored.fingerprint !== fingerprint) {
        return answer(400, {
          error: {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${record.idempotencyKey}' if you meant to execute a different request.`,
          },
        });
      }
      return answer(stored.status, stored.body, { 'idempotent-replayed': 'true' });
    }
    let status = 200;
    let out: Json;
    try {
      out = route(record.method, path, record.body, key);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      status = err.status;
      out = { error: err.body };
    }
    if (status === 200 && out.object === 'payment_intent' && fake.beforePaymentIntentAnswer) {
      await fake.beforePaymentIntentAnswer(out);
    }
    // Stripe saves the result once the endpoint ran; a request refused by validation saves
    // nothing (Stripe's API reference, "Idempotent requests"). Here every refusal is validation.
    if (record.idempotencyKey && status === 200) {
      idempotent.set(record.idempotencyKey, { fingerprint, status, body: structuredClone(out) });
    }
    return answer(status, out);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    requests,
    sessions,
    paymentIntents,
    accounts,
    transfers,
    disputes,
    files,
    balanceTransactions,
    enableAccount,
    openDispute,
    closeDispute,
    recordCharge,
    addBalanceTransaction,
    failNext(status: number, error: StripeErrorBody, headers: Record<string, string> = {}) {
      failures.push({ status, error, headers });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  });
  return fake;
}

/** A webhook body and its `Stripe-Signature` header, signed by the SDK's own test helper. */
export function signedEvent(
  payload: Json | string,
  secret: string,
  timestamp: number = Math.floor(Date.now() / 1000),
): { body: Buffer; signature: string } {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload: text, secret, timestamp });
  return { body: Buffer.from(text), signature };
}

/** A Stripe-shaped event (`object: 'event'`) around `object`. */
export function stripeEvent(type: string, object: Json, eventId = id('evt_test_')): Json {
  return {
    id: eventId,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** `payment_intent.succeeded` of a checkout paid in full (our metadata names the checkout). */
export function paymentSucceededEvent(
  checkoutId: string,
  amountCents: number,
  paymentIntentId: string,
): Json {
  return stripeEvent('payment_intent.succeeded', {
    id: paymentIntentId,
    object: 'payment_intent',
    amount: amountCents,
    amount_received: amountCents,
    currency: 'cad',
    status: 'succeeded',
    metadata: { checkoutSessionId: checkoutId },
  });
}

/**
 * `account.updated` for a connected account (delivered to the Connect endpoint: the event names
 * the account), around a snapshot of `account` (e.g. FakeStripe.enableAccount's answer).
 */
export function accountUpdatedEvent(account: Json, eventId = id('evt_1', 24)): Json {
  return {
    ...stripeEvent('account.updated', structuredClone(account), eventId),
    account: account.id,
  };
}

/** `charge.dispute.created`, `.updated` or `.closed` around a snapshot of `dispute` (FakeStripe.openDispute's). */
export function disputeEvent(
  phase: 'created' | 'updated' | 'closed',
  dispute: Json,
  eventId = id('evt_1', 24),
): Json {
  return stripeEvent(`charge.dispute.${phase}`, structuredClone(dispute), eventId);
}

/**
 * A test file's app with Stripe as its payment provider, pointed at a fake Stripe started for
 * it (beforeAll; closed in afterAll, after the app): useTestApp with the fake's settings.
 */
export function useFakeStripeApp(
  webhookSecret: string,
  /** More environment (e.g. an https PUBLIC_BASE_URL, for UCP's answers). */
  env: Record<string, string> = {},
): {
  t: TestApp;
  database: TestDatabase;
  stripe: FakeStripe;
} {
  let stripe: FakeStripe | undefined;
  beforeAll(async () => {
    stripe = await startFakeStripe({ apiKey: 'sk_test_portage123' });
  });
  afterAll(async () => {
    const open = stripe;
    stripe = undefined;
    await open?.close();
  });
  const { t, database } = useTestApp(() => ({
    env: {
      STRIPE_SECRET_KEY: 'sk_test_portage123',
      STRIPE_PUBLISHABLE_KEY: 'pk_test_portage123',
      PAYMENT_WEBHOOK_SECRET: webhookSecret,
      STRIPE_API_BASE: stripe!.url,
      ...env,
    },
  }));
  return { t, database, stripe: standIn('useFakeStripeApp(): the fake Stripe', () => stripe) };
}
