// Step "check holds": nobody keeps stock from others. An unverified account holds a few units of
// a product, in all its checkouts together (the cart's and every platform's hold), and a hold let
// lapse or canceled is not taken again at once (a re-checkout does not extend one).
import { isoSecond } from '../../../contract/common.ts';
import { conflict } from '../../../contract/errors.ts';
import { text } from '../../../contract/i18n.ts';
import { CheckoutRefusal, listOf } from '../refusal.ts';

/** After a hold lapses unpaid, how long its buyer waits before holding that product again. */
export const HOLD_COOLDOWN_SECONDS = 15 * 60;
/** The most units of one product an account whose email is not verified may hold. */
export const UNVERIFIED_MAX_UNITS = 5;

interface Line {
  variantId: string;
  title: string;
  quantity: number;
}

/** Throws CheckoutRefusal 'unverified_limit' or 'cooling_down' (409) when a line may not be held now. */
export function checkHolds(
  lines: Line[],
  facts: {
    verified: boolean;
    heldElsewhere: Array<{ variantId: string; units: number }>;
    lapsed: Array<{ variantId: string; lapsedAt: number }>;
  },
): void {
  if (!facts.verified) refuseOverUnverifiedCap(lines, facts.heldElsewhere);
  refuseCoolingDown(lines, facts.lapsed);
}

function refuseOverUnverifiedCap(lines: Line[], heldElsewhere: Array<{ variantId: string; units: number }>) {
  const held = new Map(heldElsewhere.map((h) => [h.variantId, h.units]));
  const over = lines.filter((l) => l.quantity + (held.get(l.variantId) ?? 0) > UNVERIFIED_MAX_UNITS);
  if (over.length === 0) return;
  const said = over.map((l) => {
    const elsewhere = held.get(l.variantId) ?? 0;
    const line = { title: l.title, id: l.variantId, quantity: l.quantity, held: elsewhere };
    return elsewhere > 0
      ? text('error.checkout.unverifiedHeldLine', line)
      : text('error.checkout.unverifiedLine', line);
  });
  throw new CheckoutRefusal(
    'unverified_limit',
    conflict('error.checkout.unverifiedLimit', {
      max: UNVERIFIED_MAX_UNITS,
      lines: listOf(said, 'semicolon'),
    }),
    over.map((l) => l.variantId),
  );
}

function refuseCoolingDown(lines: Line[], lapsed: Array<{ variantId: string; lapsedAt: number }>) {
  const cooling = lines.flatMap((l) => {
    const at = lapsed.find((h) => h.variantId === l.variantId)?.lapsedAt;
    return at ? [{ line: l, until: new Date((Number(at) + HOLD_COOLDOWN_SECONDS) * 1000) }] : [];
  });
  if (cooling.length === 0) return;
  throw new CheckoutRefusal(
    'cooling_down',
    conflict('error.checkout.coolingDown', {
      products: cooling.map((c) => `${c.line.title} (${c.line.variantId})`).join(', '),
      at: isoSecond(new Date(Math.max(...cooling.map((c) => c.until.getTime())))),
      minutes: HOLD_COOLDOWN_SECONDS / 60,
    }),
    cooling.map((c) => c.line.variantId),
  );
}
