// The shipping options in both agent protocols (docs/shipping.md "Options"; docs/acp.md,
// docs/ucp.md): ACP's fulfillment_options carry every parcel's options and
// selected_fulfillment_options one per parcel; UCP's fulfillment method has a group per parcel
// with its options and selected_option_id. A platform's choice changes the totals and reaches
// the order. Every answer is checked against the official schemas by the clients.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSessions } from '../src/modules/agent-checkout/tables.ts';
import { ACP_QC, AcpClient, issuePlatform, type Receiver, startReceiver } from './helpers/acp.ts';
import type { SignedIn } from './helpers/app.ts';
import { useTestApp } from './helpers/app.ts';
import { admin, product, seller, uniqueEmail } from './helpers/builders.ts';
import { ordersOfCheckout, setClock } from './helpers/orders.ts';
import {
  issueUcpPlatform,
  type ProfileServer,
  platformProfile,
  startProfileServer,
  UCP_QC,
  UcpClient,
} from './helpers/ucp.ts';

const { t, database } = useTestApp({ env: { PUBLIC_BASE_URL: 'https://portage.test' } });

/** A Friday in Toronto: parcels handed over on Monday the 23rd. */
const FRIDAY = '2026-11-20T15:00:00.000Z';

let carrierShop: SignedIn;
let plainShop: SignedIn;
let acp: AcpClient;
let ucp: UcpClient;
let profiles: ProfileServer;
let hooks: Receiver;
beforeAll(async () => {
  setClock(t, FRIDAY);
  const boss = await admin(t.api, database);
  carrierShop = await seller(t.api, 'ON');
  await t.api.as(carrierShop).put('/sellers/me/shipping', {
    originPostalCode: 'M5H 2N2',
    originProvince: 'ON',
    rates: 'carrier',
    services: ['DOM.RP', 'DOM.XP'],
  });
  plainShop = await seller(t.api, 'QC');
  acp = new AcpClient(t.api, (await issuePlatform(t.api, boss)).apiKey, t.clock.now);
  profiles = await startProfileServer();
  hooks = await startReceiver();
  profiles.documents.set('/agent.json', { body: platformProfile(hooks.url) });
  ucp = new UcpClient(t.api, await issueUcpPlatform(t.api, boss, `${profiles.base}/agent.json`));
});
afterAll(async () => {
  await profiles.close();
  await hooks.close();
});

type Total = { type: string; amount: number };
const amount = (body: { totals: Total[] }, type: string) => body.totals.find((x) => x.type === type)?.amount;

/** A 1 kg product of each shop ($10.00 from the carrier shop, $30.00 from the plain one). */
async function twoProducts() {
  const fromToronto = await product(t.api, carrierShop, { priceCents: 1000, stockQuantity: 20 });
  const fromMontreal = await product(t.api, plainShop, { priceCents: 3000, stockQuantity: 20 });
  return { fromToronto, fromMontreal };
}

describe('ACP: fulfillment_options per parcel', () => {
  it('lists every parcel’s options, selects each parcel’s cheapest, and takes the platform’s choice', async () => {
    const { fromToronto, fromMontreal } = await twoProducts();
    const created = await acp.create({
      line_items: [
        { id: fromToronto.id, quantity: 1 },
        { id: fromMontreal.id, quantity: 1 },
      ],
      buyer: { email: uniqueEmail('acp'), first_name: 'Avery', last_name: 'Tremblay' },
      fulfillment_details: ACP_QC,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rp = `canada_post:DOM.RP@${carrierShop.id}`;
    const xp = `canada_post:DOM.XP@${carrierShop.id}`;
    const flat = `portage:standard@${plainShop.id}`;
    expect(
      created.body.fulfillment_options.map((o: Record<string, unknown>) => ({
        id: o.id,
        title: o.title,
        carrier: o.carrier,
        earliest: o.earliest_delivery_time,
        latest: o.latest_delivery_time,
        totals: o.totals,
      })),
    ).toEqual(
      // The table's Toronto to Montréal (zone 3) for a box billed 1.495 kg; the platform's
      // $8.99 within Quebec, 3 business days.
      [
        {
          id: rp,
          title: 'Canada Post Regular Parcel',
          carrier: 'Canada Post',
          earliest: '2026-11-30T00:00:00-05:00',
          latest: '2026-11-30T23:59:59-05:00',
          totals: [{ type: 'fulfillment', display_text: 'Shipping', amount: 1749 }],
        },
        {
          id: xp,
          title: 'Canada Post Xpresspost',
          carrier: 'Canada Post',
          earliest: '2026-11-25T00:00:00-05:00',
          latest: '2026-11-25T23:59:59-05:00',
          totals: [{ type: 'fulfillment', display_text: 'Shipping', amount: 2939 }],
        },
        {
          id: flat,
          title: 'Standard shipping',
          carrier: undefined,
          earliest: '2026-11-25T00:00:00-05:00',
          latest: '2026-11-25T23:59:59-05:00',
          totals: [{ type: 'fulfillment', display_text: 'Shipping', amount: 899 }],
        },
      ].sort((a, b) => (a.id.split('@')[1]! < b.id.split('@')[1]! ? -1 : 1)),
    );
    const [first] = created.body.fulfillment_options;
    expect(first.description).toMatch(/^From .+, 1 item; expected November \d+, 2026$/);
    expect(created.body.selected_fulfillment_options).toEqual(
      expect.arrayContaining([
        { type: 'shipping', option_id: rp, item_ids: [`line_${fromToronto.id}`] },
        { type: 'shipping', option_id: flat, item_ids: [`line_${fromMontreal.id}`] },
      ]),
    );
    expect(amount(created.body, 'fulfillment')).toBe(1749 + 899);

    const faster = await acp.update(created.body.id, {
      selected_fulfillment_options: [
        { type: 'shipping', option_id: xp, item_ids: [`line_${fromToronto.id}`] },
      ],
    });
    expect(faster.status, JSON.stringify(faster.body)).toBe(200);
    expect(faster.body.status).toBe('ready_for_payment');
    expect(amount(faster.body, 'fulfillment')).toBe(2939 + 899);
    expect(faster.body.selected_fulfillment_options).toContainEqual({
      type: 'shipping',
      option_id: xp,
      item_ids: [`line_${fromToronto.id}`],
    });

    const paid = await acp.pay(created.body.id);
    expect(paid.body.status).toBe('completed');
    const [session] = await database.db
      .select()
      .from(agentSessions)
      .where(eq(agentSessions.id, created.body.id));
    const orders = await ordersOfCheckout(database, session!.checkoutId!);
    expect(
      orders.map((o) => [o.sellerId, o.shippingOption, o.estimatedDelivery, o.shippingCostCents]).sort(),
    ).toEqual(
      [
        [carrierShop.id, 'canada_post:DOM.XP', '2026-11-25', 2939],
        [plainShop.id, 'portage:standard', '2026-11-25', 899],
      ].sort(),
    );
  });

  it('refuses an option id that is not one of ours (400), and holds nothing for one its parcel lacks', async () => {
    const { fromToronto } = await twoProducts();
    const created = await acp.create({
      line_items: [{ id: fromToronto.id, quantity: 1 }],
      buyer: { email: uniqueEmail('acp') },
      fulfillment_details: ACP_QC,
    });
    const bad = await acp.update(created.body.id, {
      selected_fulfillment_options: [{ type: 'shipping', option_id: 'shipping', item_ids: [] }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      type: 'invalid_request',
      code: 'invalid',
      param: '$.selected_fulfillment_options[0].option_id',
    });
    const lacking = await acp.update(created.body.id, {
      selected_fulfillment_options: [
        { type: 'shipping', option_id: `canada_post:DOM.PC@${carrierShop.id}`, item_ids: [] },
      ],
    });
    expect(lacking.status).toBe(200);
    expect(lacking.body.status).toBe('not_ready_for_payment');
    expect(lacking.body.messages).toEqual([
      expect.objectContaining({
        type: 'error',
        code: 'invalid',
        param: '$.selected_fulfillment_options',
        resolution: 'requires_buyer_input',
        content: expect.stringContaining('canada_post:DOM.PC is not a shipping option of the parcel'),
      }),
    ]);
  });
});

describe('UCP: a fulfillment group per parcel', () => {
  it('answers each parcel’s options in its group and takes a group’s selected_option_id on update', async () => {
    const { fromToronto, fromMontreal } = await twoProducts();
    const lines = [
      { id: `line_${fromToronto.id}`, item: { id: fromToronto.id }, quantity: 1 },
      { id: `line_${fromMontreal.id}`, item: { id: fromMontreal.id }, quantity: 1 },
    ];
    const buyer = { email: uniqueEmail('ucp'), first_name: 'Avery', last_name: 'Tremblay' };
    const created = await ucp.create({
      line_items: lines.map(({ item, quantity }) => ({ item, quantity })),
      buyer,
      fulfillment: { methods: [{ type: 'shipping', destinations: [UCP_QC] }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const groups = created.body.fulfillment.methods[0].groups;
    const toronto = groups.find((g: { id: string }) => g.id === `parcel:${carrierShop.id}`);
    expect(toronto).toEqual({
      id: `parcel:${carrierShop.id}`,
      line_item_ids: [`line_${fromToronto.id}`],
      options: [
        {
          id: 'canada_post:DOM.RP',
          title: 'Canada Post Regular Parcel',
          description: expect.stringMatching(/^From .+, 1 item; expected November 30, 2026$/),
          carrier: 'Canada Post',
          earliest_fulfillment_time: '2026-11-30T00:00:00-05:00',
          latest_fulfillment_time: '2026-11-30T23:59:59-05:00',
          totals: [{ type: 'total', amount: 1749 }],
        },
        expect.objectContaining({ id: 'canada_post:DOM.XP', totals: [{ type: 'total', amount: 2939 }] }),
      ],
      selected_option_id: 'canada_post:DOM.RP',
    });
    expect(groups.find((g: { id: string }) => g.id === `parcel:${plainShop.id}`)).toMatchObject({
      line_item_ids: [`line_${fromMontreal.id}`],
      options: [
        expect.objectContaining({ id: 'portage:standard', totals: [{ type: 'total', amount: 899 }] }),
      ],
      selected_option_id: 'portage:standard',
    });

    const update = (selected: string, group = `parcel:${carrierShop.id}`) =>
      ucp.update(created.body.id, {
        line_items: lines,
        buyer,
        fulfillment: {
          methods: [
            {
              id: 'shipping',
              type: 'shipping',
              line_item_ids: lines.map((l) => l.id),
              destinations: [UCP_QC],
              groups: [{ id: group, selected_option_id: selected }],
            },
          ],
        },
      });
    const faster = await update('canada_post:DOM.XP');
    expect(faster.status, JSON.stringify(faster.body)).toBe(200);
    expect(faster.body.status).toBe('ready_for_complete');
    expect(amount(faster.body, 'fulfillment')).toBe(2939 + 899);
    expect(
      faster.body.fulfillment.methods[0].groups.find(
        (g: { id: string }) => g.id === `parcel:${carrierShop.id}`,
      ).selected_option_id,
    ).toBe('canada_post:DOM.XP');

    const strange = await update('canada_post:DOM.XP', 'parcels');
    expect(strange.status).toBe(400);
    expect(strange.body).toEqual({
      code: 'invalid_request',
      content:
        "No fulfillment group parcels: name a group of the session's fulfillment (one per seller's parcel)",
    });
  });
});
