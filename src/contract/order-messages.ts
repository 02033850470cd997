// Wire schemas of the messages between an order's buyer and its seller (docs/api.md "Messages").
import { z } from 'zod';
import { unixSeconds } from './common.ts';

export const MESSAGE_MAX = 2000;
/** An order holds at most this many messages: a conversation, not a chat room. */
export const MAX_MESSAGES_PER_ORDER = 200;

export const sendMessageBody = z.strictObject({
  body: z
    .string()
    .trim()
    .min(1, 'validation.messageEmpty')
    .max(MESSAGE_MAX, 'validation.atMostCharacters')
    .describe('What to say to the other side of the order (no links; the addresses stay private)'),
});

export const orderMessage = z
  .object({
    id: z.string(),
    order_id: z.string(),
    from: z.enum(['buyer', 'seller', 'admin']),
    mine: z.boolean().describe('Written by the caller'),
    body: z.string(),
    created_at: unixSeconds,
  })
  .meta({ id: 'OrderMessage' });

export const orderMessageList = z.object({ messages: z.array(orderMessage) });
