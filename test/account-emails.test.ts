// Account emails (docs/api.md "Account emails", "Mail"):
// the verification link written at registration, the password reset by
// email, their pages, and their links: random, hashed in storage, single use, expiring.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { and, desc, eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { loggerOptions } from '../src/app.ts';
import { hashPassword } from '../src/modules/auth/passwords.ts';
import { emailTokens, users } from '../src/modules/auth/tables.ts';
import { outbox } from '../src/modules/mail/tables.ts';
import { type SignedIn, testApp, useTestApp } from './helpers/app.ts';
import { buyer, expectError, uniqueEmail } from './helpers/builders.ts';
import { emlFiles, setClock } from './helpers/orders.ts';
import { type ParsedMail, parseEml } from './helpers/smtp.ts';

const BASE = 'http://portage.test';
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const FORGOT_ANSWER = {
  success: true,
  message:
    'If an account uses this email address, we sent it a link to reset the password (valid 30 minutes). Check your inbox.',
};
const BAD_RESET_LINK =
  'This password reset link is invalid, already used or expired (links work once, for 30 minutes); ask for a new one at /auth/password/forgot';
const BAD_VERIFY_LINK =
  'This email verification link is invalid, already used or expired (links work once, for 48 hours); sign in and ask for a new one';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const { t, database } = useTestApp();

beforeEach(() => {
  setClock(t, '2026-11-21T15:00:00.000Z');
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** Sends every due email (the outbox worker's passes, until one finds less than a batch). */
async function sendMail() {
  while (((await t.app.jobs.runOnce()).mail ?? 0) >= 20) {}
}

/** The newest email to `to` of `kind`, read back from its .eml file after the worker sent it. */
async function lastMail(to: string, kind: string): Promise<ParsedMail> {
  await sendMail();
  const [row] = await database.db
    .select()
    .from(outbox)
    .where(and(eq(outbox.toAddress, to), eq(outbox.kind, kind)))
    .orderBy(desc(outbox.createdAt), desc(outbox.id))
    .limit(1);
  expect(row?.status).toBe('sent');
  // Once sent, the outbox keeps no copy of the link (mail/worker.ts).
  expect([row?.textBody, row?.htmlBody]).toEqual(['', '']);
  const [file] = (await emlFiles(t)).filter((f) => f.endsWith(`-${row!.id}.eml`));
  expect(file).toBeDefined();
  return parseEml(await readFile(path.join(t.config.dataDir, 'mail', file!), 'utf8'));
}

/** The link in an email: its path and its token (the same in the text and the HTML bodies). */
function linkIn(mail: ParsedMail, pathname: string): { url: string; token: string } {
  const pattern = new RegExp(`${BASE}${pathname}\\?token=([A-Za-z0-9_-]+)`);
  const fromText = pattern.exec(mail.text ?? '');
  // The HTML's links as a mail reader reads them (= is written &#61;).
  const fromHtml = pattern.exec((mail.html ?? '').replaceAll('&#61;', '='));
  expect(fromText?.[1]).toBeDefined();
  expect(fromHtml?.[1]).toBe(fromText?.[1]);
  return { url: `${pathname}?token=${fromText![1]}`, token: fromText![1]! };
}

const mailRows = (to: string) => database.db.select().from(outbox).where(eq(outbox.toAddress, to));

async function emailVerified(userId: string) {
  const [row] = await database.db.select({ v: users.emailVerified }).from(users).where(eq(users.id, userId));
  return row?.v;
}

/** A buyer who followed the verification link of their registration email. */
async function verifiedBuyer(label = 'verified'): Promise<SignedIn> {
  const b = await buyer(t.api, label);
  const { token } = linkIn(await lastMail(b.email, 'email-verify'), '/auth/email/verify');
  expect((await t.api.post('/auth/email/verify', { token })).status).toBe(200);
  return b;
}

async function resetLink(email: string) {
  const res = await t.api.post('/auth/password/forgot', { email });
  expect(res).toMatchObject({ status: 202, body: FORGOT_ANSWER });
  return linkIn(await lastMail(email, 'password-reset'), '/auth/password/reset');
}

describe('email verification', () => {
  it('registration writes the verification email; its link opens a page that does not verify, and its form verifies once', async () => {
    const b = await buyer(t.api, 'newcomer');
    // Written with the account, in the same transaction.
    expect((await mailRows(b.email)).map((r) => [r.kind, r.status])).toEqual([['email-verify', 'pending']]);
    expect(await emailVerified(b.id)).toBe(false);

    const mail = await lastMail(b.email, 'email-verify');
    expect(mail.headers.subject).toBe('Confirm your email address for Portage');
    expect(mail.headers.to).toBe(b.email);
    expect(mail.text).toContain('Hello Test newcomer,');
    expect(mail.text).toContain('The link works once, for 48 hours.');
    const { url, token } = linkIn(mail, '/auth/email/verify');
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    // Stored only as its hash.
    const rows = await database.db.select().from(emailTokens).where(eq(emailTokens.userId, b.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ purpose: 'verify', tokenHash: sha256(token), usedAt: null });
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime()).toBe(48 * 3600 * 1000);

    // Opening the link (a person, or a mail scanner) shows a form and verifies nothing.
    for (let i = 0; i < 2; i++) {
      const page = await t.api.get(url);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toBe(PAGE_CSP);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).toContain('<form method="post" action="/auth/email/verify">');
      expect(page.body).toContain(`<input type="hidden" name="token" value="${token}">`);
      expect(page.body).not.toContain('<script');
    }
    expect(await emailVerified(b.id)).toBe(false);
    expect((await t.api.as(b).get('/me')).body.emailVerified).toBe(false);

    // The page's form posts the token.
    const done = await t.api.post('/auth/email/verify', form({ token }), FORM);
    expect(done.status).toBe(200);
    expect(done.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(done.body).toContain('Email address confirmed');
    expect(await emailVerified(b.id)).toBe(true);
    expect((await t.api.as(b).get('/me')).body.emailVerified).toBe(true);

    // Used: the second use fails, as JSON and as a page; the GET now says so.
    expectError(await t.api.post('/auth/email/verify', { token }), 'VALIDATION_ERROR', 400, BAD_VERIFY_LINK);
    const again = await t.api.post('/auth/email/verify', form({ token }), FORM);
    expect(again.status).toBe(400);
    expect(again.body).toContain('This link does not work');
    expect((await t.api.get(url)).status).toBe(400);
  });

  it('answers JSON to JSON, and refuses unknown and malformed tokens the same way', async () => {
    const b = await buyer(t.api);
    const { token } = linkIn(await lastMail(b.email, 'email-verify'), '/auth/email/verify');
    expectError(
      await t.api.post('/auth/email/verify', {
        token: `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
      }),
      'VALIDATION_ERROR',
      400,
      BAD_VERIFY_LINK,
    );
    expectError(
      await t.api.post('/auth/email/verify', { token: 'short' }),
      'VALIDATION_ERROR',
      400,
      BAD_VERIFY_LINK,
    );
    const res = await t.api.post('/auth/email/verify', { token });
    expect(res).toMatchObject({ status: 200, body: { success: true, emailVerified: true } });
    expect(res.body).toEqual({ success: true, emailVerified: true });
    expect((await t.api.get('/auth/email/verify')).status).toBe(400);
  });

  it('a verification link works for 48 hours, to the second', async () => {
    const b = await buyer(t.api);
    const { url, token } = linkIn(await lastMail(b.email, 'email-verify'), '/auth/email/verify');
    t.clock.advance(48 * 3600 - 1);
    expect((await t.api.get(url)).status).toBe(200);
    t.clock.advance(1);
    expect((await t.api.get(url)).status).toBe(400);
    expectError(await t.api.post('/auth/email/verify', { token }), 'VALIDATION_ERROR', 400, BAD_VERIFY_LINK);
    expect(await emailVerified(b.id)).toBe(false);
  });

  it('a signed-in user asks for a new link (202); once verified, 409', async () => {
    const b = await buyer(t.api);
    const first = linkIn(await lastMail(b.email, 'email-verify'), '/auth/email/verify');
    t.clock.advance(1); // the newest email is the later one
    const res = await t.api.as(b).post('/auth/email/verify/resend');
    expect(res).toMatchObject({ status: 202 });
    expect(res.body).toEqual({
      success: true,
      message: `We sent a new verification link to ${b.email} (valid 48 hours).`,
    });
    expect(await mailRows(b.email)).toHaveLength(2);
    const second = linkIn(await lastMail(b.email, 'email-verify'), '/auth/email/verify');
    expect(second.token).not.toBe(first.token);
    expectError(await t.api.post('/auth/email/verify/resend'), 'AUTH_ERROR', 401);

    expect((await t.api.post('/auth/email/verify', { token: second.token })).status).toBe(200);
    // Verifying retires the other link.
    expectError(await t.api.post('/auth/email/verify', { token: first.token }), 'VALIDATION_ERROR', 400);
    expectError(
      await t.api.as(b).post('/auth/email/verify/resend'),
      'CONFLICT',
      409,
      'Your email address is already verified',
    );
  });
});

describe('password reset', () => {
  it('end to end: the email, its page, the form, the new password; the old password and the old token are dead', async () => {
    const b = await verifiedBuyer('resetter');
    const before = await t.api.post('/auth/login', { email: b.email, password: b.password });
    expect(before.status).toBe(200);
    const oldToken = before.body.token as string;
    expect((await t.api.as(oldToken).get('/me')).status).toBe(200);

    const res = await t.api.post('/auth/password/forgot', { email: b.email.toUpperCase() });
    expect(res.status).toBe(202);
    expect(res.body).toEqual(FORGOT_ANSWER);
    const mail = await lastMail(b.email, 'password-reset');
    expect(mail.headers.subject).toBe('Reset your Portage password');
    expect(mail.text).toContain('The link works once, for 30 minutes.');
    const { url, token } = linkIn(mail, '/auth/password/reset');
    expect(mail.headers.subject).not.toContain(token);
    const [row] = await database.db
      .select()
      .from(emailTokens)
      .where(and(eq(emailTokens.userId, b.id), eq(emailTokens.purpose, 'reset')));
    expect(row).toMatchObject({ tokenHash: sha256(token), usedAt: null });
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBe(30 * 60 * 1000);

    // The page: a form with the new password fields; opening it twice uses nothing.
    for (let i = 0; i < 2; i++) {
      const page = await t.api.get(url);
      expect(page.status).toBe(200);
      expect(page.headers['content-security-policy']).toBe(PAGE_CSP);
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.body).toContain('<form method="post" action="/auth/password/reset">');
      expect(page.body).toContain(`<input type="hidden" name="token" value="${token}">`);
      expect(page.body).toMatch(/<input id="password" name="password" type="password"/);
      expect(page.body).toMatch(/<input id="confirmPassword" name="confirmPassword" type="password"/);
    }
    expect((await t.api.post('/auth/login', { email: b.email, password: b.password })).status).toBe(200);

    // Posted as the page's form does.
    const newPassword = 'a brand new passphrase';
    const done = await t.api.post(
      '/auth/password/reset',
      form({ token, password: newPassword, confirmPassword: newPassword }),
      FORM,
    );
    expect(done.status).toBe(200);
    expect(done.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(done.body).toContain('Your password is changed');

    expect((await t.api.post('/auth/login', { email: b.email, password: newPassword })).status).toBe(200);
    expectError(
      await t.api.post('/auth/login', { email: b.email, password: b.password }),
      'AUTH_ERROR',
      401,
      'AUTH_ERROR: Invalid email or password',
    );
    expectError(await t.api.as(oldToken).get('/me'), 'AUTH_ERROR', 401);
    expectError(await t.api.as(oldToken).post('/auth/refresh'), 'AUTH_ERROR', 401);

    // The same link a second time: refused, as JSON and as a page.
    expectError(
      await t.api.post('/auth/password/reset', { token, password: 'yet another password' }),
      'VALIDATION_ERROR',
      400,
      BAD_RESET_LINK,
    );
    const again = await t.api.post(
      '/auth/password/reset',
      form({ token, password: 'yet another password', confirmPassword: 'yet another password' }),
      FORM,
    );
    expect(again.status).toBe(400);
    expect(again.body).toContain('This link does not work');
    expect((await t.api.get(url)).status).toBe(400);
    expect((await t.api.post('/auth/login', { email: b.email, password: newPassword })).status).toBe(200);
  });

  it('JSON: answers {success:true}; the same link used twice fails the second time', async () => {
    const b = await verifiedBuyer();
    const { token } = await resetLink(b.email);
    const res = await t.api.post('/auth/password/reset', { token, password: 'json password 1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expectError(
      await t.api.post('/auth/password/reset', { token, password: 'json password 2' }),
      'VALIDATION_ERROR',
      400,
      BAD_RESET_LINK,
    );
    expect((await t.api.post('/auth/login', { email: b.email, password: 'json password 1' })).status).toBe(
      200,
    );
    expect((await t.api.post('/auth/login', { email: b.email, password: 'json password 2' })).status).toBe(
      401,
    );
  });

  it('a reset link works for 30 minutes, to the second', async () => {
    const b = await verifiedBuyer();
    const { url, token } = await resetLink(b.email);
    t.clock.advance(30 * 60 - 1);
    expect((await t.api.get(url)).status).toBe(200);
    t.clock.advance(1);
    expect((await t.api.get(url)).status).toBe(400);
    expectError(
      await t.api.post('/auth/password/reset', { token, password: 'too late password' }),
      'VALIDATION_ERROR',
      400,
      BAD_RESET_LINK,
    );
    expect((await t.api.post('/auth/login', { email: b.email, password: b.password })).status).toBe(200);
  });

  it('an expired link (31 minutes) fails', async () => {
    const b = await verifiedBuyer();
    const { token } = await resetLink(b.email);
    t.clock.advance(31 * 60);
    expectError(
      await t.api.post('/auth/password/reset', { token, password: 'too late password' }),
      'VALIDATION_ERROR',
      400,
      BAD_RESET_LINK,
    );
  });

  it('one link used by five requests at once: exactly one succeeds', async () => {
    const b = await verifiedBuyer();
    const { token } = await resetLink(b.email);
    const passwords = [1, 2, 3, 4, 5].map((n) => `racing password ${n}`);
    const answers = await Promise.all(
      passwords.map((password) => t.api.post('/auth/password/reset', { token, password })),
    );
    const won = answers.flatMap((a, i) => (a.status === 200 ? [i] : []));
    expect(won).toHaveLength(1);
    for (const a of answers.filter((a) => a.status !== 200)) {
      expect(a.body).toEqual({ error: BAD_RESET_LINK, code: 'VALIDATION_ERROR', statusCode: 400 });
    }
    const logins = await Promise.all(
      passwords.map((password) => t.api.post('/auth/login', { email: b.email, password })),
    );
    expect(logins.map((l) => l.status)).toEqual(passwords.map((_, i) => (i === won[0] ? 200 : 401)));
    // One bump of the token version.
    const [row] = await database.db.select().from(users).where(eq(users.id, b.id));
    expect(row?.tokenVersion).toBe(1);
  });

  it('a reset uses up every other reset link of the user', async () => {
    const b = await verifiedBuyer();
    const first = await resetLink(b.email);
    t.clock.advance(1); // the newest email is the later one
    const second = await resetLink(b.email);
    expect(second.token).not.toBe(first.token);
    expect(
      (await t.api.post('/auth/password/reset', { token: second.token, password: 'second link wins' }))
        .status,
    ).toBe(200);
    expectError(
      await t.api.post('/auth/password/reset', { token: first.token, password: 'first link too late' }),
      'VALIDATION_ERROR',
      400,
      BAD_RESET_LINK,
    );
  });

  it('the form: a short password or two different passwords show the form again with the problem; JSON gets the error model', async () => {
    const b = await verifiedBuyer();
    const { token } = await resetLink(b.email);
    const short = await t.api.post(
      '/auth/password/reset',
      form({ token, password: 'short', confirmPassword: 'short' }),
      FORM,
    );
    expect(short.status).toBe(400);
    expect(short.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(short.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(short.body).toContain('The new password must be at least 8 characters');
    expect(short.body).toContain(`<input type="hidden" name="token" value="${token}">`);

    const differ = await t.api.post(
      '/auth/password/reset',
      form({ token, password: 'one long password', confirmPassword: 'another long password' }),
      FORM,
    );
    expect(differ.status).toBe(400);
    expect(differ.body).toContain('The two passwords differ; type the same new password twice');
    expect(differ.body).toContain(`value="${token}"`);

    expect(await t.api.post('/auth/password/reset', { token, password: 'short' })).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: [{ field: 'password', message: 'must be at least 8 characters' }],
      },
    });
    expect(
      await t.api.post('/auth/password/reset', {
        token,
        password: 'one long password',
        confirmPassword: 'other',
      }),
    ).toMatchObject({
      status: 400,
      body: {
        error: 'The two passwords differ; type the same new password twice',
        details: [{ field: 'confirmPassword', message: 'must equal password' }],
      },
    });
    // None of these used the link.
    const ok = await t.api.post(
      '/auth/password/reset',
      form({ token, password: 'finally the same', confirmPassword: 'finally the same' }),
      FORM,
    );
    expect(ok.status).toBe(200);
    // A form with a mangled token: the error page, not the form.
    const bad = await t.api.post(
      '/auth/password/reset',
      form({ token: 'x', password: 'whatever long' }),
      FORM,
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('This link does not work');
    // Form fields without a token are not the page's form: the error model.
    const notOurs = await t.api.post('/auth/password/reset', form({ password: 'whatever long' }), FORM);
    expect(notOurs).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: [{ field: 'token', message: 'is required' }],
      },
    });
  });

  it('refuses a form body over 4 KiB', async () => {
    const res = await t.api.post(
      '/auth/password/reset',
      form({ token: 'x'.repeat(5000), password: 'p' }),
      FORM,
    );
    expect(res.status).toBe(413);
  });
});

describe('POST /auth/password/forgot', () => {
  it('answers 202 with the same body for known, unknown, unverified and external-login-only addresses, no sooner than 250 ms', async () => {
    const verified = await verifiedBuyer();
    const unverified = await buyer(t.api, 'unverified');
    const unknown = uniqueEmail('nobody');
    const external = uniqueEmail('external');
    await database.db.insert(users).values({
      id: `users:ext${Date.now()}`,
      email: external,
      name: 'External Only',
      passwordHash: null,
      emailVerified: true,
    });
    await sendMail();
    t.clock.advance(1); // the emails below are the newest
    const before = {
      verified: (await mailRows(verified.email)).length,
      unverified: (await mailRows(unverified.email)).length,
    };

    for (const email of [verified.email, unverified.email, unknown, external]) {
      const started = performance.now();
      const res = await t.api.post('/auth/password/forgot', { email });
      expect(performance.now() - started).toBeGreaterThanOrEqual(245);
      expect(res.status).toBe(202);
      expect(res.body).toEqual(FORGOT_ANSWER);
    }
    // Malformed addresses are a validation error (they cannot name an account).
    expect(await t.api.post('/auth/password/forgot', { email: 'not-an-email' })).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', details: [{ field: 'email', message: 'must be an email address' }] },
    });

    // The verified address gets a reset link; the unverified one a verification link instead
    // (a reset needs a verified address); the unknown one nothing at all.
    expect(await mailRows(unknown)).toEqual([]);
    const verifiedRows = await mailRows(verified.email);
    expect(verifiedRows).toHaveLength(before.verified + 1);
    expect(verifiedRows.filter((r) => r.kind === 'password-reset')).toHaveLength(1);
    const unverifiedRows = await mailRows(unverified.email);
    expect(unverifiedRows).toHaveLength(before.unverified + 1);
    expect(unverifiedRows.filter((r) => r.kind === 'password-reset')).toHaveLength(0);
    const externalRows = await mailRows(external);
    expect(externalRows.map((r) => r.kind)).toEqual(['password-reset']);

    const toUnverified = await lastMail(unverified.email, 'email-verify');
    expect(toUnverified.headers.subject).toBe('Confirm your email address to reset your Portage password');
    expect(toUnverified.text).not.toContain('/auth/password/reset');
    const { token } = linkIn(toUnverified, '/auth/email/verify');
    expect((await t.api.post('/auth/email/verify', { token })).status).toBe(200);
    expect(await emailVerified(unverified.id)).toBe(true);
    // Verified now: the next request sends the reset link.
    const link = await resetLink(unverified.email);
    expect(
      (await t.api.post('/auth/password/reset', { token: link.token, password: 'verified at last' })).status,
    ).toBe(200);
  });

  it('an operator-made account (portage user create) is verified and gets the reset link', async () => {
    const email = uniqueEmail('operator');
    await database.db.insert(users).values({
      id: `users:op${Date.now()}`,
      email,
      name: 'Operator Made',
      passwordHash: await hashPassword('operator password'),
      emailVerified: true,
    });
    const { token } = await resetLink(email);
    expect((await t.api.post('/auth/password/reset', { token, password: 'operator new pass' })).status).toBe(
      200,
    );
    expect((await t.api.post('/auth/login', { email, password: 'operator new pass' })).status).toBe(200);
  });
});

describe('at most 3 account emails per address per hour', () => {
  it('100 forgot calls, 25 at a time, answer the same and queue 3 emails', async () => {
    const b = await verifiedBuyer('flooded');
    const before = (await mailRows(b.email)).length;
    for (let batch = 0; batch < 4; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 25 }, () => t.api.post('/auth/password/forgot', { email: b.email })),
      );
      for (const res of answers) expect(res).toMatchObject({ status: 202, body: FORGOT_ANSWER });
    }
    // The registration's verification email was the first of the hour.
    expect((await mailRows(b.email)).length - before).toBe(2);
    // An hour after the first, one more may go.
    t.clock.advance(3600);
    await t.api.post('/auth/password/forgot', { email: b.email });
    expect((await mailRows(b.email)).length - before).toBe(3);
  });

  it('resending the verification email past the limit is 429, saying when it may be asked again', async () => {
    const b = await buyer(t.api, 'resender');
    expect((await t.api.as(b).post('/auth/email/verify/resend')).status).toBe(202);
    expect((await t.api.as(b).post('/auth/email/verify/resend')).status).toBe(202);
    const [first] = await database.db
      .select({ createdAt: emailTokens.createdAt })
      .from(emailTokens)
      .where(eq(emailTokens.userId, b.id))
      .orderBy(emailTokens.createdAt)
      .limit(1);
    expectError(
      await t.api.as(b).post('/auth/email/verify/resend'),
      'RATE_LIMIT',
      429,
      `We sent 3 emails to ${b.email} in the last hour; use the newest link, or ask again after ${new Date(first!.createdAt.getTime() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z')}`,
    );
    expect((await mailRows(b.email)).length).toBe(3);
  });
});

describe('link rows', () => {
  it('are deleted by the cleanup job a day after they expire', async () => {
    const b = await buyer(t.api);
    const rows = () => database.db.select().from(emailTokens).where(eq(emailTokens.userId, b.id));
    expect(await rows()).toHaveLength(1);
    t.clock.advance(48 * 3600 + 86_400 - 1);
    await t.app.jobs.runOnce();
    expect(await rows()).toHaveLength(1);
    t.clock.advance(1);
    await t.app.jobs.runOnce();
    expect(await rows()).toHaveLength(0);
  });
});

describe('logs', () => {
  it('no request log line carries a link token', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = await testApp(database, {
      logger: { ...(loggerOptions('info') as object), stream } as never,
    });
    setClock(logged, '2026-11-21T15:00:00.000Z');
    try {
      const b = await verifiedBuyer();
      const { token } = await resetLink(b.email);
      expect((await logged.api.get(`/auth/password/reset?token=${token}`)).status).toBe(200);
      expect((await logged.api.get(`/auth/email/verify?token=${token}&x=1`)).status).toBe(400);
      await logged.api.post('/auth/password/reset', { token, password: 'logged password' });
      await logged.api.post('/auth/password/reset', form({ token, password: 'logged password 2' }), FORM);
      expect(lines.length).toBeGreaterThan(4);
      expect(lines.join('\n')).toContain('/auth/password/reset?token=[redacted]');
      for (const line of lines) expect(line).not.toContain(token);
    } finally {
      await logged.close();
    }
  });
});
