// The pages of the account emails' links in headless Chromium, used as a person uses them:
// open the link from the email, press the button or type the new password twice, read the
// answer; then check the account through the API (docs/api.md "Account emails").
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { outbox } from '../src/modules/mail/tables.ts';
import { browserApp, browserUnavailable } from './helpers/browser.ts';
import { buyer } from './helpers/builders.ts';
import { emlFiles } from './helpers/orders.ts';
import { parseEml } from './helpers/smtp.ts';

const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('the account link pages in Chromium', () => {
  const env = browserApp();

  /** The link of the newest email of `kind` to `to`, on our listening server (emails name PUBLIC_BASE_URL). */
  async function linkOfLastMail(to: string, kind: string): Promise<string> {
    await env.t.app.jobs.runOnce();
    const [row] = await env.database.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.toAddress, to), eq(outbox.kind, kind)))
      .orderBy(desc(outbox.createdAt))
      .limit(1);
    const [file] = (await emlFiles(env.t)).filter((f) => f.endsWith(`-${row!.id}.eml`));
    const mail = parseEml(await readFile(path.join(env.t.config.dataDir, 'mail', file!), 'utf8'));
    const url = /http:\/\/portage\.test\/auth\/\S+\?token=[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0];
    expect(url).toBeDefined();
    const u = new URL(url!);
    return env.base + u.pathname + u.search;
  }

  async function tab() {
    const page = await env.browser.page();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return { page, problems };
  }

  it('confirms the address from the registration email, and the link then no longer works', async () => {
    const b = await buyer(env.t.api, 'browser');
    const link = await linkOfLastMail(b.email, 'email-verify');
    const { page, problems } = await tab();
    const res = await page.goto(link);
    expect(res?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('Confirm your email address');
    expect((await env.t.api.as(b).get('/me')).body.emailVerified).toBe(false);

    await page.getByRole('button', { name: 'Confirm my email address' }).click();
    await page.getByRole('heading', { name: 'Email address confirmed' }).waitFor();
    expect((await env.t.api.as(b).get('/me')).body.emailVerified).toBe(true);

    const again = await page.goto(link);
    expect(again?.status()).toBe(400);
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor();
    expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
    await page.close();
  });

  it('sets a new password from the reset email: two different passwords are refused, then the same twice works', async () => {
    const b = await buyer(env.t.api, 'browser-reset');
    await verifyInBrowser(await linkOfLastMail(b.email, 'email-verify'));
    expect((await env.t.api.post('/auth/password/forgot', { email: b.email })).status).toBe(202);
    const link = await linkOfLastMail(b.email, 'password-reset');

    const { page, problems } = await tab();
    expect((await page.goto(link))?.status()).toBe(200);
    await expect(page.title()).resolves.toBe('Choose a new password');
    await page.getByLabel('New password', { exact: true }).fill('my new browser password');
    await page.getByLabel('New password, again').fill('a different password');
    await page.getByRole('button', { name: 'Set my new password' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe(
      'The two passwords differ; type the same new password twice',
    );

    await page.getByLabel('New password', { exact: true }).fill('my new browser password');
    await page.getByLabel('New password, again').fill('my new browser password');
    await page.getByRole('button', { name: 'Set my new password' }).click();
    await page.getByRole('heading', { name: 'Your password is changed' }).waitFor();

    expect(
      (await env.t.api.post('/auth/login', { email: b.email, password: 'my new browser password' })).status,
    ).toBe(200);
    expect((await env.t.api.post('/auth/login', { email: b.email, password: b.password })).status).toBe(401);
    expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
    await page.close();
  });

  async function verifyInBrowser(link: string) {
    const { page } = await tab();
    await page.goto(link);
    await page.getByRole('button', { name: 'Confirm my email address' }).click();
    await page.getByRole('heading', { name: 'Email address confirmed' }).waitFor();
    await page.close();
  }
});
