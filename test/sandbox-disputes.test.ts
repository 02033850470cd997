// The sandbox's disputes (issue 42, docs/api.md "Payout accounts"): an admin opens a dispute of a
// paid checkout and closes it, won or lost; each is Stripe's event, signed and received by the
// webhook's own handling (a `payment_events` row of type `dispute`). And the sandbox provider's
// reading of Stripe's `account.updated` and `charge.dispute.*` events, through parseWebhook with
// a signature from its own signer.
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSandboxProvider } from '../src/modules/payments/providers/sandbox.ts';
import { paymentEvents } from '../src/modules/payments/tables.ts';
import { disputeEvent, type SandboxDispute } from '../src/modules/payouts/sandbox-disputes.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, expectError, expectInvalid, seller } from './helpers/builders.ts';
import { type PaidOrder, paidOrder, sessionRow, setClock } from './helpers/orders.ts';

const { t, database } = useTestApp();

const NOW = '2026-11-20T15:00:00.000Z';
let boss: SignedIn;
let paid: PaidOrder;
let paymentIntentId: string;
let totalCents: number;

beforeAll(async () => {
  setClock(t, NOW);
  boss = await admin(t.api, database);
  paid = await paidOrder(t);
  const session = await sessionRow(database, paid.session.sessionId);
  paymentIntentId = session!.paymentIntentId!;
  totalCents = session!.totalCents;
});

const disputeRows = () =>
  database.db
    .select()
    .from(paymentEvents)
    .where(and(eq(paymentEvents.type, 'dispute'), eq(paymentEvents.paymentIntentId, paymentIntentId)));

describe('POST /sandbox/disputes and /sandbox/disputes/:id/close', () => {
  it('are for admins only', async () => {
    const body = { paymentIntentId: 'pi_x' };
    expectError(await t.api.post('/sandbox/disputes', body), 'AUTH_ERROR', 401);
    for (const who of [await buyer(t.api), await seller(t.api)]) {
      expect((await t.api.as(who).post('/sandbox/disputes', body)).status).toBe(403);
      expect((await t.api.as(who).post('/sandbox/disputes/dp_x/close', { outcome: 'won' })).status).toBe(403);
    }
  });

  it('opens a dispute of the whole payment: the webhook receives charge.dispute.created (201); closing it sends charge.dispute.closed', async () => {
    const before = (await disputeRows()).length;
    const res = await t.api.as(boss).post('/sandbox/disputes', { paymentIntentId });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ disputeId: expect.stringMatching(/^dp_sandbox_[0-9a-f]{24}$/) });
    const opened = await disputeRows();
    expect(opened).toHaveLength(before + 1);
    expect(opened.at(-1)).toMatchObject({
      provider: 'sandbox',
      type: 'dispute',
      paymentIntentId,
      checkoutId: null,
      receivedAt: new Date(NOW),
    });
    expect(opened.at(-1)!.eventId).toMatch(/^evt_sandbox_[0-9a-f]{24}$/);

    const closed = await t.api
      .as(boss)
      .post(`/sandbox/disputes/${res.body.disputeId}/close`, { outcome: 'lost' });
    expect({ status: closed.status, body: closed.body }).toEqual({
      status: 200,
      body: { disputeId: res.body.disputeId, status: 'lost' },
    });
    expect(await disputeRows()).toHaveLength(before + 2);
    expectError(
      await t.api.as(boss).post(`/sandbox/disputes/${res.body.disputeId}/close`, { outcome: 'won' }),
      'CONFLICT',
      409,
      'This dispute is already closed',
    );
    expect(await disputeRows()).toHaveLength(before + 2);
  });

  it('opens one of part of the payment with a reason, and closes it won', async () => {
    const res = await t.api
      .as(boss)
      .post('/sandbox/disputes', { paymentIntentId, amountCents: 500, reason: 'product_not_received' });
    expect(res.status).toBe(201);
    const won = await t.api
      .as(boss)
      .post(`/sandbox/disputes/${res.body.disputeId}/close`, { outcome: 'won' });
    expect(won.body).toEqual({ disputeId: res.body.disputeId, status: 'won' });
  });

  it('refuses an unknown payment (404), more than the payment, another reason or outcome (400), an unknown dispute (404)', async () => {
    expectError(
      await t.api.as(boss).post('/sandbox/disputes', { paymentIntentId: 'pi_sandbox_nope' }),
      'NOT_FOUND',
      404,
      'No sandbox payment has this payment intent',
    );
    expectInvalid(
      await t.api.as(boss).post('/sandbox/disputes', { paymentIntentId, amountCents: totalCents + 1 }),
      [{ field: 'amountCents', message: "must be at most the payment's amount" }],
    );
    expectInvalid(await t.api.as(boss).post('/sandbox/disputes', { paymentIntentId, amountCents: 0 }), [
      { field: 'amountCents', message: 'must be a whole number from 1 to 100,000,000' },
    ]);
    expect(
      (await t.api.as(boss).post('/sandbox/disputes', { paymentIntentId, reason: 'bored' })).body.details,
    ).toEqual([{ field: 'reason', message: expect.stringMatching(/^must be one of bank_cannot_process, /) }]);
    expectInvalid(await t.api.as(boss).post('/sandbox/disputes/dp_sandbox_x/close', { outcome: 'draw' }), [
      { field: 'outcome', message: 'must be one of won, lost' },
    ]);
    expectError(
      await t.api.as(boss).post('/sandbox/disputes/dp_sandbox_nope/close', { outcome: 'won' }),
      'NOT_FOUND',
      404,
      'No sandbox dispute dp_sandbox_nope',
    );
  });
});

describe("the sandbox provider's reading of Stripe's Connect and dispute events", () => {
  const secret = 'whsec_sandbox_test';
  const provider = createSandboxProvider({ publicBaseUrl: 'http://portage.test', webhookSecret: secret });
  const now = new Date(NOW);
  const parsed = (event: unknown) => {
    const payload = JSON.stringify(event);
    return provider.parseWebhook(Buffer.from(payload), provider.sign(payload, now), now);
  };
  const accountEvent = (account: Record<string, unknown>) => ({
    id: 'evt_1Acct',
    object: 'event',
    type: 'account.updated',
    account: account.id,
    data: { object: account },
  });

  it('account.updated: payouts, what is currently due, the first bank account’s last four digits', () => {
    expect(
      parsed(
        accountEvent({
          id: 'acct_1Nv0FGQ9RKHgCVdK',
          object: 'account',
          payouts_enabled: true,
          charges_enabled: true,
          requirements: { currently_due: [], eventually_due: ['individual.id_number'], past_due: [] },
          external_accounts: {
            object: 'list',
            data: [
              {
                id: 'ba_1',
                object: 'bank_account',
                last4: '6789',
                currency: 'cad',
                default_for_currency: true,
              },
            ],
          },
        }),
      ),
    ).toEqual({
      kind: 'account_updated',
      eventId: 'evt_1Acct',
      accountId: 'acct_1Nv0FGQ9RKHgCVdK',
      payoutsEnabled: true,
      requirements: [],
      bankLast4: '6789',
    });
    expect(
      parsed(
        accountEvent({
          id: 'acct_2',
          object: 'account',
          payouts_enabled: false,
          requirements: { currently_due: ['external_account', 'individual.dob.day', 42] },
        }),
      ),
    ).toEqual({
      kind: 'account_updated',
      eventId: 'evt_1Acct',
      accountId: 'acct_2',
      payoutsEnabled: false,
      requirements: ['external_account', 'individual.dob.day'],
      bankLast4: null,
    });
    expect(parsed(accountEvent({ id: 'not an account', payouts_enabled: true }))).toEqual({
      kind: 'ignored',
      eventId: 'evt_1Acct',
      type: 'account.updated',
    });
  });

  const dispute: SandboxDispute = {
    id: 'dp_sandbox_1',
    paymentIntentId: 'pi_sandbox_1',
    amountCents: 2260,
    feeCents: 1500,
    reason: 'fraudulent',
    status: 'needs_response',
    createdAt: now,
    evidenceDueBy: new Date('2026-11-27T15:00:00Z'),
  };
  const facts = {
    id: 'dp_sandbox_1',
    paymentIntentId: 'pi_sandbox_1',
    amountCents: 2260,
    feeCents: 1500,
    reason: 'fraudulent',
    status: 'needs_response',
    evidenceDueBy: new Date('2026-11-27T15:00:00Z'),
  };

  it('charge.dispute.created, .updated and .closed: the dispute as it stands, its fee the sum of its balance transactions’', () => {
    const created = disputeEvent('created', dispute, now);
    expect(created).toMatchObject({
      type: 'charge.dispute.created',
      data: {
        object: {
          object: 'dispute',
          status: 'needs_response',
          evidence_details: { due_by: Date.parse('2026-11-27T15:00:00Z') / 1000 },
          balance_transactions: [{ amount: -2260, fee: 1500 }],
        },
      },
    });
    expect(parsed(created)).toEqual({
      kind: 'dispute',
      eventId: created.id,
      phase: 'created',
      dispute: facts,
    });
    const review = disputeEvent('updated', { ...dispute, status: 'under_review' }, now);
    expect(parsed(review)).toEqual({
      kind: 'dispute',
      eventId: review.id,
      phase: 'updated',
      dispute: { ...facts, status: 'under_review' },
    });
    const won = disputeEvent('closed', { ...dispute, status: 'won' }, now);
    expect(parsed(won)).toEqual({
      kind: 'dispute',
      eventId: won.id,
      phase: 'closed',
      dispute: { ...facts, status: 'won' },
    });
    const lost = disputeEvent('closed', { ...dispute, status: 'lost' }, now);
    expect(parsed(lost)).toMatchObject({ phase: 'closed', dispute: { status: 'lost', feeCents: 1500 } });
  });

  it('Stripe’s own shape: an expanded payment intent, fees given back, no fee or deadline told; a dispute without a payment intent is not ours', () => {
    const stripe = (object: Record<string, unknown>) => ({
      id: 'evt_1Dp',
      object: 'event',
      type: 'charge.dispute.closed',
      data: {
        object: { id: 'dp_1Q', object: 'dispute', amount: 1000, reason: 'general', status: 'won', ...object },
      },
    });
    expect(
      parsed(
        stripe({
          payment_intent: { id: 'pi_3Q', object: 'payment_intent' },
          balance_transactions: [{ fee: 1500 }, { fee: -1500 }],
          evidence_details: { due_by: null },
        }),
      ),
    ).toEqual({
      kind: 'dispute',
      eventId: 'evt_1Dp',
      phase: 'closed',
      dispute: {
        id: 'dp_1Q',
        paymentIntentId: 'pi_3Q',
        amountCents: 1000,
        feeCents: 0,
        reason: 'general',
        status: 'won',
        evidenceDueBy: null,
      },
    });
    expect(parsed(stripe({ payment_intent: 'pi_3Q', balance_transactions: [] }))).toMatchObject({
      dispute: { feeCents: undefined },
    });
    expect(parsed(stripe({ payment_intent: null, charge: 'ch_1' }))).toEqual({
      kind: 'ignored',
      eventId: 'evt_1Dp',
      type: 'charge.dispute.closed',
    });
    expect(
      parsed({ ...stripe({ payment_intent: 'pi_3Q' }), type: 'charge.dispute.funds_withdrawn' }),
    ).toEqual({ kind: 'ignored', eventId: 'evt_1Dp', type: 'charge.dispute.funds_withdrawn' });
  });
});
