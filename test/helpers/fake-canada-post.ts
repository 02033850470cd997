// A local stand-in for Canada Post's rating API (rate-v4), speaking its wire format to the adapter
// (src/modules/shipping/canada-post.ts, pointed here by its baseUrl): POST /rs/ship/price with a
// mailing-scenario document, Basic auth, the rate media type for both Content-Type and Accept,
// the answer's language by Accept-language; a price-quotes document back, or a messages document
// with an HTTP error. Its documents are those of rating.xsd and messages.xsd
// (test/official-schemas/canadapost), which test/canada-post.test.ts checks them against.
//
// It also sells labels and follows them (src/modules/shipping/labels.ts), as Canada Post's
// contract shipping and tracking APIs do: POST /rs/{customer}/{customer}/shipment with a shipment
// document (shipment-v8) answers a shipment-info document whose `label` link is
// GET /rs/artifact/{customer}/{id}/0 (application/pdf); GET /vis/track/pin/{pin}/summary
// (track-v2) answers a tracking-summary, delivered once a test says so (`deliver`), 404 with
// message 004 for a PIN it never sold. Get Shipments by customer-request-id,
// GET /rs/{customer}/{customer}/shipment?requestId={id}, answers a `shipments` document of links
// (rel `shipment`) to GET /rs/{customer}/{customer}/shipment/{shipment-id}, Get Shipment, which
// answers the shipment-info Create Shipment answered. Their documents are shipment.xsd's and
// track.xsd's (test/canada-post-labels.test.ts checks them). A purchase can lose its answer after
// the shipment is made (`stallAnswerMs`, `breakAnswer`), as a timeout or a broken connection does.
//
// Prices are the fake's own, worked out from the parcel so that a test can check them by hand:
// a base per service plus a price per billed kilogram (the heavier of the weight and the cubed
// weight, 6000 cm³ a kilogram), a fuel surcharge as a percent of that base, and the destination
// province's taxes on both (Canada Post charges the taxes of where the parcel goes).
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { XMLParser } from 'fast-xml-parser';

export const RATE_MEDIA_TYPE = 'application/vnd.cpc.ship.rate-v4+xml';
export const RATE_NAMESPACE = 'http://www.canadapost.ca/ws/ship/rate-v4';
export const MESSAGES_NAMESPACE = 'http://www.canadapost.ca/ws/messages';
export const SHIPMENT_MEDIA_TYPE = 'application/vnd.cpc.shipment-v8+xml';
export const SHIPMENT_NAMESPACE = 'http://www.canadapost.ca/ws/shipment-v8';
export const TRACK_MEDIA_TYPE = 'application/vnd.cpc.track-v2+xml';
export const TRACK_NAMESPACE = 'http://www.canadapost.ca/ws/track-v2';

export interface FakeCanadaPostRequest {
  method: string;
  /** The path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The request's body, byte for byte (UTF-8). */
  body: string;
  /** The answer's status, content type and body; status 0 while it is not answered (or never was). */
  status: number;
  contentType: string | undefined;
  response: string;
}

export interface FakeMessage {
  code: string;
  description: string;
}

/** What the fake answers a request with, whatever the request asked (custom mode). */
export interface FakeAnswer {
  status?: number;
  body: string | Buffer;
  /** Default: the rate media type. */
  contentType?: string;
}

export type FakeCanadaPostMode =
  /** The price-quotes of the services asked (the default). */
  | {
      answer: 'quotes';
      /** Quotes of these services too, asked or not (a service Portage does not offer: DOM.LIB). */
      extraServices?: string[];
      /** The fuel surcharge, in percent of the base; 0: no adjustments element. Default 10. */
      fuelSurchargePercent?: number;
      /** Before anything: a purchase the client gives up on during it is never made. */
      delayMs?: number;
      /** Create Shipment makes the shipment at once, then holds its answer this long (a lost answer past the client's timeout). */
      stallAnswerMs?: number;
      /** Create Shipment makes the shipment, then answers 200 with half its shipment-info and closes the connection. */
      breakAnswer?: boolean;
    }
  /** An error document with this status (400 with 9111 "Invalid postal code", 500…). */
  | { answer: 'error'; status: number; messages?: FakeMessage[]; delayMs?: number }
  /** A body that is no document (default: a price-quotes document cut off in its middle). */
  | { answer: 'malformed'; status?: number; body?: string; delayMs?: number }
  /** Anything: the answer `respond` gives, from the request as recorded. */
  | {
      answer: 'custom';
      respond: (request: FakeCanadaPostRequest) => FakeAnswer | Promise<FakeAnswer>;
      delayMs?: number;
    };

export interface FakeCanadaPost {
  /** The API base, for CanadaPostSettings.baseUrl. */
  url: string;
  /** Every request, in the order received (recorded before any delay). */
  requests: FakeCanadaPostRequest[];
  /** The shipments sold, in order: their id, PIN, service and the document that bought them. */
  shipments: FakeShipment[];
  /** Says the parcel of `pin` was delivered on `date` (YYYY-MM-DD): its summary says so from now on. */
  deliver(pin: string, date: string): void;
  /** A parcel mailed at a post office (not bought here): its PIN is tracked from now on. */
  mailAtCounter(pin: string, service: string, destinationPostalCode: string): void;
  /** How the following requests are answered, until the next setMode. */
  setMode(mode: FakeCanadaPostMode): void;
  /** The default mode again, and no requests recorded. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeShipment {
  id: string;
  pin: string;
  service: string;
  reference: string;
  destinationPostalCode: string;
  /** The shipment document, as sent. */
  body: string;
}

/** The services the fake knows: its prices, promises and names in both languages. */
const SERVICES: Record<
  string,
  {
    en: string;
    fr: string;
    baseCents: number;
    perKgCents: number;
    transitDays: number;
    guaranteed: boolean;
    amDelivery: boolean;
  }
> = {
  'DOM.RP': {
    en: 'Regular Parcel',
    fr: 'Colis standard',
    baseCents: 1050,
    perKgCents: 125,
    transitDays: 4,
    guaranteed: false,
    amDelivery: false,
  },
  'DOM.EP': {
    en: 'Expedited Parcel',
    fr: 'Colis accélérés',
    baseCents: 1200,
    perKgCents: 150,
    transitDays: 3,
    guaranteed: true,
    amDelivery: false,
  },
  'DOM.XP': {
    en: 'Xpresspost',
    fr: 'Xpresspost',
    baseCents: 1700,
    perKgCents: 225,
    transitDays: 2,
    guaranteed: true,
    amDelivery: false,
  },
  'DOM.PC': {
    en: 'Priority',
    fr: 'Priorité',
    baseCents: 2800,
    perKgCents: 350,
    transitDays: 1,
    guaranteed: true,
    amDelivery: true,
  },
  'DOM.LIB': {
    en: 'Library Materials',
    fr: 'Livres de bibliothèque',
    baseCents: 500,
    perKgCents: 50,
    transitDays: 5,
    guaranteed: false,
    amDelivery: false,
  },
};

/** The taxes on shipping to a postal code's province, in percent: GST, PST (QST), HST. */
function taxPercents(postalCode: string): { gst: number; pst: number; hst: number } {
  const letter = postalCode[0] ?? '';
  if ('KLMNP'.includes(letter)) return { gst: 0, pst: 0, hst: 13 };
  if ('ABCE'.includes(letter)) return { gst: 0, pst: 0, hst: 15 };
  if ('GHJ'.includes(letter)) return { gst: 5, pst: 9.975, hst: 0 };
  return { gst: 5, pst: 0, hst: 0 };
}

const escapeXml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

/** Cents as Canada Post writes dollars ("12.30"). */
const dollars = (cents: number) => (cents / 100).toFixed(2);

/** `days` business days after `date` (YYYY-MM-DD), weekends skipped. */
function businessDaysAfter(date: string, days: number): string {
  const day = new Date(`${date}T12:00:00Z`);
  for (let left = days; left > 0; ) {
    day.setUTCDate(day.getUTCDate() + 1);
    if (day.getUTCDay() !== 0 && day.getUTCDay() !== 6) left--;
  }
  return day.toISOString().slice(0, 10);
}

/** One price-quote of a price-quotes document, as the fake writes it. */
export interface FakeQuote {
  serviceCode: string;
  serviceName: string;
  /** Where the service is described (service-link's href). */
  serviceHref: string;
  baseCents: number;
  adjustments: Array<{ code: string; name: string; cents: number; percent?: number }>;
  taxes: {
    gst: { cents: number; percent: number };
    pst: { cents: number; percent: number };
    hst: { cents: number; percent: number };
  };
  /** Kilograms, 3 decimals; absent: no cubed-weight element. */
  cubedWeightKg?: number;
  amDelivery: boolean;
  guaranteed: boolean;
  transitDays?: number;
  deliveryDate?: string;
}

/** A price-quotes document (rating.xsd), laid out as Canada Post lays out its answers. */
export function priceQuotesXml(quotes: FakeQuote[]): string {
  const quote = (q: FakeQuote) => {
    const adjustmentCents = q.adjustments.reduce((sum, a) => sum + a.cents, 0);
    const dueCents =
      q.baseCents + adjustmentCents + q.taxes.gst.cents + q.taxes.pst.cents + q.taxes.hst.cents;
    const tax = (name: 'gst' | 'pst' | 'hst') =>
      `        <${name} percent="${q.taxes[name].percent.toFixed(3)}">${dollars(q.taxes[name].cents)}</${name}>\n`;
    const adjustments = q.adjustments.length
      ? '      <adjustments>\n' +
        q.adjustments
          .map(
            (a) =>
              '        <adjustment>\n' +
              `          <adjustment-code>${escapeXml(a.code)}</adjustment-code>\n` +
              `          <adjustment-name>${escapeXml(a.name)}</adjustment-name>\n` +
              `          <adjustment-cost>${dollars(a.cents)}</adjustment-cost>\n` +
              (a.percent === undefined
                ? ''
                : `          <qualifier><percent>${a.percent.toFixed(3)}</percent></qualifier>\n`) +
              '        </adjustment>\n',
          )
          .join('') +
        '      </adjustments>\n'
      : '';
    return (
      '  <price-quote>\n' +
      `    <service-code>${escapeXml(q.serviceCode)}</service-code>\n` +
      `    <service-link rel="service" href="${escapeXml(q.serviceHref)}" media-type="${RATE_MEDIA_TYPE}"/>\n` +
      `    <service-name>${escapeXml(q.serviceName)}</service-name>\n` +
      '    <price-details>\n' +
      `      <base>${dollars(q.baseCents)}</base>\n` +
      '      <taxes>\n' +
      tax('gst') +
      tax('pst') +
      tax('hst') +
      '      </taxes>\n' +
      `      <due>${dollars(dueCents)}</due>\n` +
      adjustments +
      '    </price-details>\n' +
      (q.cubedWeightKg === undefined
        ? '    <weight-details/>\n'
        : `    <weight-details>\n      <cubed-weight>${q.cubedWeightKg.toFixed(3)}</cubed-weight>\n    </weight-details>\n`) +
      '    <service-standard>\n' +
      `      <am-delivery>${q.amDelivery}</am-delivery>\n` +
      `      <guaranteed-delivery>${q.guaranteed}</guaranteed-delivery>\n` +
      (q.transitDays === undefined
        ? ''
        : `      <expected-transit-time>${q.transitDays}</expected-transit-time>\n`) +
      (q.deliveryDate === undefined
        ? ''
        : `      <expected-delivery-date>${q.deliveryDate}</expected-delivery-date>\n`) +
      '    </service-standard>\n' +
      '  </price-quote>\n'
    );
  };
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<price-quotes xmlns="${RATE_NAMESPACE}">\n${quotes.map(quote).join('')}</price-quotes>\n`
  );
}

/** A messages document (messages.xsd): what Canada Post answers with an HTTP error. */
export function messagesXml(messages: FakeMessage[]): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<messages xmlns="${MESSAGES_NAMESPACE}">\n` +
    messages
      .map(
        (m) =>
          `  <message>\n    <code>${escapeXml(m.code)}</code>\n    <description>${escapeXml(m.description)}</description>\n  </message>\n`,
      )
      .join('') +
    '</messages>\n'
  );
}

/** A shipment-info document (shipment.xsd): what Create Shipment answers. */
export function shipmentInfoXml(o: {
  baseUrl: string;
  customer: string;
  id: string;
  pin: string;
  reference?: string;
}): string {
  const link = (rel: string, href: string, mediaType: string, index = '') =>
    `    <link rel="${rel}" href="${escapeXml(href)}" media-type="${mediaType}"${index}/>\n`;
  const base = `${o.baseUrl}/rs/${o.customer}/${o.customer}/shipment/${o.id}`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<shipment-info xmlns="${SHIPMENT_NAMESPACE}">\n` +
    (o.reference === undefined
      ? ''
      : `  <customer-request-id>${escapeXml(o.reference)}</customer-request-id>\n`) +
    `  <shipment-id>${o.id}</shipment-id>\n` +
    '  <shipment-status>created</shipment-status>\n' +
    `  <tracking-pin>${o.pin}</tracking-pin>\n` +
    '  <links>\n' +
    link('self', base, SHIPMENT_MEDIA_TYPE) +
    link('details', `${base}/details`, SHIPMENT_MEDIA_TYPE) +
    link('price', `${base}/price`, SHIPMENT_MEDIA_TYPE) +
    link('label', `${o.baseUrl}/rs/artifact/${o.customer}/${o.id}/0`, 'application/pdf', ' index="0"') +
    '  </links>\n' +
    '</shipment-info>\n'
  );
}

/** A shipments document (shipment.xsd): what Get Shipments answers, a link to each shipment. */
export function shipmentsXml(o: { baseUrl: string; customer: string; ids: string[] }): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<shipments xmlns="${SHIPMENT_NAMESPACE}">\n` +
    o.ids
      .map(
        (id) =>
          `  <link rel="shipment" href="${escapeXml(`${o.baseUrl}/rs/${o.customer}/${o.customer}/shipment/${id}`)}" media-type="${SHIPMENT_MEDIA_TYPE}"/>\n`,
      )
      .join('') +
    '</shipments>\n'
  );
}

/** A tracking-summary document (track.xsd, in the v2 namespace): one PIN's latest event. */
export function trackingSummaryXml(o: {
  pin: string;
  origin: string;
  destination: string;
  province: string;
  service: string;
  mailedOn: string;
  expected: string;
  delivered?: string;
}): string {
  const e = (name: string, value: string) => `    <${name}>${escapeXml(value)}</${name}>\n`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<tracking-summary xmlns="${TRACK_NAMESPACE}">\n` +
    '  <pin-summary>\n' +
    e('pin', o.pin) +
    e('origin-postal-id', o.origin) +
    e('destination-postal-id', o.destination) +
    e('destination-province', o.province) +
    e('service-name', o.service) +
    e('mailed-on-date', o.mailedOn) +
    e('expected-delivery-date', o.expected) +
    e('actual-delivery-date', o.delivered ?? '') +
    e('delivery-option-completed-ind', o.delivered ? '1' : '0') +
    e('event-date-time', `${(o.delivered ?? o.mailedOn).replaceAll('-', '')}:101500`) +
    e('event-description', o.delivered ? 'Item successfully delivered' : 'Item processed') +
    e('attempted-date', '') +
    e('customer-ref-1', '') +
    e('customer-ref-2', '') +
    e('return-pin', '') +
    e('event-type', o.delivered ? 'DELIVERED' : 'INDUCTION') +
    e('event-location', 'TORONTO') +
    e('signatory-name', o.delivered ? 'A TREMBLAY' : '') +
    '  </pin-summary>\n' +
    '</tracking-summary>\n'
  );
}

/** A PDF of one empty page with the words `text`: the fake's label. */
export function fakeLabelPdf(text: string): Buffer {
  const stream = `BT /F1 18 Tf 20 200 Td (${text.replace(/[()\\]/g, '')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** What the fake reads of a mailing-scenario. */
interface Scenario {
  weightKg: number;
  dimensionsCm: { length: number; width: number; height: number } | undefined;
  services: string[];
  originPostalCode: string;
  destinationPostalCode: string;
  mailingDate: string;
}

const requestParser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => name === 'service-code',
});

type Node = Record<string, unknown>;
const node = (value: unknown): Node => (typeof value === 'object' && value !== null ? (value as Node) : {});
const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** The scenario of a request's body, or what is wrong with it (Canada Post's "Server" message). */
function readScenario(body: string, today: string): Scenario | string {
  let doc: Node;
  try {
    doc = requestParser.parse(body, true) as Node;
  } catch (err) {
    return `the request is not XML: ${(err as Error).message}`;
  }
  if (!('mailing-scenario' in doc)) return 'the request is not a mailing-scenario';
  const s = node(doc['mailing-scenario']);
  const parcel = node(s['parcel-characteristics']);
  const weight = text(parcel.weight);
  if (!/^\d{1,2}(\.\d{1,3})?$/.test(weight) || Number(weight) <= 0)
    return `cvc-type: weight "${weight}" is not a weight in kg of 3 decimals at most`;
  let dimensionsCm: Scenario['dimensionsCm'];
  if (parcel.dimensions !== undefined) {
    const d = node(parcel.dimensions);
    const sides = [text(d.length), text(d.width), text(d.height)];
    if (!sides.every((v) => /^\d{1,3}(\.\d)?$/.test(v) && Number(v) > 0))
      return `cvc-type: dimensions ${sides.join(' x ')} are not centimetres of 1 decimal at most`;
    dimensionsCm = { length: Number(sides[0]), width: Number(sides[1]), height: Number(sides[2]) };
  }
  const originPostalCode = text(s['origin-postal-code']);
  const destinationPostalCode = text(node(node(s.destination).domestic)['postal-code']);
  for (const code of [originPostalCode, destinationPostalCode]) {
    if (!/^[A-Z]\d[A-Z]\d[A-Z]\d$/.test(code)) return `cvc-pattern-valid: postal code "${code}"`;
  }
  const asked = node(s.services)['service-code'];
  const services = Array.isArray(asked) ? asked.map(text) : [];
  const mailingDate = text(s['expected-mailing-date']) || today;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(mailingDate)) return `cvc-datatype-valid: date "${mailingDate}"`;
  return {
    weightKg: Number(weight),
    dimensionsCm,
    services,
    originPostalCode,
    destinationPostalCode,
    mailingDate,
  };
}

/** The fake's quote of `serviceCode` for `scenario`, in `language`. */
function quoteOf(
  serviceCode: string,
  scenario: Scenario,
  language: 'en' | 'fr',
  fuelSurchargePercent: number,
  baseUrl: string,
): FakeQuote {
  const service = SERVICES[serviceCode]!;
  const d = scenario.dimensionsCm;
  const cubedWeightKg = d ? Math.round((d.length * d.width * d.height) / 6) / 1000 : undefined;
  const billedKg = Math.max(scenario.weightKg, cubedWeightKg ?? 0);
  const baseCents = service.baseCents + Math.round(service.perKgCents * billedKg);
  const fuelCents = Math.round((baseCents * fuelSurchargePercent) / 100);
  const adjustments = fuelSurchargePercent
    ? [
        {
          code: 'FUELSC',
          name: language === 'fr' ? 'Supplément pour carburant' : 'Fuel surcharge',
          cents: fuelCents,
          percent: fuelSurchargePercent,
        },
      ]
    : [];
  const taxed = baseCents + fuelCents;
  const percents = taxPercents(scenario.destinationPostalCode);
  const tax = (percent: number) => ({ percent, cents: Math.round((taxed * percent) / 100) });
  return {
    serviceCode,
    serviceName: language === 'fr' ? service.fr : service.en,
    serviceHref: `${baseUrl}/rs/ship/service/${serviceCode}?fr=${scenario.originPostalCode}&country=CA`,
    baseCents,
    adjustments,
    taxes: { gst: tax(percents.gst), pst: tax(percents.pst), hst: tax(percents.hst) },
    ...(cubedWeightKg === undefined ? {} : { cubedWeightKg }),
    amDelivery: service.amDelivery,
    guaranteed: service.guaranteed,
    transitDays: service.transitDays,
    deliveryDate: businessDaysAfter(scenario.mailingDate, service.transitDays),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const DEFAULT_MODE: FakeCanadaPostMode = { answer: 'quotes' };

export async function startFakeCanadaPost(
  opts: {
    /** The API key's two halves, which the Basic authorization must carry. */
    username?: string;
    password?: string;
  } = {},
): Promise<FakeCanadaPost> {
  const username = opts.username ?? 'portage-user';
  const password = opts.password ?? 'portage-password';
  const requests: FakeCanadaPostRequest[] = [];
  const shipments: FakeShipment[] = [];
  const delivered = new Map<string, string>();
  let mode: FakeCanadaPostMode = DEFAULT_MODE;
  let url = '';
  /** The answers waiting out a delay: cut short when the fake closes. */
  const waiting = new Set<AbortController>();

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    };
    const record: FakeCanadaPostRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body,
      status: 0,
      contentType: undefined,
      response: '',
    };
    requests.push(record);
    const current = mode;

    if (current.delayMs) {
      const stop = new AbortController();
      waiting.add(stop);
      res.on('close', () => stop.abort());
      try {
        await sleep(current.delayMs, undefined, { signal: stop.signal });
      } catch {
        return; // the client gave up, or the fake closed
      } finally {
        waiting.delete(stop);
      }
    }

    const answer = (status: number, text: string | Buffer, contentType: string = RATE_MEDIA_TYPE) => {
      record.status = status;
      record.contentType = contentType;
      record.response = typeof text === 'string' ? text : text.toString('utf8');
      res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const refuse = (status: number, code: string, description: string) =>
      answer(status, messagesXml([{ code, description }]));

    try {
      const path = record.url.split('?')[0] ?? '';
      const expectedAuth = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
      const query = new URLSearchParams(record.url.split('?')[1] ?? '');
      const collectionAt = /^\/rs\/(\d{1,10})\/(\d{1,10})\/shipment$/.exec(path);
      // POST: Create Shipment; GET with a requestId: Get Shipments by customer-request-id.
      const shipmentAt = record.method === 'GET' ? null : collectionAt;
      const searchAt = record.method === 'GET' ? collectionAt : null;
      const oneAt = /^\/rs\/(\d{1,10})\/(\d{1,10})\/shipment\/([A-Za-z0-9]{1,32})$/.exec(path);
      const artifactAt = /^\/rs\/artifact\/(\d{1,10})\/([A-Za-z0-9]{1,32})\/0$/.exec(path);
      const trackAt = /^\/vis\/track\/pin\/([^/]{1,64})\/summary$/.exec(path);
      if (collectionAt || oneAt || artifactAt || trackAt) {
        const method = shipmentAt ? 'POST' : 'GET';
        if (record.method !== method) return refuse(405, 'Server', `${record.method} is not allowed here`);
        if (header('authorization') !== expectedAuth)
          return refuse(401, 'E002', 'AAA Authentication Failure');
        const media =
          collectionAt || oneAt ? SHIPMENT_MEDIA_TYPE : trackAt ? TRACK_MEDIA_TYPE : 'application/pdf';
        if (header('accept') !== media) return refuse(406, 'Server', `Accept must be ${media}`);
        if (shipmentAt && header('content-type') !== SHIPMENT_MEDIA_TYPE)
          return refuse(415, 'Server', `Content-Type must be ${SHIPMENT_MEDIA_TYPE}`);
        const language = header('accept-language');
        if (!artifactAt && language !== 'en-CA' && language !== 'fr-CA')
          return refuse(400, 'Server', `Accept-language must be en-CA or fr-CA, not ${language ?? 'absent'}`);
        if (current.answer === 'error') {
          return answer(
            current.status,
            messagesXml(current.messages ?? [{ code: 'Server', description: 'Internal error' }]),
          );
        }
        if (current.answer === 'malformed') {
          return answer(
            current.status ?? 200,
            current.body ?? '<?xml version="1.0"?>\n<shipment-info><shipm',
            media,
          );
        }
        if (current.answer === 'custom') {
          const custom = await current.respond(record);
          return answer(custom.status ?? 200, custom.body, custom.contentType ?? media);
        }
        if (shipmentAt) {
          if (shipmentAt[1] !== shipmentAt[2])
            return refuse(403, 'AA004', 'You cannot mail on behalf of the requested customer.');
          let doc: Node;
          try {
            doc = node(requestParser.parse(body, true) as Node).shipment as Node;
          } catch (err) {
            return refuse(400, 'Server', `the request is not XML: ${(err as Error).message}`);
          }
          if (!doc) return refuse(400, 'Server', 'the request is not a shipment');
          const spec = node(doc['delivery-spec']);
          const code = spec['service-code'];
          const service = text(Array.isArray(code) ? code[0] : code);
          if (!SERVICES[service]) return refuse(400, '9122', `Invalid service code: ${service}`);
          const destination = text(node(node(spec.destination)['address-details'])['postal-zip-code']);
          if (!/^[A-Z]\d[A-Z]\d[A-Z]\d$/.test(destination)) return refuse(400, '9111', 'Invalid postal code');
          const n = shipments.length + 1;
          const shipment: FakeShipment = {
            id: `34732${String(n).padStart(11, '0')}`,
            pin: `70232100${String(n).padStart(8, '0')}`,
            service,
            reference: text(doc['customer-request-id']),
            destinationPostalCode: destination,
            body,
          };
          shipments.push(shipment);
          const info = shipmentInfoXml({
            baseUrl: url,
            customer: shipmentAt[1]!,
            id: shipment.id,
            pin: shipment.pin,
            reference: shipment.reference,
          });
          if (current.answer === 'quotes' && current.breakAnswer) {
            // Made, and its answer cut in the middle: the client reads a broken 200.
            record.status = 200;
            res.writeHead(200, {
              'content-type': SHIPMENT_MEDIA_TYPE,
              'content-length': Buffer.byteLength(info),
            });
            res.write(info.slice(0, info.length / 2));
            setTimeout(() => res.destroy(), 20);
            return;
          }
          if (current.answer === 'quotes' && current.stallAnswerMs) {
            // Made, and its answer held past the client's patience.
            const stop = new AbortController();
            waiting.add(stop);
            res.on('close', () => stop.abort());
            try {
              await sleep(current.stallAnswerMs, undefined, { signal: stop.signal });
            } catch {
              return;
            } finally {
              waiting.delete(stop);
            }
          }
          return answer(200, info, SHIPMENT_MEDIA_TYPE);
        }
        if (searchAt) {
          if (searchAt[1] !== searchAt[2])
            return refuse(403, 'AA004', 'You cannot mail on behalf of the requested customer.');
          const requestId = query.get('requestId');
          if (!requestId) return refuse(400, 'Server', 'the fake searches by requestId only');
          const ids = shipments.filter((x) => x.reference === requestId).map((x) => x.id);
          return answer(
            200,
            shipmentsXml({ baseUrl: url, customer: searchAt[1]!, ids }),
            SHIPMENT_MEDIA_TYPE,
          );
        }
        if (oneAt) {
          const shipment = shipments.find((x) => x.id === oneAt[3]);
          if (!shipment || oneAt[1] !== oneAt[2]) return refuse(404, 'Server', 'No such shipment');
          return answer(
            200,
            shipmentInfoXml({
              baseUrl: url,
              customer: oneAt[1]!,
              id: shipment.id,
              pin: shipment.pin,
              reference: shipment.reference,
            }),
            SHIPMENT_MEDIA_TYPE,
          );
        }
        if (artifactAt) {
          const shipment = shipments.find((x) => x.id === artifactAt[2]);
          if (!shipment) return refuse(404, '8560', 'Artifact not found');
          return answer(200, fakeLabelPdf(`Canada Post label ${shipment.pin}`), 'application/pdf');
        }
        const pin = decodeURIComponent(trackAt![1]!);
        const shipment = shipments.find((x) => x.pin === pin);
        if (!shipment) return refuse(404, '004', 'No Pin History');
        const today = new Date().toISOString().slice(0, 10);
        return answer(
          200,
          trackingSummaryXml({
            pin,
            origin: 'M5H2N2',
            destination: shipment.destinationPostalCode,
            province: 'QC',
            service: SERVICES[shipment.service]!.en,
            mailedOn: today,
            expected: businessDaysAfter(today, SERVICES[shipment.service]!.transitDays),
            ...(delivered.has(pin) ? { delivered: delivered.get(pin)! } : {}),
          }),
          TRACK_MEDIA_TYPE,
        );
      }
      if (path !== '/rs/ship/price') return refuse(404, 'Server', `No resource at ${path}`);
      if (record.method !== 'POST') return refuse(405, 'Server', `${record.method} is not allowed here`);
      const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
      if (header('authorization') !== expected) return refuse(401, 'E002', 'AAA Authentication Failure');
      if (header('accept') !== RATE_MEDIA_TYPE)
        return refuse(406, 'Server', `Accept must be ${RATE_MEDIA_TYPE}`);
      if (header('content-type') !== RATE_MEDIA_TYPE)
        return refuse(415, 'Server', `Content-Type must be ${RATE_MEDIA_TYPE}`);
      const language = header('accept-language');
      if (language !== 'en-CA' && language !== 'fr-CA')
        return refuse(400, 'Server', `Accept-language must be en-CA or fr-CA, not ${language ?? 'absent'}`);

      if (current.answer === 'error') {
        return answer(
          current.status,
          messagesXml(current.messages ?? [{ code: 'Server', description: 'Internal error' }]),
        );
      }
      if (current.answer === 'malformed') {
        return answer(
          current.status ?? 200,
          current.body ??
            `<?xml version="1.0" encoding="UTF-8"?>\n<price-quotes xmlns="${RATE_NAMESPACE}">\n  <price-quote>\n    <service-code>DOM.RP</serv`,
        );
      }
      if (current.answer === 'custom') {
        const custom = await current.respond(record);
        return answer(custom.status ?? 200, custom.body, custom.contentType);
      }

      const today = new Date().toISOString().slice(0, 10);
      const scenario = readScenario(body, today);
      if (typeof scenario === 'string') return refuse(400, 'Server', scenario);
      const asked = scenario.services.length ? scenario.services : ['DOM.RP', 'DOM.EP', 'DOM.XP', 'DOM.PC'];
      const unknown = asked.find((code) => !SERVICES[code]);
      if (unknown) return refuse(400, '9122', `Invalid service code: ${unknown}`);
      const codes = [...new Set([...asked, ...(current.extraServices ?? [])])];
      const quotes = codes.map((code) =>
        quoteOf(code, scenario, language === 'fr-CA' ? 'fr' : 'en', current.fuelSurchargePercent ?? 10, url),
      );
      return answer(200, priceQuotesXml(quotes));
    } catch (err) {
      return answer(500, `fake Canada Post failed: ${(err as Error).message}`, 'text/plain');
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;
  return {
    url,
    requests,
    shipments,
    deliver(pin, date) {
      delivered.set(pin, date);
    },
    mailAtCounter(pin, service, destinationPostalCode) {
      shipments.push({ id: `counter-${pin}`, pin, service, reference: '', destinationPostalCode, body: '' });
    },
    setMode(next) {
      mode = next;
    },
    reset() {
      mode = DEFAULT_MODE;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const stop of waiting) stop.abort();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
