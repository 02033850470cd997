// Why a checkout could not hold, as a structured problem: a reason a protocol adapter maps to
// its own codes, the products it names, and the error POST /checkout answers (a message key and
// its values; words are made when the answer leaves).
import { AppError } from '../../contract/errors.ts';
import { type Text, text } from '../../contract/i18n.ts';

/** Why a checkout could not hold: the 409 (or 400, 404) POST /checkout answers, and what a protocol adapter tells its agent. */
export type RefusalReason =
  | 'empty'
  | 'unavailable'
  | 'unverified_limit'
  | 'cooling_down'
  | 'no_such_coupon'
  | 'coupon'
  | 'unshippable'
  | 'shipping_choice'
  | 'out_of_stock'
  | 'opening';

/** A checkout refused: an AppError as before, with the reason and the products it names. */
export class CheckoutRefusal extends AppError {
  constructor(
    readonly reason: RefusalReason,
    error: AppError,
    readonly productIds: string[] = [],
  ) {
    super(error.code, error.statusCode, error.text, error.problems);
  }
}

/** Messages said one after the other, joined by `by` ('. ' or '; '): put into words with the answer. */
export function listOf(items: Text[], by: 'period' | 'semicolon'): Text | string {
  const key = by === 'period' ? 'error.checkout.listByPeriod' : 'error.checkout.listBySemicolon';
  const [first, ...rest] = items;
  if (!first) return '';
  return rest.length === 0 ? first : text(key, { first, rest: listOf(rest, by) });
}
