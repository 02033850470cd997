// Checkout with Canada Post configured (docs/shipping.md "Rates"): the parcel's options are the
// carrier's answer, fetched before the transaction and cached; a carrier slower than the budget,
// refusing or down leaves the parcel to the rate table, and says so; a second checkout of the
// same parcel asks the carrier nothing. The carrier is a local server speaking its XML.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACP_ON, AcpClient, issuePlatform } from './helpers/acp.ts';
import type { SignedIn } from './helpers/app.ts';
import { admin, buyer, product, seller, uniqueEmail } from './helpers/builders.ts';
import { useCanadaPostApp } from './helpers/canada-post-app.ts';
import { addToCart, checkout, QC_ADDRESS } from './helpers/checkout.ts';
import { setClock } from './helpers/orders.ts';

const { t, database, carrier } = useCanadaPostApp({ SHIPPING_RATE_BUDGET_MS: '300' });

/** A Friday in Toronto: parcels handed over on Monday the 23rd. */
const FRIDAY = '2026-11-20T15:00:00.000Z';

let shop: SignedIn;
let productId: string;
beforeAll(async () => {
  setClock(t, FRIDAY);
  shop = await seller(t.api);
  await t.api.as(shop).put('/sellers/me/shipping', {
    originPostalCode: 'M5H 2N2',
    originProvince: 'ON',
    rates: 'carrier',
    services: ['DOM.RP', 'DOM.EP', 'DOM.XP', 'DOM.PC'],
  });
  productId = (await product(t.api, shop, { priceCents: 1000, stockQuantity: 50 })).id;
});
beforeEach(() => carrier.reset());

/** A buyer with the product in their cart, checking out to Montréal. */
async function checkoutToMontreal(headers: Record<string, string> = {}, weight?: number) {
  const b = await buyer(t.api);
  await addToCart(t.api, b, productId, weight ?? 1);
  return checkout(t.api, b, { shipping_address: QC_ADDRESS }, headers);
}

describe('checkout rated by Canada Post', () => {
  it('offers the carrier’s services at its prices before tax and its dates, asked once per parcel', async () => {
    const res = await checkoutToMontreal();
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The fake's prices of a 1.495 kg box (billed by volume) with its 10% fuel surcharge, taxes left out.
    expect(
      res.body.parcels[0].shippingOptions.map((o: Record<string, unknown>) => [
        o.id,
        o.priceCents,
        o.deliveryDate,
        o.ratedBy,
      ]),
    ).toEqual([
      ['canada_post:DOM.RP', 1361, '2026-11-27', 'carrier'],
      ['canada_post:DOM.EP', 1566, '2026-11-26', 'carrier'],
      ['canada_post:DOM.XP', 2240, '2026-11-25', 'carrier'],
      ['canada_post:DOM.PC', 3655, '2026-11-24', 'carrier'],
    ]);
    expect(res.body.shippingCostCents).toBe(1361);
    expect(carrier.requests).toHaveLength(1);
    const [request] = carrier.requests;
    expect(request!.headers['accept-language']).toBe('en-CA');
    expect(request!.body).toContain('<origin-postal-code>M5H2N2</origin-postal-code>');
    expect(request!.body).toContain('<postal-code>H3A3G4</postal-code>');
    expect(request!.body).toContain('<expected-mailing-date>2026-11-23</expected-mailing-date>');

    // Another buyer, the same parcel to the same place: the cached answer, no second request.
    const again = await checkoutToMontreal();
    expect(again.body.parcels[0].shippingOptions[0]).toMatchObject({ priceCents: 1361, ratedBy: 'carrier' });
    expect(carrier.requests).toHaveLength(1);
  });

  it('asks in French for a French reader', async () => {
    const res = await checkoutToMontreal({ 'accept-language': 'fr-CA' }, 2);
    expect(res.status).toBe(201);
    expect(carrier.requests.map((r) => r.headers['accept-language'])).toEqual(['fr-CA']);
    expect(res.body.parcels[0].shippingOptions[0]).toMatchObject({
      name: 'Postes Canada Colis standard',
      ratedBy: 'carrier',
    });
  });

  it('a carrier slower than the budget leaves the parcel to the table, and is not waited for again', async () => {
    carrier.setMode({ answer: 'quotes', delayMs: 3000 });
    const res = await checkoutToMontreal({}, 3);
    expect(res.status).toBe(201);
    expect(res.body.parcels[0].shippingOptions.map((o: { ratedBy: string }) => o.ratedBy)).toEqual([
      'table',
      'table',
      'table',
      'table',
    ]);
    expect(carrier.requests).toHaveLength(1);
    const again = await checkoutToMontreal({}, 3);
    expect(again.body.parcels[0].shippingOption.ratedBy).toBe('table');
    expect(carrier.requests).toHaveLength(1);
  });

  it('a refusal (400 with its messages) or an outage (500) is priced by the table too', async () => {
    carrier.setMode({
      answer: 'error',
      status: 400,
      messages: [{ code: '9111', description: 'Invalid postal code' }],
    });
    const refused = await checkoutToMontreal({}, 4);
    expect(refused.status).toBe(201);
    expect(refused.body.parcels[0].shippingOption.ratedBy).toBe('table');
    carrier.setMode({ answer: 'error', status: 500 });
    const down = await checkoutToMontreal({}, 5);
    expect(down.status).toBe(201);
    expect(down.body.parcels[0].shippingOption.ratedBy).toBe('table');
    expect(carrier.requests).toHaveLength(2);
  });
});

describe('an agent platform’s session rated by Canada Post', () => {
  it('fetches the rates before the hold: the ACP options are the carrier’s, asked once', async () => {
    const acp = new AcpClient(
      t.api,
      (await issuePlatform(t.api, await admin(t.api, database))).apiKey,
      t.clock.now,
    );
    const created = await acp.create({
      line_items: [{ id: productId, quantity: 5 }],
      buyer: { email: uniqueEmail('acp') },
      // Toronto: a destination no test above asked for (their answers and failures are cached).
      fulfillment_details: ACP_ON,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(carrier.requests).toHaveLength(1);
    // 5 kg: the fake's Regular Parcel is 1050 + 125 x 5 = 1675, plus 10% fuel (167.5, to 168): 1843.
    expect(created.body.fulfillment_options[0]).toMatchObject({
      id: `canada_post:DOM.RP@${shop.id}`,
      totals: [expect.objectContaining({ amount: 1843 })],
    });
    // An update that changes nothing of the parcel asks the carrier nothing.
    const again = await acp.update(created.body.id, {
      buyer: { email: uniqueEmail('acp'), first_name: 'Avery' },
    });
    expect(again.status).toBe(200);
    expect(carrier.requests).toHaveLength(1);
  });
});
