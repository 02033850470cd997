// Canada Post's shipment, label and tracking-summary calls as the adapter speaks them
// (src/modules/shipping/labels.ts), against the local fake (test/helpers/fake-canada-post.ts);
// every document both sides write checked against Canada Post's XSDs with libxml2. track.xsd is
// published in the namespace http://www.canadapost.ca/ws/track; the track-v2 media type's documents
// are in http://www.canadapost.ca/ws/track-v2 with the same elements, so its target namespace is
// read as v2 here.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CanadaPostSettings } from '../src/modules/shipping/canada-post.ts';
import { CarrierError } from '../src/modules/shipping/carrier.ts';
import {
  canadaPostLabels,
  MAX_SHIPMENTS_LOOKED_AT,
  type ShipmentSpec,
  shipmentDocument,
  UncertainOutcome,
} from '../src/modules/shipping/labels.ts';
import { canadaPostSchemaErrors } from './helpers/canada-post-schemas.ts';
import {
  type FakeCanadaPost,
  messagesXml,
  shipmentInfoXml,
  shipmentsXml,
  startFakeCanadaPost,
  trackingSummaryXml,
} from './helpers/fake-canada-post.ts';

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

const spec = (overrides: Partial<ShipmentSpec> = {}): ShipmentSpec => ({
  reference: '2026-000123',
  service: 'DOM.EP',
  mailingDate: '2026-11-23',
  sender: {
    company: 'Érable & Fils <Boutique>',
    name: 'Marie Tremblay',
    street: '100 Queen St W',
    city: 'Toronto',
    province: 'ON',
    postalCode: 'M5H 2N2',
    phone: '416 555 0199',
  },
  destination: {
    name: 'Avery "A." Tremblay\u0007',
    street: '1000 Rue Sherbrooke O',
    line2: 'App. 4',
    city: 'Montréal',
    province: 'QC',
    postalCode: 'h3a 3g4',
    phone: '+15145550123',
  },
  weightGrams: 1500,
  dimensionsCm: { length: 30, width: 23, height: 13 },
  ...overrides,
});

async function carrierErrorOf(promise: Promise<unknown>): Promise<CarrierError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CarrierError);
  return err as CarrierError;
}

describe('the shipment the adapter buys', () => {
  it('is a shipment document valid against shipment.xsd, people’s words escaped and bounded', async () => {
    const doc = shipmentDocument({}, spec({ sender: { ...spec().sender, street: `${'x'.repeat(60)}` } }));
    expect(await canadaPostSchemaErrors(doc, 'shipment')).toEqual([]);
    expect(doc).toContain('<company>Érable &amp; Fils &lt;Boutique&gt;</company>');
    expect(doc).toContain('<name>Avery &quot;A.&quot; Tremblay</name>');
    expect(doc).toContain(`<address-line-1>${'x'.repeat(44)}</address-line-1>`);
    expect(doc).toContain('<postal-zip-code>H3A3G4</postal-zip-code>');
    expect(doc).toContain('<requested-shipping-point>M5H2N2</requested-shipping-point>');
    expect(doc).toContain('<intended-method-of-payment>CreditCard</intended-method-of-payment>');
    const contract = shipmentDocument({ contractId: '42708517' }, spec());
    expect(await canadaPostSchemaErrors(contract, 'shipment')).toEqual([]);
    expect(contract).toContain(
      '<contract-id>42708517</contract-id><intended-method-of-payment>Account</intended-method-of-payment>',
    );
  });

  it('is posted to /rs/{customer}/{customer}/shipment with the shipment media type, then its label fetched as a PDF', async () => {
    const carrier = canadaPostLabels(settings());
    const info = await carrier.createShipment(spec(), { locale: 'fr-CA' });
    expect(info).toEqual({
      shipmentId: fake.shipments[0]!.id,
      trackingPin: fake.shipments[0]!.pin,
      labelUrl: `${fake.url}/rs/artifact/2004381/${fake.shipments[0]!.id}/0`,
    });
    const pdf = await carrier.label(info.labelUrl, {});
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const [post, get] = fake.requests;
    expect(post).toMatchObject({ method: 'POST', url: '/rs/2004381/2004381/shipment', status: 200 });
    expect(post!.headers).toMatchObject({
      authorization: `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`,
      accept: 'application/vnd.cpc.shipment-v8+xml',
      'content-type': 'application/vnd.cpc.shipment-v8+xml',
      'accept-language': 'fr-CA',
    });
    expect(await canadaPostSchemaErrors(post!.body, 'shipment')).toEqual([]);
    expect(await canadaPostSchemaErrors(post!.response, 'shipment')).toEqual([]);
    expect(get).toMatchObject({ method: 'GET', status: 200, contentType: 'application/pdf' });
    expect(get!.headers.accept).toBe('application/pdf');
  });

  it('refuses a label link on another host, and never fetches it (the shipment was made: uncertain)', async () => {
    fake.setMode({
      answer: 'custom',
      respond: () => ({
        body: shipmentInfoXml({
          baseUrl: 'https://attacker.example',
          customer: '2004381',
          id: '1',
          pin: '7023210000000001',
        }),
      }),
    });
    const err = await carrierErrorOf(
      canadaPostLabels(settings()).createShipment(spec(), { locale: 'en-CA' }),
    );
    expect(err).toBeInstanceOf(UncertainOutcome);
    expect(err.message).toContain('attacker.example');
    await expect(canadaPostLabels(settings()).label('https://attacker.example/x.pdf', {})).rejects.toThrow(
      /not on Canada Post/,
    );
  });

  it('a refusal carries Canada Post’s messages (not retryable); an outage, a broken or slow answer is retryable', async () => {
    const carrier = canadaPostLabels(settings());
    const refused = await carrierErrorOf(
      carrier.createShipment(spec({ destination: { ...spec().destination, postalCode: '12345' } }), {
        locale: 'en-CA',
      }),
    );
    expect(refused).toMatchObject({
      retryable: false,
      messages: [{ code: '9111', description: 'Invalid postal code' }],
    });
    expect(await canadaPostSchemaErrors(fake.requests[0]!.response, 'messages')).toEqual([]);

    fake.setMode({ answer: 'error', status: 500 });
    expect((await carrierErrorOf(carrier.createShipment(spec(), { locale: 'en-CA' }))).retryable).toBe(true);
    fake.setMode({ answer: 'malformed' });
    expect((await carrierErrorOf(carrier.createShipment(spec(), { locale: 'en-CA' }))).retryable).toBe(true);
    fake.setMode({ answer: 'quotes', delayMs: 5000 });
    const slow = await carrierErrorOf(
      carrier.createShipment(spec(), { locale: 'en-CA', signal: AbortSignal.timeout(100) }),
    );
    expect(slow.retryable).toBe(true);
    fake.setMode({ answer: 'custom', respond: () => ({ body: 'not a pdf', contentType: 'text/plain' }) });
    expect((await carrierErrorOf(carrier.label(`${fake.url}/rs/artifact/2004381/1/0`, {}))).retryable).toBe(
      true,
    );
  });
});

describe('a purchase whose answer is lost, and the search for its shipment', () => {
  /** A port nothing listens on: the connection is refused before anything is sent. */
  async function closedPort(): Promise<string> {
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return `http://127.0.0.1:${port}`;
  }

  it('tells what surely bought nothing from what may have bought it', async () => {
    const carrier = canadaPostLabels(settings());
    const before = fake.shipments.length;
    const made = () => fake.shipments.length - before;
    const buy = (signal?: AbortSignal) =>
      carrierErrorOf(carrier.createShipment(spec(), { locale: 'en-CA', ...(signal ? { signal } : {}) }));

    // Nothing made: refused before sending, or answered with an error.
    const refusedConnection = await carrierErrorOf(
      canadaPostLabels(settings({ baseUrl: await closedPort() })).createShipment(spec(), { locale: 'en-CA' }),
    );
    expect(refusedConnection).not.toBeInstanceOf(UncertainOutcome);
    expect(refusedConnection.message).toContain('ECONNREFUSED');
    fake.setMode({ answer: 'error', status: 500 });
    expect(await buy()).not.toBeInstanceOf(UncertainOutcome);
    fake.setMode({
      answer: 'error',
      status: 400,
      messages: [{ code: '9111', description: 'Invalid postal code' }],
    });
    expect(await buy()).not.toBeInstanceOf(UncertainOutcome);
    expect(made()).toBe(0);

    // Maybe made: the answer held past the timeout (made), the request slow (not made, but we
    // cannot know), a 200 cut off (made), a gateway timeout.
    fake.setMode({ answer: 'quotes', stallAnswerMs: 5000 });
    const stalled = await buy(AbortSignal.timeout(200));
    expect(stalled).toBeInstanceOf(UncertainOutcome);
    expect(stalled.retryable).toBe(true);
    expect(made()).toBe(1);
    fake.setMode({ answer: 'quotes', delayMs: 5000 });
    expect(await buy(AbortSignal.timeout(200))).toBeInstanceOf(UncertainOutcome);
    expect(made()).toBe(1);
    fake.setMode({ answer: 'quotes', breakAnswer: true });
    expect(await buy()).toBeInstanceOf(UncertainOutcome);
    expect(made()).toBe(2);
    fake.setMode({ answer: 'malformed' });
    expect(await buy()).toBeInstanceOf(UncertainOutcome);
    fake.setMode({ answer: 'error', status: 504 });
    expect(await buy()).toBeInstanceOf(UncertainOutcome);
  });

  it('finds the shipment of a customer-request-id: Get Shipments, then Get Shipment, valid against shipment.xsd', async () => {
    const carrier = canadaPostLabels(settings());
    await carrier.createShipment(spec({ reference: '2026-000777' }), { locale: 'en-CA' });
    fake.setMode({ answer: 'quotes', stallAnswerMs: 5000 });
    await carrierErrorOf(
      carrier.createShipment(spec({ reference: '2026-000778' }), {
        locale: 'en-CA',
        signal: AbortSignal.timeout(200),
      }),
    );
    fake.reset();
    const made = fake.shipments.at(-1)!;

    const found = await carrier.findShipment('2026-000778', { locale: 'fr-CA' });
    expect(found).toEqual({
      shipmentId: made.id,
      trackingPin: made.pin,
      labelUrl: `${fake.url}/rs/artifact/2004381/${made.id}/0`,
    });
    const [search, one] = fake.requests;
    expect(search).toMatchObject({
      method: 'GET',
      url: '/rs/2004381/2004381/shipment?requestId=2026-000778',
      status: 200,
    });
    expect(search!.headers).toMatchObject({
      accept: 'application/vnd.cpc.shipment-v8+xml',
      'accept-language': 'fr-CA',
    });
    expect(one).toMatchObject({ method: 'GET', url: `/rs/2004381/2004381/shipment/${made.id}`, status: 200 });
    expect(await canadaPostSchemaErrors(search!.response, 'shipment')).toEqual([]);
    expect(await canadaPostSchemaErrors(one!.response, 'shipment')).toEqual([]);
    expect(
      await canadaPostSchemaErrors(shipmentsXml({ baseUrl: fake.url, customer: '1', ids: [] }), 'shipment'),
    ).toEqual([]);

    expect(await carrier.findShipment('2026-000999', { locale: 'en-CA' })).toBeNull();
  });

  it('reads at most a few shipments, only on the gateway, only of its customer-request-id; an outage is an error, not "none"', async () => {
    const carrier = canadaPostLabels(settings());
    const ids = Array.from({ length: 8 }, (_, i) => `9${i}`);
    fake.setMode({
      answer: 'custom',
      respond: (r) =>
        r.url.includes('?requestId=')
          ? {
              body: shipmentsXml({ baseUrl: fake.url, customer: '2004381', ids }).replace(
                `${fake.url}/rs/2004381/2004381/shipment/90`,
                'https://attacker.example/rs/2004381/2004381/shipment/90',
              ),
            }
          : {
              // Another order's shipment, whatever is asked.
              body: shipmentInfoXml({
                baseUrl: fake.url,
                customer: '2004381',
                id: r.url.split('/').at(-1)!,
                pin: '7023210000000001',
                reference: '2026-000001',
              }),
            },
    });
    expect(await carrier.findShipment('2026-000123', { locale: 'en-CA' })).toBeNull();
    const read = fake.requests.filter((r) => !r.url.includes('?'));
    expect(read).toHaveLength(MAX_SHIPMENTS_LOOKED_AT);
    expect(read.map((r) => r.url)).toEqual(ids.slice(1, 6).map((id) => `/rs/2004381/2004381/shipment/${id}`));

    fake.setMode({ answer: 'error', status: 503 });
    expect((await carrierErrorOf(carrier.findShipment('2026-000123', { locale: 'en-CA' }))).retryable).toBe(
      true,
    );
    fake.setMode({ answer: 'malformed', body: '<shipments><li' });
    await carrierErrorOf(carrier.findShipment('2026-000123', { locale: 'en-CA' }));
  });
});

describe('the tracking summary the adapter reads', () => {
  it('says delivered once Canada Post does, its documents valid against track.xsd', async () => {
    const carrier = canadaPostLabels(settings());
    const { trackingPin } = await carrier.createShipment(spec(), { locale: 'en-CA' });
    const at = { locale: 'en-CA' as const, shippedAt: new Date(), now: new Date() };
    expect(await carrier.trackingSummary(trackingPin, at)).toEqual({
      deliveredOn: null,
      event: 'Item processed',
    });
    fake.deliver(trackingPin, '2026-11-26');
    expect(await carrier.trackingSummary(trackingPin, at)).toEqual({
      deliveredOn: '2026-11-26',
      event: 'Item successfully delivered',
    });
    const summaries = fake.requests.filter((r) => r.url.startsWith('/vis/track/pin/'));
    expect(summaries.map((r) => [r.method, r.url, r.headers.accept])).toEqual([
      ['GET', `/vis/track/pin/${trackingPin}/summary`, 'application/vnd.cpc.track-v2+xml'],
      ['GET', `/vis/track/pin/${trackingPin}/summary`, 'application/vnd.cpc.track-v2+xml'],
    ]);
    for (const r of summaries) expect(await canadaPostSchemaErrors(r.response, 'track')).toEqual([]);
    expect(
      await canadaPostSchemaErrors(
        trackingSummaryXml({
          pin: '1',
          origin: '',
          destination: '',
          province: '',
          service: '',
          mailedOn: '',
          expected: '',
        }),
        'track',
      ),
    ).toEqual([]);
  });

  it('a PIN Canada Post never sold is its 404 with message 004; a made-up one is never sent', async () => {
    const carrier = canadaPostLabels(settings());
    const at = { locale: 'en-CA' as const, shippedAt: new Date(), now: new Date() };
    const unknown = await carrierErrorOf(carrier.trackingSummary('7023210099999999', at));
    expect(unknown.messages).toEqual([{ code: '004', description: 'No Pin History' }]);
    expect(await canadaPostSchemaErrors(messagesXml(unknown.messages), 'messages')).toEqual([]);
    await carrierErrorOf(carrier.trackingSummary('../../rs/ship/price', at));
    expect(fake.requests).toHaveLength(1);
  });
});
