// Order numbers (docs/api.md "Orders"): every order gets `2026-000123`, the year of its payment in
// Eastern Time and its rank in that year, unique however many payments run at once; people read
// it on the pages, in the emails and on the invoice, and the id stays in the API and in links.
import { sql } from 'drizzle-orm';
import { extractText } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql.ts';
import { useTestApp } from './helpers/app.ts';
import { buyer, product, seller } from './helpers/builders.ts';
import { addToCart, ON_ADDRESS, openCheckout, payOk } from './helpers/checkout.ts';
import { orderNumber, outboxRows, paidOrder, setClock, ship } from './helpers/orders.ts';
import { Browser, textOf } from './helpers/web.ts';

const { t, database } = useTestApp();

const NUMBER = /^(\d{4})-(\d{6})$/;

async function numbersOf(orderIds: string[]): Promise<string[]> {
  const rows = await rowsOf<{ id: string; number: string }>(
    database.db,
    sql`select id, number from orders where id in ${orderIds}`,
  );
  return orderIds.map((id) => rows.find((r) => r.id === id)!.number);
}

describe('numbering', () => {
  it('gives concurrent purchases distinct numbers, one after the other in the year', async () => {
    const shop = await seller(t.api);
    const item = await product(t.api, shop, { priceCents: 1500, stockQuantity: 100 });
    const other = await seller(t.api, 'QC');
    const otherItem = await product(t.api, other, { priceCents: 2500, stockQuantity: 100 });
    // Twelve buyers, each with a two-seller cart (two orders a purchase), paying at once.
    const sessions = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const b = await buyer(t.api);
        await addToCart(t.api, b, item.id, 1);
        await addToCart(t.api, b, otherItem.id, 1);
        return openCheckout(t.api, b, ON_ADDRESS);
      }),
    );
    const paid = await Promise.all(sessions.map((s) => payOk(t.api, s.sessionId)));
    const ids = paid.flat();
    expect(ids).toHaveLength(24);
    const numbers = await numbersOf(ids);
    expect(new Set(numbers).size).toBe(24);
    for (const n of numbers) expect(n).toMatch(NUMBER);
    // Gap-free here (no payment rolled back): 24 ranks in a row.
    const ranks = numbers.map((n) => Number(NUMBER.exec(n)![2])).sort((a, b) => a - b);
    expect(ranks.at(-1)! - ranks[0]!).toBe(23);
    // A purchase's two orders took theirs together.
    for (const orderIds of paid) {
      const [a, b] = (await numbersOf(orderIds)).map((n) => Number(NUMBER.exec(n)![2]));
      expect(Math.abs(a! - b!)).toBe(1);
    }
  });

  it('counts the year in Eastern Time: 11:30 p.m. on December 31 in Toronto is still that year', async () => {
    // 04:30 UTC on January 1 is 11:30 p.m. on December 31 in Toronto.
    setClock(t, '2028-01-01T04:30:00Z');
    const late = await paidOrder(t);
    setClock(t, '2028-01-01T05:30:00Z');
    const first = await paidOrder(t);
    const second = await paidOrder(t);
    const [lateNumber, firstNumber, secondNumber] = await numbersOf([
      late.orderId,
      first.orderId,
      second.orderId,
    ]);
    expect(lateNumber).toMatch(/^2027-\d{6}$/);
    expect([firstNumber, secondNumber]).toEqual(['2028-000001', '2028-000002']);
    t.clock.freeze();
  });

  it('keeps numbers unique in the database itself', async () => {
    const a = await paidOrder(t);
    const b = await paidOrder(t);
    const [taken] = await numbersOf([a.orderId]);
    const refused = await database.db
      .execute(sql`update orders set number = ${taken!} where id = ${b.orderId}`)
      .then(
        () => undefined,
        (err: { cause?: { code?: string }; code?: string }) => err.cause?.code ?? err.code,
      );
    expect(refused).toBe('23505');
  });
});

describe('where people read it', () => {
  it('is the order’s name in the API’s answers beside its id, in its emails and on its invoice', async () => {
    const paid = await paidOrder(t);
    const number = await orderNumber(t, paid.buyer, paid.orderId);
    expect(number).toMatch(NUMBER);
    const list = await t.api.as(paid.buyer).get('/orders');
    expect(list.body.orders.find((o: { id: string }) => o.id === paid.orderId)).toMatchObject({
      id: paid.orderId,
      number,
    });
    expect((await t.api.as(paid.seller).get('/sellers/me/orders')).body.orders[0]).toMatchObject({
      id: paid.orderId,
      number,
    });

    const [mail] = await outboxRows(database, `order-paid:${paid.session.sessionId}`);
    expect(mail!.textBody).toContain(`(order number ${number})`);
    expect(mail!.textBody).not.toMatch(/order number orders:/);
    await ship(t, paid.seller, paid.orderId);
    const [shipped] = await outboxRows(database, `order-shipped:${paid.orderId}`);
    expect(shipped!.textBody).toContain(`Order number: ${number}`);

    const pdf = await t.app.inject({
      method: 'GET',
      url: `/orders/${encodeURIComponent(paid.orderId)}/invoice`,
      headers: { authorization: `Bearer ${paid.buyer.token}` },
    });
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="invoice-${number}.pdf"`);
    const { text } = await extractText(Uint8Array.from(pdf.rawPayload), { mergePages: true });
    expect(text).toContain(`Invoice number ${number}`);
    expect(text).toContain(`Order number ${number}`);
    expect(text).not.toContain(paid.orderId.slice('orders:'.length));
  });

  it('names the order on the buyer’s and the seller’s pages, never its id', async () => {
    const paid = await paidOrder(t);
    const number = await orderNumber(t, paid.buyer, paid.orderId);
    const key = paid.orderId.slice('orders:'.length);
    const b = new Browser(t.app);
    await b.signIn(paid.buyer);
    const list = await b.get('/account/orders');
    expect(textOf(list.html)).toContain(number);
    expect(textOf(list.html)).not.toContain(key);
    const page = await b.get(`/account/orders/${encodeURIComponent(paid.orderId)}`);
    expect(page.html).toContain(`<h1>Order ${number}</h1>`);
    expect(textOf(page.html)).not.toContain(key);
    const purchase = await b.get(`/account/purchases/${encodeURIComponent(paid.session.sessionId)}`);
    expect(textOf(purchase.html)).toContain(number);

    const s = new Browser(t.app);
    await s.signIn(paid.seller);
    const orders = await s.get('/console/orders');
    expect(textOf(orders.html)).toContain(number);
    expect(textOf(orders.html)).not.toContain(key);
    const one = await s.get(`/console/orders/${encodeURIComponent(paid.orderId)}`);
    expect(one.html).toContain(`<h1>Order ${number}</h1>`);
    expect(textOf(one.html)).not.toContain(key);
  });
});
