// Canada Post's rating API (rate-v4), as its developer documentation and XSDs say: POST
// {base}/rs/ship/price, a mailing-scenario document in, price-quotes out (or a messages
// document with an HTTP error), Basic auth with the API key's user name and password, the
// answer's language by Accept-language. Tests run it against a local server speaking the same
// wire format (test/helpers/fake-canada-post.ts), the XML checked against the official XSDs.
import { XMLParser } from 'fast-xml-parser';
import {
  type Carrier,
  CarrierError,
  type CarrierMessage,
  type CarrierRate,
  isCarrierService,
  type ParcelSpec,
} from './carrier.ts';

export const RATE_MEDIA_TYPE = 'application/vnd.cpc.ship.rate-v4+xml';
const RATE_NAMESPACE = 'http://www.canadapost.ca/ws/ship/rate-v4';

export interface CanadaPostSettings {
  /** https://soa-gw.canadapost.ca (production) or https://ct.soa-gw.canadapost.ca (development). */
  baseUrl: string;
  /** The API key's two halves. */
  username: string;
  password: string;
  /** The paying customer's number (digits). */
  customerNumber: string;
  /** A contract's id, for contract prices; absent: the customer's counter prices. */
  contractId?: string;
}

/** The most of an answer read: a price-quotes document of four services is about 4 KB. */
const MAX_ANSWER_BYTES = 256 * 1024;

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => name === 'price-quote' || name === 'message',
});

/** The mailing-scenario document for `parcel` (rating.xsd's root; every value is ours and checked). */
export function mailingScenario(
  settings: Pick<CanadaPostSettings, 'customerNumber' | 'contractId'>,
  parcel: ParcelSpec,
) {
  const kg = Math.min(99.999, Math.max(0.001, parcel.weightGrams / 1000)).toFixed(3);
  const cm = (n: number) => Math.min(999.9, Math.max(0.1, n)).toFixed(1);
  const { length, width, height } = parcel.dimensionsCm;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<mailing-scenario xmlns="${RATE_NAMESPACE}">` +
    `<customer-number>${settings.customerNumber}</customer-number>` +
    (settings.contractId ? `<contract-id>${settings.contractId}</contract-id>` : '') +
    `<expected-mailing-date>${parcel.mailingDate}</expected-mailing-date>` +
    '<parcel-characteristics>' +
    `<weight>${kg}</weight>` +
    `<dimensions><length>${cm(length)}</length><width>${cm(width)}</width><height>${cm(height)}</height></dimensions>` +
    '</parcel-characteristics>' +
    `<services>${parcel.services.map((s) => `<service-code>${s}</service-code>`).join('')}</services>` +
    `<origin-postal-code>${parcel.originPostalCode}</origin-postal-code>` +
    `<destination><domestic><postal-code>${parcel.destinationPostalCode}</postal-code></domestic></destination>` +
    '</mailing-scenario>'
  );
}

/** Dollars as written ("12.34", "-0.5") in cents; a broken figure breaks the answer. */
function cents(value: unknown, what: string): number {
  const text = typeof value === 'string' ? value.trim() : '';
  if (!/^-?\d{1,7}(\.\d{1,4})?$/.test(text))
    throw new CarrierError(`Canada Post answered ${what} "${String(value)}"`, true);
  return Math.round(Number(text) * 100);
}

const one = (value: unknown) =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/** A price-quotes document as rates, cheapest first (services we do not offer left out). */
export function parsePriceQuotes(xml: string): CarrierRate[] {
  let doc: Record<string, unknown>;
  try {
    // Validated: a document cut short must not read as fewer services.
    doc = parser.parse(xml, true) as Record<string, unknown>;
  } catch {
    throw new CarrierError('Canada Post answered a document that is not XML', true);
  }
  if (!('price-quotes' in doc)) throw new CarrierError('Canada Post answered no price-quotes document', true);
  const quotes = one(doc['price-quotes'])['price-quote'];
  const rates: CarrierRate[] = [];
  for (const raw of Array.isArray(quotes) ? quotes : []) {
    const q = one(raw);
    const service = String(q['service-code'] ?? '');
    if (!isCarrierService(service)) continue;
    const details = one(q['price-details']);
    const taxes = one(details.taxes);
    const taxCents = ['gst', 'pst', 'hst'].reduce(
      (sum, name) => sum + (taxes[name] === undefined ? 0 : cents(taxes[name], name)),
      0,
    );
    const due = cents(details.due, 'due');
    const standard = one(q['service-standard']);
    const date = standard['expected-delivery-date'];
    const transit = standard['expected-transit-time'];
    rates.push({
      service,
      priceCents: due - taxCents,
      priceWithTaxCents: due,
      deliveryDate: typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : null,
      transitDays: typeof transit === 'string' && /^\d{1,2}$/.test(transit) ? Number(transit) : null,
      guaranteed: standard['guaranteed-delivery'] === 'true',
    });
  }
  return rates.sort((a, b) => a.priceCents - b.priceCents);
}

/** The messages of an error document (messages.xsd), empty when it is not one. */
export function parseMessages(xml: string): CarrierMessage[] {
  try {
    const doc = parser.parse(xml) as Record<string, unknown>;
    const list = one(doc.messages).message;
    return (Array.isArray(list) ? list : []).map((m) => ({
      code: String(one(m).code ?? '').slice(0, 64),
      description: String(one(m).description ?? '').slice(0, 500),
    }));
  } catch {
    return [];
  }
}

/** An answer's bytes, refused past `max` (a carrier's documents are never that long). */
export async function boundedBytes(response: Response, max: number): Promise<Buffer> {
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new CarrierError(`Canada Post answered more than ${max / 1024} KB`, true);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export function canadaPost(settings: CanadaPostSettings, fetchImpl: typeof fetch = fetch): Carrier {
  const authorization = `Basic ${Buffer.from(`${settings.username}:${settings.password}`).toString('base64')}`;
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/rs/ship/price`;
  return {
    id: 'canada_post',
    async rates(parcel, { locale, signal }) {
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: 'POST',
          headers: {
            accept: RATE_MEDIA_TYPE,
            'content-type': RATE_MEDIA_TYPE,
            authorization,
            'accept-language': locale,
          },
          body: mailingScenario(settings, parcel),
          ...(signal ? { signal } : {}),
        });
      } catch (err) {
        throw new CarrierError(`Canada Post could not be reached: ${(err as Error).message}`, true);
      }
      const body = await boundedBytes(response, MAX_ANSWER_BYTES).then(
        (bytes) => bytes.toString('utf8'),
        (err: unknown) => {
          if (err instanceof CarrierError) throw err;
          throw new CarrierError(`Canada Post's answer broke off: ${(err as Error).message}`, true);
        },
      );
      if (!response.ok) {
        const messages = parseMessages(body);
        const said = messages.map((m) => `${m.code} ${m.description}`).join('; ');
        throw new CarrierError(
          `Canada Post answered ${response.status}${said ? `: ${said}` : ''}`,
          response.status >= 500 || response.status === 429,
          messages,
        );
      }
      return parsePriceQuotes(body);
    },
  };
}
