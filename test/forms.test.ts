// What people type into address forms: the pages put a phone and a postal code in the
// interface's canonical form before the API's rules; the HTTP API keeps the strict formats.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { canonicalPhone, canonicalPostalCode, phoneText } from '../src/contract/address-input.ts';
import { checkoutSessions } from '../src/modules/checkout/tables.ts';
import { useTestApp } from './helpers/app.ts';
import { buyer, expectInvalid, product, seller } from './helpers/builders.ts';
import { addToCart, checkout, ON_ADDRESS } from './helpers/checkout.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

describe('the normaliser', () => {
  it('writes the phones people type as +1 and 10 digits', () => {
    for (const typed of [
      '+1 416 555 0123',
      '416 555 0123',
      '416-555-0123',
      '(416) 555-0123',
      '1 416 555 0123',
    ]) {
      expect(canonicalPhone(typed), typed).toBe('+14165550123');
    }
    for (const typed of [
      '514 555 0199',
      '514-555-0199',
      '(514) 555-0199',
      ' 514.555.0199 ',
      '+15145550199',
    ]) {
      expect(canonicalPhone(typed), typed).toBe('+15145550199');
    }
  });

  it('gives back, trimmed, what is not a North American number, for the rules to refuse', () => {
    expect(canonicalPhone(' 514 555 CALL ')).toBe('514 555 CALL');
    expect(canonicalPhone('514 555 01999')).toBe('514 555 01999');
    expect(canonicalPhone('555 0199')).toBe('555 0199');
    expect(canonicalPhone('+44 20 7946 0958')).toBe('+44 20 7946 0958');
    expect(canonicalPhone('+33 1 42 68 53 00')).toBe('+33 1 42 68 53 00');
    expect(canonicalPhone('2 514 555 0199')).toBe('2 514 555 0199');
    expect(canonicalPhone('')).toBe('');
  });

  it('writes postal codes as A1A 1A1', () => {
    for (const [typed, code] of [
      ['h3a 1t5', 'H3A 1T5'],
      ['H3A1T5', 'H3A 1T5'],
      ['h3a-1t5', 'H3A 1T5'],
      ['  m5j 2j2 ', 'M5J 2J2'],
      ['M5J 2J2', 'M5J 2J2'],
    ]) {
      expect(canonicalPostalCode(typed!), typed).toBe(code);
    }
  });

  it('gives back, trimmed, what is not a Canadian postal code', () => {
    expect(canonicalPostalCode(' 90210 ')).toBe('90210');
    expect(canonicalPostalCode('SW1A 1AA')).toBe('SW1A 1AA');
    expect(canonicalPostalCode('H3A 1T')).toBe('H3A 1T');
    expect(canonicalPostalCode('H3A 1T55')).toBe('H3A 1T55');
    expect(canonicalPostalCode('3HA 1T5')).toBe('3HA 1T5');
  });

  it('shows a canonical phone in groups', () => {
    expect(phoneText('+15145550199')).toBe('+1 514 555 0199');
    expect(phoneText('514 555')).toBe('514 555');
  });
});

describe('the HTTP API stays strict', () => {
  it('answers 400 for a phone or a postal code as a person types them', async () => {
    const s = await seller(t.api);
    const who = await buyer(t.api);
    await addToCart(t.api, who, (await product(t.api, s, { stockQuantity: 3 })).id);
    const res = await checkout(t.api, who, {
      shipping_address: { ...ON_ADDRESS, phone: '514 555 0199', postalCode: 'm5h 2n2' },
    });
    expectInvalid(res, [
      {
        field: 'shipping_address.postalCode',
        message: 'must look like A1A 1A1: upper-case letters, one space in the middle',
      },
      { field: 'shipping_address.phone', message: 'must be +1 followed by 10 digits (E.164)' },
    ]);
  });
});

describe('the checkout page', () => {
  const typedAddress = {
    street: '1000 Rue Sherbrooke O',
    city: 'Montréal',
    province: 'QC',
    postalCode: 'h3a 1t5',
  };

  it('takes the phones and postal codes people type, and keeps them canonical', async () => {
    const s = await seller(t.api);
    const p = await product(t.api, s, { stockQuantity: 20 });
    for (const phone of ['+1 416 555 0123', '514 555 0199', '514-555-0199', '(514) 555-0199']) {
      const who = await buyer(t.api);
      await addToCart(t.api, who, p.id);
      const b = new Browser(t.app);
      await b.signIn(who);
      await b.get('/shop/checkout');
      const paying = await b.post('/shop/checkout', { ...typedAddress, phone }, { follow: false });
      expect(paying.status, `${phone}: ${textOf(paying.html).slice(0, 300)}`).toBe(303);
      const [session] = await database.db
        .select({ address: checkoutSessions.address })
        .from(checkoutSessions)
        .where(eq(checkoutSessions.buyerId, who.id));
      expect(session?.address).toMatchObject({
        postalCode: 'H3A 1T5',
        phone: phone.includes('416') ? '+14165550123' : '+15145550199',
      });
    }
  });

  it('shows a refused form again with what was typed in canonical form, and the help under each field', async () => {
    const s = await seller(t.api);
    const who = await buyer(t.api);
    await addToCart(t.api, who, (await product(t.api, s, { stockQuantity: 3 })).id);
    const b = new Browser(t.app, { 'accept-language': 'fr-CA' });
    await b.signIn(who);
    await b.get('/shop/checkout');
    const refused = await b.post('/shop/checkout', {
      ...typedAddress,
      street: '',
      phone: '(514) 555-0199',
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/id="f-postalCode" name="postalCode" type="text" value="H3A 1T5"/);
    expect(refused.html).toMatch(/id="f-phone" name="phone" type="tel" value="\+15145550199"/);
    expect(textOf(refused.html)).toContain('Vérifiez les champs indiqués ci-dessous.');
    // What cannot be a Canadian number is refused with the API's own words, under its field.
    const junk = await b.post('/shop/checkout', { ...typedAddress, phone: '+44 20 7946 0958' });
    expect(junk.status).toBe(400);
    expect(junk.html).toMatch(/id="f-phone" name="phone" type="tel" value="\+44 20 7946 0958"/);
    expect(textOf(junk.html)).toContain('doit être +1 suivi de 10 chiffres (E.164)');
  });
});

describe("the seller's shop form", () => {
  it('takes a postal code in lower case, as the checkout now does', async () => {
    const s = await seller(t.api);
    const res = await t.api.as(s).patch('/me/seller', { postalCode: 'm5j 2j2' });
    expect(res.status).toBe(200);
    expect((await t.api.as(s).get('/me')).body.seller.postalCode).toBe('M5J 2J2');
  });
});
