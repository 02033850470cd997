// Suspending a user (issue 43): the person cannot sign in (the API, the pages), and every token and
// page session of theirs ends at once; reinstated, they sign in again; admins cannot be suspended
// (nor can anyone suspend themself); each change in the audit log; the desk's buttons.
import { describe, expect, it } from 'vitest';
import { admin, buyer, useTestApp } from './helpers/app.ts';
import { expectError } from './helpers/builders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp({ logger: { level: 'error' } });

describe('suspending a user', () => {
  it('ends their tokens and sessions and refuses their sign-in, until reinstated; recorded', async () => {
    const boss = await admin(t.api, database);
    const b = await buyer(t.api);
    const pages = new Browser(t.app);
    await pages.signIn(b);
    expect((await t.api.as(b).get('/me')).status).toBe(200);

    const suspended = await t.api.as(boss).post(`/admin/users/${b.id}/suspend`);
    expect(suspended.status, JSON.stringify(suspended.body)).toBe(200);
    expect(suspended.body).toMatchObject({ success: true, suspended: true, user: { id: b.id } });
    expectError(await t.api.as(b).get('/me'), 'AUTH_ERROR', 401);
    expectError(
      await t.api.post('/auth/login', { email: b.email, password: b.password }),
      'AUTHZ_ERROR',
      403,
      'This account is suspended; write to the platform to have it reinstated',
    );
    // The page session has ended: the account page sends them to sign in.
    expect((await pages.get('/account', { follow: false })).status).toBe(303);
    const again = new Browser(t.app);
    await again.get('/account/sign-in');
    const refused = await again.post('/account/sign-in', {
      email: b.email,
      password: b.password,
      next: '/account',
    });
    expect(textOf(refused.html)).toContain('This account is suspended');

    const reinstated = await t.api.as(boss).post(`/admin/users/${b.id}/reinstate`);
    expect(reinstated.body).toMatchObject({ suspended: false });
    expect((await t.api.post('/auth/login', { email: b.email, password: b.password })).status).toBe(200);

    const log = await t.api.as(boss).get(`/admin/audit?subject=${encodeURIComponent(b.id)}`);
    expect(log.body.actions.map((a: { action: string }) => a.action)).toEqual([
      'user.reinstate',
      'user.suspend',
    ]);
  });

  it('refuses to suspend an admin or oneself; only admins suspend; an unknown user is 404', async () => {
    const boss = await admin(t.api, database);
    const other = await admin(t.api, database);
    for (const who of [boss, other]) {
      expectError(await t.api.as(boss).post(`/admin/users/${who.id}/suspend`), 'CONFLICT', 409);
    }
    const b = await buyer(t.api);
    expectError(await t.api.as(b).post(`/admin/users/${boss.id}/suspend`), 'AUTHZ_ERROR', 403);
    expectError(await t.api.as(boss).post('/admin/users/users:nope/suspend'), 'NOT_FOUND', 404);
  });

  it('the desk suspends and reinstates from the user’s card', async () => {
    const boss = await admin(t.api, database);
    const b = await buyer(t.api);
    const desk = new Browser(t.app);
    await desk.signIn(boss);
    await desk.get(`/desk/users?user=${encodeURIComponent(b.id)}`);
    const done = await desk.post(`/desk/users/${encodeURIComponent(b.id)}/suspend`, {});
    expect(textOf(done.html)).toContain('The account is suspended: every session of theirs has ended.');
    expect(textOf(done.html)).toMatch(/Suspended since .+: cannot sign in\./);
    const back = await desk.post(`/desk/users/${encodeURIComponent(b.id)}/reinstate`, {});
    expect(textOf(back.html)).toContain('The account is reinstated.');
    expect(back.html).toContain('Suspend (signs them out everywhere)');
  });
});
