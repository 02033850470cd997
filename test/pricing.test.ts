// The money math, checked against amounts worked out by hand (never recomputed with the code
// under test). Rules: docs/api.md "Pricing".
import { describe, expect, it } from 'vitest';
import { PROVINCES, type Province } from '../src/contract/common.ts';
import { AppError } from '../src/contract/errors.ts';
import {
  type ParcelItem,
  percentOf,
  platformFeeCents,
  roundHalfUp,
  shippingFor,
  splitProportionally,
  type TaxLine,
  taxFor,
} from '../src/modules/pricing/index.ts';

const JUNE_2025 = new Date('2025-06-01T12:00:00Z');

const gst = (amountCents: number): TaxLine => ({ name: 'GST', ratePercent: 5, amountCents });
const hst = (ratePercent: number, amountCents: number): TaxLine => ({
  name: 'HST',
  ratePercent,
  amountCents,
});
const pst = (ratePercent: number, amountCents: number): TaxLine => ({
  name: 'PST',
  ratePercent,
  amountCents,
});
const qst = (amountCents: number): TaxLine => ({ name: 'QST', ratePercent: 9.975, amountCents });

/** A physical, non-perishable 1 kg item of $20.00 unless told otherwise. */
const item = (overrides: Partial<ParcelItem> = {}): ParcelItem => ({
  productId: 'products:mug',
  title: 'Stoneware mug',
  unitPriceCents: 2000,
  quantity: 1,
  isDigital: false,
  isPerishable: false,
  weightKg: 1,
  ...overrides,
  // A product sold one way: its variant's id is its own.
  variantId: overrides.variantId ?? overrides.productId ?? 'products:mug',
});
const ebook = (overrides: Partial<ParcelItem> = {}) =>
  item({
    productId: 'products:ebook',
    title: 'Field guide (ebook)',
    isDigital: true,
    weightKg: null,
    ...overrides,
  });

/** The error `fn` throws; fails the test when it returns instead. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('roundHalfUp', () => {
  it.each([
    [0, 5, 0],
    [1, 2, 1],
    [3, 2, 2],
    [5, 2, 3],
    [1, 3, 0],
    [2, 3, 1],
    [3, 8, 0],
    [4, 8, 1],
    [29985, 100, 300],
    [29949, 100, 299],
    // Negative quotients: halves round away from zero, and a zero is +0.
    [-5, 2, -3],
    [-1, 2, -1],
    [-1, 3, 0],
    [5, -2, -3],
    [-5, -2, 3],
  ])('%i / %i = %i', (numerator, denominator, expected) => {
    expect(roundHalfUp(numerator, denominator)).toBe(expected);
  });

  it('refuses a zero denominator and fractional inputs', () => {
    expect(() => roundHalfUp(1, 0)).toThrow(/denominator/);
    expect(() => roundHalfUp(1.5, 2)).toThrow(/integer/);
    expect(() => roundHalfUp(3, 0.5)).toThrow(/integer/);
  });
});

describe('percentOf', () => {
  it.each([
    [1999, 15, 300], // 299.85
    [0, 15, 0],
    [10, 5, 1], // 0.5
    [9, 5, 0], // 0.45
    [1, 50, 1], // 0.5
    [10000, 9.975, 998], // 997.5
    [1999, 9.975, 199], // 199.40025
    [1000, 12.345, 123], // 123.45
    [2000, 12.345, 247], // 246.9
    [1000, 0.005, 0], // 0.05
    [10000, 0.005, 1], // 0.5
    [100, 100, 100],
    [1234, 0, 0],
    [-1999, 15, -300], // -299.85, away from zero
  ])('%i cents at %d%% = %i', (cents, percent, expected) => {
    expect(percentOf(cents, percent)).toBe(expected);
  });

  it('refuses a percent with more than 3 decimals and fractional cents', () => {
    expect(() => percentOf(1000, 1.0005)).toThrow(/3 decimals/);
    expect(() => percentOf(10.5, 5)).toThrow(/integer/);
  });
});

describe('platformFeeCents', () => {
  it.each([
    [10000, 250], // $100.00 at 2.5%
    [1999, 50], // 49.975
    [20, 1], // 0.5
    [19, 0], // 0.475
    [180, 5], // 4.5
    [123456, 3086], // 3086.4
    [0, 0],
  ])('2.5%% of %i = %i', (cents, expected) => {
    expect(platformFeeCents(cents)).toBe(expected);
  });

  it.each([
    [10000, 300, 300],
    [1, 5000, 1], // 0.5
    [3, 5000, 2], // 1.5
    [10000, 0, 0],
  ])('%i at %i bps = %i', (cents, bps, expected) => {
    expect(platformFeeCents(cents, bps)).toBe(expected);
  });

  it('refuses a negative base', () => {
    expect(() => platformFeeCents(-1)).toThrow(/negative/);
  });
});

describe('splitProportionally', () => {
  it.each([
    [1000, [5000, 3000, 2000], [500, 300, 200]],
    // A $10.00 coupon over three sellers' subtotals: 333.22, 500, 166.78 -> the odd cent to 166.78.
    [1000, [2999, 4500, 1501], [333, 500, 167]],
    [1000, [3333, 3333, 3334], [333, 333, 334]],
    // Ties in the remainder: the earlier index first.
    [100, [1, 1, 1], [34, 33, 33]],
    [11, [1, 1, 1], [4, 4, 3]],
    [100, [1, 1, 1, 4], [15, 14, 14, 57]],
    // The largest remainder wins over an earlier index (400/7 leaves 1, 100/7 leaves 2).
    [100, [4, 1, 1, 1], [57, 15, 14, 14]],
    // All weights zero: as evenly as possible, earlier indexes first.
    [10, [0, 0, 0], [4, 3, 3]],
    [2, [0, 0, 0], [1, 1, 0]],
    // Some weights zero: they get nothing.
    [100, [0, 1, 0], [0, 100, 0]],
    [5, [0, 1, 1], [0, 3, 2]],
    [1234, [7], [1234]],
    [1234, [0], [1234]],
    [0, [1, 2], [0, 0]],
    [500, [], []],
    // total * weight = 999999998000000001, beyond float precision: still exact.
    [999_999_999, [999_999_999, 1], [999_999_998, 1]],
  ])('%i over %j = %j', (total, weights, expected) => {
    expect(splitProportionally(total, weights)).toEqual(expected);
  });

  it('always sums to the total, each share within a cent of its exact proportion', () => {
    let seed = 42;
    const next = (max: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % max;
    };
    for (let run = 0; run < 500; run++) {
      const total = next(100_000);
      const weights = Array.from({ length: 1 + next(8) }, () => next(50_000));
      const shares = splitProportionally(total, weights);
      const weightSum = weights.reduce((a, b) => a + b, 0);
      expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
      shares.forEach((share, i) => {
        const exact = weightSum === 0 ? total / weights.length : (total * weights[i]!) / weightSum;
        expect(Math.abs(share - exact)).toBeLessThan(1);
      });
    }
  });

  it('refuses negative or fractional amounts', () => {
    expect(() => splitProportionally(-1, [1])).toThrow(/negative/);
    expect(() => splitProportionally(10, [1, -1])).toThrow(/negative/);
    expect(() => splitProportionally(10, [1.5])).toThrow(/integer/);
  });
});

describe('taxFor', () => {
  const onTenThousand: [Province, TaxLine[], number][] = [
    ['AB', [gst(500)], 500],
    ['BC', [gst(500), pst(7, 700)], 1200],
    ['MB', [gst(500), pst(7, 700)], 1200],
    ['NB', [hst(15, 1500)], 1500],
    ['NL', [hst(15, 1500)], 1500],
    ['NS', [hst(14, 1400)], 1400],
    ['NT', [gst(500)], 500],
    ['NU', [gst(500)], 500],
    ['ON', [hst(13, 1300)], 1300],
    ['PE', [hst(15, 1500)], 1500],
    ['QC', [gst(500), qst(998)], 1498], // QST 997.5
    ['SK', [gst(500), pst(6, 600)], 1100],
    ['YT', [gst(500)], 500],
  ];

  it('has a case for every province and territory', () => {
    expect(onTenThousand.map(([p]) => p).sort()).toEqual([...PROVINCES].sort());
  });

  it.each(onTenThousand)('%s on $100.00', (province, lines, totalCents) => {
    expect(taxFor(province, 10000, JUNE_2025)).toEqual({ lines, totalCents });
  });

  it.each(onTenThousand)('%s on $0.00: its lines, all 0', (province, lines) => {
    expect(taxFor(province, 0, JUNE_2025)).toEqual({
      lines: lines.map((line) => ({ ...line, amountCents: 0 })),
      totalCents: 0,
    });
  });

  it.each([
    ['AB', 10, [gst(1)], 1], // 0.5
    ['AB', 9, [gst(0)], 0], // 0.45
    ['AB', 30, [gst(2)], 2], // 1.5
    ['ON', 50, [hst(13, 7)], 7], // 6.5
    ['ON', 150, [hst(13, 20)], 20], // 19.5
    ['NB', 10, [hst(15, 2)], 2], // 1.5
    ['PE', 3, [hst(15, 0)], 0], // 0.45
    ['NS', 25, [hst(14, 4)], 4], // 3.5
    // Each component rounded on its own: 2.5 + 3.5 -> 3 + 4 = 7, where 12% of 50 would be 6.
    ['BC', 50, [gst(3), pst(7, 4)], 7],
    ['SK', 25, [gst(1), pst(6, 2)], 3], // 1.25 and 1.5
    ['MB', 150, [gst(8), pst(7, 11)], 19], // 7.5 and 10.5
  ] as [Province, number, TaxLine[], number][])(
    'half-up per component: %s on %i cents',
    (province, taxable, lines, totalCents) => {
      expect(taxFor(province, taxable, JUNE_2025)).toEqual({ lines, totalCents });
    },
  );

  it.each([
    [1, 0, 0, 0], // 0.05, 0.09975
    [5, 0, 0, 0], // 0.25, 0.49875
    [6, 0, 1, 1], // 0.3, 0.5985
    [10, 1, 1, 2], // 0.5, 0.9975
    [199, 10, 20, 30], // 9.95, 19.85025
    [1999, 100, 199, 299], // 99.95, 199.40025
    [2000, 100, 200, 300], // 100, 199.5 exactly
    [10000, 500, 998, 1498], // 500, 997.5
    [10001, 500, 998, 1498], // 500.05, 997.59975
  ])('QC on %i cents: GST %i + QST %i = %i', (taxable, gstCents, qstCents, totalCents) => {
    expect(taxFor('QC', taxable, JUNE_2025)).toEqual({ lines: [gst(gstCents), qst(qstCents)], totalCents });
  });

  it.each([
    ['2024-01-15T12:00:00Z', 15, 1500],
    ['2025-03-31T23:59:59.999Z', 15, 1500],
    ['2025-04-01T00:00:00Z', 14, 1400],
    // The UTC date decides: 02:00 UTC on April 1 is still March 31 in Halifax and Toronto.
    ['2025-04-01T02:00:00Z', 14, 1400],
    ['2026-01-01T12:00:00Z', 14, 1400],
  ])('NS HST on %s is %i%%', (on, ratePercent, amountCents) => {
    expect(taxFor('NS', 10000, new Date(on))).toEqual({
      lines: [hst(ratePercent, amountCents)],
      totalCents: amountCents,
    });
  });

  it('NS before April 2025 rounds at 15%', () => {
    expect(taxFor('NS', 10, new Date('2025-03-01T12:00:00Z'))).toEqual({
      lines: [hst(15, 2)], // 1.5
      totalCents: 2,
    });
  });

  it('treats a negative or fractional taxable amount, or an invalid date, as a bug (plain Error)', () => {
    for (const fn of [
      () => taxFor('ON', -1, JUNE_2025),
      () => taxFor('ON', 10.5, JUNE_2025),
      () => taxFor('ON', 100, new Date('not a date')),
    ]) {
      const err = thrownBy(fn);
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(AppError);
    }
  });
});

describe('shippingFor', () => {
  it.each([
    ['digital only, to another province', 'ON', 'BC', [ebook()], 0],
    ['digital only, to a territory', 'ON', 'NU', [ebook({ unitPriceCents: 100 })], 0],
    ['free at exactly $75.00', 'ON', 'BC', [item({ unitPriceCents: 7500 })], 0],
    ['$74.99 to another province', 'ON', 'BC', [item({ unitPriceCents: 7499 })], 1299],
    ['$74.99 within the province', 'ON', 'ON', [item({ unitPriceCents: 7499 })], 899],
    ['$74.99 to a territory', 'ON', 'NU', [item({ unitPriceCents: 7499 })], 2499],
    ['free when quantity brings it to $75.00', 'ON', 'BC', [item({ unitPriceCents: 2500, quantity: 3 })], 0],
    [
      'two items under $75.00',
      'ON',
      'BC',
      [item({ unitPriceCents: 3000 }), item({ unitPriceCents: 4000 })],
      1299,
    ],
    ['two items at $75.00', 'ON', 'BC', [item({ unitPriceCents: 3000 }), item({ unitPriceCents: 4500 })], 0],
    // The threshold is on the whole parcel's subtotal, digital items included.
    [
      'free with a digital item making $75.00',
      'ON',
      'BC',
      [item({ unitPriceCents: 5000 }), ebook({ unitPriceCents: 2500 })],
      0,
    ],
    [
      'digital item making $74.99',
      'ON',
      'BC',
      [item({ unitPriceCents: 4999 }), ebook({ unitPriceCents: 2500 })],
      1299,
    ],
    ['within Ontario', 'ON', 'ON', [item()], 899],
    ['within Quebec', 'QC', 'QC', [item()], 899],
    ['Ontario to Quebec', 'ON', 'QC', [item()], 1299],
    ['British Columbia to Alberta', 'BC', 'AB', [item()], 1299],
    ['Ontario to Yukon', 'ON', 'YT', [item()], 2499],
    ['Ontario to Northwest Territories', 'ON', 'NT', [item()], 2499],
    ['Ontario to Nunavut', 'ON', 'NU', [item()], 2499],
    ['within Yukon', 'YT', 'YT', [item()], 899],
    ['Yukon to Nunavut', 'YT', 'NU', [item()], 2499],
    ['Northwest Territories to Yukon', 'NT', 'YT', [item()], 2499],
    ['Nunavut to Ontario', 'NU', 'ON', [item()], 1299],
    ['5.0 kg', 'ON', 'BC', [item({ weightKg: 5 })], 1299],
    ['5.01 kg', 'ON', 'BC', [item({ weightKg: 5.01 })], 1399],
    ['5.2 kg', 'ON', 'BC', [item({ weightKg: 5.2 })], 1399],
    ['6.0 kg', 'ON', 'BC', [item({ weightKg: 6 })], 1399],
    ['7.0 kg', 'ON', 'BC', [item({ weightKg: 7 })], 1499],
    ['7.01 kg', 'ON', 'BC', [item({ weightKg: 7.01 })], 1599],
    ['1.2 kg x 5 = 6.0 kg', 'ON', 'BC', [item({ unitPriceCents: 1000, weightKg: 1.2, quantity: 5 })], 1399],
    ['2.6 kg x 2 = 5.2 kg', 'ON', 'BC', [item({ weightKg: 2.6, quantity: 2 })], 1399],
    ['2.5 kg x 3 = 7.5 kg', 'ON', 'BC', [item({ weightKg: 2.5, quantity: 3 })], 1599],
    // In floats 2.1 * 3 + 0.7 is 7.000000000000001 kg, which would start an 8th kg.
    [
      '2.1 kg x 3 + 0.7 kg = 7.0 kg',
      'ON',
      'BC',
      [item({ unitPriceCents: 1000, weightKg: 2.1, quantity: 3 }), item({ weightKg: 0.7 })],
      1499,
    ],
    ['a digital item adds no weight', 'ON', 'BC', [item({ weightKg: 4 }), ebook({ weightKg: 3 })], 1299],
    ['an unknown weight counts as none', 'ON', 'BC', [item({ weightKg: null })], 1299],
    ['unknown and 6 kg', 'ON', 'BC', [item({ weightKg: null }), item({ weightKg: 6 })], 1399],
    ['7.0 kg within the province', 'ON', 'ON', [item({ weightKg: 7 })], 1099],
    ['5.5 kg to a territory', 'ON', 'YT', [item({ weightKg: 5.5 })], 2599],
    ['20 kg but $75.00: free', 'ON', 'NU', [item({ unitPriceCents: 7500, weightKg: 20 })], 0],
    ['perishable within the province', 'ON', 'ON', [item({ isPerishable: true })], 899],
  ] as [string, Province, Province, ParcelItem[], number][])(
    '%s (%s -> %s)',
    (_case, originProvince, destinationProvince, items, costCents) => {
      expect(shippingFor({ originProvince, destinationProvince, items })).toEqual({
        costCents,
        problems: [],
      });
    },
  );

  const curds = item({ productId: 'products:curds1', title: 'Fresh cheese curds', isPerishable: true });

  const curdsProblem = (origin: Province) => ({
    variantId: 'products:curds1',
    message:
      `Fresh cheese curds (products:curds1) is perishable and ships only within the seller's province, ${origin}; ` +
      `remove it or ship to an address in ${origin}`,
    text: {
      key: 'error.pricing.perishable',
      values: { title: 'Fresh cheese curds', id: 'products:curds1', province: origin },
    },
  });

  it.each([
    ['another province', 'ON', 'QC', [curds], 1299],
    ['a territory', 'ON', 'NU', [curds], 2499],
    [
      'another province, even when shipping would be free',
      'ON',
      'BC',
      [{ ...curds, unitPriceCents: 8000 }],
      0,
    ],
    ['another province, beside non-perishable items', 'QC', 'ON', [item(), curds, ebook()], 1299],
  ] as [string, Province, Province, ParcelItem[], number][])(
    'names a perishable item shipping to %s, and prices the parcel as if it could go',
    (_case, originProvince, destinationProvince, items, costCents) => {
      expect(shippingFor({ originProvince, destinationProvince, items })).toEqual({
        costCents,
        problems: [curdsProblem(originProvince)],
      });
    },
  );

  it('names every perishable item it refuses, and never a digital one', () => {
    const salmon = item({ productId: 'products:salmon', title: 'Smoked salmon', isPerishable: true });
    expect(
      shippingFor({ originProvince: 'BC', destinationProvince: 'AB', items: [curds, ebook(), salmon] }),
    ).toEqual({
      costCents: 1299,
      problems: [
        curdsProblem('BC'),
        {
          variantId: 'products:salmon',
          message:
            "Smoked salmon (products:salmon) is perishable and ships only within the seller's province, BC; " +
            'remove it or ship to an address in BC',
          text: {
            key: 'error.pricing.perishable',
            values: { title: 'Smoked salmon', id: 'products:salmon', province: 'BC' },
          },
        },
      ],
    });
  });
});

describe('an order priced end to end', () => {
  it('QC buyer, $50.00 of items from an Ontario seller', () => {
    const items = [item({ unitPriceCents: 2500, quantity: 2 })];
    const { costCents } = shippingFor({ originProvince: 'ON', destinationProvince: 'QC', items });
    expect(costCents).toBe(1299);
    // Taxable 5000 + 1299 = 6299: GST 314.95 -> 315, QST 628.32525 -> 628.
    expect(taxFor('QC', 5000 + costCents, JUNE_2025)).toEqual({
      lines: [gst(315), qst(628)],
      totalCents: 943,
    });
    expect(platformFeeCents(5000)).toBe(125);
  });
});
