// Step "read lines": the lines a checkout holds, as read (readCheckoutStart), refused when a
// product is not on sale or there is nothing to hold.
import { conflict, notFound } from '../../../contract/errors.ts';
import type { readCheckoutStart } from '../queries.ts';
import { CheckoutRefusal } from '../refusal.ts';

export type ReadLines = Awaited<ReturnType<typeof readCheckoutStart>>['lines'];
export type CheckoutLine = ReadLines['lines'][number];

/** The lines to hold; throws CheckoutRefusal 'unavailable' (404) or 'empty' (409). */
export function checkLines(read: ReadLines): CheckoutLine[] {
  if (read.unavailable.length > 0) {
    throw new CheckoutRefusal(
      'unavailable',
      notFound('error.checkout.notOnSale', { ids: read.unavailable.join(', ') }),
      read.unavailable,
    );
  }
  if (read.lines.length === 0) throw new CheckoutRefusal('empty', conflict('error.checkout.emptyCart'));
  return read.lines;
}
