// What the protocols keep: a session that made no order (canceled, abandoned, never ready) is
// deleted a day after its end, and its Idempotency-Keys with it; a paid session is kept (its
// order's events reach the platform through it) and written down as completed.
import { eq, inArray, like } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENDED_SESSION_RETENTION_MS } from '../src/modules/agent-checkout/cleanup.ts';
import { agentSessions } from '../src/modules/agent-checkout/tables.ts';
import { idempotencyKeys } from '../src/modules/system/tables.ts';
import { ACP_ON, AcpClient, issuePlatform } from './helpers/acp.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, product, seller, uniqueEmail } from './helpers/builders.ts';

const { t, database } = useTestApp();

let shop: SignedIn;
let acp: AcpClient;
beforeAll(async () => {
  t.clock.freeze();
  shop = await seller(t.api);
  acp = new AcpClient(t.api, (await issuePlatform(t.api, await admin(t.api, database))).apiKey, t.clock.now);
});

const rowsOf = (ids: string[]) =>
  database.db
    .select({ id: agentSessions.id, status: agentSessions.status })
    .from(agentSessions)
    .where(inArray(agentSessions.id, ids));

describe('sessions that made no order', () => {
  it('are deleted a day after their end with their keys; a paid one is kept, written down as completed', async () => {
    const p = await product(t.api, shop, { stockQuantity: 10 });
    const buyer = () => ({ email: uniqueEmail('kept'), first_name: 'Avery' });
    const body = () => ({
      line_items: [{ id: p.id, quantity: 1 }],
      buyer: buyer(),
      fulfillment_details: ACP_ON,
    });
    const canceled = (await acp.create(body())).body.id as string;
    expect((await acp.cancel(canceled)).body.status).toBe('canceled');
    const abandoned = (await acp.create(body())).body.id as string;
    const neverReady = (await acp.create({ line_items: [{ id: p.id, quantity: 1 }] })).body.id as string;
    const paid = (await acp.create(body())).body.id as string;
    expect((await acp.pay(paid)).body.status).toBe('completed');
    const ended = [canceled, abandoned, neverReady];
    const keysOfCanceled = () =>
      database.db
        .select()
        .from(idempotencyKeys)
        .where(like(idempotencyKeys.userId, `platform:%/acp/checkout_sessions/${canceled}%`));
    expect(await keysOfCanceled()).toHaveLength(1);

    // Until a day after their end (30 minutes after creation), nothing goes.
    t.clock.advance(30 * 60 + ENDED_SESSION_RETENTION_MS / 1000 - 1);
    await t.app.jobs.runOnce();
    expect((await rowsOf([...ended, paid])).length).toBe(4);

    t.clock.advance(1);
    const recent = (await acp.create(body())).body.id as string;
    await t.app.jobs.runOnce();
    expect(await rowsOf([...ended, paid, recent])).toEqual(
      expect.arrayContaining([
        { id: paid, status: 'completed' },
        { id: recent, status: 'ready_for_payment' },
      ]),
    );
    expect((await rowsOf([...ended, paid, recent])).length).toBe(2);
    for (const id of ended) expect((await acp.get(id)).status).toBe(404);
    expect((await acp.get(paid)).body.status).toBe('completed');
    // Their keys (and the paid one's) are past their 24 hours: gone too.
    expect(await keysOfCanceled()).toEqual([]);
    const [stillKept] = await database.db.select().from(agentSessions).where(eq(agentSessions.id, paid));
    expect(stillKept).toBeDefined();
  });
});
