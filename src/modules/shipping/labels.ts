// Canada Post's contract shipping API (shipment-v8), as its developer documentation and
// shipment.xsd say: POST {base}/rs/{mailed-by}/{mobo}/shipment with a shipment document
// (application/vnd.cpc.shipment-v8+xml as Content-Type and Accept), a shipment-info document back
// (its shipment id, the tracking PIN, and links: `label` is the artifact to GET as
// application/pdf), or a messages document with an HTTP error. A purchase whose answer was lost
// (a timeout or a broken connection once the request was sent, a broken 200) is an
// UncertainOutcome: Canada Post may have made the shipment; Get Shipments by its
// customer-request-id (GET {base}/rs/{mailed-by}/{mobo}/shipment?requestId=…, a `shipments`
// document of links) and Get Shipment on each link (a shipment-info) find it (findShipment).
// Basic auth and Accept-language as
// the rating API (canada-post.ts). Tests run it against test/helpers/fake-canada-post.ts, the
// documents checked against the official XSDs (docs/shipping.md "Labels").
import { XMLParser } from 'fast-xml-parser';
import { boundedBytes, type CanadaPostSettings, parseMessages } from './canada-post.ts';
import { CarrierError, type CarrierService } from './carrier.ts';

export const SHIPMENT_MEDIA_TYPE = 'application/vnd.cpc.shipment-v8+xml';
const SHIPMENT_NAMESPACE = 'http://www.canadapost.ca/ws/shipment-v8';

/** Who sends a parcel and where it goes: what the label prints. */
export interface LabelAddress {
  name: string;
  street: string;
  line2?: string | null;
  city: string;
  /** Two letters ("ON"). */
  province: string;
  /** Six characters, no space ("M5H2N2"). */
  postalCode: string;
  phone?: string | null;
}

/** One parcel to buy a label for. */
export interface ShipmentSpec {
  /** Ours, printed on the label and kept by the carrier: the order's number ("2026-000123"). */
  reference: string;
  service: CarrierService;
  /** YYYY-MM-DD: the day the parcel is handed over. */
  mailingDate: string;
  /** The shop: its name is the label's company. */
  sender: LabelAddress & { company: string };
  destination: LabelAddress;
  /** Whole grams, at least 1. */
  weightGrams: number;
  dimensionsCm: { length: number; width: number; height: number };
}

/** What the carrier answers of a shipment bought. */
export interface ShipmentInfo {
  shipmentId: string;
  trackingPin: string;
  /** Where the label's PDF is fetched (the carrier's artifact link). */
  labelUrl: string;
}

/** The latest of a parcel's tracking, as the carrier summarises it. */
export interface TrackingSummary {
  /** YYYY-MM-DD when it was delivered; null while it is not. */
  deliveredOn: string | null;
  /** The latest event in the carrier's words, when it says. */
  event: string | null;
}

/**
 * A purchase whose outcome is unknown: the request may have reached Canada Post, which may have made
 * (and billed) the shipment, but its answer was lost (a timeout, a broken connection, a 200 that
 * could not be read, a gateway timeout). Not "nothing bought": look for it before buying again.
 */
export class UncertainOutcome extends CarrierError {
  constructor(message: string) {
    super(message, true);
    this.name = 'UncertainOutcome';
  }
}

/** A carrier that sells labels and follows their parcels: Canada Post, or the sandbox (sandbox-labels.ts). */
export interface LabelCarrier {
  /** True for the sandbox: its labels are not postage, its tracking numbers are made up. */
  readonly sandbox: boolean;
  /**
   * Buys the shipment. A CarrierError when nothing was bought (refused, unreachable, an error
   * answer); an UncertainOutcome when it may have been.
   */
  createShipment(
    spec: ShipmentSpec,
    opts: { locale: 'en-CA' | 'fr-CA'; signal?: AbortSignal },
  ): Promise<ShipmentInfo>;
  /**
   * The shipment bought with `reference` as its customer-request-id, if the carrier has one (at
   * most MAX_SHIPMENTS_LOOKED_AT of its shipments read); null when it has none. A CarrierError
   * when it could not say.
   */
  findShipment(
    reference: string,
    opts: { locale: 'en-CA' | 'fr-CA'; signal?: AbortSignal },
  ): Promise<ShipmentInfo | null>;
  /** The label's PDF. */
  label(labelUrl: string, opts: { signal?: AbortSignal }): Promise<Buffer>;
  trackingSummary(
    pin: string,
    opts: { locale: 'en-CA' | 'fr-CA'; signal?: AbortSignal; shippedAt: Date; now: Date },
  ): Promise<TrackingSummary>;
}

/** What buying labels and following parcels need (app.ts makes it from config.shipping). */
export interface LabelDeps {
  /** Canada Post with credentials, else the sandbox. */
  carrier: LabelCarrier;
  /** The sandbox: it follows the sandbox's parcels even once credentials are set. */
  sandbox: LabelCarrier;
  /** The phone printed as the sender's on Canada Post's labels (CANADA_POST_SENDER_PHONE). */
  senderPhone: string;
  /** How long before a parcel not yet delivered is asked about again (ms). */
  recheckMs: number;
  /** The sandbox's parcels are delivered this long after their label (ms). */
  sandboxDeliveryMs: number;
  /** The most a carrier's answer is waited for (ms): a purchase, a label's PDF, a search. */
  timeoutMs: number;
}

/** A label PDF is tens of kilobytes; a shipment-info document a few. */
const MAX_LABEL_BYTES = 5 * 1024 * 1024;
const MAX_DOCUMENT_BYTES = 256 * 1024;

const xmlText = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

/**
 * A value people typed, as the XSD's normalizedString of at most `max` characters allows it: no
 * control characters or line breaks, spaces collapsed, cut to length, then escaped.
 */
export function field(value: string | null | undefined, max: number): string {
  const plain = Array.from(
    (value ?? '')
      .replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  )
    .slice(0, max)
    .join('')
    .trim();
  return xmlText(plain);
}

const postal = (code: string) => code.replace(/\s+/g, '').toUpperCase();

/** The shipment document for `spec` (shipment.xsd's `shipment`; every value bounded and escaped). */
export function shipmentDocument(
  settings: Pick<CanadaPostSettings, 'contractId'>,
  spec: ShipmentSpec,
): string {
  const kg = Math.min(99.999, Math.max(0.001, spec.weightGrams / 1000)).toFixed(3);
  const cm = (n: number) => Math.min(999.9, Math.max(0.1, n)).toFixed(1);
  const { length, width, height } = spec.dimensionsCm;
  const s = spec.sender;
  const d = spec.destination;
  const line2 = (v: string | null | undefined) =>
    field(v, 44) ? `<address-line-2>${field(v, 44)}</address-line-2>` : '';
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<shipment xmlns="${SHIPMENT_NAMESPACE}">` +
    `<customer-request-id>${field(spec.reference, 35)}</customer-request-id>` +
    // No manifest: the shipment is sent to Canada Post with its label (docs/shipping.md "Labels").
    '<transmit-shipment>true</transmit-shipment>' +
    `<requested-shipping-point>${postal(spec.sender.postalCode)}</requested-shipping-point>` +
    `<expected-mailing-date>${spec.mailingDate}</expected-mailing-date>` +
    '<delivery-spec>' +
    `<service-code>${spec.service}</service-code>` +
    '<sender>' +
    (field(s.name, 44) ? `<name>${field(s.name, 44)}</name>` : '') +
    `<company>${field(s.company, 44)}</company>` +
    `<contact-phone>${field(s.phone, 25)}</contact-phone>` +
    '<address-details>' +
    `<address-line-1>${field(s.street, 44)}</address-line-1>${line2(s.line2)}` +
    `<city>${field(s.city, 40)}</city><prov-state>${field(s.province, 2)}</prov-state>` +
    `<country-code>CA</country-code><postal-zip-code>${postal(s.postalCode)}</postal-zip-code>` +
    '</address-details>' +
    '</sender>' +
    '<destination>' +
    `<name>${field(d.name, 44)}</name>` +
    (field(d.phone, 25) ? `<client-voice-number>${field(d.phone, 25)}</client-voice-number>` : '') +
    '<address-details>' +
    `<address-line-1>${field(d.street, 44)}</address-line-1>${line2(d.line2)}` +
    `<city>${field(d.city, 40)}</city><prov-state>${field(d.province, 2)}</prov-state>` +
    `<country-code>CA</country-code><postal-zip-code>${postal(d.postalCode)}</postal-zip-code>` +
    '</address-details>' +
    '</destination>' +
    '<parcel-characteristics>' +
    `<weight>${kg}</weight>` +
    `<dimensions><length>${cm(length)}</length><width>${cm(width)}</width><height>${cm(height)}</height></dimensions>` +
    '</parcel-characteristics>' +
    '<print-preferences><output-format>4x6</output-format><encoding>PDF</encoding></print-preferences>' +
    '<preferences><show-packing-instructions>false</show-packing-instructions>' +
    '<show-postage-rate>false</show-postage-rate><show-insured-value>false</show-insured-value></preferences>' +
    `<references><customer-ref-1>${field(spec.reference, 35)}</customer-ref-1></references>` +
    '<settlement-info>' +
    (settings.contractId ? `<contract-id>${settings.contractId}</contract-id>` : '') +
    // A contract's shipments go on its account; without one, the card the account keeps on file.
    `<intended-method-of-payment>${settings.contractId ? 'Account' : 'CreditCard'}</intended-method-of-payment>` +
    '</settlement-info>' +
    '</delivery-spec>' +
    '</shipment>'
  );
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => name === 'link' || name === 'pin-summary',
});

type Node = Record<string, unknown>;
const node = (value: unknown): Node => (typeof value === 'object' && value !== null ? (value as Node) : {});
const textOf = (value: unknown): string =>
  typeof value === 'string'
    ? value.trim()
    : typeof value === 'object' && value
      ? textOf(node(value)['#text'])
      : '';

function parseDocument(xml: string, root: string): Node {
  let doc: Node;
  try {
    doc = parser.parse(xml, true) as Node;
  } catch {
    throw new CarrierError('Canada Post answered a document that is not XML', true);
  }
  if (!(root in doc)) throw new CarrierError(`Canada Post answered no ${root} document`, true);
  return node(doc[root]);
}

/**
 * A shipment-info document: its id, PIN and label link. The link must be on `base`'s origin: a
 * document that points elsewhere is not followed (the label is fetched with our credentials).
 */
export function parseShipmentInfo(xml: string, base: string): ShipmentInfo {
  return shipmentInfoOf(parseDocument(xml, 'shipment-info'), base);
}

/** The customer-request-id of a shipment-info document ('' when it has none). */
export function requestIdOf(xml: string): string {
  return textOf(parseDocument(xml, 'shipment-info')['customer-request-id']);
}

/**
 * A `shipments` document (Get Shipments): the links to its shipments (rel `shipment`), those on
 * `base`'s origin only, in its order.
 */
export function parseShipmentLinks(xml: string, base: string): string[] {
  const shipments = parseDocument(xml, 'shipments');
  const links = Array.isArray(shipments.link) ? shipments.link.map(node) : [];
  const origin = new URL(base).origin;
  return links.flatMap((l) => {
    if (l.rel !== 'shipment' || typeof l.href !== 'string') return [];
    try {
      const url = new URL(l.href);
      return url.origin === origin ? [url.href] : [];
    } catch {
      return [];
    }
  });
}

function shipmentInfoOf(info: Node, base: string): ShipmentInfo {
  const shipmentId = textOf(info['shipment-id']);
  const trackingPin = textOf(info['tracking-pin']);
  const links = node(info.links).link;
  const label = (Array.isArray(links) ? links : []).map(node).find((l) => l.rel === 'label');
  if (!/^[A-Za-z0-9]{1,32}$/.test(shipmentId))
    throw new CarrierError(`Canada Post answered shipment id "${shipmentId}"`, true);
  if (!/^[A-Z0-9]{11,16}$/.test(trackingPin))
    throw new CarrierError(`Canada Post answered tracking PIN "${trackingPin}"`, true);
  const href = typeof label?.href === 'string' ? label.href : '';
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw new CarrierError('Canada Post answered no label link', true);
  }
  if (url.origin !== new URL(base).origin)
    throw new CarrierError(`Canada Post's label link is on another host (${url.host})`, false);
  return { shipmentId, trackingPin, labelUrl: url.href };
}

/** A tracking-summary document (track.xsd, the v2 namespace): delivered when it has a delivery date. */
export function parseTrackingSummary(xml: string): TrackingSummary {
  const summary = parseDocument(xml, 'tracking-summary');
  const pins = summary['pin-summary'];
  const pin = node(Array.isArray(pins) ? pins[0] : undefined);
  const delivered = textOf(pin['actual-delivery-date']);
  const event = textOf(pin['event-description']);
  return {
    deliveredOn: /^\d{4}-\d{2}-\d{2}$/.test(delivered) ? delivered : null,
    event: event ? event.slice(0, 200) : null,
  };
}

/**
 * Failures of a connection that never carried the request: refused, no such host, no route, the
 * connection (not the answer) timing out, a certificate refused. Anything else may have come after
 * the request was sent.
 */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Whether fetch's failure says the request never left (fetch wraps the socket's error as `cause`). */
export function neverSent(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } })?.cause;
  const codes = [cause?.code, ...(cause?.errors ?? []).map((e) => e?.code)].filter(
    (c): c is string => typeof c === 'string',
  );
  return codes.length > 0 && codes.every((c) => NOT_SENT.has(c));
}

/**
 * One request to Canada Post: its answer's bytes when it is 2xx; a CarrierError otherwise
 * (retryable when it was unreachable, slow, 5xx or 429; with its messages when it refused). A POST
 * whose outcome is unknown is an UncertainOutcome: a failure once the request may have been sent
 * (a timeout, a reset), a 2xx whose body broke off, a gateway timeout (504: the gateway stopped
 * waiting, Canada Post may not have). An error answer otherwise says nothing was made.
 */
export async function askCanadaPost(
  fetchImpl: typeof fetch,
  settings: CanadaPostSettings,
  url: string,
  init: { method: 'GET' | 'POST'; accept: string; contentType?: string; locale?: string; body?: string },
  signal: AbortSignal | undefined,
  max = MAX_DOCUMENT_BYTES,
): Promise<{ bytes: Buffer; contentType: string }> {
  const authorization = `Basic ${Buffer.from(`${settings.username}:${settings.password}`).toString('base64')}`;
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: init.method,
      headers: {
        accept: init.accept,
        authorization,
        ...(init.contentType ? { 'content-type': init.contentType } : {}),
        ...(init.locale ? { 'accept-language': init.locale } : {}),
      },
      ...(init.body === undefined ? {} : { body: init.body }),
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    const cause = (err as { cause?: { message?: unknown } }).cause?.message;
    const said = `Canada Post could not be reached: ${(err as Error).message}${typeof cause === 'string' ? ` (${cause})` : ''}`;
    if (init.method === 'POST' && !neverSent(err))
      throw new UncertainOutcome(`${said} (after the request may have been sent)`);
    throw new CarrierError(said, true);
  }
  const uncertain = init.method === 'POST' && (response.ok || response.status === 504);
  const bytes = await boundedBytes(response, response.ok ? max : MAX_DOCUMENT_BYTES).catch((err: unknown) => {
    const said =
      err instanceof CarrierError ? err.message : `Canada Post's answer broke off: ${(err as Error).message}`;
    if (uncertain) throw new UncertainOutcome(`${said} (answering ${response.status})`);
    if (err instanceof CarrierError) throw err;
    throw new CarrierError(said, true);
  });
  if (response.status === 504 && init.method === 'POST')
    throw new UncertainOutcome('Canada Post answered 504: its gateway stopped waiting for the shipment');
  if (!response.ok) {
    const messages = parseMessages(bytes.toString('utf8'));
    const said = messages.map((m) => `${m.code} ${m.description}`).join('; ');
    throw new CarrierError(
      `Canada Post answered ${response.status}${said ? `: ${said}` : ''}`,
      response.status >= 500 || response.status === 429 || response.status === 408,
      messages,
    );
  }
  return { bytes, contentType: response.headers.get('content-type') ?? '' };
}

export const TRACK_MEDIA_TYPE = 'application/vnd.cpc.track-v2+xml';
/** The most shipments a search reads (one request each): an order has one, two if a claim lapsed mid-purchase. */
export const MAX_SHIPMENTS_LOOKED_AT = 5;

/** Canada Post's shipment, label and tracking-summary calls over one account. */
export function canadaPostLabels(
  settings: CanadaPostSettings,
  fetchImpl: typeof fetch = fetch,
): LabelCarrier {
  const base = settings.baseUrl.replace(/\/+$/, '');
  const customer = settings.customerNumber;
  return {
    sandbox: false,
    async createShipment(spec, { locale, signal }) {
      const { bytes } = await askCanadaPost(
        fetchImpl,
        settings,
        // Mailed by the account's customer, on its own behalf.
        `${base}/rs/${customer}/${customer}/shipment`,
        {
          method: 'POST',
          accept: SHIPMENT_MEDIA_TYPE,
          contentType: SHIPMENT_MEDIA_TYPE,
          locale,
          body: shipmentDocument(settings, spec),
        },
        signal,
      );
      try {
        return parseShipmentInfo(bytes.toString('utf8'), base);
      } catch (err) {
        // Canada Post answered 200: the shipment was made, whatever its document says.
        throw new UncertainOutcome(`Canada Post sold it, but: ${(err as Error).message}`);
      }
    },
    async findShipment(reference, { locale, signal }) {
      // Get Shipments by customer-request-id (ours is the order's number): only this order's.
      const { bytes } = await askCanadaPost(
        fetchImpl,
        settings,
        `${base}/rs/${customer}/${customer}/shipment?requestId=${encodeURIComponent(reference)}`,
        { method: 'GET', accept: SHIPMENT_MEDIA_TYPE, locale },
        signal,
      );
      const links = parseShipmentLinks(bytes.toString('utf8'), base);
      for (const link of links.slice(0, MAX_SHIPMENTS_LOOKED_AT)) {
        const shipment = await askCanadaPost(
          fetchImpl,
          settings,
          link,
          { method: 'GET', accept: SHIPMENT_MEDIA_TYPE, locale },
          signal,
        );
        const xml = shipment.bytes.toString('utf8');
        if (requestIdOf(xml) === reference) return parseShipmentInfo(xml, base);
      }
      return null;
    },
    async label(labelUrl, { signal }) {
      if (new URL(labelUrl).origin !== new URL(base).origin)
        throw new CarrierError('The label link is not on Canada Post’s host', false);
      const { bytes, contentType } = await askCanadaPost(
        fetchImpl,
        settings,
        labelUrl,
        { method: 'GET', accept: 'application/pdf' },
        signal,
        MAX_LABEL_BYTES,
      );
      if (!contentType.startsWith('application/pdf') || bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
        throw new CarrierError(`Canada Post answered a label that is not a PDF (${contentType})`, true);
      return bytes;
    },
    async trackingSummary(pin, { locale, signal }) {
      if (!/^[A-Z0-9]{11,16}$/.test(pin)) throw new CarrierError(`"${pin}" is not a Canada Post PIN`, false);
      const { bytes } = await askCanadaPost(
        fetchImpl,
        settings,
        `${base}/vis/track/pin/${pin}/summary`,
        { method: 'GET', accept: TRACK_MEDIA_TYPE, locale },
        signal,
      );
      return parseTrackingSummary(bytes.toString('utf8'));
    },
  };
}
