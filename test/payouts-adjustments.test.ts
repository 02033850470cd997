// An operator's adjustment of a seller's money (docs/api.md "Balances, payouts and disputes"):
// a credit and a debit in the ledger, once per Idempotency-Key, paid out with the next payout.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ledgerTransactions } from '../src/modules/ledger/tables.ts';
import { admin, useTestApp } from './helpers/app.ts';
import { buyer, expectError, seller } from './helpers/builders.ts';
import { setClock, signIn } from './helpers/orders.ts';
import { balanceOf, enablePayouts, ledgerProblems } from './helpers/payouts.ts';

const { t, database } = useTestApp();

describe('adjustments', () => {
  it('credit and debit a seller once per key, and the next payout carries them', async () => {
    setClock(t, '2026-11-02T13:00:00Z');
    const boss = await admin(t.api, database);
    let s = await seller(t.api);
    await enablePayouts(t, s);
    const credit = (body: unknown, key: string) =>
      t.api.as(boss).post(`/admin/sellers/${s.id}/adjustments`, body, { 'idempotency-key': key });

    const both = await Promise.all([
      credit({ amountCents: 2500, reason: 'Goodwill: a late parcel' }, 'adj-1'),
      credit({ amountCents: 2500, reason: 'Goodwill: a late parcel' }, 'adj-1'),
    ]);
    // The same key at once: one is made; the other replays it, or is 409 while it is in flight.
    const first = both.find((r) => r.status === 201)!;
    expect(first, JSON.stringify(both.map((r) => r.body))).toBeDefined();
    for (const r of both) {
      if (r.status === 201) expect(r.body).toEqual(first.body);
      else expect(r.status).toBe(409);
    }
    const later = await credit({ amountCents: 2500, reason: 'Goodwill: a late parcel' }, 'adj-1');
    expect(later.status).toBe(201);
    expect(later.body).toEqual(first.body);
    expect(first.body).toMatchObject({
      sellerId: s.id,
      amountCents: 2500,
      reason: 'Goodwill: a late parcel',
    });
    expect(await balanceOf(t, s)).toEqual({
      pendingCents: 0,
      availableCents: 2500,
      inTransitCents: 0,
      paidOutCents: 0,
    });
    const debit = await credit({ amountCents: -1000, reason: 'Correction' }, 'adj-2');
    expect(debit.status).toBe(201);
    expect(await balanceOf(t, s)).toEqual({
      pendingCents: 0,
      availableCents: 1500,
      inTransitCents: 0,
      paidOutCents: 0,
    });
    const [row] = await database.db
      .select()
      .from(ledgerTransactions)
      .where(eq(ledgerTransactions.key, `adjustment:${first.body.id}`));
    expect(row).toMatchObject({
      kind: 'adjustment',
      sellerId: s.id,
      memo: `${boss.id}: Goodwill: a late parcel`,
    });

    // The next payout: $15.00, over the $10.00 minimum.
    const { nextPayout } = (await t.api.as(s).get('/sellers/me/balance')).body;
    t.clock.offsetMs += nextPayout.at * 1000 - t.clock.now().getTime() + 1000;
    s = await signIn(t.api, s);
    await t.app.jobs.runOnce();
    expect(await balanceOf(t, s)).toEqual({
      pendingCents: 0,
      availableCents: 0,
      inTransitCents: 0,
      paidOutCents: 1500,
    });
    expect(await ledgerProblems(database, t)).toEqual([]);
  });

  it('are refused without a key, for nobody, at 0, or to anyone but an admin', async () => {
    const boss = await admin(t.api, database);
    const s = await seller(t.api);
    const post = (path: string, body: unknown, who = boss, key: string | null = `k-${Math.random()}`) =>
      t.api.as(who).post(path, body, key ? { 'idempotency-key': key } : {});
    const body = { amountCents: 100, reason: 'x' };
    expect((await post(`/admin/sellers/${s.id}/adjustments`, body, boss, null)).status).toBe(400);
    expectError(await post('/admin/sellers/users:nobody/adjustments', body), 'NOT_FOUND', 404);
    const b = await buyer(t.api);
    expectError(await post(`/admin/sellers/${b.id}/adjustments`, body), 'NOT_FOUND', 404);
    expect((await post(`/admin/sellers/${s.id}/adjustments`, { amountCents: 0, reason: 'x' })).status).toBe(
      400,
    );
    expect((await post(`/admin/sellers/${s.id}/adjustments`, { amountCents: 100, reason: ' ' })).status).toBe(
      400,
    );
    expectError(await post(`/admin/sellers/${s.id}/adjustments`, body, s), 'AUTHZ_ERROR', 403);
    expect(await balanceOf(t, s)).toEqual({
      pendingCents: 0,
      availableCents: 0,
      inTransitCents: 0,
      paidOutCents: 0,
    });
  });
});
