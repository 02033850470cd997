import { eq } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { users } from '../src/modules/auth/tables.ts';
import { type Answer, testApp, useTestApp, withTestApp } from './helpers/app.ts';
import { admin, buyer, expectError, expectInvalid, seller, uniqueEmail } from './helpers/builders.ts';

// The password library, passed through unchanged: the login test counts its verifications.
const argon2Verify = vi.hoisted(() => vi.fn());
vi.mock('@node-rs/argon2', async (original) => {
  const real = await original<typeof import('@node-rs/argon2')>();
  argon2Verify.mockImplementation(real.verify);
  return { ...real, verify: argon2Verify };
});

const { t, database } = useTestApp();

/** The one answer to every wrong token: nothing about what was wrong with it. */
const expectInvalidToken = (res: Answer) => expectError(res, 'AUTH_ERROR', 401, 'AUTH_ERROR: Invalid token');

describe('POST /auth/register', () => {
  it('creates a buyer and answers a token for it', async () => {
    const email = uniqueEmail('reg');
    const res = await t.api.post('/auth/register', {
      email: email.toUpperCase(),
      password: 'hunter2hunter2',
      name: ' Ann ',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      user: { id: expect.stringMatching(/^users:[A-Za-z0-9_-]{20}$/), email, name: 'Ann', role: 'buyer' },
      token: expect.any(String),
      expiresAt: expect.any(Number),
    });
    const claims = decodeJwt(res.body.token);
    expect(claims).toMatchObject({
      sub: res.body.user.id,
      email,
      role: 'buyer',
      iss: 'portage',
      aud: 'http://portage.test',
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(res.body.expiresAt).toBe(claims.exp);
    expect(decodeProtectedHeader(res.body.token)).toMatchObject({ alg: 'RS256', kid: t.keys.kid });

    const [row] = await database.db.select().from(users).where(eq(users.id, res.body.user.id));
    expect(row!.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it('refuses a taken email, whatever its case, with 409', async () => {
    const email = uniqueEmail('dup');
    expect((await t.api.post('/auth/register', { email, password: 'password-1', name: 'A' })).status).toBe(
      201,
    );
    const res = await t.api.post('/auth/register', {
      email: email.toUpperCase(),
      password: 'password-2',
      name: 'B',
    });
    expectError(res, 'CONFLICT', 409, `An account with the email ${email} already exists; log in instead`);
  });

  it('creates exactly one account when the same email registers twice at once', async () => {
    const email = uniqueEmail('race');
    const answers = await Promise.all(
      [1, 2, 3].map((n) => t.api.post('/auth/register', { email, password: `password-${n}`, name: 'Racer' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    const rows = await database.db.select().from(users).where(eq(users.email, email));
    expect(rows).toHaveLength(1);
  });

  it('names every invalid field', async () => {
    const res = await t.api.post('/auth/register', { email: 'not-an-email', password: 'short' });
    expectInvalid(res, [
      { field: 'email', message: 'must be an email address' },
      { field: 'password', message: 'must be at least 8 characters' },
      { field: 'name', message: 'is required' },
    ]);
  });

  it('ignores a role sent by the client: registration always makes a buyer', async () => {
    const res = await t.api.post('/auth/register', {
      email: uniqueEmail('sneaky'),
      password: 'password-1',
      name: 'Sneaky',
      role: 'admin',
    });
    expect(res.status).toBe(201);
    expect(res.body.user.role).toBe('buyer');
  });
});

describe('POST /auth/login', () => {
  it('answers both documented forms at once', async () => {
    const b = await buyer(t.api);
    const res = await t.api.post('/auth/login', { email: b.email.toUpperCase(), password: b.password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      user: { id: b.id, email: b.email, name: 'Test buyer', role: 'buyer' },
      token: expect.any(String),
      expiresAt: expect.any(Number),
      userId: b.id,
      role: 'buyer',
    });
    const me = await t.api.as(res.body.token).get('/me');
    expect(me.body.id).toBe(b.id);
  });

  it('answers the same for a wrong password and an unknown email', async () => {
    const b = await buyer(t.api);
    const wrong = await t.api.post('/auth/login', { email: b.email, password: 'wrong password' });
    const unknown = await t.api.post('/auth/login', {
      email: uniqueEmail('nobody'),
      password: 'wrong password',
    });
    expectError(wrong, 'AUTH_ERROR', 401, 'AUTH_ERROR: Invalid email or password');
    expectError(unknown, 'AUTH_ERROR', 401, 'AUTH_ERROR: Invalid email or password');
  });

  it('spends one Argon2id verification, at the same cost, on an unknown email as on a wrong password', async () => {
    // What keeps the two failures alike in time is the work done, so the work is what is
    // asserted; the times themselves are measured by `npm run bench:login`
    // (docs/performance.md "Failed logins").
    const b = await buyer(t.api);
    const verifications = async (email: string) => {
      argon2Verify.mockClear();
      const res = await t.api.post('/auth/login', { email, password: 'wrong password' });
      expectError(res, 'AUTH_ERROR', 401, 'AUTH_ERROR: Invalid email or password');
      return argon2Verify.mock.calls.map(([hash]) => String(hash).split('$').slice(1, 4).join('$'));
    };
    const [stored] = await database.db
      .select({ hash: users.passwordHash })
      .from(users)
      .where(eq(users.email, b.email));
    const cost = stored!.hash!.split('$').slice(1, 4).join('$');
    expect(cost).toBe('argon2id$v=19$m=19456,t=2,p=1');
    expect(await verifications(b.email)).toEqual([cost]);
    expect(await verifications(uniqueEmail('nobody'))).toEqual([cost]);
    // An account without a password (external login only) costs the same too.
    const external = uniqueEmail('external');
    await database.db.insert(users).values({
      id: `users:ext${Date.now()}`,
      email: external,
      name: 'External',
      role: 'buyer',
      passwordHash: null,
    });
    expect(await verifications(external)).toEqual([cost]);
  });

  it('rejects a missing password with 400', async () => {
    const res = await t.api.post('/auth/login', { email: uniqueEmail() });
    expectInvalid(res, [{ field: 'password', message: 'is required' }]);
  });
});

describe('GET /me', () => {
  it('answers the signed-in user', async () => {
    const b = await buyer(t.api);
    const res = await t.api.as(b).get('/me');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: b.id,
      email: b.email,
      name: 'Test buyer',
      role: 'buyer',
      emailVerified: false,
      createdAt: expect.any(Number),
      locale: null,
      seller: null,
    });
  });

  it('is 401 without a token, with a malformed header, or with garbage', async () => {
    expectError(
      await t.api.get('/me'),
      'AUTH_ERROR',
      401,
      'AUTH_ERROR: Missing token; send Authorization: Bearer <token>',
    );
    expect((await t.api.get('/me', { authorization: 'Basic abc' })).status).toBe(401);
    const garbage = await t.api.as('not.a.jwt').get('/me');
    expectInvalidToken(garbage);
  });
});

describe('POST /auth/refresh', () => {
  it('renews a valid token', async () => {
    const b = await buyer(t.api);
    const res = await t.api.as(b).post('/auth/refresh');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, token: expect.any(String), expiresAt: expect.any(Number) });
    expect((await t.api.as(res.body.token).get('/me')).status).toBe(200);
  });

  it('renews an expired token up to the end of the refresh window, not a second after', async () => {
    await withTestApp(async (a) => {
      a.clock.freeze();
      const b = await buyer(a.api);
      a.clock.advance(3600 + 1);
      expectError(await a.api.as(b).get('/me'), 'AUTH_ERROR', 401, 'AUTH_ERROR: Token expired');
      // Expired 7 days ago exactly (minus the second already spent): still renewable.
      a.clock.advance(7 * 86400 - 2);
      const renewed = await a.api.as(b).post('/auth/refresh');
      expect(renewed.status).toBe(200);
      expect(renewed.body.expiresAt).toBe(Math.floor(a.clock.now().getTime() / 1000) + 3600);
      expect((await a.api.as(renewed.body).get('/me')).status).toBe(200);
      // The original token, two seconds later: past the window.
      a.clock.advance(2);
      expectError(
        await a.api.as(b).post('/auth/refresh'),
        'AUTH_ERROR',
        401,
        'AUTH_ERROR: Token expired too long ago to refresh; log in again',
      );
    });
  });

  it('follows REFRESH_WINDOW_SECONDS', async () => {
    const a = await testApp(database, { env: { REFRESH_WINDOW_SECONDS: '60' } });
    a.clock.freeze();
    try {
      const b = await buyer(a.api);
      a.clock.advance(3600 + 59);
      expect((await a.api.as(b).post('/auth/refresh')).status).toBe(200);
      a.clock.advance(2);
      expect((await a.api.as(b).post('/auth/refresh')).status).toBe(401);
    } finally {
      await a.close();
    }
  });

  it('refuses a missing or forged token, and the token of a deleted user', async () => {
    expect((await t.api.post('/auth/refresh')).status).toBe(401);
    const b = await buyer(t.api);
    const [h, p, s] = b.token.split('.');
    const tampered = `${h}.${p}.${s!.slice(0, -4)}AAAA`;
    expectInvalidToken(await t.api.as(tampered).post('/auth/refresh'));
    await database.db.delete(users).where(eq(users.id, b.id));
    expectInvalidToken(await t.api.as(b).post('/auth/refresh'));
  });
});

describe('roles', () => {
  it('a buyer becomes a seller and gets a fresh token with the new role; the old one stops working', async () => {
    const b = await buyer(t.api);
    const res = await t.api.as(b).post('/me/seller', { shopName: 'Maple Goods', province: 'QC' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      user: { id: b.id, email: b.email, name: 'Test buyer', role: 'seller' },
      token: expect.any(String),
      expiresAt: expect.any(Number),
    });
    expect(decodeJwt(res.body.token).role).toBe('seller');
    const me = await t.api.as(res.body.token).get('/me');
    expect(me.body).toMatchObject({ role: 'seller', seller: { shopName: 'Maple Goods', province: 'QC' } });
    expectInvalidToken(await t.api.as(b).get('/me'));
  });

  it('refuses a second shop and an invalid province', async () => {
    const s = await seller(t.api);
    const again = await t.api.as(s).post('/me/seller', { shopName: 'Again', province: 'ON' });
    expectError(again, 'CONFLICT', 409, 'You are already a seller');
    const b = await buyer(t.api);
    const bad = await t.api.as(b).post('/me/seller', { shopName: 'X', province: 'ZZ' });
    expectInvalid(bad, [
      { field: 'province', message: 'must be one of ON, BC, AB, MB, SK, NS, NB, PE, NL, QC, YT, NT, NU' },
    ]);
  });

  it('a buyer calling an admin route is 403 AUTHZ_ERROR', async () => {
    const b = await buyer(t.api);
    const res = await t.api.as(b).patch(`/admin/users/${b.id}`, { role: 'admin' });
    expectError(res, 'AUTHZ_ERROR', 403, 'AUTHZ_ERROR: This needs the admin role; you are buyer');
    expect((await t.api.as(b).get('/me')).body.role).toBe('buyer');
  });

  it('an admin changes a role; the user signs in again and gets the new role', async () => {
    const a = await admin(t.api, database);
    const b = await buyer(t.api);
    const res = await t.api.as(a).patch(`/admin/users/${b.id}`, { role: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      user: { id: b.id, email: b.email, name: 'Test buyer', role: 'admin' },
    });
    // Its older token carried the old role: it is revoked.
    expectInvalidToken(await t.api.as(b).get('/me'));
    const login = await t.api.post('/auth/login', { email: b.email, password: b.password });
    expect(login.body.role).toBe('admin');
    expect(decodeJwt(login.body.token).role).toBe('admin');
  });

  it('making someone a seller needs their shop details unless they have a shop', async () => {
    const a = await admin(t.api, database);
    const b = await buyer(t.api);
    const missing = await t.api.as(a).patch(`/admin/users/${b.id}`, { role: 'seller' });
    expectInvalid(missing, [
      { field: 'shopName', message: 'required to make this user a seller' },
      { field: 'province', message: 'required to make this user a seller' },
    ]);
    const ok = await t.api
      .as(a)
      .patch(`/admin/users/${b.id}`, { role: 'seller', shopName: 'Shop', province: 'BC' });
    expect(ok.body.user.role).toBe('seller');
  });

  it('an unknown or malformed user id is 404', async () => {
    const a = await admin(t.api, database);
    for (const id of ['users:doesnotexist000000', 'orders:abc', '%27%20or%201%3D1']) {
      const res = await t.api.as(a).patch(`/admin/users/${id}`, { role: 'buyer' });
      expectError(res, 'NOT_FOUND', 404);
    }
  });

  it('keeps at least one admin, even when two admins demote each other at once', async () => {
    await withTestApp(async (app, d) => {
      const a1 = await admin(app.api, d);
      const a2 = await admin(app.api, d);
      const [r1, r2] = await Promise.all([
        app.api.as(a1).patch(`/admin/users/${a2.id}`, { role: 'buyer' }),
        app.api.as(a2).patch(`/admin/users/${a1.id}`, { role: 'buyer' }),
      ]);
      const statuses = [r1.status, r2.status].sort();
      // One demotion wins; the other is either refused as the last admin or finds its caller revoked.
      expect(statuses[0]).toBe(200);
      expect([401, 409]).toContain(statuses[1]);
      const admins = await d.db.select().from(users).where(eq(users.role, 'admin'));
      expect(admins).toHaveLength(1);
      const last = admins[0]!;
      const lastToken = last.id === a1.id ? a1 : a2;
      const self = await app.api
        .as((await app.api.post('/auth/login', lastToken)).body.token)
        .patch(`/admin/users/${last.id}`, {
          role: 'buyer',
        });
      expectError(self, 'CONFLICT', 409, 'This is the last admin; make another user admin first');
    });
  });
});
