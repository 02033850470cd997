// Wire schemas of analytics (docs/api.md "Analytics", `get_analytics`;
// docs/decisions.md "Analytics"). Field names are the spec's, snake_case.
import { z } from 'zod';

export const ANALYTICS_PERIODS = ['day', 'week', 'month', 'year'] as const;
export type AnalyticsPeriod = (typeof ANALYTICS_PERIODS)[number];

/** The longest window a query may ask for, in days (about three years). */
export const MAX_WINDOW_DAYS = 1096;

export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'validation.isoDate', abort: true })
  .refine((d) => {
    const t = new Date(`${d}T00:00:00Z`);
    return (
      !Number.isNaN(t.getTime()) && t.toISOString().startsWith(d) && d >= '2000-01-01' && d <= '2999-12-31'
    );
  }, 'validation.calendarDate');

export const analyticsQuery = z.object({
  period: z
    .enum(ANALYTICS_PERIODS)
    .optional()
    .describe(
      'A window ending today (America/Toronto): day = today; week = the 7 days ending today; month = ' +
        'from the same date last month (exclusive) to today, 28-31 days; year = from the same date last ' +
        'year (exclusive) to today, 365 or 366 days. Default month.',
    ),
  start_date: isoDate
    .optional()
    .describe('First day of the window, YYYY-MM-DD (America/Toronto, inclusive); overrides period'),
  end_date: isoDate
    .optional()
    .describe(
      'Last day of the window, YYYY-MM-DD (inclusive); default today. With only end_date, the window is ' +
        'the period ending that day.',
    ),
});
export type AnalyticsQuery = z.infer<typeof analyticsQuery>;

export const topProduct = z.object({
  product_id: z.string(),
  title: z.string(),
  units_sold: z.number().int(),
  revenue_cents: z
    .number()
    .int()
    .describe('Units x unit price of the counted orders (before discount, tax, shipping)'),
});

export const topSeller = z.object({
  seller_id: z.string(),
  name: z.string().describe('The shop name (the account name for a seller without a shop)'),
  revenue_cents: z.number().int(),
  orders: z.number().int(),
});

export const analyticsAnswer = z
  .object({
    period: z
      .enum([...ANALYTICS_PERIODS, 'custom'])
      .describe('The period asked for; custom when start_date (or both dates) chose the window'),
    total_revenue_cents: z
      .number()
      .int()
      .describe('Paid, not cancelled orders placed in the window: their totals less what was refunded'),
    total_orders: z.number().int(),
    average_order_value_cents: z
      .number()
      .int()
      .describe('total_revenue_cents / total_orders, rounded; 0 without orders'),
    total_items_sold: z.number().int().describe('Units in the counted orders'),
    top_products: z.array(topProduct).describe('At most 10, by revenue, then id'),
    top_sellers: z.array(topSeller).describe('At most 10, by revenue, then id'),
    conversion_rate: z
      .number()
      .min(0)
      .max(1)
      .describe(
        'Checkout sessions created in the window that were paid, over those created (0 without sessions)',
      ),
    returning_customers: z
      .number()
      .int()
      .describe('Buyers with a counted order in the window whose first counted order is before it'),
    new_customers: z.number().int().describe('Buyers whose first counted order is in the window'),
    // Beyond the spec's fields (a superset):
    start_date: z.string().describe('First day of the window, YYYY-MM-DD'),
    end_date: z.string().describe('Last day of the window, YYYY-MM-DD'),
    timezone: z.literal('America/Toronto'),
  })
  .meta({ id: 'Analytics' });
export type AnalyticsAnswer = z.infer<typeof analyticsAnswer>;
