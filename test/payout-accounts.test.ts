// A seller's payout account (issue 42, docs/api.md "Payout accounts"): opened once at the sandbox
// provider however often asked (a race of two included), read, its schedule and minimum set and
// refused under their fields; who may call; the sandbox's onboarding page in both languages
// (its form, its refusals, the paying and the failing test numbers, the seller's session and
// the form's token); the provider's return and refresh pages; the `account_updated` event; the
// sandbox provider itself; and the next payout time across daylight saving and weeks.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../src/modules/context.ts';
import { ProviderError } from '../src/modules/payments/provider.ts';
import { PAGE_CSP } from '../src/modules/payments/sandbox-page.ts';
import { accountUpdated, nextPayoutTime, payoutAccountOf } from '../src/modules/payouts/accounts.ts';
import { createSandboxPayouts, SANDBOX_BANK } from '../src/modules/payouts/providers/sandbox.ts';
import { sellerPayoutAccounts } from '../src/modules/payouts/tables.ts';
import { type SignedIn, useTestApp } from './helpers/app.ts';
import { buyer, expectError, expectInvalid, seller } from './helpers/builders.ts';
import { setClock, signIn } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

/** A Friday, 10:00 in Toronto: the next weekly payout is Monday the 23rd at 09:00 (14:00 UTC). */
const FRIDAY = '2026-11-20T15:00:00.000Z';
const NEXT_MONDAY = Date.parse('2026-11-23T14:00:00Z') / 1000;
const RETURN = '/sellers/me/payout-account/return';
const unix = (d: Date) => Math.floor(d.getTime() / 1000);

beforeAll(() => setClock(t, FRIDAY));

const rowsOf = (sellerId: string) =>
  database.db.select().from(sellerPayoutAccounts).where(eq(sellerPayoutAccounts.sellerId, sellerId));

/** A seller with a payout account just opened: its answer and the onboarding page's path. */
async function withAccount(s?: SignedIn) {
  const who = s ?? (await seller(t.api));
  const res = await t.api.as(who).post('/sellers/me/payout-account');
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const url = new URL(res.body.onboardingUrl);
  return { seller: who, accountId: res.body.account.accountId as string, path: url.pathname + url.search };
}

/** A seller's browser, signed in on the pages. */
async function browserOf(who: SignedIn, headers: Record<string, string> = {}) {
  const browser = new Browser(t.app, headers);
  await browser.signIn(who);
  return browser;
}

const PAYS = { holder: 'Maple Goods Inc.', institution: '000', transit: '11000', account: SANDBOX_BANK.pays };

describe('POST, GET and PUT /sellers/me/payout-account', () => {
  it('refuses anyone signed out (401) and a buyer (403); GET and PUT are 404 before the account is opened', async () => {
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', undefined],
      ['PUT', { schedule: 'daily' }],
    ] as const) {
      expectError(await t.api.send(method, '/sellers/me/payout-account', body, {}), 'AUTH_ERROR', 401);
      const b = await buyer(t.api);
      expectError(
        await t.api.as(b).send(method, '/sellers/me/payout-account', body, {}),
        'AUTHZ_ERROR',
        403,
        'AUTHZ_ERROR: This needs the seller role; you are buyer',
      );
    }
    const s = await seller(t.api);
    expectError(
      await t.api.as(s).get('/sellers/me/payout-account'),
      'NOT_FOUND',
      404,
      'You have no payout account yet',
    );
    expectError(
      await t.api.as(s).put('/sellers/me/payout-account', { schedule: 'daily' }),
      'NOT_FOUND',
      404,
      'You have no payout account yet',
    );
    expectError(
      await t.api.as(s).get('/sellers/me/payout-account', { 'accept-language': 'fr-CA' }),
      'NOT_FOUND',
      404,
      'Vous n’avez pas encore de compte de versement',
    );
  });

  it('opens the account once (201), then answers it with a fresh link (200); GET answers it', async () => {
    const s = await seller(t.api);
    const res = await t.api.as(s).post('/sellers/me/payout-account');
    expect(res.status).toBe(201);
    const accountId = res.body.account.accountId;
    expect(accountId).toMatch(/^acct_sandbox_[0-9a-f]{24}$/);
    const account = {
      provider: 'sandbox',
      accountId,
      payoutsEnabled: false,
      requirements: ['external_account'],
      bankLast4: null,
      schedule: 'weekly',
      minimumCents: 1000,
      nextPayoutAt: NEXT_MONDAY,
    };
    const onboardingUrl = `http://portage.test/sandbox/connect/${accountId}?return=${encodeURIComponent(RETURN)}`;
    expect(res.body).toEqual({ account, onboardingUrl });

    const again = await t.api.as(s).post('/sellers/me/payout-account');
    expect({ status: again.status, body: again.body }).toEqual({
      status: 200,
      body: { account, onboardingUrl },
    });
    expect(await t.api.as(s).get('/sellers/me/payout-account')).toMatchObject({ status: 200, body: account });
    expect(await rowsOf(s.id)).toHaveLength(1);
  });

  it('opens one account for two POSTs at once: one row, one provider account', async () => {
    const s = await seller(t.api);
    const [a, b] = await Promise.all([
      t.api.as(s).post('/sellers/me/payout-account'),
      t.api.as(s).post('/sellers/me/payout-account'),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    // The provider was asked twice with the seller's key: it answered one account both times.
    expect(a.body.account.accountId).toBe(b.body.account.accountId);
    expect(a.body).toEqual(b.body);
    const rows = await rowsOf(s.id);
    expect(rows.map((r) => r.accountId)).toEqual([a.body.account.accountId]);
    // Another seller's key opens another account.
    const other = await withAccount();
    expect(other.accountId).not.toBe(a.body.account.accountId);
  });

  it('PUT sets the schedule and the minimum; a new schedule moves the next payout time, the same one keeps it', async () => {
    const { seller: opened } = await withAccount();
    const daily = await t.api.as(opened).put('/sellers/me/payout-account', { schedule: 'daily' });
    // Friday 10:00 in Toronto: Saturday 09:00 is the next daily payout.
    expect(daily.status).toBe(200);
    expect(daily.body).toMatchObject({
      schedule: 'daily',
      minimumCents: 1000,
      nextPayoutAt: Date.parse('2026-11-21T14:00:00Z') / 1000,
    });
    t.clock.advance(3 * 86_400);
    try {
      // Access tokens live an hour: signed in again, three days later.
      const s = await signIn(t.api, opened);
      const minimum = await t.api.as(s).put('/sellers/me/payout-account', { minimumCents: 2500 });
      expect(minimum.body).toMatchObject({
        schedule: 'daily',
        minimumCents: 2500,
        nextPayoutAt: daily.body.nextPayoutAt,
      });
      const same = await t.api
        .as(s)
        .put('/sellers/me/payout-account', { schedule: 'daily', minimumCents: 100 });
      expect(same.body).toMatchObject({
        schedule: 'daily',
        minimumCents: 100,
        nextPayoutAt: daily.body.nextPayoutAt,
      });
      // Back to weekly on Monday the 23rd at 10:00: the Monday after.
      const weekly = await t.api.as(s).put('/sellers/me/payout-account', { schedule: 'weekly' });
      expect(weekly.body).toMatchObject({
        schedule: 'weekly',
        minimumCents: 100,
        nextPayoutAt: Date.parse('2026-11-30T14:00:00Z') / 1000,
      });
      expect(await t.api.as(s).put('/sellers/me/payout-account', {})).toMatchObject({
        status: 200,
        body: weekly.body,
      });
      const [row] = await rowsOf(opened.id);
      expect(unix(row!.nextPayoutAt)).toBe(weekly.body.nextPayoutAt);
    } finally {
      t.clock.advance(-3 * 86_400);
    }
  });

  it('PUT refuses a minimum outside $1.00 to $1,000,000.00 or not whole, and another schedule, naming the field', async () => {
    const { seller: s } = await withAccount();
    const between = 'must be a whole number from 100 to 100,000,000';
    for (const minimumCents of [99, 100_000_001, 150.5, -1]) {
      expectInvalid(await t.api.as(s).put('/sellers/me/payout-account', { minimumCents }), [
        { field: 'minimumCents', message: between },
      ]);
    }
    expectInvalid(await t.api.as(s).put('/sellers/me/payout-account', { minimumCents: '1000' }), [
      { field: 'minimumCents', message: between },
    ]);
    expectInvalid(await t.api.as(s).put('/sellers/me/payout-account', { schedule: 'monthly' }), [
      { field: 'schedule', message: 'must be one of daily, weekly' },
    ]);
    const fr = await t.api
      .as(s)
      .put('/sellers/me/payout-account', { minimumCents: 50 }, { 'accept-language': 'fr-CA' });
    expect(fr.body.details).toEqual([
      {
        field: 'minimumCents',
        message: `doit être un nombre entier de 100 à ${new Intl.NumberFormat('fr-CA').format(100_000_000)}`,
      },
    ]);
    // Nothing changed.
    expect((await t.api.as(s).get('/sellers/me/payout-account')).body).toMatchObject({
      schedule: 'weekly',
      minimumCents: 1000,
    });
  });
});

describe("the sandbox's onboarding page", () => {
  it('shows the form in English and in French (?lang, Accept-Language), with the test numbers, under the payment page’s CSP', async () => {
    const a = await withAccount();
    const browser = await browserOf(a.seller);
    const page = await browser.get(a.path);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.html).not.toContain('<script');
    expect(page.html).toContain('<html lang="en-CA">');
    expect(page.html).toContain(`<form method="post" action="/sandbox/connect/${a.accountId}">`);
    for (const name of ['holder', 'institution', 'transit', 'account', 'csrf']) {
      expect(page.html).toContain(`name="${name}"`);
    }
    expect(page.html).toContain(`<input type="hidden" name="return" value="${RETURN}">`);
    // (textOf puts a space after each <code>.)
    const text = textOf(page.html).replace(/ ([,;])/g, '$1');
    expect(text).toContain('Where should your payouts go?');
    expect(text).toContain(
      'Sandbox test accounts (Stripe’s): institution 000, transit 11000; account 000123456789 receives its payouts; account 000111111116 is accepted, but its payouts fail.',
    );
    expect(text).toContain(`Payout account ${a.accountId}`);

    const fr = await browser.get(`${a.path}&lang=fr`);
    expect(fr.status).toBe(200);
    expect(fr.html).toContain('<html lang="fr-CA">');
    expect(fr.html).toContain('<input type="hidden" name="lang" value="fr-CA">');
    const frText = textOf(fr.html).replace(/ ([,;])/g, '$1');
    expect(frText).toContain('Où voulez-vous recevoir vos versements?');
    expect(frText).toContain('Numéro de transit');
    expect(frText).toContain('le compte 000111111116 est accepté, mais ses versements échouent.');
    // The language switch leads back to English, keeping the way back.
    const decoded = fr.html.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
    expect(decoded).toContain(
      `href="/sandbox/connect/${a.accountId}?return=${encodeURIComponent(RETURN)}&lang=en-CA"`,
    );

    const byHeader = await (await browserOf(a.seller, { 'accept-language': 'fr-CA,fr;q=0.9' })).get(a.path);
    expect(byHeader.html).toContain('<html lang="fr-CA">');
  });

  it('re-shows the form with each field’s problem (400), in the form’s language, keeping what was typed', async () => {
    const a = await withAccount();
    const browser = await browserOf(a.seller);
    await browser.get(a.path);
    const refused = await browser.post(`/sandbox/connect/${a.accountId}`, {
      holder: '  ',
      institution: '12',
      transit: 'abcde',
      account: '123',
      return: RETURN,
    });
    expect(refused.status).toBe(400);
    expect(refused.headers['content-security-policy']).toBe(PAGE_CSP);
    const text = textOf(refused.html);
    expect(text).toContain('Check the fields marked below.');
    expect(text).toContain('Enter the account holder’s name (at most 100 characters).');
    expect(text).toContain('The institution number must have 3 digits.');
    expect(text).toContain('The transit number must have 5 digits.');
    expect(text).toContain('The account number must have 7 to 12 digits.');
    expect(refused.html).toContain('value="12"');
    expect(refused.html.match(/ aria-invalid="true"/g)).toHaveLength(4);

    // A real-looking number is not taken: only the test numbers are.
    await browser.get(`${a.path}&lang=fr-CA`);
    const real = await browser.post(`/sandbox/connect/${a.accountId}`, {
      ...PAYS,
      account: '1234-567 890',
      lang: 'fr-CA',
    });
    expect(real.status).toBe(400);
    expect(real.html).toContain('<html lang="fr-CA">');
    const frText = textOf(real.html);
    expect(frText).toContain('Vérifiez les champs signalés ci-dessous.');
    expect(frText).toContain(
      'Le bac à sable n’accepte que ses numéros de compte de test : 000123456789 ou 000111111116.',
    );
    expect(real.html).toContain('value="1234567890"');
    expect(real.html.match(/ aria-invalid="true"/g)).toHaveLength(1);
    // Nothing was recorded.
    expect((await t.api.as(a.seller).get('/sellers/me/payout-account')).body).toMatchObject({
      payoutsEnabled: false,
      requirements: ['external_account'],
      bankLast4: null,
    });
  });

  it('records the paying test account: payouts enabled, nothing due, its last four digits', async () => {
    const a = await withAccount();
    const browser = await browserOf(a.seller);
    await browser.get(a.path);
    const done = await browser.post(`/sandbox/connect/${a.accountId}`, {
      ...PAYS,
      account: '0001 2345 6789',
      return: RETURN,
    });
    expect(done.status).toBe(200);
    const text = textOf(done.html);
    expect(text).toContain('Bank account saved');
    expect(text).toContain('Your payouts will go to the account ending in 6789.');
    expect(done.html).toContain(`<a href="${RETURN}">Back to your payouts</a>`);
    expect((await t.api.as(a.seller).get('/sellers/me/payout-account')).body).toMatchObject({
      accountId: a.accountId,
      payoutsEnabled: true,
      requirements: [],
      bankLast4: '6789',
    });
    // The page now says where payouts go.
    expect(textOf((await browser.get(a.path)).html)).toContain(
      'Payouts now go to the account ending in 6789.',
    );
  });

  it('the failing test number renames the account <id>_fails, whose transfers the sandbox refuses; the paying one renames it back', async () => {
    const a = await withAccount();
    const browser = await browserOf(a.seller);
    await browser.get(`${a.path}&lang=fr`);
    const done = await browser.post(`/sandbox/connect/${a.accountId}`, {
      ...PAYS,
      account: SANDBOX_BANK.fails,
      lang: 'fr-CA',
    });
    expect(done.status).toBe(200);
    expect(textOf(done.html)).toContain(
      'Le compte se terminant par 1116 est enregistré : c’est le compte de test qui échoue, ses versements échoueront donc.',
    );
    // Without a way back from the link, "continue" goes to the console's payouts.
    expect(done.html).toContain('<a href="/console/payouts">Retour à vos versements</a>');
    const failing = `${a.accountId}_fails`;
    expect((await t.api.as(a.seller).get('/sellers/me/payout-account')).body).toMatchObject({
      accountId: failing,
      payoutsEnabled: true,
      requirements: [],
      bankLast4: '1116',
    });

    const payouts = createSandboxPayouts({ publicBaseUrl: 'http://portage.test' });
    const transfer = {
      amountCents: 1500,
      transferGroup: 'checkout_1',
      idempotencyKey: 'p1:o1',
      metadata: {},
    };
    const refused = await payouts.transfer({ ...transfer, accountId: failing }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ProviderError);
    expect(refused).toMatchObject({ retryable: false, publicMessage: { key: 'error.payouts.bankRefused' } });
    expect(await payouts.transfer({ ...transfer, accountId: a.accountId })).toEqual({
      transferId: expect.stringMatching(/^tr_sandbox_[0-9a-f]{24}$/),
    });

    // The page's old address still finds the renamed account; the paying number takes the suffix off.
    await browser.get(a.path);
    const fixed = await browser.post(`/sandbox/connect/${a.accountId}`, PAYS);
    expect(fixed.status).toBe(200);
    expect((await t.api.as(a.seller).get('/sellers/me/payout-account')).body).toMatchObject({
      accountId: a.accountId,
      bankLast4: '6789',
    });
  });

  it('is only for the account’s seller: signed out, to sign in; another seller, 404; a form without its token, 403', async () => {
    const a = await withAccount();
    const anonymous = new Browser(t.app);
    const out = await anonymous.get(a.path, { follow: false });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe(`/account/sign-in?next=${encodeURIComponent(a.path)}`);
    const posted = await anonymous.post(`/sandbox/connect/${a.accountId}`, PAYS, { csrf: null });
    expect(posted.status).toBe(401);
    expect(textOf(posted.html)).toContain(
      'Your session has ended: sign in again, then give your bank account.',
    );

    const other = await browserOf(await seller(t.api));
    const theirs = await other.get(a.path);
    expect(theirs.status).toBe(404);
    expect(textOf(theirs.html)).toContain('No payout account of yours has this address.');
    expect((await other.get('/sandbox/connect/acct_sandbox_nope')).status).toBe(404);
    expect((await other.post(`/sandbox/connect/${a.accountId}`, PAYS, { csrf: 'x' })).status).toBe(404);

    const mine = await browserOf(a.seller);
    await mine.get(a.path);
    const forged = await mine.post(`/sandbox/connect/${a.accountId}`, PAYS, { csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(textOf(forged.html)).toContain('This form has expired or did not come from this page.');
    // The token of the seller's other session (another browser) does not fit this one.
    const elsewhere = await browserOf(a.seller);
    await elsewhere.get(a.path);
    const theirs2 = await mine.post(`/sandbox/connect/${a.accountId}`, PAYS, { csrf: elsewhere.csrf() });
    expect(theirs2.status).toBe(403);
    expect((await rowsOf(a.seller.id))[0]).toMatchObject({ payoutsEnabled: false, bankLast4: null });
  });
});

describe("the provider's return and refresh pages", () => {
  it('return: back to the console; refresh: a fresh onboarding link; signed out, to sign in; a buyer, 403', async () => {
    const a = await withAccount();
    const browser = await browserOf(a.seller);
    const back = await browser.get(RETURN, { follow: false });
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe('/console/payouts');
    const refresh = await browser.get('/sellers/me/payout-account/refresh', { follow: false });
    expect(refresh.status).toBe(303);
    expect(refresh.headers.location).toBe(`http://portage.test${a.path}`);

    const out = await new Browser(t.app).get(RETURN, { follow: false });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe(`/account/sign-in?next=${encodeURIComponent(RETURN)}`);

    const b = await browserOf(await buyer(t.api));
    const refused = await b.get('/sellers/me/payout-account/refresh', { follow: false });
    expect(refused.status).toBe(403);
    expect(textOf(refused.html)).toContain('This page is for sellers.');

    const none = await browserOf(await seller(t.api));
    const missing = await none.get('/sellers/me/payout-account/refresh?lang=fr', { follow: false });
    expect(missing.status).toBe(404);
    expect(textOf(missing.html)).toContain('Vous n’avez pas encore de compte de versement');
  });
});

describe('accountUpdated (the account_updated event)', () => {
  const ctx = (): RequestContext => ({ db: database.db, now: t.clock.now, log: t.app.log });

  it('sets payouts, requirements and the bank by account id; keeps a bank the event does not name; ignores an account not ours', async () => {
    const a = await withAccount();
    const event = {
      kind: 'account_updated' as const,
      eventId: 'evt_1',
      accountId: a.accountId,
      payoutsEnabled: true,
      requirements: [],
      bankLast4: '4321',
    };
    expect(await accountUpdated(ctx(), event)).toBe(true);
    expect(await payoutAccountOf(ctx(), a.seller.id)).toMatchObject({
      payoutsEnabled: true,
      requirements: [],
      bankLast4: '4321',
    });
    expect(
      await accountUpdated(ctx(), {
        ...event,
        payoutsEnabled: false,
        requirements: ['individual.dob.day'],
        bankLast4: null,
      }),
    ).toBe(true);
    expect((await t.api.as(a.seller).get('/sellers/me/payout-account')).body).toMatchObject({
      payoutsEnabled: false,
      requirements: ['individual.dob.day'],
      bankLast4: '4321',
    });
    expect(await accountUpdated(ctx(), { ...event, accountId: 'acct_not_ours' })).toBe(false);
  });
});

describe('the sandbox payout provider', () => {
  const payouts = createSandboxPayouts({ publicBaseUrl: 'http://portage.test' });

  it('answers by idempotency key: one account, transfer, reversal per key', async () => {
    const one = await payouts.createAccount({ sellerId: 's1', email: 'a@example.ca', idempotencyKey: 'k1' });
    expect(one).toEqual({
      accountId: expect.stringMatching(/^acct_sandbox_[0-9a-f]{24}$/),
      payoutsEnabled: false,
      requirements: ['external_account'],
      bankLast4: null,
    });
    expect(
      await payouts.createAccount({ sellerId: 's1', email: 'a@example.ca', idempotencyKey: 'k1' }),
    ).toEqual(one);
    expect(
      (await payouts.createAccount({ sellerId: 's2', email: 'b@example.ca', idempotencyKey: 'k2' }))
        .accountId,
    ).not.toBe(one.accountId);
    const transfer = { accountId: one.accountId, amountCents: 100, transferGroup: 'g', metadata: {} };
    const t1 = await payouts.transfer({ ...transfer, idempotencyKey: 'pay:1' });
    expect(t1.transferId).toMatch(/^tr_sandbox_[0-9a-f]{24}$/);
    expect(await payouts.transfer({ ...transfer, idempotencyKey: 'pay:1' })).toEqual(t1);
    expect(await payouts.transfer({ ...transfer, idempotencyKey: 'pay:2' })).not.toEqual(t1);
    const reversal = { transferId: t1.transferId, amountCents: 50, idempotencyKey: 'rev:1', metadata: {} };
    const r1 = await payouts.reverseTransfer(reversal);
    expect(r1.reversalId).toMatch(/^trr_sandbox_[0-9a-f]{24}$/);
    expect(await payouts.reverseTransfer(reversal)).toEqual(r1);
    expect(await payouts.submitDisputeEvidence({ disputeId: 'dp_1', text: 'Delivered' })).toEqual({
      fileId: null,
    });
    expect(
      await payouts.submitDisputeEvidence({
        disputeId: 'dp_1',
        text: 'Delivered',
        file: { name: 'proof.pdf', type: 'application/pdf', data: Buffer.from('%PDF') },
      }),
    ).toEqual({ fileId: expect.stringMatching(/^file_sandbox_[0-9a-f]{24}$/) });
    await expect(payouts.retrieveAccount(one.accountId)).rejects.toThrow(/sandbox/);
  });

  it('links to its page, carrying the return URL only when it is a path of ours', async () => {
    const link = (returnUrl: string) =>
      payouts.onboardingLink({ accountId: 'acct_sandbox_1', refreshUrl: 'http://portage.test/r', returnUrl });
    expect(await link('http://portage.test/sellers/me/payout-account/return')).toEqual({
      url: 'http://portage.test/sandbox/connect/acct_sandbox_1?return=%2Fsellers%2Fme%2Fpayout-account%2Freturn',
    });
    expect(await link('/console/payouts?x=1')).toEqual({
      url: 'http://portage.test/sandbox/connect/acct_sandbox_1?return=%2Fconsole%2Fpayouts%3Fx%3D1',
    });
    for (const foreign of [
      'https://evil.example/steal',
      '//evil.example/x',
      'javascript:alert(1)',
      'http://portage.test:8080/x',
    ]) {
      expect(await link(foreign)).toEqual({ url: 'http://portage.test/sandbox/connect/acct_sandbox_1' });
    }
  });
});

describe('nextPayoutTime', () => {
  const at = (schedule: 'daily' | 'weekly', iso: string) =>
    nextPayoutTime(schedule, new Date(iso)).toISOString();

  it('daily: the next 09:00 in Toronto, strictly after now, across both daylight saving changes', () => {
    // 08:59:59 EST: today at 09:00; 09:00 itself: tomorrow.
    expect(at('daily', '2026-03-07T13:59:59Z')).toBe('2026-03-07T14:00:00.000Z');
    // Saturday 09:00 EST to Sunday 09:00 EDT (clocks go forward at 02:00 on March 8): 23 hours.
    expect(at('daily', '2026-03-07T14:00:00Z')).toBe('2026-03-08T13:00:00.000Z');
    // 01:30 EST on the day the clocks go forward: 09:00 EDT that day.
    expect(at('daily', '2026-03-08T06:30:00Z')).toBe('2026-03-08T13:00:00.000Z');
    // Saturday 09:00 EDT to Sunday 09:00 EST (clocks go back at 02:00 on November 1): 25 hours.
    expect(at('daily', '2026-10-31T13:00:00Z')).toBe('2026-11-01T14:00:00.000Z');
    expect(at('daily', '2026-10-31T12:59:59Z')).toBe('2026-10-31T13:00:00.000Z');
    // 01:30 EDT, the first of the two 01:30s of November 1: 09:00 EST that day.
    expect(at('daily', '2026-11-01T05:30:00Z')).toBe('2026-11-01T14:00:00.000Z');
    // Into the new year.
    expect(at('daily', '2026-12-31T15:00:00Z')).toBe('2027-01-01T14:00:00.000Z');
  });

  it('weekly: the next Monday 09:00 in Toronto, whatever day UTC says it is', () => {
    expect(at('weekly', '2026-11-20T15:00:00Z')).toBe('2026-11-23T14:00:00.000Z');
    // Monday 08:59 in Toronto: that morning; Monday 09:00: the Monday after.
    expect(at('weekly', '2026-11-23T13:59:00Z')).toBe('2026-11-23T14:00:00.000Z');
    expect(at('weekly', '2026-11-23T14:00:00Z')).toBe('2026-11-30T14:00:00.000Z');
    // Monday 04:30 UTC is Sunday 23:30 in Toronto: Monday morning, not a week later.
    expect(at('weekly', '2026-11-23T04:30:00Z')).toBe('2026-11-23T14:00:00.000Z');
    // Sunday evening in Toronto (already Monday in UTC) on the week clocks go back.
    expect(at('weekly', '2026-11-02T03:00:00Z')).toBe('2026-11-02T14:00:00.000Z');
    // A week that crosses a change: Monday 09:00 EST to Monday 09:00 EDT, and back.
    expect(at('weekly', '2026-03-02T14:00:00Z')).toBe('2026-03-09T13:00:00.000Z');
    expect(at('weekly', '2026-10-26T13:00:00Z')).toBe('2026-11-02T14:00:00.000Z');
    // A Thursday at the end of the year: Monday, January 4.
    expect(at('weekly', '2026-12-31T20:00:00Z')).toBe('2027-01-04T14:00:00.000Z');
  });
});
