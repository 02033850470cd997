// Agents' tokens on the API (docs/api.md "Remote agents"): accepted only on
// the routes that back a tool of a scope the token holds, refused once the grant is revoked,
// never renewed at /auth/refresh; a user's own token is unchanged.
import { beforeAll, describe, expect, it } from 'vitest';
import { agentToken, revokeGrant } from './helpers/agents.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { admin, buyer, expectError } from './helpers/builders.ts';

const { t, database } = useTestApp();
let shopper: SignedIn;

beforeAll(async () => {
  shopper = await buyer(t.api);
});

describe("an agent's token on the API", () => {
  it('calls the routes of its scopes, and is 403 naming the scope elsewhere', async () => {
    const { token } = await agentToken(t, database, shopper, ['shop']);
    const as = t.api.as({ ...shopper, token });
    expect((await as.get('/cart')).status).toBe(200);
    expect((await as.get('/me')).body).toMatchObject({ id: shopper.id });
    expectError(await as.get('/orders'), 'AUTHZ_ERROR', 403, /"orders" scope/);
    expectError(await as.post('/auth/logout-all'), 'AUTHZ_ERROR', 403, /agent's token cannot call/);
  });

  it('is refused on admin routes even for an admin who granted every scope', async () => {
    const boss = await admin(t.api, database);
    const { token } = await agentToken(t, database, boss, ['shop', 'orders', 'analytics']);
    const as = t.api.as({ ...boss, token });
    expect((await as.get('/admin/analytics?period=day')).status).toBe(200);
    expectError(await as.get('/admin/reviews'), 'AUTHZ_ERROR', 403);
    expectError(await as.patch(`/admin/users/${shopper.id}`, { role: 'seller' }), 'AUTHZ_ERROR', 403);
  });

  it('stops working the moment its grant is revoked', async () => {
    const { token, grantId } = await agentToken(t, database, shopper, ['shop']);
    const as = t.api.as({ ...shopper, token });
    expect((await as.get('/cart')).status).toBe(200);
    await revokeGrant(t, database, grantId);
    expectError(await as.get('/cart'), 'AUTH_ERROR', 401);
  });

  it('is never renewed at /auth/refresh, and a token for another audience is refused', async () => {
    const { token } = await agentToken(t, database, shopper, ['shop']);
    expectError(await t.api.as({ ...shopper, token }).post('/auth/refresh'), 'AUTH_ERROR', 401);
    const other = await agentToken(t, database, shopper, ['shop'], { audience: 'https://elsewhere.example' });
    expectError(await t.api.as({ ...shopper, token: other.token }).get('/cart'), 'AUTH_ERROR', 401);
  });
});
