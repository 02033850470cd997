// Labels on the embedded default, without Canada Post's credentials (docs/shipping.md "Labels"): a
// sandbox label, its PDF drawn here and marked SANDBOX, a made-up tracking number; the order ships
// by it with the buyer's email, and the tracking job marks it delivered once
// SHIPPING_SANDBOX_DELIVERY_SECONDS have passed. The packing slip is a PDF for the seller only.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { orders } from '../src/modules/orders/tables.ts';
import { useTestApp } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, openCheckout, payOk } from './helpers/checkout.ts';
import { outboxRows } from './helpers/orders.ts';

const { t, database } = useTestApp({ env: { SHIPPING_SANDBOX_DELIVERY_SECONDS: '600' } });

const statusOf = async (orderId: string) =>
  (await database.db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId)))[0]?.status;

describe('a sandbox label', () => {
  it('ships the order by a made-up tracking number, and is delivered by the job after the configured time', async () => {
    t.clock.freeze();
    const s = await seller(t.api);
    await t.api
      .as(s)
      .patch('/me/seller', { street: '100 Queen St W', city: 'Toronto', postalCode: 'M5H 2N2' });
    const p = await product(t.api, s, { title: 'Érable syrup', stockQuantity: 5 });
    const b = await buyer(t.api);
    await addToCart(t.api, b, p.id, 3);
    const [orderId] = await payOk(t.api, (await openCheckout(t.api, b)).sessionId);

    const res = await t.api.as(s).post(`/orders/${orderId}/label`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.label).toMatchObject({ carrier: 'canada_post', service: 'DOM.RP', sandbox: true });
    expect(res.body.label.trackingNumber).toMatch(/^SANDBOX\d{9}$/);
    expect(res.body.order).toMatchObject({ status: 'shipped', carrier: 'Canada Post' });
    expect(await outboxRows(database, `order-shipped:${orderId}`)).toHaveLength(1);

    const pdf = await t.api.as(s).get(`/orders/${orderId}/label`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(String(pdf.body)).toMatch(/^%PDF-/);
    const slip = await t.api.as(s).get(`/orders/${orderId}/packing-slip`);
    expect(slip.status).toBe(200);
    expect(slip.headers['content-disposition']).toMatch(
      /^attachment; filename="packing-slip-\d{4}-\d{6}\.pdf"$/,
    );
    expect((await t.api.as(b).get(`/orders/${orderId}/packing-slip`)).status).toBe(403);

    t.clock.advance(599);
    await t.app.jobs.runOnce();
    expect(await statusOf(orderId!)).toBe('shipped');
    t.clock.advance(2);
    await t.app.jobs.runOnce();
    expect(await statusOf(orderId!)).toBe('delivered');
  });
});
