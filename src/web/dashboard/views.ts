// Analytics as the seller's console and the admin's desk show them: the period's form, stat tiles,
// revenue and orders over the window (and, for the platform, conversion), the top products (and
// sellers), each chart followed by its figures as a table in a `<details>`, for a screen reader.
import { html } from 'ghtml';
import {
  formatDate,
  formatMoney,
  formatNumber,
  formatPercent,
  LOCALES,
  type Locale,
  type MessageKey,
  t,
} from '../../contract/i18n.ts';
import { conversionOf, type Dashboard, type SeriesPoint } from '../../modules/analytics/service.ts';
import type { View } from '../core.ts';
import { moneyText, selectField } from '../layout.ts';
import { barChart, type ChartPoint, lineChart } from './charts.ts';

export const PERIODS = ['week', 'month', 'year'] as const;
export type Period = (typeof PERIODS)[number];

// Made once per locale: an Intl formatter costs far more to build than to use.
const perLocale = <V>(make: (l: Locale) => V) => new Map(LOCALES.map((l) => [l, make(l)] as const));
/** A chart's axis labels of a day ("Mar 5", "5 mars") and of a month ("Mar 2031"), and a month in full. */
const axisDates = perLocale((l) => ({
  day: new Intl.DateTimeFormat(l, { month: 'short', day: 'numeric', timeZone: 'UTC' }),
  month: new Intl.DateTimeFormat(l, { month: 'short', year: 'numeric', timeZone: 'UTC' }),
  monthLong: new Intl.DateTimeFormat(l, { month: 'long', year: 'numeric', timeZone: 'UTC' }),
}));

const count = formatNumber;
const percent = formatPercent;
const at = (iso: string) => new Date(`${iso}T00:00:00Z`);

/** A point's label under the axis, and in full for its table row. */
function labelsOf(l: Locale, grain: 'day' | 'month', iso: string) {
  const f = axisDates.get(l) as NonNullable<ReturnType<typeof axisDates.get>>;
  return grain === 'month'
    ? { short: f.month.format(at(iso)), long: f.monthLong.format(at(iso)) }
    : { short: f.day.format(at(iso)), long: formatDate(l, iso) };
}

/** A chart with its title, then its figures (cells are HTML from html`…`; the first heads its row). */
function chartCard(
  l: Locale,
  id: string,
  title: string,
  svg: string,
  head: string[],
  rows: string[][],
): string {
  return html`<section class="card" aria-labelledby="${id}"><h2 id="${id}">${title}</h2>!${svg}<details><summary>${t(l, 'web.analytics.figures')}</summary><div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">${title}</caption><thead><tr>!${head.map(
    (h, i) => (i ? html`<th scope="col" class="num">${h}</th>` : html`<th scope="col">${h}</th>`),
  )}</tr></thead><tbody>!${rows.map(
    (r) =>
      html`<tr>!${r.map((c, i) => (i ? html`<td class="num">!${c}</td>` : html`<th scope="row">!${c}</th>`))}</tr>`,
  )}</tbody></table></div></details></section>`;
}

/** Dollars on a money axis; whole orders on a count axis (a tick between two is left unlabelled). */
const dollarsAxis = (l: Locale) => (cents: number) => formatMoney(l, Math.round(cents));
const wholeAxis = (l: Locale) => (n: number) => (Number.isInteger(n) ? count(l, n) : '');

/**
 * The analytics page's body: `action` is the page's address (its period form's), `period` the
 * one shown. The platform's adds conversion over time, customers and the top sellers, whose
 * rows link to `sellerHref`.
 */
export function dashboardBody(
  v: View,
  d: Dashboard,
  o: { action: string; period: Period; platform: boolean; sellerHref?: (sellerId: string) => string },
): string {
  const l = v.p.locale;
  const { figures: f, series } = d;
  const grain = series.grain;
  const labels = series.points.map((p) => labelsOf(l, grain, p.start));
  const line = (value: (p: SeriesPoint) => number): ChartPoint[] =>
    series.points.map((p, i) => ({ label: labels[i]!.short, value: value(p) }));
  const when = t(l, 'web.analytics.when', { grain });
  /** A figure as a table's cell: text, escaped. */
  const cell = (text: string) => html`${text}`;
  const rowsOf = (cells: (p: SeriesPoint) => string[]) =>
    series.points.map((p, i) => [labels[i]!.long, ...cells(p)].map(cell));
  const rate = conversionOf;
  const money = (cents: number) => moneyText(v, cents);

  const form = html`<form method="get" action="${o.action}" class="row card">!${selectField({
    name: 'period',
    label: t(l, 'web.analytics.period'),
    value: o.period,
    options: PERIODS.map((p) => ({ value: p, label: t(l, 'web.analytics.periodName', { period: p }) })),
  })}<button type="submit" class="secondary">${t(l, 'web.analytics.show')}</button></form>
<p class="hint">${t(l, 'web.analytics.window', { start: formatDate(l, f.start_date), end: formatDate(l, f.end_date) })}</p>`;

  const tile = (key: MessageKey, value: string, hint?: MessageKey) =>
    html`<div class="stat"><span>${t(l, key)}</span><strong>${value}</strong>!${hint ? html`<span class="hint">${t(l, hint)}</span>` : ''}</div>`;
  const tiles = html`<div class="stats">!${[
    tile('web.analytics.revenue', money(f.total_revenue_cents)),
    tile('web.analytics.orders', count(l, f.total_orders)),
    tile('web.analytics.averageOrder', money(f.average_order_value_cents)),
    tile('web.analytics.itemsSold', count(l, f.total_items_sold)),
    tile('web.analytics.conversion', percent(l, f.conversion_rate), 'web.analytics.conversionHint'),
    ...(o.platform
      ? [
          tile('web.analytics.newCustomers', count(l, f.new_customers)),
          tile('web.analytics.returningCustomers', count(l, f.returning_customers)),
        ]
      : []),
  ]}</div>`;

  const revenueTitle = t(l, 'web.analytics.revenueOver', { grain });
  const ordersTitle = t(l, 'web.analytics.ordersOver', { grain });
  const conversionTitle = t(l, 'web.analytics.conversionOver', { grain });
  const charts = [
    chartCard(
      l,
      'revenue-h',
      revenueTitle,
      lineChart(
        revenueTitle,
        line((p) => p.revenueCents),
        dollarsAxis(l),
      ),
      [when, t(l, 'web.analytics.revenue')],
      rowsOf((p) => [money(p.revenueCents)]),
    ),
    chartCard(
      l,
      'orders-h',
      ordersTitle,
      lineChart(
        ordersTitle,
        line((p) => p.orders),
        wholeAxis(l),
      ),
      [when, t(l, 'web.analytics.orders')],
      rowsOf((p) => [count(l, p.orders)]),
    ),
    ...(o.platform
      ? [
          chartCard(
            l,
            'conversion-h',
            conversionTitle,
            lineChart(conversionTitle, line(rate), (n) => percent(l, n)),
            [
              when,
              t(l, 'web.analytics.sessionsCreated'),
              t(l, 'web.analytics.sessionsPaid'),
              t(l, 'web.analytics.conversion'),
            ],
            rowsOf((p) => [count(l, p.sessionsCreated), count(l, p.sessionsPaid), percent(l, rate(p))]),
          ),
        ]
      : []),
  ];

  const noSales = (id: string, title: string) =>
    html`<section class="card" aria-labelledby="${id}"><h2 id="${id}">${title}</h2><p>${t(l, 'web.analytics.noSales')}</p></section>`;
  const productsTitle = t(l, 'web.analytics.topProducts');
  const products = f.top_products.length
    ? chartCard(
        l,
        'products-h',
        productsTitle,
        barChart(
          productsTitle,
          f.top_products.map((p) => ({ label: p.title || p.product_id, value: p.revenue_cents })),
          dollarsAxis(l),
        ),
        [t(l, 'web.analytics.product'), t(l, 'web.analytics.units'), t(l, 'web.analytics.revenue')],
        f.top_products.map((p) => [
          html`<a href="/shop/products/${encodeURIComponent(p.product_id)}">${p.title || p.product_id}</a>`,
          cell(count(l, p.units_sold)),
          cell(money(p.revenue_cents)),
        ]),
      )
    : noSales('products-h', productsTitle);
  const sellersTitle = t(l, 'web.analytics.topSellers');
  const sellers = !o.platform
    ? ''
    : f.top_sellers.length
      ? chartCard(
          l,
          'sellers-h',
          sellersTitle,
          barChart(
            sellersTitle,
            f.top_sellers.map((x) => ({ label: x.name || x.seller_id, value: x.revenue_cents })),
            dollarsAxis(l),
          ),
          [t(l, 'web.analytics.seller'), t(l, 'web.analytics.orders'), t(l, 'web.analytics.revenue')],
          f.top_sellers.map((x) => [
            o.sellerHref
              ? html`<a href="${o.sellerHref(x.seller_id)}">${x.name || x.seller_id}</a>`
              : cell(x.name || x.seller_id),
            cell(count(l, x.orders)),
            cell(money(x.revenue_cents)),
          ]),
        )
      : noSales('sellers-h', sellersTitle);
  return html`!${form}!${tiles}!${charts}!${products}!${sellers}`;
}
