// ACP 2026-04-17 over Portage's one checkout (docs/acp.md): a platform creates, updates, completes
// and cancels sessions. Every request and answer goes through test/helpers/acp.ts, which checks
// it against our zod contract of the spec.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { acpWebhookEvent } from '../src/contract/acp.ts';
import { vaultTokens } from '../src/modules/agent-checkout/tables.ts';
import { users } from '../src/modules/auth/tables.ts';
import { outbox } from '../src/modules/mail/tables.ts';
import { sandboxPaymentIntent } from '../src/modules/payments/providers/sandbox.ts';
import { verifySignature } from '../src/modules/payments/signature.ts';
import { platforms } from '../src/modules/platforms/tables.ts';
import { idempotencyKeys } from '../src/modules/system/tables.ts';
import {
  ACP_ON,
  ACP_QC,
  ACP_VERSION,
  AcpClient,
  CAPABILITIES,
  checkoutOfSession,
  heldSessionOf,
  issuePlatform,
  type Platform,
  startReceiver,
} from './helpers/acp.ts';
import { agentToken } from './helpers/agents.ts';
import type { Answer, SignedIn } from './helpers/app.ts';
import { useTestApp, withTestApp } from './helpers/app.ts';
import { admin, buyer, product, seller, uniqueEmail, verified } from './helpers/builders.ts';
import { addToCart, openCheckout, paymentEvent, postEvent } from './helpers/checkout.ts';
import { acpProblems, expectOfficial } from './helpers/official-schemas.ts';
import { emlFiles, liveReservedUnits, ordersOfCheckout, stockOf } from './helpers/orders.ts';
import { parseEml } from './helpers/smtp.ts';

const { t, database } = useTestApp();

let boss: SignedIn;
let shop: SignedIn;
let platform: Platform;
let acp: AcpClient;
beforeAll(async () => {
  boss = await admin(t.api, database);
  shop = await seller(t.api, 'ON');
  platform = await issuePlatform(t.api, boss);
  acp = new AcpClient(t.api, platform.apiKey, t.clock.now);
});

const buyerNamed = (email = uniqueEmail('acp')) => ({ email, first_name: 'Avery', last_name: 'Tremblay' });
type Total = { type: string; amount: number };
const amount = (body: { totals: Total[] }, type: string) => body.totals.find((x) => x.type === type)?.amount;

/** A held session of `quantity` units of a new product (stock 5, $25.00): answers it and the product. */
const heldSession = (quantity = 1, client = acp, buyer: Record<string, string> = buyerNamed()) =>
  heldSessionOf(t.api, shop, client, { quantity, buyer });
const checkoutOf = (sessionId: string) => checkoutOfSession(database, sessionId);

describe('a platform buys through ACP', () => {
  it('create (201, held) → update to Quebec (tax changes) → complete: one order, for a guest account', async () => {
    const p = await product(t.api, shop, { priceCents: 2500, stockQuantity: 5 });
    const email = uniqueEmail('acp');
    const created = await acp.create({
      line_items: [{ id: p.id, quantity: 2 }],
      buyer: buyerNamed(email),
      fulfillment_details: ACP_ON,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ status: 'ready_for_payment', currency: 'cad', messages: [] });
    // The platform's own policies, as pages a person opens (not the API reference); the returns
    // of the one shop sold from, on its page.
    expect(created.body.links).toEqual([
      { type: 'terms_of_use', url: 'http://portage.test/policies/terms' },
      { type: 'privacy_policy', url: 'http://portage.test/policies/privacy' },
      { type: 'return_policy', url: `http://portage.test/shops/${encodeURIComponent(shop.id)}#returns` },
    ]);
    expect(created.body.line_items).toEqual([
      expect.objectContaining({
        id: `line_${p.id}`,
        item: { id: p.id },
        quantity: 2,
        unit_amount: 2500,
      }),
    ]);
    const shipping = amount(created.body, 'fulfillment')!;
    expect(amount(created.body, 'items_base_amount')).toBe(5000);
    expect(amount(created.body, 'tax')).toBe(Math.round((5000 + shipping) * 0.13));
    expect(amount(created.body, 'total')).toBe(5000 + shipping + Math.round((5000 + shipping) * 0.13));
    expect(created.body.totals.map((x: Total) => x.type)).not.toContain('fee');
    expect(await liveReservedUnits(database, p.id)).toBe(2);

    const moved = await acp.update(created.body.id, { fulfillment_details: ACP_QC });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const qcTax = moved.body.totals.find((x: Total) => x.type === 'tax');
    expect(qcTax.amount).not.toBe(amount(created.body, 'tax'));
    // Each tax line names the parcel by its shop's name, never the seller's id.
    const shopName = (await t.api.as(shop).get('/me')).body.seller.shopName;
    expect(qcTax.breakdown.map((b: { jurisdiction: string }) => b.jurisdiction)).toEqual([
      `GST QC (parcel of ${shopName})`,
      `QST QC (parcel of ${shopName})`,
    ]);
    expect(await liveReservedUnits(database, p.id)).toBe(2);

    const done = await acp.pay(created.body.id);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.status).toBe('completed');
    expect(done.body.order).toMatchObject({ type: 'order', checkout_session_id: created.body.id });
    const orders = await ordersOfCheckout(database, await checkoutOf(created.body.id));
    expect(orders).toHaveLength(1);
    expect(orders[0]!.totalAmountCents).toBe(amount(moved.body, 'total'));
    expect(await stockOf(database, p.id)).toEqual({ stock: 3, reserved: 0 });
    const [guest] = await database.db.select().from(users).where(eq(users.email, email));
    expect(guest).toMatchObject({ role: 'buyer', passwordHash: null, emailVerified: false });
    expect(orders[0]!.buyerId).toBe(guest!.id);

    const again = await acp.get(created.body.id);
    expect(again.body).toEqual(done.body);
  });

  it("sends order_create, then order_update when shipped, signed with the platform's secret", async () => {
    const receiver = await startReceiver();
    try {
      const own = await issuePlatform(t.api, boss, receiver.url);
      const client = new AcpClient(t.api, own.apiKey, t.clock.now);
      const { session } = await heldSession(1, client);
      await client.pay(session.id);
      await t.app.jobs.runOnce();
      const [order] = await ordersOfCheckout(database, await checkoutOf(session.id));
      const shipped = await t.api
        .as(shop)
        .post(`/orders/${order!.id}/ship`, { trackingNumber: '1Z999AA10123456784', carrier: 'Canada Post' });
      expect(shipped.status, JSON.stringify(shipped.body)).toBe(200);
      await t.app.jobs.runOnce();

      expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(['order_create', 'order_update']);
      for (const r of receiver.received) {
        expect(() =>
          verifySignature(
            Buffer.from(r.body),
            r.headers['merchant-signature'] as string,
            own.webhookSecret,
            t.clock.now(),
          ),
        ).not.toThrow();
        acpWebhookEvent.parse(JSON.parse(r.body));
        expectOfficial(acpProblems('webhookEvent', JSON.parse(r.body)), r.body);
      }
      const update = JSON.parse(receiver.received[1]!.body).data;
      expect(update).toMatchObject({ checkout_session_id: session.id, status: 'shipped' });
      expect(update.fulfillments).toEqual([
        expect.objectContaining({
          status: 'shipped',
          carrier: 'Canada Post',
          tracking_number: '1Z999AA10123456784',
        }),
      ]);
      expect(update.permalink_url).toMatch(/^http/);
    } finally {
      await receiver.close();
    }
  });

  it('an agent token with scope shop buys as its person; without shop it is 403', async () => {
    const person = await buyer(t.api, 'acp-agent');
    const agent = await agentToken(t, database, person, ['shop']);
    const client = new AcpClient(t.api, agent.token, t.clock.now);
    const p = await product(t.api, shop);
    const created = await client.create({ line_items: [{ id: p.id }], fulfillment_details: ACP_ON });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.status).toBe('ready_for_payment');
    const done = await client.pay(created.body.id);
    expect(done.body.status).toBe('completed');
    const [order] = await ordersOfCheckout(database, await checkoutOf(created.body.id));
    expect(order!.buyerId).toBe(person.id);
    expect((await acp.get(created.body.id)).status).toBe(404);

    const reader = await agentToken(t, database, person, ['orders']);
    const refused = await new AcpClient(t.api, reader.token).create({ line_items: [{ id: p.id }] });
    expect(refused.status).toBe(403);
  });
});

describe('a guest claims the account a platform made', () => {
  /** The link to `pathname` in the newest email of `kind` to `to`, as the worker wrote it (.eml). */
  async function linkInMail(to: string, kind: string, pathname: string): Promise<string> {
    await t.app.jobs.runOnce();
    const [row] = await database.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.toAddress, to), eq(outbox.kind, kind)))
      .orderBy(desc(outbox.createdAt), desc(outbox.id))
      .limit(1);
    const [file] = (await emlFiles(t)).filter((f) => f.endsWith(`-${row!.id}.eml`));
    const mail = parseEml(await readFile(path.join(t.config.dataDir, 'mail', file!), 'utf8'));
    const token = new RegExp(`${pathname}\\?token=([A-Za-z0-9_-]{43})`).exec(mail.text ?? '')?.[1];
    expect(token, mail.text).toBeDefined();
    return token!;
  }

  it('by verifying the address, then setting a password: the order is in their history', async () => {
    const { session } = await heldSession(1);
    const done = await acp.pay(session.id);
    expect(done.body.status).toBe('completed');
    const email = session.buyer.email as string;
    // No password was set by the platform: nobody can sign in yet.
    expect((await t.api.post('/auth/login', { email, password: 'anything-at-all-1' })).status).toBe(401);

    expect((await t.api.post('/auth/password/forgot', { email })).status).toBe(202);
    const verify = await linkInMail(email, 'email-verify', '/auth/email/verify');
    expect((await t.api.post('/auth/email/verify', { token: verify })).status).toBe(200);
    expect((await t.api.post('/auth/password/forgot', { email })).status).toBe(202);
    const reset = await linkInMail(email, 'password-reset', '/auth/password/reset');
    const password = 'my own canoe paddle 42';
    expect((await t.api.post('/auth/password/reset', { token: reset, password })).status).toBe(200);

    const signedIn = await t.api.post('/auth/login', { email, password });
    expect(signedIn.status).toBe(200);
    const orders = await t.api.as(signedIn.body.token).get('/orders');
    expect(orders.body.orders.map((o: { id: string }) => o.id)).toEqual(
      (await ordersOfCheckout(database, await checkoutOf(session.id))).map((o) => o.id),
    );
  });
});

describe('a platform naming an existing account', () => {
  it("buys as that person, without ending the person's own checkout or hold", async () => {
    const person = await verified(database, await buyer(t.api, 'acp-existing'));
    const own = await product(t.api, shop, { stockQuantity: 5 });
    await addToCart(t.api, person, own.id, 1);
    const mine = await openCheckout(t.api, person);
    const { session } = await heldSession(1, acp, { email: person.email, first_name: 'Avery' });
    expect((await acp.pay(session.id)).body.status).toBe('completed');
    // The person's own checkout is still theirs to pay.
    const still = await t.api.as(person).get(`/checkout/${encodeURIComponent(mine.sessionId)}`);
    expect(still.body.status).toBe('ready_for_payment');
    expect(await liveReservedUnits(database, own.id)).toBe(1);
    const [order] = await ordersOfCheckout(database, await checkoutOf(session.id));
    expect(order!.buyerId).toBe(person.id);
  });
});

describe('an account whose address was never verified, named by a platform', () => {
  it('loses its password and sign-ins to the purchase: the order is readable only by whoever proves the address', async () => {
    // Someone registers the address of a person who never verifies it, then waits.
    const address = uniqueEmail('victim');
    const squatter = await t.api.post('/auth/register', {
      email: address,
      password: 'squatters password 1',
      name: 'Not the owner',
    });
    expect(squatter.status).toBe(201);
    const squatterToken = squatter.body.token as string;
    expect((await t.api.as(squatterToken).get('/orders')).status).toBe(200);

    // The owner buys through a platform, which names the address in capitals.
    const { session } = await heldSession(1, acp, buyerNamed(address.toUpperCase()));
    expect((await acp.pay(session.id)).body.status).toBe('completed');
    const [order] = await ordersOfCheckout(database, await checkoutOf(session.id));
    const [account] = await database.db.select().from(users).where(eq(users.email, address));
    expect(order!.buyerId).toBe(account!.id);
    expect(account).toMatchObject({ passwordHash: null, emailVerified: false, tokenVersion: 1 });

    // What the squatter held opens nothing any more: not the order, its invoice, nor a cancel.
    expect((await t.api.as(squatterToken).get(`/orders/${order!.id}`)).status).toBe(401);
    expect((await t.api.as(squatterToken).get(`/orders/${order!.id}/invoice`)).status).toBe(401);
    expect(
      (await t.api.as(squatterToken).post(`/orders/${order!.id}/cancel`, { reason: 'mine' })).status,
    ).toBe(401);
    expect(
      (await t.api.post('/auth/login', { email: address, password: 'squatters password 1' })).status,
    ).toBe(401);
  });

  it('an unverified seller named by a platform keeps its password and sign-ins (a seller cannot buy)', async () => {
    const shopOwner = await seller(t.api);
    const p = await product(t.api, shop);
    const res = await acp.create({
      line_items: [{ id: p.id }],
      buyer: buyerNamed(shopOwner.email),
      fulfillment_details: ACP_ON,
    });
    expect(res.body.messages).toEqual([expect.objectContaining({ param: '$.buyer.email' })]);
    expect((await t.api.as(shopOwner).get('/me')).status).toBe(200);
    expect(
      (await t.api.post('/auth/login', { email: shopOwner.email, password: shopOwner.password })).status,
    ).toBe(200);
  });

  it('a verified account keeps its password and sign-ins', async () => {
    const person = await verified(database, await buyer(t.api, 'acp-verified'));
    const { session } = await heldSession(1, acp, buyerNamed(person.email));
    expect((await acp.pay(session.id)).body.status).toBe('completed');
    expect((await t.api.as(person).get('/orders')).body.total).toBe(1);
    expect((await t.api.post('/auth/login', { email: person.email, password: person.password })).status).toBe(
      200,
    );
  });
});

describe('messages for what the buyer must fix', () => {
  it('no buyer and no address: not_ready_for_payment, each named, nothing held', async () => {
    const p = await product(t.api, shop);
    const res = await acp.create({ line_items: [{ id: p.id, quantity: 1 }] });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('not_ready_for_payment');
    expect(res.body.messages).toEqual([
      expect.objectContaining({
        type: 'error',
        code: 'missing',
        param: '$.buyer.email',
        resolution: 'requires_buyer_input',
      }),
      expect.objectContaining({ type: 'error', code: 'missing', param: '$.fulfillment_details.address' }),
    ]);
    expect(await liveReservedUnits(database, p.id)).toBe(0);
  });

  it('an invalid postal code names its field', async () => {
    const p = await product(t.api, shop);
    const res = await acp.create({
      line_items: [{ id: p.id }],
      buyer: buyerNamed(),
      fulfillment_details: { ...ACP_ON, address: { ...ACP_ON.address, postal_code: 'H3A 3G4' } },
    });
    expect(res.body.status).toBe('not_ready_for_payment');
    expect(res.body.messages).toEqual([
      expect.objectContaining({
        code: 'invalid',
        param: '$.fulfillment_details.address.postal_code',
        content: expect.stringContaining('postal codes in ON start with K or L or M or N or P'),
      }),
    ]);
  });

  it('out of stock, unknown product and a perishable across provinces each name their line', async () => {
    const few = await product(t.api, shop, { stockQuantity: 1 });
    const fish = await product(t.api, shop, { isPerishable: true });
    const lacking = await acp.create({
      line_items: [{ id: fish.id }, { id: few.id, quantity: 3 }],
      buyer: buyerNamed(),
      fulfillment_details: ACP_ON,
    });
    expect(lacking.body.status).toBe('not_ready_for_payment');
    expect(lacking.body.messages).toEqual([
      expect.objectContaining({ code: 'out_of_stock', param: '$.line_items[1]', resolution: 'recoverable' }),
    ]);

    const unknown = await acp.update(lacking.body.id, { line_items: [{ id: 'products:nope' }] });
    expect(unknown.body.messages).toEqual([
      expect.objectContaining({ code: 'not_found', param: '$.line_items[0]' }),
    ]);

    const far = await acp.update(lacking.body.id, {
      line_items: [{ id: fish.id }],
      fulfillment_details: ACP_QC,
    });
    expect(far.body.status).toBe('not_ready_for_payment');
    expect(far.body.messages).toEqual([
      expect.objectContaining({
        code: 'region_restricted',
        param: '$.line_items[0]',
        resolution: 'requires_buyer_input',
      }),
    ]);
    const fixed = await acp.update(lacking.body.id, { fulfillment_details: ACP_ON });
    expect(fixed.body.status).toBe('ready_for_payment');
    expect(fixed.body.messages).toEqual([]);
  });

  it('an unknown coupon is rejected with a warning; the session is quoted without it', async () => {
    const p = await product(t.api, shop);
    const res = await acp.create({
      line_items: [{ id: p.id }],
      buyer: buyerNamed(),
      fulfillment_details: ACP_ON,
      discounts: { codes: ['NOPE10'] },
    });
    expect(res.body.status).toBe('ready_for_payment');
    expect(res.body.messages).toEqual([
      expect.objectContaining({ type: 'warning', code: 'discount_code_invalid', param: '$.discounts.codes' }),
    ]);
    expect(res.body.discounts).toMatchObject({
      codes: ['NOPE10'],
      rejected: [{ code: 'NOPE10', reason: 'discount_code_invalid' }],
    });
  });
});

describe('exactly once', () => {
  it('20 concurrent completes of one session make one order, and all answer it', async () => {
    const { session, product: p } = await heldSession(2);
    const vaulted = await acp.delegate(session.id);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => acp.complete(session.id, vaulted.body.id)),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(new Set(answers.map((a) => a.body.order.id)).size).toBe(1);
    expect(await ordersOfCheckout(database, await checkoutOf(session.id))).toHaveLength(1);
    expect(await stockOf(database, p.id)).toEqual({ stock: 3, reserved: 0 });
  });

  it("a complete racing the provider's webhook of the same payment: one order", async () => {
    const { session } = await heldSession(1);
    const checkoutId = await checkoutOf(session.id);
    const vaulted = await acp.delegate(session.id);
    const total = amount(session, 'total')!;
    const [completed, hooked] = await Promise.all([
      acp.complete(session.id, vaulted.body.id),
      postEvent(t, paymentEvent(checkoutId, total, { pi: sandboxPaymentIntent(checkoutId) })),
    ]);
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect(completed.body.status).toBe('completed');
    expect(hooked.status).toBe(200);
    expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(1);
  });

  it('a declined token is 402 payment_declined, no order; the session can still pay', async () => {
    const { session } = await heldSession(1);
    const declined = await acp.delegate(session.id, { card: '4000000000000002' });
    const res = await acp.complete(session.id, declined.body.id);
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      type: 'invalid_request',
      code: 'payment_declined',
      param: '$.payment_data',
    });
    expect(await ordersOfCheckout(database, await checkoutOf(session.id))).toHaveLength(0);
    expect((await acp.get(session.id)).body.status).toBe('ready_for_payment');
    expect((await acp.pay(session.id)).body.status).toBe('completed');
  });

  it('a token of a card that needs its holder to confirm (3-D Secure) is 402 requires_3ds, unspent, no order', async () => {
    const { session } = await heldSession(1);
    const vaulted = await acp.delegate(session.id, { card: '4000002760003184' });
    expect(vaulted.status).toBe(201);
    const res = await acp.complete(session.id, vaulted.body.id);
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      code: 'requires_3ds',
      param: '$.payment_data.instrument.credential.token',
    });
    const [token] = await database.db.select().from(vaultTokens).where(eq(vaultTokens.id, vaulted.body.id));
    expect(token?.usedAt).toBeNull();
    expect(await ordersOfCheckout(database, await checkoutOf(session.id))).toHaveLength(0);
    expect((await acp.get(session.id)).body.status).toBe('ready_for_payment');
  });

  it('a token for another session, or below the total, pays nothing', async () => {
    const { session } = await heldSession(1);
    const { session: other } = await heldSession(1);
    const elsewhere = await acp.delegate(other.id);
    const small = await acp.delegate(session.id, { maxAmount: 100 });
    for (const token of [elsewhere.body.id, small.body.id, 'vt_unknown']) {
      const res = await acp.complete(session.id, token);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        type: 'invalid_request',
        param: '$.payment_data.instrument.credential.token',
      });
    }
    expect((await acp.get(session.id)).body.status).toBe('ready_for_payment');
    // The refused tokens were not spent: each still pays its own session.
    expect((await acp.complete(other.id, elsewhere.body.id)).status).toBe(200);
    const fits = await acp.delegate(session.id);
    expect((await acp.complete(session.id, fits.body.id)).status).toBe(200);
  });

  it("completing a paid session again with another session's token answers it paid, and spends nothing", async () => {
    const { session } = await heldSession(1);
    const { session: other } = await heldSession(1);
    const paid = await acp.pay(session.id);
    expect(paid.body.status).toBe('completed');
    const elsewhere = await acp.delegate(other.id);
    const again = await acp.complete(session.id, elsewhere.body.id);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ status: 'completed', order: paid.body.order });
    const [token] = await database.db
      .select({ usedAt: vaultTokens.usedAt })
      .from(vaultTokens)
      .where(eq(vaultTokens.id, elsewhere.body.id));
    expect(token!.usedAt).toBeNull();
    expect((await acp.complete(other.id, elsewhere.body.id)).body.status).toBe('completed');
  });
});

describe('cancel and expiry', () => {
  it('cancel gives the stock back at once; completing it then makes no order; cancelling again is 405', async () => {
    const { session, product: p } = await heldSession(2);
    const vaulted = await acp.delegate(session.id);
    const canceled = await acp.cancel(session.id);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(await liveReservedUnits(database, p.id)).toBe(0);
    const late = await acp.complete(session.id, vaulted.body.id);
    expect(late.status).toBe(409);
    expect(await ordersOfCheckout(database, await checkoutOf(session.id))).toHaveLength(0);
    expect((await acp.cancel(session.id)).status).toBe(405);
  });

  it("money that moved for a canceled session (the provider's webhook) is refunded, no order", async () => {
    const { session } = await heldSession(1);
    const checkoutId = await checkoutOf(session.id);
    await acp.cancel(session.id);
    const hooked = await postEvent(t, paymentEvent(checkoutId, amount(session, 'total')!));
    expect(hooked.status).toBe(200);
    expect(await ordersOfCheckout(database, checkoutId)).toHaveLength(0);
    const [refund] = await database.db
      .execute(
        // the payment's refund, keyed by its checkout (it made no order)
        `select amount_cents from refunds where order_id = '${checkoutId}'`,
      )
      .then((r) => (r as unknown as { rows: Array<{ amount_cents: number }> }).rows);
    expect(refund?.amount_cents).toBe(amount(session, 'total'));
  });

  it('a session past its 30 minutes is expired: no order, its stock back', async () => {
    const { session, product: p } = await heldSession(1);
    const vaulted = await acp.delegate(session.id);
    t.clock.advance(31 * 60);
    try {
      expect((await acp.get(session.id)).body.status).toBe('expired');
      const late = await acp.complete(session.id, vaulted.body.id);
      expect(late.status).toBe(409);
      await t.app.jobs.runOnce();
      expect(await liveReservedUnits(database, p.id)).toBe(0);
      expect(await ordersOfCheckout(database, await checkoutOf(session.id))).toHaveLength(0);
    } finally {
      t.clock.advance(-31 * 60);
    }
  });
});

describe('the protocol', () => {
  /** A whole create request for one unit of a product, for a new buyer. */
  const createBody = (productId: string) => ({
    line_items: [{ id: productId }],
    currency: 'cad',
    capabilities: CAPABILITIES,
    buyer: buyerNamed(),
    fulfillment_details: ACP_ON,
  });
  /** Answers of requests racing under one key: one answer made (the others its replay), or 409 in flight. */
  const oneAnswerOrInFlight = (answers: Answer[], made: number) => {
    const first = answers.filter((a) => a.status === made);
    expect(first.length, JSON.stringify(answers.map((a) => a.status))).toBeGreaterThanOrEqual(1);
    expect(new Set(first.map((a) => JSON.stringify(a.body))).size).toBe(1);
    for (const a of answers.filter((x) => x.status !== made)) {
      expect(a.status).toBe(409);
      expect(a.body).toMatchObject({ type: 'invalid_request', code: 'idempotency_in_flight' });
    }
    return first[0]!.body;
  };
  const raw = (
    headers: Record<string, string>,
    body: unknown = { line_items: [{ id: 'x' }], currency: 'cad', capabilities: CAPABILITIES },
  ) => t.api.as(platform.apiKey).post('/acp/checkout_sessions', body, headers);

  it('API-Version is required, and an unsupported one is 400 listing the supported', async () => {
    const missing = await raw({ 'idempotency-key': 'k-missing-version' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      type: 'invalid_request',
      code: 'missing_api_version',
      supported_versions: [ACP_VERSION],
    });
    const old = await raw({ 'api-version': '2025-09-29', 'idempotency-key': 'k-old' });
    expect(old.status).toBe(400);
    expect(old.body).toMatchObject({ code: 'unsupported_api_version', supported_versions: [ACP_VERSION] });
  });

  it('an unknown or revoked key is 401; another platform cannot see a session (404)', async () => {
    const headers = { 'api-version': ACP_VERSION, 'idempotency-key': 'k-auth' };
    const unknown = await t.api
      .as('acp_unknownkeyunknownkeyunknownkeyunknownkey000')
      .post('/acp/checkout_sessions', {}, headers);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ type: 'invalid_request', code: 'unauthorized' });
    expect((await t.api.post('/acp/checkout_sessions', {}, headers)).status).toBe(401);

    const other = await issuePlatform(t.api, boss);
    const { session } = await heldSession(1);
    const intruder = new AcpClient(t.api, other.apiKey);
    const peek = await intruder.get(session.id);
    expect(peek.status).toBe(404);
    expect(peek.body).toMatchObject({ type: 'invalid_request', code: 'not_found' });
    // Nor change it: update, complete and cancel are 404, and the session is as it was.
    const vaulted = await acp.delegate(session.id);
    for (const res of [
      await intruder.update(session.id, { fulfillment_details: ACP_QC }),
      await intruder.complete(session.id, vaulted.body.id),
      await intruder.cancel(session.id),
    ]) {
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found' });
    }
    expect((await acp.get(session.id)).body).toEqual(session);
    expect((await acp.complete(session.id, vaulted.body.id)).body.status).toBe('completed');
    await t.api.as(boss).delete(`/admin/platforms/${other.id}`);
    expect((await new AcpClient(t.api, other.apiKey).get(session.id)).status).toBe(401);
  });

  it('a key revoked by another instance stops working within AUTH_CACHE_MS (1 s): what this one remembered of it', async () => {
    const other = await issuePlatform(t.api, boss);
    const client = new AcpClient(t.api, other.apiKey);
    expect((await client.get('acp_cs_none')).status).toBe(404);
    // As another instance revokes it: straight in the database, this instance not told.
    await database.db.update(platforms).set({ revokedAt: t.clock.now() }).where(eq(platforms.id, other.id));
    expect((await client.get('acp_cs_none')).status).toBe(404);
    t.clock.advance(2);
    try {
      expect((await client.get('acp_cs_none')).status).toBe(401);
    } finally {
      t.clock.advance(-2);
    }
  });

  it('Idempotency-Key: required (400), replayed byte for byte, 422 with another body, 409 while in flight', async () => {
    const p = await product(t.api, shop);
    const body = createBody(p.id);
    const none = await raw({ 'api-version': ACP_VERSION }, body);
    expect(none.status).toBe(400);
    expect(none.body).toEqual({
      type: 'invalid_request',
      code: 'idempotency_key_required',
      message: 'Idempotency-Key header is required on all POST requests',
    });

    const headers = { 'api-version': ACP_VERSION, 'idempotency-key': `k-${p.id}`, 'request-id': 'req-123' };
    const first = await raw(headers, body);
    expect(first.status).toBe(201);
    expect(first.headers['idempotency-key']).toBe(`k-${p.id}`);
    expect(first.headers['request-id']).toBe('req-123');
    const replay = await t.api
      .as(platform.apiKey)
      .send('POST', '/acp/checkout_sessions', JSON.stringify(body), {
        ...headers,
        'content-type': 'application/json',
      });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(JSON.stringify(replay.body)).toBe(JSON.stringify(first.body));
    expect(await liveReservedUnits(database, p.id)).toBe(1);

    const changed = await raw(headers, { ...body, line_items: [{ id: p.id, quantity: 2 }] });
    expect(changed.status).toBe(422);
    expect(changed.body).toMatchObject({ type: 'invalid_request', code: 'idempotency_conflict' });

    // A request still running under a key: its row claimed and not answered yet.
    const [row] = await database.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.key, `k-${p.id}`)));
    await database.db
      .insert(idempotencyKeys)
      .values({ ...row!, key: `k-running-${p.id}`, responseStatus: null, responseBody: null });
    const running = await raw({ ...headers, 'idempotency-key': `k-running-${p.id}` }, body);
    expect(running.status).toBe(409);
    expect(running.body).toMatchObject({ type: 'invalid_request', code: 'idempotency_in_flight' });
    expect(running.headers['retry-after']).toBe('1');
  });

  it('delegate, complete and cancel are replayed byte for byte under their keys: one token, one order', async () => {
    const { session } = await heldSession(1);
    const { session: other } = await heldSession(1);
    /** The raw answer of a POST under `key`, twice: the first and its replay. */
    const twice = async (url: string, body: unknown, key: string) => {
      const send = () =>
        t.app.inject({
          method: 'POST',
          url,
          headers: {
            authorization: `Bearer ${platform.apiKey}`,
            'content-type': 'application/json',
            'api-version': ACP_VERSION,
            'idempotency-key': key,
          },
          payload: JSON.stringify(body),
        });
      const first = await send();
      const again = await send();
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.statusCode).toBe(first.statusCode);
      expect(again.body).toBe(first.body);
      // What is stored (with the operation's commit) is the answer as it was sent.
      const [row] = await database.db
        .select({ body: idempotencyKeys.responseBody })
        .from(idempotencyKeys)
        .where(eq(idempotencyKeys.key, key));
      expect(row?.body).toBe(first.body);
      return JSON.parse(first.body);
    };
    const delegateBody = (sessionId: string) => ({
      payment_method: {
        type: 'card',
        card_number_type: 'fpan',
        number: '4242424242424242',
        exp_month: '12',
        exp_year: '2030',
        display_card_funding_type: 'credit',
        display_last4: '4242',
        metadata: {},
      },
      allowance: {
        reason: 'one_time',
        max_amount: 1_000_000,
        currency: 'cad',
        checkout_session_id: sessionId,
        merchant_id: 'portage',
        expires_at: new Date(t.clock.now().getTime() + 3600_000).toISOString(),
      },
      risk_signals: [],
      metadata: { source: 'test' },
    });
    const vaulted = await twice(
      '/agentic_commerce/delegate_payment',
      delegateBody(session.id),
      `kd-${session.id}`,
    );
    const tokens = await database.db
      .select({ id: vaultTokens.id })
      .from(vaultTokens)
      .where(eq(vaultTokens.checkoutSessionId, session.id));
    expect(tokens).toEqual([{ id: vaulted.id }]);
    const completed = await twice(
      `/acp/checkout_sessions/${session.id}/complete`,
      {
        payment_data: {
          handler_id: 'portage_sandbox_card',
          instrument: { type: 'card', credential: { type: 'spt', token: vaulted.id } },
        },
      },
      `kc-${session.id}`,
    );
    expect(completed.status).toBe('completed');
    expect(await ordersOfCheckout(database, await checkoutOf(session.id))).toHaveLength(1);
    const canceled = await twice(`/acp/checkout_sessions/${other.id}/cancel`, {}, `kx-${other.id}`);
    expect(canceled.status).toBe('canceled');
  });

  it('10 creates racing under one Idempotency-Key: one session; the others replay it or are 409 in flight', async () => {
    const p = await product(t.api, shop);
    const body = createBody(p.id);
    const headers = { 'api-version': ACP_VERSION, 'idempotency-key': `k-race-${p.id}` };
    const answers = await Promise.all(Array.from({ length: 10 }, () => raw(headers, body)));
    const made = oneAnswerOrInFlight(answers, 201);
    expect(await liveReservedUnits(database, p.id)).toBe(1);
    const again = await raw(headers, body);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(made.id);
  });

  it('10 delegate payments racing under one Idempotency-Key: one token, answered to each alike', async () => {
    const { session } = await heldSession(1);
    const key = `k-vault-race-${session.id}`;
    // One body for all: the same request under the same key (an expiry per call could differ).
    const expiresAt = new Date(t.clock.now().getTime() + 3600_000).toISOString();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => acp.delegate(session.id, { expiresAt }, { 'idempotency-key': key })),
    );
    const made = oneAnswerOrInFlight(answers, 201);
    const tokens = await database.db
      .select({ id: vaultTokens.id })
      .from(vaultTokens)
      .where(eq(vaultTokens.checkoutSessionId, session.id));
    expect(tokens).toEqual([{ id: made.id }]);
  });

  it('a key left running by a process that died is taken over after the lease: the request runs once', async () => {
    const p = await product(t.api, shop);
    const body = createBody(p.id);
    const headers = { 'api-version': ACP_VERSION, 'idempotency-key': `k-first-${p.id}` };
    expect((await raw(headers, body)).status).toBe(201);
    const [row] = await database.db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, `k-first-${p.id}`));
    // The same request's row, claimed six minutes ago and never answered (its process died).
    await database.db.insert(idempotencyKeys).values({
      ...row!,
      key: `k-dead-${p.id}`,
      responseStatus: null,
      responseBody: null,
      createdAt: new Date(t.clock.now().getTime() - 6 * 60_000),
    });
    const taken = await raw({ ...headers, 'idempotency-key': `k-dead-${p.id}` }, body);
    expect(taken.status, JSON.stringify(taken.body)).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    expect(await liveReservedUnits(database, p.id)).toBe(2);
    const replayed = await raw({ ...headers, 'idempotency-key': `k-dead-${p.id}` }, body);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.id).toBe(taken.body.id);
  });

  it('an invalid body is 400 naming the problem with a JSONPath param; a currency other than cad is refused', async () => {
    const bad = await raw(
      { 'api-version': ACP_VERSION, 'idempotency-key': 'k-bad' },
      { line_items: [{ id: 7 }], currency: 'cad', capabilities: {} },
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      type: 'invalid_request',
      code: 'invalid',
      message: 'Invalid request: $.line_items[0].id must be a string',
      param: '$.line_items[0].id',
    });
    const unknown = await raw(
      { 'api-version': ACP_VERSION, 'idempotency-key': 'k-unknown' },
      { line_items: [{ id: 'x' }], currency: 'cad', capabilities: {}, gift: true },
    );
    expect(unknown.body).toEqual({
      type: 'invalid_request',
      code: 'invalid',
      message: 'Invalid request: $ has unknown fields: gift',
      param: '$.gift',
    });
    const usd = await acp.create({ line_items: [{ id: 'x' }], currency: 'usd' });
    expect(usd.status).toBe(400);
    expect(usd.body).toMatchObject({ param: '$.currency' });
  });

  it('delegate payment refuses in its own codes: a card not of the sandbox, an allowance past a day, a missing key', async () => {
    const { session } = await heldSession(1);
    const card = await acp.delegate(session.id, { card: '5555555555554444' });
    expect(card.status).toBe(400);
    expect(card.body).toMatchObject({
      type: 'invalid_request',
      code: 'invalid_card',
      param: '$.payment_method.number',
    });
    const later = new Date(t.clock.now().getTime() + 2 * 86_400_000).toISOString();
    const long = await acp.delegate(session.id, { expiresAt: later });
    expect(long.body).toMatchObject({ code: 'invalid_card', param: '$.allowance.expires_at' });
    const bare = await t.api
      .as(platform.apiKey)
      .post('/agentic_commerce/delegate_payment', { payment_method: {} }, { 'api-version': ACP_VERSION });
    expect(bare.status).toBe(400);
    expect(bare.body).toMatchObject({ code: 'idempotency_key_required' });
    const shapeless = await acp.api
      .as(platform.apiKey)
      .post('/agentic_commerce/delegate_payment', { payment_method: {} }, acp.headers());
    expect(shapeless.status).toBe(400);
    expect(shapeless.body).toMatchObject({ type: 'invalid_request', code: 'invalid_card' });
  });

  it("a request body over 64 KiB is 413 in ACP's error shape, and nothing is stored", async () => {
    const p = await product(t.api, shop);
    const big = await acp.create({ line_items: [{ id: p.id }], order_notes: 'x'.repeat(70 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ type: 'invalid_request' });
    expect(await liveReservedUnits(database, p.id)).toBe(0);
  });

  it('discovery names the version, base URL, transports and services', async () => {
    const res = await t.api.get('/.well-known/acp.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      protocol: { name: 'acp', version: ACP_VERSION, supported_versions: [ACP_VERSION] },
      api_base_url: `${t.config.publicBaseUrl}/acp`,
      transports: ['rest', 'mcp'],
      capabilities: { services: ['checkout', 'orders', 'delegate_payment'], supported_currencies: ['cad'] },
    });
  });
});

describe("a platform's live holds", () => {
  it('past PLATFORM_MAX_HOLDS a quote is 429 (nothing held, no session); a canceled or paid one frees its place', async () => {
    await withTestApp(
      async (app, db) => {
        const boss2 = await admin(app.api, db);
        const shop2 = await seller(app.api, 'ON');
        const client = new AcpClient(app.api, (await issuePlatform(app.api, boss2)).apiKey, app.clock.now);
        const p = await product(app.api, shop2, { priceCents: 1000, stockQuantity: 50 });
        const create = () =>
          client.create({
            line_items: [{ id: p.id, quantity: 1 }],
            buyer: { email: uniqueEmail('holds'), first_name: 'Avery', last_name: 'Tremblay' },
            fulfillment_details: ACP_ON,
          });
        const first = await create();
        const second = await create();
        expect([first.body.status, second.body.status]).toEqual(['ready_for_payment', 'ready_for_payment']);
        // Quoting a held session again keeps its place: it is not counted against itself.
        expect((await client.update(first.body.id, { fulfillment_details: ACP_QC })).status).toBe(200);

        const third = await create();
        expect(third.status).toBe(429);
        expect(third.headers['retry-after']).toBe('60');
        expect(third.body).toMatchObject({ type: 'invalid_request', code: 'rate_limited' });
        expect(await liveReservedUnits(db, p.id)).toBe(2);

        expect((await client.cancel(second.body.id)).status).toBe(200);
        const fourth = await create();
        expect(fourth.body.status).toBe('ready_for_payment');
        // A paid session holds nothing any more: its place is free too.
        expect((await create()).status).toBe(429);
        expect((await client.pay(first.body.id)).body.status).toBe('completed');
        expect((await create()).body.status).toBe('ready_for_payment');
      },
      { env: { PLATFORM_MAX_HOLDS: '2' } },
    );
  });
});
