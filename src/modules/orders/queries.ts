// The orders module's statements that its services call by name (more of its SQL still sits in
// service.ts; see docs/decisions.md, issue 39).
import { getTableColumns, sql } from 'drizzle-orm';
import { ph, query } from '../../db/sql.ts';
import type { MailNames } from '../auth/sellers.ts';
import type { RequestContext } from '../context.ts';
import { orderItems, orders } from './tables.ts';

export type MailItem = { name: string; quantity: number; unitPriceCents: number; position: number };

const orderForMailStatement = query('orders_for_mail', (db, name) =>
  db
    .select({
      ...getTableColumns(orders),
      items: sql<
        MailItem[]
      >`(select coalesce(json_agg(json_build_object('name', i.name, 'quantity', i.quantity,
        'unitPriceCents', i.unit_price_cents, 'position', i.position) order by i.position), '[]')
        from ${orderItems} i where i.order_id = ${orders.id})`,
      mailNames: sql<MailNames>`(select n from portage_mail_names(${orders}.buyer_id, array[${orders}.seller_id]) as n)`,
    })
    .from(orders)
    .where(sql`${orders.id} = ${ph('orderId')}`)
    .prepare(name),
);

/** An order as its emails show it, in one statement: its row, its items, its buyer's and shop's names. */
export async function orderForMail(ctx: RequestContext, orderId: string) {
  const [row] = await orderForMailStatement(ctx.db, { orderId });
  return row;
}
