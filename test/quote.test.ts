// The pricing quote of a purchase (one parcel per seller), checked against figures worked out
// by hand, never recomputed with the code under test. Rules: docs/api.md "Pricing".
import { describe, expect, it } from 'vitest';
import type { Province } from '../src/contract/common.ts';
import { AppError } from '../src/contract/errors.ts';
import {
  type DiscountTerms,
  discountFor,
  type Quote,
  type QuoteLine,
  quote,
  quoteRefusal,
  type TaxLine,
} from '../src/modules/pricing/index.ts';

const JUNE_2025 = new Date('2025-06-01T12:00:00Z');

const tax = (name: TaxLine['name'], ratePercent: number, amountCents: number): TaxLine => ({
  name,
  ratePercent,
  amountCents,
});
const gst = (amountCents: number) => tax('GST', 5, amountCents);
const hst = (amountCents: number, ratePercent = 13) => tax('HST', ratePercent, amountCents);
const pst = (ratePercent: number, amountCents: number) => tax('PST', ratePercent, amountCents);
const qst = (amountCents: number) => tax('QST', 9.975, amountCents);

/** A physical, non-perishable 1 kg line of $20.00 from an Ontario seller unless told otherwise. */
const line = (overrides: Partial<QuoteLine> = {}): QuoteLine => ({
  productId: 'products:mug',
  variantTitle: '',
  sku: 'mug',
  title: 'Stoneware mug',
  unitPriceCents: 2000,
  quantity: 1,
  sellerId: 'users:a',
  sellerProvince: 'ON',
  isDigital: false,
  isPerishable: false,
  weightKg: 1,
  ...overrides,
  variantId: overrides.variantId ?? overrides.productId ?? 'products:mug',
});

const priced = (lines: QuoteLine[], destinationProvince: Province, discount?: DiscountTerms) =>
  quote({ lines, destinationProvince, discount, on: JUNE_2025 });

/** The money of each parcel, in order: what a test states by hand. */
const parcelMoney = (q: Quote) =>
  q.parcels.map((p) => ({
    sellerId: p.sellerId,
    subtotal: p.subtotalCents,
    discount: p.discountCents,
    shipping: p.shippingCostCents,
    taxable: p.taxableCents,
    taxLines: p.taxLines,
    tax: p.taxAmountCents,
    total: p.totalCents,
  }));

const totals = (q: Quote) => ({
  subtotal: q.subtotalCents,
  discount: q.discountCents,
  shipping: q.shippingCostCents,
  taxLines: q.taxLines,
  tax: q.taxAmountCents,
  total: q.totalCents,
});

describe('quote: parcels', () => {
  it('groups the lines into one parcel per seller, in seller id order, lines in the order given', () => {
    const a1 = line({ productId: 'products:a1', sellerId: 'users:a' });
    const b1 = line({ productId: 'products:b1', sellerId: 'users:b', sellerProvince: 'QC' });
    const a2 = line({ productId: 'products:a2', sellerId: 'users:a', unitPriceCents: 500, quantity: 3 });
    const q = priced([b1, a2, a1], 'ON');
    expect(q.parcels.map((p) => [p.sellerId, p.originProvince, p.lines.map((l) => l.productId)])).toEqual([
      ['users:a', 'ON', ['products:a2', 'products:a1']],
      ['users:b', 'QC', ['products:b1']],
    ]);
    expect(q.parcels[0]!.lines.map((l) => l.lineTotalCents)).toEqual([1500, 2000]);
    expect(q.parcels.map((p) => p.subtotalCents)).toEqual([3500, 2000]);
  });

  it('the same lines in any order give the same quote', () => {
    const lines = [
      line({ productId: 'products:a1', sellerId: 'users:a', unitPriceCents: 1000 }),
      line({ productId: 'products:b1', sellerId: 'users:b', unitPriceCents: 1000 }),
    ];
    // 1 cent over two equal subtotals: the tie goes to the first parcel, users:a, either way.
    const forward = priced(lines, 'ON', { amountCents: 1 });
    const backward = priced([...lines].reverse(), 'ON', { amountCents: 1 });
    expect(forward.parcels.map((p) => [p.sellerId, p.discountCents])).toEqual([
      ['users:a', 1],
      ['users:b', 0],
    ]);
    expect(backward).toEqual(forward);
  });

  it('an empty purchase: no parcels, the destination tax lines at 0', () => {
    expect(priced([], 'QC')).toEqual({
      destinationProvince: 'QC',
      parcels: [],
      subtotalCents: 0,
      discountCents: 0,
      automaticDiscountCents: 0,
      couponDiscountCents: 0,
      shippingCostCents: 0,
      taxLines: [gst(0), qst(0)],
      taxAmountCents: 0,
      totalCents: 0,
      problems: [],
      choiceProblems: [],
    });
  });
});

describe('quote: tax per parcel, by destination', () => {
  // Seller A (ON): one $25.00 item, 1 kg. Seller B (QC): two $15.00 items, 0.5 kg each.
  const lines = [
    line({ productId: 'products:a', unitPriceCents: 2500 }),
    line({
      productId: 'products:b',
      sellerId: 'users:b',
      sellerProvince: 'QC',
      unitPriceCents: 1500,
      quantity: 2,
      weightKg: 0.5,
    }),
  ];

  it.each([
    // ON (HST 13%): A within ON 899, B from QC 1299.
    // A 2500 + 899 = 3399 -> 441.87 -> 442; B 3000 + 1299 = 4299 -> 558.87 -> 559.
    ['ON', [899, 1299], [[hst(442)], [hst(559)]], [hst(1001)], 8699],
    // NS (HST 14% since 2025-04-01): 1299 each. A 3799 -> 531.86 -> 532; B 4299 -> 601.86 -> 602.
    ['NS', [1299, 1299], [[hst(532, 14)], [hst(602, 14)]], [hst(1134, 14)], 9232],
    // BC (GST 5% + PST 7%): A 3799 -> 189.95 -> 190, 265.93 -> 266; B 4299 -> 214.95 -> 215, 300.93 -> 301.
    [
      'BC',
      [1299, 1299],
      [
        [gst(190), pst(7, 266)],
        [gst(215), pst(7, 301)],
      ],
      [gst(405), pst(7, 567)],
      9070,
    ],
    // SK (GST + PST 6%): A 3799 -> 190, 227.94 -> 228; B 4299 -> 215, 257.94 -> 258.
    [
      'SK',
      [1299, 1299],
      [
        [gst(190), pst(6, 228)],
        [gst(215), pst(6, 258)],
      ],
      [gst(405), pst(6, 486)],
      8989,
    ],
    // QC (GST + QST 9.975%): A from ON 1299, B within QC 899.
    // A 3799 -> 189.95 -> 190, 378.95025 -> 379; B 3899 -> 194.95 -> 195, 388.92525 -> 389.
    [
      'QC',
      [1299, 899],
      [
        [gst(190), qst(379)],
        [gst(195), qst(389)],
      ],
      [gst(385), qst(768)],
      8851,
    ],
    // AB (GST only): A 3799 -> 190; B 4299 -> 215.
    ['AB', [1299, 1299], [[gst(190)], [gst(215)]], [gst(405)], 8503],
    // NU (territory: $24.99, GST only): A 2500 + 2499 = 4999 -> 249.95 -> 250; B 5499 -> 274.95 -> 275.
    ['NU', [2499, 2499], [[gst(250)], [gst(275)]], [gst(525)], 11023],
  ] as [Province, number[], TaxLine[][], TaxLine[], number][])(
    'to %s',
    (destination, shipping, parcelTaxLines, taxLines, total) => {
      const q = priced(lines, destination);
      const sum = (ls: TaxLine[]) => ls.reduce((n, l) => n + l.amountCents, 0);
      expect(parcelMoney(q)).toEqual([
        {
          sellerId: 'users:a',
          subtotal: 2500,
          discount: 0,
          shipping: shipping[0],
          taxable: 2500 + shipping[0]!,
          taxLines: parcelTaxLines[0],
          tax: sum(parcelTaxLines[0]!),
          total: 2500 + shipping[0]! + sum(parcelTaxLines[0]!),
        },
        {
          sellerId: 'users:b',
          subtotal: 3000,
          discount: 0,
          shipping: shipping[1],
          taxable: 3000 + shipping[1]!,
          taxLines: parcelTaxLines[1],
          tax: sum(parcelTaxLines[1]!),
          total: 3000 + shipping[1]! + sum(parcelTaxLines[1]!),
        },
      ]);
      expect(totals(q)).toEqual({
        subtotal: 5500,
        discount: 0,
        shipping: shipping[0]! + shipping[1]!,
        taxLines,
        tax: sum(taxLines),
        total,
      });
      expect(q.problems).toEqual([]);
    },
  );

  it('rounds each parcel on its own: 137 + 137 = 274 where 13% of the whole 2100 is 273', () => {
    const q = priced(
      [
        line({ productId: 'products:a', unitPriceCents: 151 }),
        line({ productId: 'products:b', sellerId: 'users:b', unitPriceCents: 151 }),
      ],
      'ON',
    );
    // Each parcel 151 + 899 = 1050; HST 136.50 -> 137.
    expect(q.parcels.map((p) => p.taxLines)).toEqual([[hst(137)], [hst(137)]]);
    expect(totals(q)).toEqual({
      subtotal: 302,
      discount: 0,
      shipping: 1798,
      taxLines: [hst(274)],
      tax: 274,
      total: 2374,
    });
  });
});

describe('quote: the discount split across parcels', () => {
  it('a fixed $10.00 over 3000, 2000 and 1000: 500, 333, 167 (the odd cent to the largest remainder)', () => {
    const q = priced(
      [
        line({ productId: 'products:a', unitPriceCents: 3000 }),
        line({ productId: 'products:b', sellerId: 'users:b', sellerProvince: 'QC' }),
        line({ productId: 'products:c', sellerId: 'users:c', sellerProvince: 'BC', unitPriceCents: 1000 }),
      ],
      'ON',
      { amountCents: 1000 },
    );
    // Exact shares 500, 333.33, 166.67: floors 500 + 333 + 166 = 999; the cent left goes to C
    // (remainder .67 beats .33).
    // A: 3000 - 500 + 899 = 3399 -> HST 441.87 -> 442.
    // B: 2000 - 333 + 1299 = 2966 -> 385.58 -> 386.
    // C: 1000 - 167 + 1299 = 2132 -> 277.16 -> 277.
    expect(parcelMoney(q)).toEqual([
      {
        sellerId: 'users:a',
        subtotal: 3000,
        discount: 500,
        shipping: 899,
        taxable: 3399,
        taxLines: [hst(442)],
        tax: 442,
        total: 3841,
      },
      {
        sellerId: 'users:b',
        subtotal: 2000,
        discount: 333,
        shipping: 1299,
        taxable: 2966,
        taxLines: [hst(386)],
        tax: 386,
        total: 3352,
      },
      {
        sellerId: 'users:c',
        subtotal: 1000,
        discount: 167,
        shipping: 1299,
        taxable: 2132,
        taxLines: [hst(277)],
        tax: 277,
        total: 2409,
      },
    ]);
    // 6000 - 1000 + 3497 + 1105 = 9602.
    expect(totals(q)).toEqual({
      subtotal: 6000,
      discount: 1000,
      shipping: 3497,
      taxLines: [hst(1105)],
      tax: 1105,
      total: 9602,
    });
  });

  it('15% of 7999 = 1199.85 -> 1200, shared 600 / 600 between 4000 and 3999', () => {
    const q = priced(
      [
        line({ productId: 'products:a', unitPriceCents: 4000 }),
        line({ productId: 'products:b', sellerId: 'users:b', unitPriceCents: 3999 }),
      ],
      'ON',
      { percent: 15 },
    );
    // Exact shares 600.075 and 599.925: floors 600 + 599; the cent goes to B (.925 beats .075).
    // A: 4000 - 600 + 899 = 4299 -> 558.87 -> 559. B: 3999 - 600 + 899 = 4298 -> 558.74 -> 559.
    // The free-shipping threshold is on the items before the discount; neither parcel reaches it.
    expect(parcelMoney(q).map((p) => [p.discount, p.shipping, p.taxable, p.tax, p.total])).toEqual([
      [600, 899, 4299, 559, 4858],
      [600, 899, 4298, 559, 4857],
    ]);
    expect(totals(q)).toMatchObject({
      subtotal: 7999,
      discount: 1200,
      shipping: 1798,
      tax: 1118,
      total: 9715,
    });
  });

  it('a fixed amount above the subtotal takes the subtotal, each parcel down to 0 items', () => {
    const q = priced(
      [
        line({ productId: 'products:a', unitPriceCents: 700 }),
        line({ productId: 'products:b', sellerId: 'users:b', unitPriceCents: 300 }),
      ],
      'AB',
      { amountCents: 5000 },
    );
    // Shipping stays and is taxed: 0 + 1299 -> GST 64.95 -> 65 each.
    expect(parcelMoney(q).map((p) => [p.discount, p.taxable, p.tax])).toEqual([
      [700, 1299, 65],
      [300, 1299, 65],
    ]);
    expect(totals(q)).toMatchObject({ discount: 1000, tax: 130, total: 2728 });
  });
});

describe('quote: shipping per parcel', () => {
  it('free at $75.00, a weight surcharge, and a digital parcel, side by side', () => {
    const q = priced(
      [
        line({
          productId: 'products:paddle',
          sellerId: 'users:a',
          sellerProvince: 'BC',
          unitPriceCents: 2500,
          quantity: 3,
        }),
        line({ productId: 'products:anvil', sellerId: 'users:b', unitPriceCents: 1000, weightKg: 7.2 }),
        line({
          productId: 'products:ebook',
          sellerId: 'users:c',
          sellerProvince: 'BC',
          unitPriceCents: 1999,
          isDigital: true,
          weightKg: null,
        }),
      ],
      'ON',
    );
    // A: 7500 ships free -> HST 975. B: 899 + 3 started kg above 5 (7.2 kg) = 1199;
    // 2199 -> 285.87 -> 286. C: digital, free; 1999 -> 259.87 -> 260.
    expect(parcelMoney(q).map((p) => [p.sellerId, p.shipping, p.taxable, p.tax, p.total])).toEqual([
      ['users:a', 0, 7500, 975, 8475],
      ['users:b', 1199, 2199, 286, 2485],
      ['users:c', 0, 1999, 260, 2259],
    ]);
    expect(totals(q)).toEqual({
      subtotal: 10499,
      discount: 0,
      shipping: 1199,
      taxLines: [hst(1521)],
      tax: 1521,
      total: 13219,
    });
  });

  it('a perishable item that cannot reach the province is a problem, not a throw; the parcel is still priced', () => {
    const cheese = line({
      productId: 'products:cheese',
      title: 'Fromage frais',
      sellerId: 'users:q',
      sellerProvince: 'QC',
      unitPriceCents: 1500,
      isPerishable: true,
    });
    const mug = line({
      productId: 'products:mug2',
      sellerId: 'users:q',
      sellerProvince: 'QC',
      unitPriceCents: 500,
    });
    const local = line({
      productId: 'products:curds',
      sellerId: 'users:a',
      isPerishable: true,
      unitPriceCents: 800,
    });
    const q = priced([cheese, mug, local], 'ON');
    const message =
      "Fromage frais (products:cheese) is perishable and ships only within the seller's province, QC; " +
      'remove it or ship to an address in QC';
    expect(q.problems).toEqual([
      {
        variantId: 'products:cheese',
        message,
        text: {
          key: 'error.pricing.perishable',
          values: { title: 'Fromage frais', id: 'products:cheese', province: 'QC' },
        },
      },
    ]);
    // Ontario's own perishable ships: 800 + 899 = 1699 -> 220.87 -> 221.
    // Quebec's parcel as if it could go: 2000 + 1299 = 3299 -> 428.87 -> 429.
    expect(parcelMoney(q).map((p) => [p.sellerId, p.shipping, p.tax])).toEqual([
      ['users:a', 899, 221],
      ['users:q', 1299, 429],
    ]);
    expect(q.totalCents).toBe(1699 + 221 + 3299 + 429);

    const refusal = quoteRefusal(q);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal!.toBody()).toEqual({
      error: message,
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: [{ field: 'shipping_address.province', message }],
    });
    // The same refusal in French, for a reader who asks for it.
    const french =
      'Fromage frais (products:cheese) est périssable et n’est livré que dans la province du vendeur ' +
      '(le Québec); retirez-le ou faites-le livrer à une adresse au Québec';
    expect(refusal!.toBody('fr-CA')).toMatchObject({
      error: french,
      code: 'VALIDATION_ERROR',
      details: [{ field: 'shipping_address.province', message: french }],
    });
    // Shipped within Quebec, nothing is refused.
    expect(priced([cheese, mug], 'QC').problems).toEqual([]);
    expect(quoteRefusal(priced([cheese, mug], 'QC'))).toBeNull();
  });
});

describe('discountFor', () => {
  it.each([
    [{ percent: 10 }, 5999, 600], // 599.9
    [{ percent: 15 }, 1999, 300], // 299.85
    [{ percent: 100 }, 1234, 1234],
    [{ percent: 33.333 }, 6000, 2000], // 1999.98
    [{ amountCents: 1500 }, 5000, 1500],
    [{ amountCents: 5000 }, 1000, 1000],
    [{ amountCents: 500 }, 0, 0],
  ] as [DiscountTerms, number, number][])('%o on %i = %i', (terms, subtotal, expected) => {
    expect(discountFor(terms, subtotal)).toBe(expected);
  });

  it('no terms take nothing; impossible terms are a bug (plain Error)', () => {
    expect(discountFor(null, 5000)).toBe(0);
    expect(discountFor(undefined, 5000)).toBe(0);
    for (const terms of [{ percent: 0 }, { percent: 101 }, { amountCents: 0 }, { amountCents: 1.5 }]) {
      expect(() => discountFor(terms, 1000)).toThrow(Error);
    }
  });
});
