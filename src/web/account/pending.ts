// A line a person asked to add to the cart while signed out, carried through the sign-in (or the
// registration) in the form's hidden fields and the links between the two pages.
import { addToCartBody } from '../../contract/cart.ts';

export type Pending = { productId: string; quantity: number };

/** The line a form or a link carries (`add`, `quantity`); none when it is not one. */
export const pendingOf = (fields: Record<string, unknown>): Pending | undefined => {
  const parsed = addToCartBody.safeParse({ product_id: fields.add, quantity: Number(fields.quantity) });
  return parsed.success ? { productId: parsed.data.product_id, quantity: parsed.data.quantity } : undefined;
};

/** The query that carries `next` and the line to the other page (sign-in to registration). */
export const pendingQuery = (next: string, add?: Pending) =>
  new URLSearchParams({
    next,
    ...(add ? { add: add.productId, quantity: String(add.quantity) } : {}),
  }).toString();
