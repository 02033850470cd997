// An order's carrier label as the API answers it (POST /orders/:orderId/label; docs/shipping.md "Labels").
import { z } from 'zod';
import { unixSeconds } from './common.ts';
import { orderDetail } from './orders.ts';

export const orderLabel = z
  .object({
    carrier: z.literal('canada_post'),
    service: z.string().describe('The Canada Post service bought: the order’s option, else `DOM.RP`'),
    trackingNumber: z.string().describe('The parcel’s PIN; the order’s `trackingNumber` too'),
    sandbox: z
      .boolean()
      .describe('Made without carrier credentials: not postage, its tracking number made up (SANDBOX…)'),
    labelUrl: z.string().describe('The label’s PDF: `GET` it signed in as the order’s seller or an admin'),
    boughtAt: unixSeconds,
  })
  .meta({ id: 'OrderLabel' });

export const buyLabelAnswer = z.object({ label: orderLabel, order: orderDetail }).meta({ id: 'BoughtLabel' });

/** Where an order's label and packing slip are served (GET, signed in as its seller or an admin). */
export const labelPath = (orderId: string) => `/orders/${encodeURIComponent(orderId)}/label`;
export const packingSlipPath = (orderId: string) => `/orders/${encodeURIComponent(orderId)}/packing-slip`;
