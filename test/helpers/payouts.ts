// Helpers for sellers' money: a payout account made ready through the sandbox's onboarding page,
// balances as the API answers them, and the ledger's check run over the test's database.
import pino from 'pino';
import { expect } from 'vitest';
import { checkLedger } from '../../src/modules/ledger/queries.ts';
import type { SignedIn, TestApp } from './app.ts';
import { addToCart, ON_ADDRESS, openCheckout } from './checkout.ts';
import type { TestDatabase } from './db.ts';
import { paymentSucceededEvent, signedEvent } from './fake-stripe.ts';
import { Browser } from './web.ts';

/** Stripe's test bank account numbers, as the sandbox takes them. */
export const TEST_BANK = { pays: '000123456789', fails: '000111111116' };

/** Opens the seller's payout account and gives it a test bank account on the sandbox's page. */
export async function enablePayouts(t: TestApp, s: SignedIn, account = TEST_BANK.pays): Promise<string> {
  const opened = await t.api.as(s).post('/sellers/me/payout-account', {});
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  const accountId: string = opened.body.account.accountId;
  const browser = new Browser(t.app);
  await browser.signIn(s);
  const form = await browser.get(`/sandbox/connect/${accountId}`);
  expect(form.status, form.html.slice(0, 300)).toBe(200);
  const done = await browser.post(`/sandbox/connect/${accountId}`, {
    holder: 'Maple Goods Inc.',
    institution: '001',
    transit: '12345',
    account,
  });
  expect(done.status, done.html.slice(0, 300)).toBe(200);
  const now = await t.api.as(s).get('/sellers/me/payout-account');
  expect(now.body.payoutsEnabled).toBe(true);
  return now.body.accountId;
}

export interface Balance {
  pendingCents: number;
  availableCents: number;
  inTransitCents: number;
  paidOutCents: number;
}

/** GET /sellers/me/balance's four balances. */
export async function balanceOf(t: TestApp, s: SignedIn): Promise<Balance> {
  const res = await t.api.as(s).get('/sellers/me/balance');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { pendingCents, availableCents, inTransitCents, paidOutCents } = res.body;
  return { pendingCents, availableCents, inTransitCents, paidOutCents };
}

/** The ledger's check over the database: [] when every transaction sums to zero and balances agree. */
export async function ledgerProblems(database: TestDatabase, t: TestApp) {
  return checkLedger({ db: database.db, now: () => t.clock.now(), log: pino({ level: 'silent' }) } as never);
}

/** Half-up rounding of a non-negative fraction, as money is rounded. */
export const roundHalfUp = (n: number, d: number) => Math.floor((2 * n + d) / (2 * d));

/** A Stripe event posted to `path`, signed with `secret` at the app's clock. */
export function postStripeEvent(t: TestApp, path: string, event: Record<string, unknown>, secret: string) {
  const { body, signature } = signedEvent(event, secret, Math.floor(t.clock.now().getTime() / 1000));
  return t.api.post(path, body.toString('utf8'), {
    'content-type': 'application/json',
    'stripe-signature': signature,
  });
}

/**
 * A checkout of one of each of `productIds`, opened by `b` (Ontario) and paid on Stripe: its
 * `payment_intent.succeeded` delivered signed with `secret`. Answers the session, the payment
 * intent's id and the orders.
 */
export async function paidOnStripe(t: TestApp, secret: string, b: SignedIn, productIds: string[]) {
  for (const id of productIds) await addToCart(t.api, b, id, 1);
  const session = await openCheckout(t.api, b, ON_ADDRESS);
  const pi = `pi_test_${session.sessionId.slice(-16).replace(/[^A-Za-z0-9]/g, 'x')}`;
  const paid = await postStripeEvent(
    t,
    '/webhooks/payments',
    paymentSucceededEvent(session.sessionId, session.totalCents, pi),
    secret,
  );
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return { session, pi, orderIds: paid.body.orderIds as string[] };
}

/**
 * A dispute as a provider's `charge.dispute.*` event carries it: `amountCents` of the payment
 * `paymentIntentId` taken back, with its fee (1500 unless told), evidence due at `dueBy` (unix seconds).
 */
export function disputeObject(d: {
  id: string;
  amountCents: number;
  paymentIntentId: string | null;
  reason: string;
  dueBy: number;
  feeCents?: number;
}) {
  const fee = d.feeCents ?? 1500;
  return {
    id: d.id,
    object: 'dispute',
    amount: d.amountCents,
    currency: 'cad',
    payment_intent: d.paymentIntentId,
    reason: d.reason,
    status: 'needs_response',
    evidence_details: { due_by: d.dueBy },
    balance_transactions: [{ object: 'balance_transaction', amount: -d.amountCents - fee, fee }],
  };
}
