// Registration numbers (docs/invoices.md "Registration numbers"): the validation table, then the
// routes that take them (a seller's invoice identity, the platform's tax profile) and PATCH /me's
// locale, over HTTP.
import { describe, expect, it } from 'vitest';
import { checkGstHstNumber, checkQstNumber, luhnValid, qstCheckDigit } from '../src/contract/tax-numbers.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, buyer, expectError, expectInvalid, seller } from './helpers/builders.ts';

describe('GST/HST numbers: business number (Luhn check digit) + RT + 4-digit reference', () => {
  it.each([
    ['valid', '123456782RT0001', { ok: true, value: '123456782RT0001' }],
    ['another valid one', '876543216RT0002', { ok: true, value: '876543216RT0002' }],
    ['spaces normalized', '123 456 782 RT 0001', { ok: true, value: '123456782RT0001' }],
    ['hyphens and lower case normalized', '123-456-782-rt-0001', { ok: true, value: '123456782RT0001' }],
    [
      'bad check digit',
      '123456783RT0001',
      { ok: false, key: 'tax.gstHst.checkDigit', values: { bn: '123456783' } },
    ],
    [
      'bad program id',
      '123456782RC0001',
      { ok: false, key: 'tax.gstHst.programId', values: { program: 'RC' } },
    ],
    ['reference 0000', '123456782RT0000', { ok: false, key: 'tax.reference', values: { program: 'RT' } }],
    [
      'the business number alone',
      '123456782',
      { ok: false, key: 'tax.gstHst.length', values: { length: 9 } },
    ],
    ['too long', '123456782RT00011', { ok: false, key: 'tax.gstHst.length', values: { length: 16 } }],
    ['empty', '', { ok: false, key: 'tax.gstHst.length', values: { length: 0 } }],
    ['letters in the business number', '12345678XRT0001', { ok: false, key: 'tax.gstHst.shape' }],
    ['other characters', '123456782/RT0001', { ok: false, key: 'tax.gstHst.characters' }],
  ])('%s: %s', (_label, input, expected) => {
    expect(checkGstHstNumber(input)).toEqual(expected);
  });

  it('checks the 9th digit with Luhn, as the CRA assigns business numbers', () => {
    expect(luhnValid('123456782')).toBe(true);
    // Every other last digit fails: a typo in the check digit is always caught.
    for (let d = 0; d <= 9; d++) if (d !== 2) expect(luhnValid(`12345678${d}`)).toBe(false);
    // A transposition of two neighbouring digits is caught too.
    expect(luhnValid('213456782')).toBe(false);
  });
});

describe('QST numbers: 10 digits (mod 11 check digit) + TQ + 4 digits, or NR + 8 digits', () => {
  it.each([
    ['valid', '1234567892TQ0001', { ok: true, value: '1234567892TQ0001' }],
    ['spaces normalized', '1234567892 TQ 0001', { ok: true, value: '1234567892TQ0001' }],
    ['lower case normalized', '9876543211-tq-0001', { ok: true, value: '9876543211TQ0001' }],
    ['a non-resident NR number', 'NR00012345', { ok: true, value: 'NR00012345' }],
    ['an NR number with spaces', 'nr 0001 2345', { ok: true, value: 'NR00012345' }],
    [
      'bad check digit',
      '1234567893TQ0001',
      { ok: false, key: 'tax.qst.checkDigit', values: { digits: '1234567893' } },
    ],
    [
      'bad program id',
      '1234567892QT0001',
      { ok: false, key: 'tax.qst.programId', values: { program: 'QT' } },
    ],
    [
      'the GST/HST program id',
      '1234567892RT0001',
      { ok: false, key: 'tax.qst.programId', values: { program: 'RT' } },
    ],
    ['reference 0000', '1234567892TQ0000', { ok: false, key: 'tax.reference', values: { program: 'TQ' } }],
    ['wrong length', '123456789TQ0001', { ok: false, key: 'tax.qst.length', values: { length: 15 } }],
    ['a short NR number', 'NR0001234', { ok: false, key: 'tax.qst.nrShape' }],
    ['other characters', '1234567892_TQ0001', { ok: false, key: 'tax.qst.characters' }],
  ])('%s: %s', (_label, input, expected) => {
    expect(checkQstNumber(input)).toEqual(expected);
  });

  it('computes the check digit of published numbers', () => {
    // Numbers published with the validators that document the algorithm (docs/invoices.md).
    expect(qstCheckDigit('122400290')).toBe(1);
    expect(qstCheckDigit('121432642')).toBe(2);
    expect(qstCheckDigit('122749405')).toBe(7);
  });
});

describe('over HTTP', () => {
  const { t, database } = useTestApp();

  it('a seller sets their invoice identity field by field; GET /me shows it under seller', async () => {
    const s = await seller(t.api, 'ON');
    const res = await t.api.as(s).patch('/me/seller', {
      legalName: 'Érablière Tremblay inc.',
      street: '12 rue du Moulin',
      city: 'Kingston',
      postalCode: 'k7l 3n6',
      gstHstNumber: '123 456 782 RT 0001',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.seller).toEqual({
      shopName: 'Maple Goods',
      province: 'ON',
      legalName: 'Érablière Tremblay inc.',
      street: '12 rue du Moulin',
      city: 'Kingston',
      postalCode: 'K7L 3N6',
      gstHstNumber: '123456782RT0001',
      qstNumber: null,
    });
    // A partial update leaves the rest; null clears a number.
    await t.api.as(s).patch('/me/seller', { qstNumber: 'NR00012345' });
    const cleared = await t.api.as(s).patch('/me/seller', { gstHstNumber: null });
    expect(cleared.body.seller).toMatchObject({
      legalName: 'Érablière Tremblay inc.',
      gstHstNumber: null,
      qstNumber: 'NR00012345',
    });
    expect((await t.api.as(s).get('/me')).body.seller).toEqual(cleared.body.seller);
  });

  it('refuses malformed numbers with 400 naming the field and what is wrong, and changes nothing', async () => {
    const s = await seller(t.api, 'QC');
    const res = await t.api.as(s).patch('/me/seller', {
      gstHstNumber: '123456783RT0001',
      qstNumber: '1234567892QT0001',
      postalCode: '12345',
    });
    expectInvalid(res, [
      { field: 'postalCode', message: 'must be a Canadian postal code, like H3A 3G4' },
      {
        field: 'gstHstNumber',
        message:
          'has a wrong check digit: the 9th digit of business number 123456783 does not match the first eight; look for a typo',
      },
      { field: 'qstNumber', message: 'must have the program identifier TQ after the 10 digits, not QT' },
    ]);
    const fr = await t.api
      .as(s)
      .patch('/me/seller', { gstHstNumber: '123456782' }, { 'accept-language': 'fr-CA' });
    expect(fr.body.details).toEqual([
      {
        field: 'gstHstNumber',
        message:
          'doit être un numéro d’entreprise de 9 chiffres, suivi de RT et d’une référence de 4 chiffres (15 caractères, par exemple 123456782RT0001); 9 caractères reçus',
      },
    ]);
    // A shop in Québec is not a supplier outside Québec: no NR number.
    const nr = await t.api.as(s).patch('/me/seller', { qstNumber: 'NR00012345' });
    expect(nr.status).toBe(400);
    expect(nr.body.details).toEqual([
      {
        field: 'qstNumber',
        message:
          'is an NR number, which Revenu Québec gives suppliers outside Québec only; a business in Québec has a number ending in TQ0001',
      },
    ]);
    expect((await t.api.as(s).get('/me')).body.seller).toMatchObject({ gstHstNumber: null, qstNumber: null });
  });

  it('is for sellers: a buyer is 403', async () => {
    const b = await buyer(t.api);
    expectError(await t.api.as(b).patch('/me/seller', { legalName: 'X' }), 'AUTHZ_ERROR', 403);
  });

  it("an admin sets and reads the platform's tax profile; others may not", async () => {
    const a = await admin(t.api, database);
    expectError(await t.api.as(a).get('/admin/tax-profile'), 'NOT_FOUND', 404);
    const profile = {
      legalName: 'Portage Marketplace Inc.',
      street: '1 Place Ville Marie',
      city: 'Montréal',
      province: 'QC',
      postalCode: 'H3B 2B6',
      gstHstNumber: '876543216RT0001',
      qstNumber: '9876543211 TQ 0001',
    };
    const put = await t.api.as(a).put('/admin/tax-profile', profile);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({ ...profile, qstNumber: '9876543211TQ0001', updatedAt: expect.any(Number) });
    expect((await t.api.as(a).get('/admin/tax-profile')).body).toEqual(put.body);
    expectInvalid(
      await t.api.as(a).put('/admin/tax-profile', { ...profile, gstHstNumber: '876543216RP0001' }),
      [
        {
          field: 'gstHstNumber',
          message:
            'must have the program identifier RT (the GST/HST account) after the business number, not RP',
        },
      ],
    );
    const s = await seller(t.api);
    expectError(await t.api.as(s).get('/admin/tax-profile'), 'AUTHZ_ERROR', 403);
  });

  it('PATCH /me saves the locale, and the next request speaks it', async () => {
    const b = await buyer(t.api);
    expect((await t.api.as(b).get('/me')).body.locale).toBeNull();
    // Cached for AUTH_CACHE_MS by the request above: the change must still apply at once.
    const res = await t.api.as(b).patch('/me', { locale: 'fr-CA' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.locale).toBe('fr-CA');
    const next = await t.api.as(b).patch('/me/seller', { legalName: 'X' });
    expect(next.body.error).toMatch(/^AUTHZ_ERROR: /);
    expect(next.headers['content-language']).toBe('fr-CA');
    expect((await t.api.as(b).patch('/me', { locale: null })).body.locale).toBeNull();
    expect((await t.api.as(b).get('/me')).headers['content-language']).toBe('en-CA');
    expectInvalid(await t.api.as(b).patch('/me', { locale: 'fr-FR' }), [
      { field: 'locale', message: 'must be one of en-CA, fr-CA' },
    ]);
  });
});
