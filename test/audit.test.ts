// The audit log (issue 43): every admin's action recorded with who, what, on what, when, before and
// after, in the action's transaction (one refused leaves none); a seller's own decisions are not an
// admin's; the log is append-only in the database; read newest first in pages, exported as CSV,
// shown in the desk; admins only.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql.ts';
import { admin, buyer, type SignedIn, useTestApp } from './helpers/app.ts';
import { coupon, expectError, product, seller } from './helpers/builders.ts';
import { requestedReturn } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

const log = async (boss: SignedIn, query = '') => {
  const res = await t.api.as(boss).get(`/admin/audit${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { actions: Array<Record<string, unknown>>; nextBefore: number | null };
};

describe('the audit log', () => {
  it('records a role change, a coupon and a review decision, newest first, with before and after', async () => {
    const boss = await admin(t.api, database);
    const b = await buyer(t.api);
    const changed = await t.api
      .as(boss)
      .patch(`/admin/users/${b.id}`, { role: 'seller', shopName: 'Audit Goods', province: 'ON' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const made = await coupon(t.api, boss, { discountPercent: 10 });
    const first = await log(boss, '?limit=2');
    expect(first.actions).toEqual([
      {
        id: expect.any(Number),
        actorId: boss.id,
        actorEmail: boss.email,
        action: 'coupon.create',
        subject: made.code,
        before: null,
        after: expect.objectContaining({ code: made.code, discountPercent: 10 }),
        createdAt: expect.any(Number),
      },
      {
        id: expect.any(Number),
        actorId: boss.id,
        actorEmail: boss.email,
        action: 'user.role',
        subject: b.id,
        before: { role: 'buyer' },
        after: { role: 'seller' },
        createdAt: expect.any(Number),
      },
    ]);
    // Only that kind; and the next page goes on from the last one shown.
    expect((await log(boss, '?action=user.role')).actions.every((a) => a.action === 'user.role')).toBe(true);
    if (first.nextBefore !== null) {
      const next = await log(boss, `?limit=2&before=${first.nextBefore}`);
      expect(next.actions.every((a) => (a.id as number) < (first.actions[1]!.id as number))).toBe(true);
    }
  });

  it('an action refused leaves no record; a seller deciding their own return is not an admin', async () => {
    const boss = await admin(t.api, database);
    const before = (await log(boss)).actions.length;
    // A buyer made a seller without a shop's name: refused inside the change's transaction.
    const b = await buyer(t.api);
    const refused = await t.api.as(boss).patch(`/admin/users/${b.id}`, { role: 'seller' });
    expect(refused.status).toBe(400);
    expect((await log(boss)).actions.length).toBe(before);
    const r = await requestedReturn(t, {});
    await t.api.as(r.seller).post(`/returns/${r.returnId}/reject`, { note: 'Used' });
    expect((await log(boss, `?subject=${encodeURIComponent(r.returnId)}`)).actions).toEqual([]);
    // An admin deciding one is.
    const other = await requestedReturn(t, {});
    expect((await t.api.as(boss).post(`/returns/${other.returnId}/reject`, { note: 'Late' })).status).toBe(
      200,
    );
    expect((await log(boss, `?subject=${encodeURIComponent(other.returnId)}`)).actions).toEqual([
      expect.objectContaining({
        action: 'return.reject',
        before: { status: 'pending' },
        after: expect.objectContaining({ status: 'rejected', note: 'Late' }),
      }),
    ]);
  });

  it("records an admin's change and deletion of a seller's product (which fields), not the seller's own", async () => {
    const boss = await admin(t.api, database);
    const s = await seller(t.api);
    const p = await product(t.api, s, { priceCents: 1500 });
    expect((await t.api.as(s).patch(`/products/${p.id}`, { title: 'Cedar box, oiled' })).status).toBe(200);
    expect((await log(boss, `?subject=${p.id}`)).actions).toEqual([]);
    const changed = await t.api.as(boss).patch(`/products/${p.id}`, { title: 'Cedar box', priceCents: 1400 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await t.api.as(boss).delete(`/products/${p.id}`)).status).toBe(200);
    const { actions } = await log(boss, `?subject=${p.id}`);
    expect(actions.map((a) => [a.action, a.before, a.after])).toEqual([
      ['product.delete', { sellerId: s.id, status: 'active' }, { status: 'deleted' }],
      ['product.update', { sellerId: s.id, status: 'active' }, { fields: ['title', 'priceCents'] }],
    ]);
  });

  it('cannot be changed or deleted in the database', async () => {
    const boss = await admin(t.api, database);
    await coupon(t.api, boss, { discountCents: 100 });
    for (const change of ['update admin_actions set action = $$x.y$$', 'delete from admin_actions']) {
      const refused = await rowsOf(database.db, sql.raw(change)).then(
        () => 'applied',
        (err: { cause?: { message?: string }; message: string }) => err.cause?.message ?? err.message,
      );
      expect(refused).toMatch(/the audit log is append-only: (UPDATE|DELETE) on admin_actions refused/);
    }
  });

  it('exports CSV; the desk shows it; admins only', async () => {
    const boss = await admin(t.api, database);
    const made = await coupon(t.api, boss, { discountCents: 250 });
    const csv = await t.app.inject({
      method: 'GET',
      url: '/admin/audit.csv?action=coupon.create',
      headers: { authorization: `Bearer ${boss.token}` },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe('id,at,actor_id,actor_email,action,subject,before,after');
    expect(lines.some((l) => l.includes(`,coupon.create,${made.code},`))).toBe(true);

    const desk = new Browser(t.app);
    await desk.signIn(boss);
    const page = await desk.get('/desk/audit?action=coupon.create');
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain(made.code);
    expect(textOf(page.html)).toContain('Only coupon.create.');
    const file = await desk.get('/desk/audit.csv?action=coupon.create');
    expect(file.status).toBe(200);
    expect(file.html.split('\n')[0]).toBe('id,at,actor_id,actor_email,action,subject,before,after');

    expectError(await t.api.as(await seller(t.api)).get('/admin/audit'), 'AUTHZ_ERROR', 403);
    expectError(await t.api.get('/admin/audit'), 'AUTH_ERROR', 401);
  });
});
