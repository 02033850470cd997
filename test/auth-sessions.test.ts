// Sessions end: a token chain descends from one sign-in (`auth_time`) and is not renewed past
// SESSION_MAX_AGE_SECONDS; "log out everywhere" revokes every token; a token issued in the
// future is refused (docs/decisions.md "Accounts").
import { eq } from 'drizzle-orm';
import { decodeJwt, importPKCS8, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../src/modules/auth/tables.ts';
import { type SignedIn, testApp, testKeyPem, useTestApp } from './helpers/app.ts';
import { buyer, expectError } from './helpers/builders.ts';

const DAY = 86_400;
const SESSION_OVER = 'AUTH_ERROR: Your session is older than 30 days; sign in again';

const { t, database } = useTestApp();

beforeAll(async () => {
  t.clock.freeze();
});

const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);

/** Moves the frozen clock to `seconds` after `start` (Unix seconds). */
const at = (start: number, seconds: number) => {
  t.clock.advance(start + seconds - nowSeconds());
};

/** Refreshes `token`; answers the new token (asserting success). */
async function refresh(token: string): Promise<string> {
  const res = await t.api.as(token).post('/auth/refresh');
  expect(res.status).toBe(200);
  return res.body.token;
}

describe('auth_time', () => {
  it('a sign-in sets auth_time to its iat; a refresh keeps it; a new login starts a new one', async () => {
    const b = await buyer(t.api);
    const first = decodeJwt(b.token);
    expect(first.auth_time).toBe(first.iat);
    const start = first.iat!;

    at(start, 1800);
    const renewed = decodeJwt(await refresh(b.token));
    expect(renewed.iat).toBe(start + 1800);
    expect(renewed.auth_time).toBe(start);

    const login = await t.api.post('/auth/login', { email: b.email, password: b.password });
    expect(decodeJwt(login.body.token).auth_time).toBe(start + 1800);
  });

  it('opening a shop continues the session: the seller token keeps auth_time', async () => {
    const b = await buyer(t.api);
    const start = decodeJwt(b.token).iat!;
    at(start, 600);
    const res = await t.api.as(b).post('/me/seller', { shopName: 'Maple Goods', province: 'ON' });
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.token)).toMatchObject({ role: 'seller', iat: start + 600, auth_time: start });
  });
});

describe('POST /auth/refresh and the session age (30 days by default)', () => {
  it('renews a chain 30 days minus 1 s after its sign-in; refuses it 30 days plus 1 s after', async () => {
    const b = await buyer(t.api);
    const start = decodeJwt(b.token).iat!;
    // The chain refreshes within each 7-day refresh window, as a client that is used weekly does.
    let token = b.token;
    for (const day of [6, 12, 18, 24]) {
      at(start, day * DAY);
      token = await refresh(token);
    }
    at(start, 30 * DAY - 1);
    const last = await t.api.as(token).post('/auth/refresh');
    expect(last.status).toBe(200);
    // The last token of the session ends with the session, not an hour later.
    expect(last.body.expiresAt).toBe(start + 30 * DAY);
    expect(decodeJwt(last.body.token)).toMatchObject({ auth_time: start, exp: start + 30 * DAY });
    expect((await t.api.as(last.body).get('/me')).status).toBe(200);

    at(start, 30 * DAY + 1);
    expectError(await t.api.as(last.body).post('/auth/refresh'), 'AUTH_ERROR', 401, SESSION_OVER);
    expectError(await t.api.as(token).post('/auth/refresh'), 'AUTH_ERROR', 401, SESSION_OVER);
    expectError(await t.api.as(last.body).get('/me'), 'AUTH_ERROR', 401, 'AUTH_ERROR: Token expired');
    // Signing in again starts a new session.
    const login = await t.api.post('/auth/login', { email: b.email, password: b.password });
    expect((await t.api.as(login.body.token).post('/auth/refresh')).status).toBe(200);
  });

  it('renews a token that has not expired yet (clients refresh early)', async () => {
    const b = await buyer(t.api);
    const start = decodeJwt(b.token).iat!;
    at(start, 60);
    const res = await t.api.as(b).post('/auth/refresh');
    expect(res.status).toBe(200);
    expect(res.body.expiresAt).toBe(start + 60 + 3600);
  });

  it('follows SESSION_MAX_AGE_SECONDS', async () => {
    const short = await testApp(database, { env: { SESSION_MAX_AGE_SECONDS: '600' } });
    short.clock.freeze();
    try {
      const b = await buyer(short.api);
      const start = decodeJwt(b.token).iat!;
      // A login's token never outlives its session either.
      expect(decodeJwt(b.token).exp).toBe(start + 600);
      short.clock.advance(599);
      expect((await short.api.as(b).post('/auth/refresh')).status).toBe(200);
      short.clock.advance(2);
      expectError(
        await short.api.as(b).post('/auth/refresh'),
        'AUTH_ERROR',
        401,
        'AUTH_ERROR: Your session is older than 10 minutes; sign in again',
      );
    } finally {
      await short.close();
    }
  });
});

describe('a token issued in the future', () => {
  let b: SignedIn;
  beforeAll(async () => {
    b = await buyer(t.api);
  });

  /** A token of ours for `b` with iat `ahead` seconds after the (frozen) clock. */
  async function issuedAhead(ahead: number) {
    const iat = nowSeconds() + ahead;
    return new SignJWT({ email: b.email, role: 'buyer', ver: 0, auth_time: iat })
      .setProtectedHeader({ alg: 'RS256', kid: t.keys.kid })
      .setSubject(b.id)
      .setIssuer('portage')
      .setAudience('http://portage.test')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await importPKCS8(testKeyPem(), 'RS256'));
  }

  it('is refused 61 s ahead, on a request and on /auth/refresh', async () => {
    const token = await issuedAhead(61);
    expectError(await t.api.as(token).get('/me'), 'AUTH_ERROR', 401, 'AUTH_ERROR: Invalid token');
    expectError(await t.api.as(token).post('/auth/refresh'), 'AUTH_ERROR', 401, 'AUTH_ERROR: Invalid token');
  });

  it('is accepted 59 s ahead (clock skew between instances)', async () => {
    const token = await issuedAhead(59);
    expect((await t.api.as(token).get('/me')).status).toBe(200);
    expect((await t.api.as(token).post('/auth/refresh')).status).toBe(200);
  });

  it('is refused even after the same token was accepted while its iat was near', async () => {
    const token = await issuedAhead(61);
    t.clock.advance(2);
    expect((await t.api.as(token).get('/me')).status).toBe(200);
    t.clock.advance(-2);
    expectError(await t.api.as(token).get('/me'), 'AUTH_ERROR', 401, 'AUTH_ERROR: Invalid token');
  });
});

describe('POST /auth/logout-all', () => {
  it('ends every token of the user, and their refresh; a new login works', async () => {
    const b = await buyer(t.api);
    const other = await t.api.post('/auth/login', { email: b.email, password: b.password });
    const bystander = await buyer(t.api, 'bystander');
    const [before] = await database.db.select().from(users).where(eq(users.id, b.id));

    const res = await t.api.as(b).post('/auth/logout-all');
    expect(res).toMatchObject({ status: 200, body: { success: true } });
    expect(res.body).toEqual({ success: true });
    const [after] = await database.db.select().from(users).where(eq(users.id, b.id));
    expect(after!.tokenVersion).toBe(before!.tokenVersion + 1);

    for (const token of [b.token, other.body.token]) {
      expectError(await t.api.as(token).get('/me'), 'AUTH_ERROR', 401, 'AUTH_ERROR: Invalid token');
      expectError(
        await t.api.as(token).post('/auth/refresh'),
        'AUTH_ERROR',
        401,
        'AUTH_ERROR: Invalid token',
      );
    }
    expect((await t.api.as(bystander).get('/me')).status).toBe(200);

    const again = await t.api.post('/auth/login', { email: b.email, password: b.password });
    expect(again.status).toBe(200);
    expect((await t.api.as(again.body.token).get('/me')).body.id).toBe(b.id);
    expect((await t.api.as(again.body.token).post('/auth/refresh')).status).toBe(200);
  });

  it('needs a signed-in caller', async () => {
    expectError(
      await t.api.post('/auth/logout-all'),
      'AUTH_ERROR',
      401,
      'AUTH_ERROR: Missing token; send Authorization: Bearer <token>',
    );
  });
});
