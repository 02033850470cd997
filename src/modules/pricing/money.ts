// Integer-cent arithmetic shared by tax, discounts and fees. Money is integer cents end to
// end (docs/decisions.md "Principles"): every rate is applied as an integer
// ratio and rounded once, here, so that no float ever reaches a stored amount and every split
// sums exactly.

/** Throws when `value` is not a safe integer: a non-integer here is a caller's bug, not user input. */
export function assertSafeInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new Error(`${what} must be a safe integer, got ${value}`);
}

/**
 * `numerator / denominator` rounded to the nearest integer, halves rounded up: 5/2 = 3, 3/2 = 2,
 * 1/3 = 0. For a negative quotient halves round away from zero (-5/2 = -3), so a refund rounds
 * to the same magnitude as the charge it mirrors. Both arguments must be integers; the
 * denominator must not be 0.
 */
export function roundHalfUp(numerator: number, denominator: number): number {
  assertSafeInteger(numerator, 'numerator');
  assertSafeInteger(denominator, 'denominator');
  if (denominator === 0) throw new Error('roundHalfUp: denominator is 0');
  const negative = numerator < 0 !== denominator < 0;
  const n = Math.abs(numerator);
  const d = Math.abs(denominator);
  const quotient = Math.floor(n / d);
  // Compare the remainder with half the denominator in integers (2r >= d), never as a fraction.
  const rounded = 2 * (n - quotient * d) >= d ? quotient + 1 : quotient;
  // `0 - x` rather than `-x`: a zero result is +0, never -0.
  return negative ? 0 - rounded : rounded;
}

/** Percent given with up to 3 decimals, as an exact integer count of thousandths of a percent. */
function milliPercent(percent: number): number {
  const scaled = Math.round(percent * 1000);
  // 1.001 * 1000 is 1000.9999999999999 in floats, so round; anything further than float noise
  // from an integer had a 4th decimal.
  if (
    !Number.isSafeInteger(scaled) ||
    Math.abs(percent * 1000 - scaled) > 1e-9 * Math.max(1, Math.abs(scaled))
  ) {
    throw new Error(`percent must have at most 3 decimals, got ${percent}`);
  }
  return scaled;
}

/** `percent`% of `cents`, rounded half-up to the cent: 15% of 1999 (299.85) = 300. */
export function percentOf(cents: number, percent: number): number {
  assertSafeInteger(cents, 'cents');
  // percent * 1000 parts of 100 * 1000 = parts per 100,000.
  return roundHalfUp(cents * milliPercent(percent), 100_000);
}

/**
 * Splits `totalCents` across `weights` (e.g. the order subtotals a coupon discount is shared
 * by, docs/api.md "Pricing") by the largest-remainder
 * method: each share is first rounded down, then the cents left over go one each to the
 * largest remainders, ties to the earlier index. The shares always sum to `totalCents`, and a zero weight gets nothing
 * (unless every weight is zero: then the total is split as evenly as possible, earlier indexes
 * taking the odd cents). An empty list gets `[]`.
 *
 * The total and the weights must be non-negative integers (cents). The products are computed
 * as BigInt so a large total times a large weight stays exact.
 */
export function splitProportionally(totalCents: number, weights: number[]): number[] {
  assertSafeInteger(totalCents, 'totalCents');
  if (totalCents < 0) throw new Error(`totalCents must not be negative, got ${totalCents}`);
  for (const weight of weights) {
    assertSafeInteger(weight, 'weight');
    if (weight < 0) throw new Error(`weights must not be negative, got ${weight}`);
  }
  if (weights.length === 0) return [];

  const weightSum = weights.reduce((sum, weight) => sum + BigInt(weight), 0n);
  const total = BigInt(totalCents);
  const shares =
    weightSum === 0n
      ? weights.map(() => ({ floor: total / BigInt(weights.length), remainder: 0n }))
      : weights.map((weight) => {
          const product = total * BigInt(weight);
          return { floor: product / weightSum, remainder: product % weightSum };
        });

  let leftover = Number(total - shares.reduce((sum, share) => sum + share.floor, 0n));
  // Stable order: larger remainder first, then the earlier index.
  const order = shares
    .map((share, index) => ({ remainder: share.remainder, index }))
    .sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  const result = shares.map((share) => Number(share.floor));
  for (const { index } of order) {
    if (leftover === 0) break;
    result[index]! += 1;
    leftover -= 1;
  }
  return result;
}

/**
 * The platform's fee on one order: `bps` basis points of (items - discount), rounded half-up
 * (docs/api.md "Pricing": 2.5%, `PLATFORM_FEE_BPS=250`).
 * Shipping and tax carry no fee.
 */
export function platformFeeCents(itemsMinusDiscountCents: number, bps = 250): number {
  assertSafeInteger(itemsMinusDiscountCents, 'itemsMinusDiscountCents');
  assertSafeInteger(bps, 'bps');
  if (itemsMinusDiscountCents < 0) {
    throw new Error(`itemsMinusDiscountCents must not be negative, got ${itemsMinusDiscountCents}`);
  }
  if (bps < 0) throw new Error(`bps must not be negative, got ${bps}`);
  return roundHalfUp(itemsMinusDiscountCents * bps, 10_000);
}
