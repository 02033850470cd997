// Canada Post's rating API as the adapter speaks it (src/modules/shipping/canada-post.ts), against
// a local server speaking the same wire format (test/helpers/fake-canada-post.ts); both sides'
// documents checked against Canada Post's official XSDs with libxml2 (xmllint-wasm). Then the
// rates cache before a checkout (shipping/rates.ts) and the built-in rate table (rate-table.ts).
// Prices are the fake's, worked out here by hand (its rules are at the top of its file).
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CanadaPostSettings, canadaPost, RATE_MEDIA_TYPE } from '../src/modules/shipping/canada-post.ts';
import {
  type Carrier,
  CarrierError,
  type CarrierRate,
  type ParcelSpec,
} from '../src/modules/shipping/carrier.ts';
import { billedGrams, tableRates, zoneOf } from '../src/modules/shipping/rate-table.ts';
import { carrierRates, MAX_PARCELS_RATED } from '../src/modules/shipping/rates.ts';
import { canadaPostSchemaErrors } from './helpers/canada-post-schemas.ts';
import {
  type FakeCanadaPost,
  type FakeQuote,
  messagesXml,
  priceQuotesXml,
  startFakeCanadaPost,
} from './helpers/fake-canada-post.ts';

// ---------------------------------------------------------------------------------------------
// The official schemas

// ---------------------------------------------------------------------------------------------
// The fake, the adapter's settings, a parcel

const USERNAME = '6e93d53968881714';
const PASSWORD = '0bfa9fcb9853d1f51ee57a';

let fake: FakeCanadaPost;
beforeAll(async () => {
  fake = await startFakeCanadaPost({ username: USERNAME, password: PASSWORD });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const settings = (overrides: Partial<CanadaPostSettings> = {}): CanadaPostSettings => ({
  baseUrl: fake.url,
  username: USERNAME,
  password: PASSWORD,
  customerNumber: '2004381',
  ...overrides,
});

/** 2 kg in a 30 x 23 x 12.5 cm box (1.438 kg cubed), Toronto to Toronto, mailed Thursday 5 March 2026. */
const parcel = (overrides: Partial<ParcelSpec> = {}): ParcelSpec => ({
  originPostalCode: 'M5H2N2',
  destinationPostalCode: 'M4C1B5',
  weightGrams: 2000,
  dimensionsCm: { length: 30, width: 23, height: 12.5 },
  mailingDate: '2026-03-05',
  services: ['DOM.RP', 'DOM.EP', 'DOM.XP', 'DOM.PC'],
  ...overrides,
});

/**
 * The fake's rates of `parcel()` (Ontario: 13% HST), by hand. Base: the service's plus its
 * price a kilogram times 2 kg; fuel surcharge 10% of the base; HST 13% of both, to the cent.
 * Delivery: the service's business days after Thursday 5 March.
 */
const TORONTO_RATES: CarrierRate[] = [
  // 10.50 + 2 x 1.25 = 13.00; fuel 1.30; 14.30; HST 1.859 → 1.86; due 16.16
  {
    service: 'DOM.RP',
    priceCents: 1430,
    priceWithTaxCents: 1616,
    deliveryDate: '2026-03-11',
    transitDays: 4,
    guaranteed: false,
  },
  // 12.00 + 2 x 1.50 = 15.00; fuel 1.50; 16.50; HST 2.145 → 2.15; due 18.65
  {
    service: 'DOM.EP',
    priceCents: 1650,
    priceWithTaxCents: 1865,
    deliveryDate: '2026-03-10',
    transitDays: 3,
    guaranteed: true,
  },
  // 17.00 + 2 x 2.25 = 21.50; fuel 2.15; 23.65; HST 3.0745 → 3.07; due 26.72
  {
    service: 'DOM.XP',
    priceCents: 2365,
    priceWithTaxCents: 2672,
    deliveryDate: '2026-03-09',
    transitDays: 2,
    guaranteed: true,
  },
  // 28.00 + 2 x 3.50 = 35.00; fuel 3.50; 38.50; HST 5.005 → 5.01; due 43.51
  {
    service: 'DOM.PC',
    priceCents: 3850,
    priceWithTaxCents: 4351,
    deliveryDate: '2026-03-06',
    transitDays: 1,
    guaranteed: true,
  },
];

/** The CarrierError `promise` rejects with; fails the test when it resolves or rejects otherwise. */
async function carrierErrorOf(promise: Promise<unknown>): Promise<CarrierError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CarrierError);
  return err as CarrierError;
}

/** A plain request to the fake, bypassing the adapter (to see what the fake refuses). */
const rawPost = (headers: Record<string, string>, body = '', path = '/rs/ship/price', method = 'POST') =>
  fetch(`${fake.url}${path}`, { method, headers, ...(method === 'POST' ? { body } : {}) });

const goodHeaders = () => ({
  authorization: `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`,
  accept: RATE_MEDIA_TYPE,
  'content-type': RATE_MEDIA_TYPE,
  'accept-language': 'en-CA',
});

// ---------------------------------------------------------------------------------------------

describe('the request the adapter sends', () => {
  it('is a mailing-scenario valid against rating.xsd, written byte for byte as expected', async () => {
    await canadaPost(settings()).rates(parcel(), { locale: 'en-CA' });
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/rs/ship/price');
    expect(request!.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<mailing-scenario xmlns="http://www.canadapost.ca/ws/ship/rate-v4">' +
        '<customer-number>2004381</customer-number>' +
        '<expected-mailing-date>2026-03-05</expected-mailing-date>' +
        '<parcel-characteristics>' +
        '<weight>2.000</weight>' +
        '<dimensions><length>30.0</length><width>23.0</width><height>12.5</height></dimensions>' +
        '</parcel-characteristics>' +
        '<services>' +
        '<service-code>DOM.RP</service-code><service-code>DOM.EP</service-code>' +
        '<service-code>DOM.XP</service-code><service-code>DOM.PC</service-code>' +
        '</services>' +
        '<origin-postal-code>M5H2N2</origin-postal-code>' +
        '<destination><domestic><postal-code>M4C1B5</postal-code></domestic></destination>' +
        '</mailing-scenario>',
    );
    expect(await canadaPostSchemaErrors(request!.body, 'rating')).toEqual([]);
  });

  it('carries Basic auth, the rate media type both ways and the language asked', async () => {
    const carrier = canadaPost(settings());
    await carrier.rates(parcel(), { locale: 'en-CA' });
    await carrier.rates(parcel(), { locale: 'fr-CA' });
    const basic = `Basic ${Buffer.from('6e93d53968881714:0bfa9fcb9853d1f51ee57a').toString('base64')}`;
    expect(fake.requests.map((r) => r.headers)).toEqual([
      expect.objectContaining({
        authorization: basic,
        'content-type': 'application/vnd.cpc.ship.rate-v4+xml',
        accept: 'application/vnd.cpc.ship.rate-v4+xml',
        'accept-language': 'en-CA',
      }),
      expect.objectContaining({
        authorization: basic,
        'content-type': 'application/vnd.cpc.ship.rate-v4+xml',
        accept: 'application/vnd.cpc.ship.rate-v4+xml',
        'accept-language': 'fr-CA',
      }),
    ]);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 200]);
  });

  it('names the contract when there is one, and trims a base URL ending in a slash', async () => {
    await canadaPost(settings({ contractId: '42708517', baseUrl: `${fake.url}/` })).rates(
      parcel({ services: ['DOM.EP'] }),
      { locale: 'en-CA' },
    );
    const [request] = fake.requests;
    expect(request!.url).toBe('/rs/ship/price');
    expect(request!.body).toContain(
      '<customer-number>2004381</customer-number><contract-id>42708517</contract-id>',
    );
    expect(request!.body).toContain('<services><service-code>DOM.EP</service-code></services>');
    expect(await canadaPostSchemaErrors(request!.body, 'rating')).toEqual([]);
  });

  it('writes kilograms with 3 decimals and centimetres with 1, within the schema at the extremes', async () => {
    const carrier = canadaPost(settings());
    await carrier.rates(parcel({ weightGrams: 1, dimensionsCm: { length: 1, width: 1.5, height: 0.1 } }), {
      locale: 'en-CA',
    });
    await carrier.rates(
      parcel({ weightGrams: 12_345, dimensionsCm: { length: 200, width: 99.9, height: 45.5 } }),
      { locale: 'en-CA' },
    );
    const [light, heavy] = fake.requests;
    expect(light!.body).toContain(
      '<weight>0.001</weight><dimensions><length>1.0</length><width>1.5</width><height>0.1</height></dimensions>',
    );
    expect(heavy!.body).toContain(
      '<weight>12.345</weight><dimensions><length>200.0</length><width>99.9</width><height>45.5</height></dimensions>',
    );
    expect(await canadaPostSchemaErrors(light!.body, 'rating')).toEqual([]);
    expect(await canadaPostSchemaErrors(heavy!.body, 'rating')).toEqual([]);
  });

  it('is checked by a validator that does refuse what the schema forbids', async () => {
    // Without this, a validator that accepted everything would pass every test above.
    const bad =
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<mailing-scenario xmlns="http://www.canadapost.ca/ws/ship/rate-v4">' +
      '<parcel-characteristics><weight>2.0005</weight></parcel-characteristics>' +
      '<origin-postal-code>M5H 2N2</origin-postal-code>' +
      '<destination><domestic><postal-code>M4C1B5</postal-code></domestic></destination>' +
      '</mailing-scenario>';
    const errors = await canadaPostSchemaErrors(bad, 'rating');
    expect(errors).toEqual([
      expect.stringMatching(/}weight'.*fractionDigits/),
      expect.stringMatching(/}origin-postal-code'.*'M5H 2N2'/),
    ]);
  });
});

describe('the documents the fake answers', () => {
  it('answers price-quotes valid against rating.xsd, named in English or French', async () => {
    const carrier = canadaPost(settings());
    await carrier.rates(parcel(), { locale: 'en-CA' });
    await carrier.rates(parcel(), { locale: 'fr-CA' });
    const [en, fr] = fake.requests;
    expect(en!.contentType).toBe(RATE_MEDIA_TYPE);
    expect(await canadaPostSchemaErrors(en!.response, 'rating')).toEqual([]);
    expect(await canadaPostSchemaErrors(fr!.response, 'rating')).toEqual([]);
    const names = (xml: string) =>
      [...xml.matchAll(/<service-name>([^<]*)<\/service-name>/g)].map((m) => m[1]);
    expect(names(en!.response)).toEqual(['Regular Parcel', 'Expedited Parcel', 'Xpresspost', 'Priority']);
    expect(names(fr!.response)).toEqual(['Colis standard', 'Colis accélérés', 'Xpresspost', 'Priorité']);
  });

  it('writes each quote as Canada Post does: link, taxes with their percent, adjustments, service standard', async () => {
    await canadaPost(settings()).rates(parcel({ services: ['DOM.EP'] }), { locale: 'en-CA' });
    expect(fake.requests[0]!.response).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<price-quotes xmlns="http://www.canadapost.ca/ws/ship/rate-v4">\n' +
        '  <price-quote>\n' +
        '    <service-code>DOM.EP</service-code>\n' +
        `    <service-link rel="service" href="${fake.url}/rs/ship/service/DOM.EP?fr=M5H2N2&amp;country=CA" media-type="application/vnd.cpc.ship.rate-v4+xml"/>\n` +
        '    <service-name>Expedited Parcel</service-name>\n' +
        '    <price-details>\n' +
        '      <base>15.00</base>\n' +
        '      <taxes>\n' +
        '        <gst percent="0.000">0.00</gst>\n' +
        '        <pst percent="0.000">0.00</pst>\n' +
        '        <hst percent="13.000">2.15</hst>\n' +
        '      </taxes>\n' +
        '      <due>18.65</due>\n' +
        '      <adjustments>\n' +
        '        <adjustment>\n' +
        '          <adjustment-code>FUELSC</adjustment-code>\n' +
        '          <adjustment-name>Fuel surcharge</adjustment-name>\n' +
        '          <adjustment-cost>1.50</adjustment-cost>\n' +
        '          <qualifier><percent>10.000</percent></qualifier>\n' +
        '        </adjustment>\n' +
        '      </adjustments>\n' +
        '    </price-details>\n' +
        '    <weight-details>\n' +
        '      <cubed-weight>1.438</cubed-weight>\n' +
        '    </weight-details>\n' +
        '    <service-standard>\n' +
        '      <am-delivery>false</am-delivery>\n' +
        '      <guaranteed-delivery>true</guaranteed-delivery>\n' +
        '      <expected-transit-time>3</expected-transit-time>\n' +
        '      <expected-delivery-date>2026-03-10</expected-delivery-date>\n' +
        '    </service-standard>\n' +
        '  </price-quote>\n' +
        '</price-quotes>\n',
    );
  });

  it('stays valid without a fuel surcharge, with services not asked, and with no quote at all', async () => {
    const carrier = canadaPost(settings());
    fake.setMode({ answer: 'quotes', fuelSurchargePercent: 0, extraServices: ['DOM.LIB'] });
    await carrier.rates(parcel({ destinationPostalCode: 'H2X1Y4' }), { locale: 'fr-CA' });
    fake.setMode({ answer: 'custom', respond: () => ({ body: priceQuotesXml([]) }) });
    await carrier.rates(parcel(), { locale: 'en-CA' });
    const [plain, empty] = fake.requests;
    expect(plain!.response).not.toContain('<adjustments>');
    expect(plain!.response).toContain('<service-name>Livres de bibliothèque</service-name>');
    expect(await canadaPostSchemaErrors(plain!.response, 'rating')).toEqual([]);
    expect(await canadaPostSchemaErrors(empty!.response, 'rating')).toEqual([]);
  });

  it('answers its errors as messages documents valid against messages.xsd', async () => {
    fake.setMode({
      answer: 'error',
      status: 400,
      messages: [{ code: '9111', description: 'Invalid postal code' }],
    });
    await canadaPost(settings())
      .rates(parcel(), { locale: 'en-CA' })
      .catch(() => {});
    fake.setMode({ answer: 'error', status: 500 });
    await canadaPost(settings())
      .rates(parcel(), { locale: 'en-CA' })
      .catch(() => {});
    fake.setMode({ answer: 'quotes' });
    await canadaPost(settings({ password: 'wrong' }))
      .rates(parcel(), { locale: 'en-CA' })
      .catch(() => {});
    expect(fake.requests.map((r) => [r.status, r.contentType])).toEqual([
      [400, RATE_MEDIA_TYPE],
      [500, RATE_MEDIA_TYPE],
      [401, RATE_MEDIA_TYPE],
    ]);
    expect(fake.requests[2]!.response).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<messages xmlns="http://www.canadapost.ca/ws/messages">\n' +
        '  <message>\n' +
        '    <code>E002</code>\n' +
        '    <description>AAA Authentication Failure</description>\n' +
        '  </message>\n' +
        '</messages>\n',
    );
    for (const request of fake.requests) {
      expect(await canadaPostSchemaErrors(request.response, 'messages')).toEqual([]);
    }
    const escaped = messagesXml([
      { code: '9111', description: 'Invalid postal code' },
      { code: 'Server', description: 'A <broken> & "quoted" description' },
    ]);
    expect(await canadaPostSchemaErrors(escaped, 'messages')).toEqual([]);
    expect(await canadaPostSchemaErrors(messagesXml([]), 'messages')).toEqual([]);
  });

  it('refuses what Canada Post refuses: another path or method, other media types, no or wrong auth, another language', async () => {
    const body = '<mailing-scenario xmlns="http://www.canadapost.ca/ws/ship/rate-v4"/>';
    const refusals = [
      await rawPost(goodHeaders(), body, '/rs/ship/prices'),
      await rawPost(goodHeaders(), body, '/rs/ship/price', 'GET'),
      await rawPost({ ...goodHeaders(), authorization: '' }, body),
      await rawPost(
        { ...goodHeaders(), authorization: `Basic ${Buffer.from(`${USERNAME}:nope`).toString('base64')}` },
        body,
      ),
      await rawPost({ ...goodHeaders(), accept: 'application/xml' }, body),
      await rawPost({ ...goodHeaders(), 'content-type': 'application/xml' }, body),
      await rawPost({ ...goodHeaders(), 'accept-language': 'de-DE' }, body),
      await rawPost(goodHeaders(), '<mailing-scenario xmlns="http://www.canadapost.ca/ws/ship/rate-v4"/>'),
    ];
    expect(refusals.map((r) => r.status)).toEqual([404, 405, 401, 401, 406, 415, 400, 400]);
    for (const request of fake.requests) {
      expect(request.contentType).toBe(RATE_MEDIA_TYPE);
      expect(await canadaPostSchemaErrors(request.response, 'messages')).toEqual([]);
    }
    expect(fake.requests.map((r) => r.response.match(/<code>([^<]*)<\/code>/)?.[1])).toEqual([
      'Server',
      'Server',
      'E002',
      'E002',
      'Server',
      'Server',
      'Server',
      'Server',
    ]);
  });
});

describe('the rates the adapter reads', () => {
  it('reads price, price with tax, delivery date, transit days and guarantee, cheapest first', async () => {
    const rates = await canadaPost(settings()).rates(
      parcel({ services: ['DOM.PC', 'DOM.XP', 'DOM.RP', 'DOM.EP'] }),
      { locale: 'en-CA' },
    );
    expect(rates).toEqual(TORONTO_RATES);
  });

  it('takes every tax off the price: GST and PST (QST) to Quebec', async () => {
    const rates = await canadaPost(settings()).rates(parcel({ destinationPostalCode: 'H2X1Y4' }), {
      locale: 'fr-CA',
    });
    // The same 14.30, 16.50, 23.65, 38.50 before tax; GST 5% and QST 9.975% of each, to the cent:
    // 0.72 + 1.43, 0.83 + 1.65, 1.18 + 2.36, 1.93 + 3.84.
    expect(rates.map((r) => [r.service, r.priceCents, r.priceWithTaxCents])).toEqual([
      ['DOM.RP', 1430, 1645],
      ['DOM.EP', 1650, 1898],
      ['DOM.XP', 2365, 2719],
      ['DOM.PC', 3850, 4427],
    ]);
  });

  it('keeps a fuel surcharge in the price (due minus taxes), and reads a quote without one', async () => {
    fake.setMode({ answer: 'quotes', fuelSurchargePercent: 0 });
    const rates = await canadaPost(settings()).rates(parcel({ services: ['DOM.RP'] }), { locale: 'en-CA' });
    // 13.00 and HST 1.69.
    expect(rates.map((r) => [r.priceCents, r.priceWithTaxCents])).toEqual([[1300, 1469]]);
  });

  it('leaves out the services Portage does not offer', async () => {
    // Library Materials would be the cheapest: 5.00 + 2 x 0.50, and fuel.
    fake.setMode({ answer: 'quotes', extraServices: ['DOM.LIB'] });
    const rates = await canadaPost(settings()).rates(parcel({ services: ['DOM.XP', 'DOM.RP'] }), {
      locale: 'en-CA',
    });
    expect(fake.requests[0]!.response).toContain('<service-code>DOM.LIB</service-code>');
    expect(rates.map((r) => r.service)).toEqual(['DOM.RP', 'DOM.XP']);
  });

  it('answers null for a delivery date and transit time the carrier does not give, and none for no quote', async () => {
    const quote: FakeQuote = {
      serviceCode: 'DOM.RP',
      serviceName: 'Regular Parcel',
      serviceHref: 'https://ct.soa-gw.canadapost.ca/rs/ship/service/DOM.RP?fr=M5H2N2&country=CA',
      baseCents: 1234,
      adjustments: [],
      taxes: {
        gst: { cents: 62, percent: 5 },
        pst: { cents: 0, percent: 0 },
        hst: { cents: 0, percent: 0 },
      },
      amDelivery: false,
      guaranteed: false,
    };
    const document = priceQuotesXml([quote]);
    expect(await canadaPostSchemaErrors(document, 'rating')).toEqual([]);
    fake.setMode({ answer: 'custom', respond: () => ({ body: document }) });
    const carrier = canadaPost(settings());
    expect(await carrier.rates(parcel(), { locale: 'en-CA' })).toEqual([
      {
        service: 'DOM.RP',
        priceCents: 1234,
        priceWithTaxCents: 1296,
        deliveryDate: null,
        transitDays: null,
        guaranteed: false,
      },
    ]);
    fake.setMode({ answer: 'custom', respond: () => ({ body: priceQuotesXml([]) }) });
    expect(await carrier.rates(parcel(), { locale: 'en-CA' })).toEqual([]);
  });
});

describe('how the adapter fails', () => {
  it('takes a refusal with messages (4xx) as final, keeping the messages', async () => {
    fake.setMode({
      answer: 'error',
      status: 400,
      messages: [{ code: '9111', description: 'Invalid postal code' }],
    });
    const err = await carrierErrorOf(canadaPost(settings()).rates(parcel(), { locale: 'en-CA' }));
    expect(err.retryable).toBe(false);
    expect(err.messages).toEqual([{ code: '9111', description: 'Invalid postal code' }]);
    expect(err.message).toBe('Canada Post answered 400: 9111 Invalid postal code');
  });

  it('takes a wrong API key (401) as final', async () => {
    const err = await carrierErrorOf(
      canadaPost(settings({ password: 'not-the-password' })).rates(parcel(), { locale: 'en-CA' }),
    );
    expect(err.retryable).toBe(false);
    expect(err.messages).toEqual([{ code: 'E002', description: 'AAA Authentication Failure' }]);
  });

  it('takes a server error (5xx) and a busy carrier (429) as worth retrying', async () => {
    const carrier = canadaPost(settings());
    fake.setMode({
      answer: 'error',
      status: 500,
      messages: [{ code: 'Server', description: 'Internal Server Error' }],
    });
    const down = await carrierErrorOf(carrier.rates(parcel(), { locale: 'en-CA' }));
    expect([down.retryable, down.messages]).toEqual([
      true,
      [{ code: 'Server', description: 'Internal Server Error' }],
    ]);
    fake.setMode({
      answer: 'custom',
      respond: () => ({
        status: 503,
        body: '<html><body>Service Unavailable</body></html>',
        contentType: 'text/html',
      }),
    });
    const gateway = await carrierErrorOf(carrier.rates(parcel(), { locale: 'en-CA' }));
    expect([gateway.retryable, gateway.messages, gateway.message]).toEqual([
      true,
      [],
      'Canada Post answered 503',
    ]);
    fake.setMode({
      answer: 'error',
      status: 429,
      messages: [{ code: 'E429', description: 'Too many requests' }],
    });
    expect((await carrierErrorOf(carrier.rates(parcel(), { locale: 'en-CA' }))).retryable).toBe(true);
  });

  it('refuses a broken answer: cut off, not XML, or not price-quotes', async () => {
    const carrier = canadaPost(settings());
    fake.setMode({ answer: 'malformed' });
    const cut = await carrierErrorOf(carrier.rates(parcel(), { locale: 'en-CA' }));
    expect(cut.retryable).toBe(true);
    fake.setMode({ answer: 'malformed', body: 'Service Temporarily Unavailable' });
    expect((await carrierErrorOf(carrier.rates(parcel(), { locale: 'en-CA' }))).retryable).toBe(true);
    // A messages document with a 200: no quotes in it.
    fake.setMode({ answer: 'malformed', body: messagesXml([{ code: 'Server', description: 'oops' }]) });
    expect((await carrierErrorOf(carrier.rates(parcel(), { locale: 'en-CA' }))).message).toBe(
      'Canada Post answered no price-quotes document',
    );
    // A price that is not a figure.
    const broken = priceQuotesXml([
      {
        serviceCode: 'DOM.RP',
        serviceName: 'Regular Parcel',
        serviceHref: 'https://ct.soa-gw.canadapost.ca/rs/ship/service/DOM.RP',
        baseCents: 1000,
        adjustments: [],
        taxes: {
          gst: { cents: 50, percent: 5 },
          pst: { cents: 0, percent: 0 },
          hst: { cents: 0, percent: 0 },
        },
        amDelivery: false,
        guaranteed: false,
      },
    ]).replace('<due>10.50</due>', '<due>ten dollars</due>');
    fake.setMode({ answer: 'malformed', body: broken });
    expect((await carrierErrorOf(carrier.rates(parcel(), { locale: 'en-CA' }))).message).toBe(
      'Canada Post answered due "ten dollars"',
    );
  });

  it('refuses a document cut off inside a later quote, rather than reading fewer services', async () => {
    const quote = (serviceCode: string) => ({
      serviceCode,
      serviceName: serviceCode,
      serviceHref: `https://ct.soa-gw.canadapost.ca/rs/ship/service/${serviceCode}`,
      baseCents: 1000,
      adjustments: [],
      taxes: { gst: { cents: 50, percent: 5 }, pst: { cents: 0, percent: 0 }, hst: { cents: 0, percent: 0 } },
      amDelivery: false,
      guaranteed: false,
    });
    const whole = priceQuotesXml([quote('DOM.RP'), quote('DOM.EP')]);
    const cut = whole.slice(0, whole.lastIndexOf('<service-code>') + '<service-code>DOM'.length);
    fake.setMode({ answer: 'custom', respond: () => ({ body: cut }) });
    const err = await carrierErrorOf(canadaPost(settings()).rates(parcel(), { locale: 'en-CA' }));
    expect([err.retryable, err.message]).toEqual([true, 'Canada Post answered a document that is not XML']);
  });

  it('refuses an answer over 256 KB', async () => {
    const padded = priceQuotesXml([]).replace(
      '</price-quotes>',
      `<!--${'x'.repeat(300 * 1024)}--></price-quotes>`,
    );
    expect(await canadaPostSchemaErrors(padded, 'rating')).toEqual([]);
    fake.setMode({ answer: 'custom', respond: () => ({ body: padded }) });
    const err = await carrierErrorOf(canadaPost(settings()).rates(parcel(), { locale: 'en-CA' }));
    expect([err.retryable, err.message]).toEqual([true, 'Canada Post answered more than 256 KB']);
  });

  it('takes a carrier that cannot be reached as worth retrying', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const err = await carrierErrorOf(
      canadaPost(settings({ baseUrl: `http://127.0.0.1:${port}` })).rates(parcel(), { locale: 'en-CA' }),
    );
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/^Canada Post could not be reached/);
  });

  it('gives up when its signal aborts, as worth retrying', async () => {
    fake.setMode({ answer: 'quotes', delayMs: 30_000 });
    const err = await carrierErrorOf(
      canadaPost(settings()).rates(parcel(), { locale: 'en-CA', signal: AbortSignal.timeout(100) }),
    );
    expect(err.retryable).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------

/** A log that keeps its warnings. */
function recordingLog() {
  const warnings: Array<{ details: object; message: string }> = [];
  return {
    warnings,
    log: { warn: (details: object, message: string) => warnings.push({ details, message }) },
  };
}

/** The adapter over the fake, counting the times it is asked. */
function countedCarrier(): { carrier: Carrier; calls: () => number } {
  const inner = canadaPost(settings());
  let calls = 0;
  return {
    carrier: {
      id: inner.id,
      rates: (spec, opts) => {
        calls++;
        return inner.rates(spec, opts);
      },
    },
    calls: () => calls,
  };
}

/** A clock a test moves by hand. */
function handClock(start = Date.parse('2026-03-04T15:00:00Z')) {
  let at = start;
  return {
    now: () => at,
    advance(ms: number) {
      at += ms;
    },
  };
}

/** Whether `promise` settles within `ms` (a generous bound, never a timing assertion). */
const settlesWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
  ]);

describe('carrier rates before a checkout', () => {
  it('leaves a carrier slower than the budget to the table, and does not ask it again for 30 s', async () => {
    fake.setMode({ answer: 'quotes', delayMs: 30_000 });
    const { carrier, calls } = countedCarrier();
    const { log, warnings } = recordingLog();
    const clock = handClock();
    const rates = carrierRates(carrier, { budgetMs: 200, cacheMs: 60_000, log, now: clock.now });

    // The budget is 200 ms and the carrier takes 30 s: the fetch must be over long before.
    expect(await settlesWithin(rates.fetch([parcel()], 'en-CA'), 10_000)).toBe(true);
    expect(rates.lookup(parcel())).toBeUndefined();
    expect(calls()).toBe(1);
    expect(warnings).toEqual([
      {
        details: expect.objectContaining({
          carrier: 'canada_post',
          err: expect.stringMatching(/^Canada Post/),
        }),
        message: 'carrier rates failed: the parcel is priced by the rate table',
      },
    ]);

    clock.advance(29_000);
    await rates.fetch([parcel()], 'en-CA');
    expect(calls()).toBe(1);
    expect(rates.lookup(parcel())).toBeUndefined();

    // Past 30 s the carrier is asked again, and this time it answers.
    fake.setMode({ answer: 'quotes' });
    clock.advance(1_001);
    await rates.fetch([parcel()], 'en-CA');
    expect(calls()).toBe(2);
    expect(rates.lookup(parcel())).toEqual(TORONTO_RATES);
    expect(warnings).toHaveLength(1);
  });

  it('remembers a refusal too, and says why', async () => {
    fake.setMode({
      answer: 'error',
      status: 400,
      messages: [{ code: '9111', description: 'Invalid postal code' }],
    });
    const { carrier, calls } = countedCarrier();
    const { log, warnings } = recordingLog();
    const rates = carrierRates(carrier, { budgetMs: 10_000, cacheMs: 60_000, log, now: handClock().now });
    await rates.fetch([parcel()], 'en-CA');
    await rates.fetch([parcel()], 'en-CA');
    expect(calls()).toBe(1);
    expect(rates.lookup(parcel())).toBeUndefined();
    expect(warnings.map((w) => w.details)).toEqual([
      expect.objectContaining({ err: 'Canada Post answered 400: 9111 Invalid postal code' }),
    ]);
  });

  it('asks the carrier once for a parcel, and answers its rates from then on', async () => {
    const { carrier, calls } = countedCarrier();
    const { log, warnings } = recordingLog();
    const rates = carrierRates(carrier, { budgetMs: 10_000, cacheMs: 60_000, log, now: handClock().now });
    expect(rates.lookup(parcel())).toBeUndefined();
    await rates.fetch([parcel()], 'en-CA');
    await rates.fetch([parcel()], 'fr-CA');
    expect(calls()).toBe(1);
    expect(fake.requests).toHaveLength(1);
    expect(rates.lookup(parcel())).toEqual(TORONTO_RATES);
    // The same parcel described anew (another object) is the same parcel.
    expect(rates.lookup({ ...parcel(), dimensionsCm: { length: 30, width: 23, height: 12.5 } })).toEqual(
      TORONTO_RATES,
    );
    expect(warnings).toEqual([]);
  });

  it('asks the carrier for at most 10 parcels of one checkout; the others are left to the table', async () => {
    const { carrier, calls } = countedCarrier();
    const { log } = recordingLog();
    const rates = carrierRates(carrier, { budgetMs: 10_000, cacheMs: 60_000, log, now: handClock().now });
    const specs = Array.from({ length: 12 }, (_, n) => parcel({ weightGrams: 1000 + n }));
    await rates.fetch(specs, 'en-CA');
    expect(calls()).toBe(MAX_PARCELS_RATED);
    expect(specs.map((s) => rates.lookup(s) !== undefined)).toEqual([...Array(10).fill(true), false, false]);
  });

  it('makes one request for a parcel fetched by checkouts at the same time', async () => {
    fake.setMode({ answer: 'quotes', delayMs: 100 });
    const { carrier, calls } = countedCarrier();
    const { log } = recordingLog();
    const rates = carrierRates(carrier, { budgetMs: 10_000, cacheMs: 60_000, log, now: handClock().now });
    await Promise.all([
      rates.fetch([parcel()], 'en-CA'),
      rates.fetch([parcel()], 'en-CA'),
      rates.fetch([parcel(), parcel()], 'fr-CA'),
    ]);
    expect(calls()).toBe(1);
    expect(fake.requests).toHaveLength(1);
    expect(rates.lookup(parcel())).toEqual(TORONTO_RATES);
  });

  it('asks again for another destination, another parcel or another day', async () => {
    const { carrier, calls } = countedCarrier();
    const { log } = recordingLog();
    const rates = carrierRates(carrier, { budgetMs: 10_000, cacheMs: 60_000, log, now: handClock().now });
    const montreal = parcel({ destinationPostalCode: 'H2X1Y4' });
    await rates.fetch([parcel()], 'en-CA');
    await rates.fetch([parcel(), montreal], 'en-CA');
    expect(calls()).toBe(2);
    expect(fake.requests.map((r) => r.body.match(/<domestic><postal-code>(\w+)</)?.[1])).toEqual([
      'M4C1B5',
      'H2X1Y4',
    ]);
    expect(rates.lookup(montreal)?.map((r) => r.priceWithTaxCents)).toEqual([1645, 1898, 2719, 4427]);
    await rates.fetch([parcel({ weightGrams: 2001 }), parcel({ mailingDate: '2026-03-06' })], 'en-CA');
    expect(calls()).toBe(4);
  });

  it('forgets rates after cacheMs', async () => {
    const { carrier, calls } = countedCarrier();
    const { log } = recordingLog();
    const clock = handClock();
    const rates = carrierRates(carrier, { budgetMs: 10_000, cacheMs: 60_000, log, now: clock.now });
    await rates.fetch([parcel()], 'en-CA');
    clock.advance(59_999);
    expect(rates.lookup(parcel())).toEqual(TORONTO_RATES);
    await rates.fetch([parcel()], 'en-CA');
    expect(calls()).toBe(1);
    clock.advance(1);
    expect(rates.lookup(parcel())).toBeUndefined();
    await rates.fetch([parcel()], 'en-CA');
    expect(calls()).toBe(2);
    expect(rates.lookup(parcel())).toEqual(TORONTO_RATES);
  });
});

// ---------------------------------------------------------------------------------------------

describe('the built-in rate table', () => {
  it('zones by postal district, province and region', () => {
    expect(zoneOf('M5H2N2', 'M4C1B5')).toBe(1); // Toronto to Toronto
    expect(zoneOf('M5H2N2', 'K1A0B1')).toBe(2); // Toronto to Ottawa
    expect(zoneOf('M5H2N2', 'H2X1Y4')).toBe(3); // Toronto to Montréal
    expect(zoneOf('M5H2N2', 'B3H4R2')).toBe(3); // Toronto to Halifax, the next region
    expect(zoneOf('M5H2N2', 'V6B1A1')).toBe(4); // Toronto to Vancouver
    expect(zoneOf('M5H2N2', 'X1A2P7')).toBe(5); // Toronto to Yellowknife
    expect(zoneOf('M5H2N2', 'Y1A1A1')).toBe(5); // Toronto to Whitehorse
    expect(zoneOf('V6B1A1', 'X0A0H0')).toBe(5); // Vancouver to Iqaluit
    expect(() => zoneOf('M5H2N2', 'Z1Z1Z1')).toThrow(/not a Canadian postal code/);
    expect(() => zoneOf('Z1Z1Z1', 'Z2Z2Z2')).toThrow(/not a Canadian postal code/);
  });

  it('prices by zone and started kilogram, dearer with each', () => {
    const regular = (destinationPostalCode: string, weightGrams: number) =>
      tableRates(
        parcel({
          destinationPostalCode,
          weightGrams,
          dimensionsCm: { length: 20, width: 15, height: 10 },
          services: ['DOM.RP'],
        }),
      )[0]!.priceCents;
    // Zone 3 (Montréal): 15.99 the first kilogram, 1.50 each started one after.
    expect([regular('H2X1Y4', 1000), regular('H2X1Y4', 1001), regular('H2X1Y4', 5000)]).toEqual([
      1599, 1749, 2199,
    ]);
    const byZone = ['M4C1B5', 'K1A0B1', 'H2X1Y4', 'V6B1A1', 'X1A2P7'].map((to) => regular(to, 3000));
    expect(byZone).toEqual([1249, 1569, 1899, 2279, 3699]);
  });

  it('answers every service cheapest first, with its promise', () => {
    expect(tableRates(parcel({ destinationPostalCode: 'H2X1Y4' }))).toEqual([
      {
        service: 'DOM.RP',
        priceCents: 1749,
        priceWithTaxCents: 1836,
        deliveryDate: '2026-03-12',
        transitDays: 5,
        guaranteed: false,
      },
      {
        service: 'DOM.EP',
        priceCents: 1964,
        priceWithTaxCents: 2062,
        deliveryDate: '2026-03-11',
        transitDays: 4,
        guaranteed: true,
      },
      {
        service: 'DOM.XP',
        priceCents: 2939,
        priceWithTaxCents: 3086,
        deliveryDate: '2026-03-09',
        transitDays: 2,
        guaranteed: true,
      },
      {
        service: 'DOM.PC',
        priceCents: 4859,
        priceWithTaxCents: 5102,
        deliveryDate: '2026-03-06',
        transitDays: 1,
        guaranteed: true,
      },
    ]);
  });

  it('bills a light, bulky box by its volume', () => {
    // 60 x 50 x 40 cm is 120,000 cm³: 20 kg at 6,000 cm³ a kilogram, though it weighs 500 g.
    const bulky = parcel({
      destinationPostalCode: 'H2X1Y4',
      weightGrams: 500,
      dimensionsCm: { length: 60, width: 50, height: 40 },
      services: ['DOM.RP'],
    });
    expect(billedGrams(bulky)).toBe(20_000);
    // 15.99 + 19 x 1.50.
    expect(tableRates(bulky)[0]!.priceCents).toBe(4449);
    const small = { ...bulky, dimensionsCm: { length: 20, width: 15, height: 10 } };
    expect(billedGrams(small)).toBe(500);
    expect(tableRates(small)[0]!.priceCents).toBe(1599);
  });
});
