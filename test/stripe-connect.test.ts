// Stripe Connect through the official SDK against the fake Stripe (test/helpers/fake-stripe.ts):
// the payout provider's calls as Stripe receives them, their answers and errors, and the
// payment provider's reading of account.updated and charge.dispute.* events. No database.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentsConfig } from '../src/config.ts';
import { render } from '../src/contract/i18n.ts';
import { type PaymentProvider, ProviderError } from '../src/modules/payments/provider.ts';
import { createStripeProvider } from '../src/modules/payments/providers/stripe.ts';
import type { PayoutProvider } from '../src/modules/payouts/provider.ts';
import { createStripePayouts } from '../src/modules/payouts/providers/stripe.ts';
import {
  accountUpdatedEvent,
  disputeEvent,
  type FakeStripe,
  signedEvent,
  startFakeStripe,
  stripeEvent,
} from './helpers/fake-stripe.ts';

const SECRET_KEY = 'sk_test_portageConnectKey0123456789';
const WEBHOOK_SECRET = 'whsec_portage_stripe_connect_test';

let fake: FakeStripe;
let payouts: PayoutProvider;
/** Without the SDK's retries, so that one failure is one answer. */
let noRetry: PayoutProvider;
let payments: PaymentProvider;

const paymentsConfig = (): PaymentsConfig => ({
  provider: 'stripe',
  webhookSecret: WEBHOOK_SECRET,
  stripeSecretKey: SECRET_KEY,
  publishableKey: 'pk_test_portage',
  stripeApiBase: new URL(fake.url),
  platformFeeBps: 250,
  payoutHoldDays: 7,
  disputeFeeCents: 1500,
  connectWebhookSecret: WEBHOOK_SECRET,
});

beforeAll(async () => {
  fake = await startFakeStripe({ apiKey: SECRET_KEY });
  payouts = createStripePayouts(paymentsConfig());
  noRetry = createStripePayouts(paymentsConfig(), { maxNetworkRetries: 0 });
  payments = createStripeProvider(paymentsConfig());
});
afterAll(() => fake.close());
afterEach(() => {
  fake.requests.length = 0;
});

let seq = 0;
async function openAccount(enabled: boolean, last4 = '4321') {
  seq++;
  const account = await payouts.createAccount({
    sellerId: `seller_${seq}`,
    email: `seller${seq}@example.ca`,
    idempotencyKey: `connect-account:seller_${seq}`,
  });
  if (enabled) fake.enableAccount(account.accountId, last4);
  return account.accountId;
}

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  const e = err as ProviderError;
  const shown = ['en-CA', 'fr-CA'].map((l) => render(l as 'en-CA', e.publicMessage));
  for (const text of [e.message, ...shown, String(e.stack)]) {
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toMatch(/sk_test_/);
  }
  return e;
}

describe('createAccount', () => {
  it('opens an Express account in Canada for transfers, with every parameter as sent on the wire', async () => {
    const input = { sellerId: 'seller_a', email: 'a@example.ca', idempotencyKey: 'connect-account:seller_a' };
    const account = await payouts.createAccount(input);
    expect(account).toEqual({
      accountId: expect.stringMatching(/^acct_/),
      payoutsEnabled: false,
      requirements: ['external_account', 'tos_acceptance.date'],
      bankLast4: null,
    });
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(`${req.method} ${req.path} ${req.status}`).toBe('POST /v1/accounts 200');
    expect(req.idempotencyKey).toBe('connect-account:seller_a');
    expect(req.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(req.body).toEqual({
      country: 'CA',
      email: 'a@example.ca',
      controller: {
        stripe_dashboard: { type: 'express' },
        fees: { payer: 'application' },
        losses: { payments: 'application' },
        requirement_collection: 'stripe',
      },
      capabilities: { transfers: { requested: 'true' } },
      settings: { payouts: { debit_negative_balances: 'true' } },
      metadata: { sellerId: 'seller_a' },
    });
    expect(fake.accounts.get(account.accountId)).toMatchObject({
      object: 'account',
      type: 'express',
      country: 'CA',
      capabilities: { transfers: 'inactive' },
      controller: { is_controller: true, type: 'application' },
    });

    // A retried call (same key) gets the same account: Stripe replays its first answer.
    const again = await payouts.createAccount(input);
    expect(again).toEqual(account);
    expect(fake.requests.at(-1)!.response).toEqual(fake.requests[0]!.response);
    expect([...fake.accounts.values()].filter((a) => a.email === 'a@example.ca')).toHaveLength(1);
  });
});

describe('onboardingLink and retrieveAccount', () => {
  it('asks for an account_onboarding link with both URLs', async () => {
    const accountId = await openAccount(false);
    fake.requests.length = 0;
    const link = await payouts.onboardingLink({
      accountId,
      refreshUrl: 'https://portage.example/sellers/me/payouts/refresh',
      returnUrl: 'https://portage.example/sellers/me/payouts',
    });
    expect(link.url).toMatch(new RegExp(`^https://connect\\.stripe\\.com/setup/e/${accountId}/`));
    const req = fake.requests[0]!;
    expect(`${req.method} ${req.path}`).toBe('POST /v1/account_links');
    expect(req.body).toEqual({
      account: accountId,
      refresh_url: 'https://portage.example/sellers/me/payouts/refresh',
      return_url: 'https://portage.example/sellers/me/payouts',
      type: 'account_onboarding',
    });
    expect(req.response).toMatchObject({ object: 'account_link', expires_at: expect.any(Number) });

    const e = await providerError(
      payouts.onboardingLink({
        accountId: 'acct_unknown',
        refreshUrl: 'https://x.ca/r',
        returnUrl: 'https://x.ca/',
      }),
    );
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('resource_missing');
  });

  it('reads the account as Stripe has it now: payouts, what is due, the bank’s last four digits', async () => {
    const accountId = await openAccount(false);
    expect(await payouts.retrieveAccount(accountId)).toEqual({
      accountId,
      payoutsEnabled: false,
      requirements: ['external_account', 'tos_acceptance.date'],
      bankLast4: null,
    });
    fake.enableAccount(accountId, '0042');
    fake.requests.length = 0;
    expect(await payouts.retrieveAccount(accountId)).toEqual({
      accountId,
      payoutsEnabled: true,
      requirements: [],
      bankLast4: '0042',
    });
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /v1/accounts/${accountId} 200`,
    ]);
  });

  it('an account the key cannot see is refused (403), its message without the key Stripe quotes', async () => {
    const e = await providerError(noRetry.retrieveAccount('acct_1NotOurs'));
    expect(e.retryable).toBe(false);
    expect(fake.requests.at(-1)!.status).toBe(403);
    // Stripe quotes the key masked (sk_test_****…6789): scrubbed all the same.
    expect(JSON.stringify(fake.requests.at(-1)!.response)).toContain('sk_test_');
    expect(e.message).toContain('account_invalid');
    expect(e.message).toContain('[key]');
  });
});

describe('transfer', () => {
  it('moves cad to the account in the charge’s transfer group under our key; a retry is the same transfer', async () => {
    const accountId = await openAccount(true);
    fake.requests.length = 0;
    const input = {
      accountId,
      amountCents: 2500,
      transferGroup: 'chk_42',
      idempotencyKey: 'payout:ord_1',
      metadata: { orderId: 'ord_1', sellerId: 'seller_x' },
    };
    const { transferId } = await payouts.transfer(input);
    expect(transferId).toMatch(/^tr_/);
    const req = fake.requests[0]!;
    expect(`${req.method} ${req.path} ${req.status}`).toBe('POST /v1/transfers 200');
    expect(req.idempotencyKey).toBe('payout:ord_1');
    expect(req.body).toEqual({
      amount: '2500',
      currency: 'cad',
      destination: accountId,
      transfer_group: 'chk_42',
      metadata: { orderId: 'ord_1', sellerId: 'seller_x' },
    });
    expect(fake.transfers.get(transferId)).toMatchObject({
      object: 'transfer',
      amount: 2500,
      currency: 'cad',
      destination: accountId,
      transfer_group: 'chk_42',
      reversed: false,
      amount_reversed: 0,
    });
    expect(await payouts.transfer(input)).toEqual({ transferId });
    expect(fake.transfers.size).toBe(1);
  });

  it('an outage is retryable; the SDK’s own retry reuses our key and makes one transfer', async () => {
    const accountId = await openAccount(true);
    const input = {
      accountId,
      amountCents: 700,
      transferGroup: 'chk_43',
      idempotencyKey: 'payout:ord_2',
      metadata: {},
    };
    fake.failNext(500, { type: 'api_error', message: 'An unknown error occurred' });
    const e = await providerError(noRetry.transfer(input));
    expect(e.retryable).toBe(true);

    const before = fake.transfers.size;
    fake.requests.length = 0;
    fake.failNext(503, { type: 'api_error', message: 'Service unavailable' });
    const { transferId } = await payouts.transfer(input);
    expect(fake.requests.map((r) => `${r.status} ${r.idempotencyKey}`)).toEqual([
      '503 payout:ord_2',
      '200 payout:ord_2',
    ]);
    expect(fake.transfers.size).toBe(before + 1);
    expect(fake.transfers.get(transferId)!.amount).toBe(700);
  });

  it('refuses, not retryable: nothing to move, an unknown destination, an account not onboarded, a 400', async () => {
    const enabled = await openAccount(true);
    const pending = await openAccount(false);
    const base = { transferGroup: 'chk_44', metadata: {} };
    const zero = await providerError(
      noRetry.transfer({ ...base, accountId: enabled, amountCents: 0, idempotencyKey: 't0' }),
    );
    expect(zero.retryable).toBe(false);
    expect(fake.requests.at(-1)!.status).toBe(400);

    const unknown = await providerError(
      noRetry.transfer({ ...base, accountId: 'acct_1Nobody', amountCents: 100, idempotencyKey: 't1' }),
    );
    expect(unknown.retryable).toBe(false);
    expect(unknown.message).toContain('resource_missing');

    const notYet = await providerError(
      noRetry.transfer({ ...base, accountId: pending, amountCents: 100, idempotencyKey: 't2' }),
    );
    expect(notYet.retryable).toBe(false);
    expect(notYet.message).toMatch(/capabilities/);

    fake.failNext(400, { type: 'invalid_request_error', message: `Bad request made with ${SECRET_KEY}` });
    const refused = await providerError(
      noRetry.transfer({ ...base, accountId: enabled, amountCents: 100, idempotencyKey: 't3' }),
    );
    expect(refused.retryable).toBe(false);
    expect(refused.message).toContain('StripeInvalidRequestError 400');
    expect(refused.message).toContain('[key]');
  });
});

describe('reverseTransfer', () => {
  it('takes back part, then the rest; more than is left is refused', async () => {
    const accountId = await openAccount(true);
    const { transferId } = await payouts.transfer({
      accountId,
      amountCents: 2500,
      transferGroup: 'chk_50',
      idempotencyKey: 'payout:ord_50',
      metadata: {},
    });
    fake.requests.length = 0;
    const first = await payouts.reverseTransfer({
      transferId,
      amountCents: 1000,
      idempotencyKey: 'reversal:ref_1',
      metadata: { refundId: 'ref_1' },
    });
    expect(first.reversalId).toMatch(/^trr_/);
    const req = fake.requests[0]!;
    expect(`${req.method} ${req.path} ${req.status}`).toBe(`POST /v1/transfers/${transferId}/reversals 200`);
    expect(req.idempotencyKey).toBe('reversal:ref_1');
    expect(req.body).toEqual({ amount: '1000', metadata: { refundId: 'ref_1' } });
    expect(req.response).toMatchObject({ object: 'transfer_reversal', amount: 1000, transfer: transferId });
    expect(fake.transfers.get(transferId)).toMatchObject({ amount_reversed: 1000, reversed: false });

    // The same key again: the same reversal, nothing more taken.
    expect(
      await payouts.reverseTransfer({
        transferId,
        amountCents: 1000,
        idempotencyKey: 'reversal:ref_1',
        metadata: { refundId: 'ref_1' },
      }),
    ).toEqual(first);
    expect(fake.transfers.get(transferId)!.amount_reversed).toBe(1000);

    const over = await providerError(
      noRetry.reverseTransfer({
        transferId,
        amountCents: 1501,
        idempotencyKey: 'reversal:ref_2',
        metadata: {},
      }),
    );
    expect(over.retryable).toBe(false);
    expect(over.message).toContain('StripeInvalidRequestError 400');
    expect(over.message).toMatch(/1501.*1500/);
    expect(fake.transfers.get(transferId)!.amount_reversed).toBe(1000);

    await payouts.reverseTransfer({
      transferId,
      amountCents: 1500,
      idempotencyKey: 'reversal:ref_3',
      metadata: {},
    });
    expect(fake.transfers.get(transferId)).toMatchObject({ amount_reversed: 2500, reversed: true });

    const gone = await providerError(
      noRetry.reverseTransfer({
        transferId: 'tr_unknown',
        amountCents: 1,
        idempotencyKey: 'r4',
        metadata: {},
      }),
    );
    expect(gone.retryable).toBe(false);
    expect(gone.message).toContain('resource_missing');
  });
});

describe('submitDisputeEvidence', () => {
  it('text alone: one update with the text, submitted', async () => {
    const dispute = fake.openDispute({ paymentIntentId: 'pi_test_d1', amount: 4000 });
    const id = dispute.id as string;
    const answer = await payouts.submitDisputeEvidence({
      disputeId: id,
      text: 'Delivered on May 3, signed.',
    });
    expect(answer).toEqual({ fileId: null });
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST /v1/disputes/${id} 200`,
    ]);
    expect(fake.requests[0]!.body).toEqual({
      evidence: { uncategorized_text: 'Delivered on May 3, signed.' },
      submit: 'true',
    });
    expect(fake.disputes.get(id)).toMatchObject({
      status: 'under_review',
      evidence: { uncategorized_text: 'Delivered on May 3, signed.', uncategorized_file: null },
      evidence_details: { has_evidence: true, submission_count: 1 },
    });

    // Submitted: no more evidence.
    const again = await providerError(noRetry.submitDisputeEvidence({ disputeId: id, text: 'More.' }));
    expect(again.retryable).toBe(false);
  });

  it('with a file: uploaded as dispute_evidence (multipart, bytes intact), then named in the evidence', async () => {
    const dispute = fake.openDispute({ paymentIntentId: 'pi_test_d2', amount: 2500 });
    const id = dispute.id as string;
    const data = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from([0x00, 0xff, 0xfe, 0x0d, 0x0a, 0x2d, 0x2d]),
      Buffer.alloc(2048, 0xab),
    ]);
    const { fileId } = await payouts.submitDisputeEvidence({
      disputeId: id,
      text: 'Tracking attached.',
      file: { name: 'tracking.png', type: 'image/png', data },
    });
    expect(fileId).toMatch(/^file_/);
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /v1/files 200',
      `POST /v1/disputes/${id} 200`,
    ]);
    const upload = fake.requests[0]!;
    expect(upload.body.purpose).toBe('dispute_evidence');
    expect(upload.body.file).toEqual({ name: 'tracking.png', type: 'image/png', data });
    expect(upload.response).toMatchObject({
      id: fileId,
      object: 'file',
      purpose: 'dispute_evidence',
      size: data.length,
      type: 'png',
      filename: 'tracking.png',
    });
    expect(fake.files.get(fileId!)!.data.equals(data)).toBe(true);
    expect(fake.requests[1]!.body).toEqual({
      evidence: { uncategorized_text: 'Tracking attached.', uncategorized_file: fileId },
      submit: 'true',
    });
    expect(fake.disputes.get(id)).toMatchObject({
      status: 'under_review',
      evidence: { uncategorized_file: fileId },
    });
  });

  it('a file Stripe does not take is refused before the dispute is touched', async () => {
    const dispute = fake.openDispute({ paymentIntentId: 'pi_test_d3', amount: 900 });
    const e = await providerError(
      noRetry.submitDisputeEvidence({
        disputeId: dispute.id as string,
        text: 'See notes.',
        file: { name: 'notes.txt', type: 'text/plain', data: Buffer.from('hello') },
      }),
    );
    expect(e.retryable).toBe(false);
    expect(fake.requests.map((r) => `${r.path} ${r.status}`)).toEqual(['/v1/files 400']);
    expect(fake.disputes.get(dispute.id as string)!.status).toBe('needs_response');

    const unknown = await providerError(
      noRetry.submitDisputeEvidence({ disputeId: 'dp_unknown', text: 'x' }),
    );
    expect(unknown.message).toContain('resource_missing');
  });
});

describe('parseWebhook: Connect and dispute events', () => {
  const t = Math.floor(Date.now() / 1000);
  const at = (seconds: number) => new Date(seconds * 1000);
  const parse = (event: Record<string, unknown>) => {
    const { body, signature } = signedEvent(event, WEBHOOK_SECRET, t);
    return payments.parseWebhook(body, signature, at(t + 1));
  };

  it('account.updated: payouts, requirements and the bank’s last four digits', async () => {
    const accountId = await openAccount(false);
    const pending = accountUpdatedEvent(fake.accounts.get(accountId)!, 'evt_test_acct_1');
    expect(pending).toMatchObject({ type: 'account.updated', account: accountId });
    expect(parse(pending)).toEqual({
      kind: 'account_updated',
      eventId: 'evt_test_acct_1',
      accountId,
      payoutsEnabled: false,
      requirements: ['external_account', 'tos_acceptance.date'],
      bankLast4: null,
    });
    expect(parse(accountUpdatedEvent(fake.enableAccount(accountId, '9876'), 'evt_test_acct_2'))).toEqual({
      kind: 'account_updated',
      eventId: 'evt_test_acct_2',
      accountId,
      payoutsEnabled: true,
      requirements: [],
      bankLast4: '9876',
    });
  });

  it('charge.dispute.created, .updated, .closed: the dispute as it stands, its fee summed', async () => {
    const dispute = fake.openDispute({ paymentIntentId: 'pi_test_w1', amount: 5000, reason: 'fraudulent' });
    const dueBy = (dispute.evidence_details as { due_by: number }).due_by;
    expect(parse(disputeEvent('created', dispute, 'evt_test_dp_1'))).toEqual({
      kind: 'dispute',
      eventId: 'evt_test_dp_1',
      phase: 'created',
      dispute: {
        id: dispute.id,
        paymentIntentId: 'pi_test_w1',
        amountCents: 5000,
        feeCents: 1500,
        reason: 'fraudulent',
        status: 'needs_response',
        evidenceDueBy: new Date(dueBy * 1000),
      },
    });

    await payouts.submitDisputeEvidence({ disputeId: dispute.id as string, text: 'Signed for.' });
    expect(parse(disputeEvent('updated', fake.disputes.get(dispute.id as string)!))).toMatchObject({
      kind: 'dispute',
      phase: 'updated',
      dispute: { status: 'under_review', feeCents: 1500 },
    });

    const won = fake.closeDispute(dispute.id as string, 'won');
    expect(parse(disputeEvent('closed', won))).toMatchObject({
      kind: 'dispute',
      phase: 'closed',
      dispute: { status: 'won', feeCents: 1500, amountCents: 5000 },
    });
  });

  it('an expanded payment intent gives its id; no fee told is undefined; no due date is null', () => {
    const dispute = fake.openDispute({ paymentIntentId: 'pi_test_w2', amount: 300 });
    const expanded = {
      ...dispute,
      payment_intent: { id: 'pi_test_w2', object: 'payment_intent', amount: 300 },
      balance_transactions: [],
      evidence_details: { due_by: null, has_evidence: false, past_due: false, submission_count: 0 },
    };
    expect(parse(disputeEvent('updated', expanded))).toMatchObject({
      kind: 'dispute',
      dispute: { paymentIntentId: 'pi_test_w2', feeCents: undefined, evidenceDueBy: null },
    });
  });

  it('a dispute without a payment intent, or another dispute event, is ignored', () => {
    const orphan = fake.openDispute({ paymentIntentId: null, amount: 100 });
    expect(parse(disputeEvent('created', orphan, 'evt_test_orphan'))).toEqual({
      kind: 'ignored',
      eventId: 'evt_test_orphan',
      type: 'charge.dispute.created',
    });
    const withdrawn = stripeEvent('charge.dispute.funds_withdrawn', orphan, 'evt_test_funds');
    expect(parse(withdrawn)).toEqual({
      kind: 'ignored',
      eventId: 'evt_test_funds',
      type: 'charge.dispute.funds_withdrawn',
    });
  });
});
