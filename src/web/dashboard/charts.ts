// Charts as inline SVG drawn on the server: d3-scale for the axes' scales and ticks, d3-shape for
// the line and area paths, so they show without script (the pages' CSP runs none). Colours come
// from the stylesheet's classes (`.chart .line`, `.bar`); each chart names itself (`<title>`) and
// the page gives its figures as a table too, for a screen reader.
import { scaleBand, scaleLinear, scalePoint } from 'd3-scale';
import { area, line } from 'd3-shape';
import { html } from 'ghtml';

const W = 640;
const H = 220;
const M = { top: 12, right: 12, bottom: 28, left: 64 };

export interface ChartPoint {
  /** The x axis's label of the point (a date, written by the caller). */
  label: string;
  value: number;
}

function frame(title: string, inner: string): string {
  const id = `chart-${Buffer.from(title).toString('base64url').slice(0, 16)}`;
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}" preserveAspectRatio="xMidYMid meet"><title id="${id}">${title}</title>!${inner}</svg>`;
}

function yAxis(y: ReturnType<typeof scaleLinear<number, number>>, format: (n: number) => string): string {
  return html`<g class="axis">!${y
    .ticks(4)
    .map(
      (t) =>
        html`<line x1="${M.left}" x2="${W - M.right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke-opacity="0.35"></line><text x="${M.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${format(t)}</text>`,
    )}</g>`;
}

/** Every `step`-th label, so that at most about eight fit under the axis. */
function xLabels(labels: string[], at: (i: number) => number): string {
  const step = Math.max(1, Math.ceil(labels.length / 8));
  return html`<g class="axis">!${labels.map((l, i) =>
    i % step === 0 ? html`<text x="${at(i).toFixed(1)}" y="${H - 8}" text-anchor="middle">${l}</text>` : '',
  )}</g>`;
}

/** A value over time: a line with the area under it. */
export function lineChart(title: string, points: ChartPoint[], format: (n: number) => string): string {
  const max = Math.max(1, ...points.map((p) => p.value));
  const x = scalePoint<number>()
    .domain(points.map((_, i) => i))
    .range([M.left + 4, W - M.right - 4]);
  const y = scaleLinear()
    .domain([0, max])
    .nice(4)
    .range([H - M.bottom, M.top]);
  const at = (i: number) => x(i) ?? M.left;
  const path = line<ChartPoint>()
    .x((_, i) => at(i))
    .y((p) => y(p.value));
  const under = area<ChartPoint>()
    .x((_, i) => at(i))
    .y0(y(0))
    .y1((p) => y(p.value));
  return frame(
    title,
    html`!${yAxis(y, format)}<path class="area" d="${under(points) ?? ''}"></path><path class="line" d="${path(points) ?? ''}"></path>!${xLabels(
      points.map((p) => p.label),
      at,
    )}`,
  );
}

/** Values side by side (top products, top sellers): horizontal bars with their labels. */
export function barChart(title: string, bars: ChartPoint[], format: (n: number) => string): string {
  const height = Math.max(60, bars.length * 28 + 16);
  const left = 180;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const x = scaleLinear()
    .domain([0, max])
    .range([0, W - left - 90]);
  const y = scaleBand<number>()
    .domain(bars.map((_, i) => i))
    .range([8, height - 8])
    .padding(0.25);
  const id = `chart-${Buffer.from(title).toString('base64url').slice(0, 16)}`;
  const rows = bars.map((b, i) => {
    const top = y(i) ?? 0;
    const mid = (top + y.bandwidth() / 2 + 4).toFixed(1);
    const name = b.label.length > 26 ? `${b.label.slice(0, 25)}…` : b.label;
    return html`<text class="label" x="${left - 8}" y="${mid}" text-anchor="end">${name}</text><rect class="bar" x="${left}" y="${top.toFixed(1)}" width="${Math.max(1, x(b.value)).toFixed(1)}" height="${y.bandwidth().toFixed(1)}"></rect><text class="label" x="${(left + Math.max(1, x(b.value)) + 6).toFixed(1)}" y="${mid}">${format(b.value)}</text>`;
  });
  return html`<svg class="chart" viewBox="0 0 ${W} ${height}" role="img" aria-labelledby="${id}"><title id="${id}">${title}</title>!${rows}</svg>`;
}
