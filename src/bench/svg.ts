/*
 * A small hand-written SVG line chart (no dependency): panels side by side,
 * each with its own title, a categorical x axis, a linear or logarithmic y
 * axis, series told apart by marker shape and dash as well as colour (they
 * survive a grey-scale print), optional horizontal reference lines, and one
 * legend. Every text is escaped.
 */

/** One line of points. */
export interface Series {
  name: string;
  /** One value per x category (null: no point there). */
  values: ReadonlyArray<number | null>;
}

/** A horizontal line across a panel (a lease, a bound). */
export interface ReferenceLine {
  name: string;
  value: number;
}

/** One panel of a chart. */
export interface Panel {
  title: string;
  series: readonly Series[];
  references?: readonly ReferenceLine[];
}

/** A whole chart. */
export interface Chart {
  title: string;
  subtitle: string;
  xLabel: string;
  categories: readonly string[];
  yLabel: string;
  scale: 'linear' | 'log';
  panels: readonly Panel[];
}

const PANEL_W = 320;
/** Below the plot, room for slanted category labels and the axis's name. */
const SLANTED_BOTTOM = 96;
/** A white outline behind a text drawn over lines, so it stays legible. */
const HALO = 'stroke="#fff" stroke-width="3" paint-order="stroke"';

/** Category labels too long to sit side by side are slanted. */
const slantLabels = (chart: Chart) => chart.categories.length > 4 && chart.categories.some((c) => c.length > 6);
const MIN_WIDTH = 720;
const PANEL_H = 240;
const MARGIN = { left: 64, right: 16, top: 64, bottom: 48 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#555555', '#17becf', '#8c564b', '#bcbd22', '#e377c2'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '1 2', '10 4'];

/** Escapes text for SVG. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A marker of shape `index` at (x, y): circle, square, triangle, diamond, cross, ring. */
function marker(index: number, x: number, y: number, colour: string): string {
  const s = 4;
  switch (index % 6) {
    case 0:
      return `<circle cx="${x}" cy="${y}" r="${s}" fill="${colour}"/>`;
    case 1:
      return `<rect x="${x - s}" y="${y - s}" width="${2 * s}" height="${2 * s}" fill="${colour}"/>`;
    case 2:
      return `<path d="M${x} ${y - s - 1}L${x + s + 1} ${y + s}L${x - s - 1} ${y + s}Z" fill="${colour}"/>`;
    case 3:
      return `<path d="M${x} ${y - s - 1}L${x + s + 1} ${y}L${x} ${y + s + 1}L${x - s - 1} ${y}Z" fill="${colour}"/>`;
    case 4:
      return `<path d="M${x - s} ${y - s}L${x + s} ${y + s}M${x + s} ${y - s}L${x - s} ${y + s}" stroke="${colour}" stroke-width="2"/>`;
    default:
      return `<circle cx="${x}" cy="${y}" r="${s}" fill="none" stroke="${colour}" stroke-width="2"/>`;
  }
}

/** The y range and its ticks: powers of ten on a log scale, five steps on a linear one. */
function yAxis(values: readonly number[], scale: Chart['scale']): { min: number; max: number; ticks: number[] } {
  const positive = values.filter((v) => v > 0);
  if (scale === 'log') {
    const low = 10 ** Math.floor(Math.log10(Math.min(...(positive.length ? positive : [1]))));
    const high = 10 ** Math.ceil(Math.log10(Math.max(...(positive.length ? positive : [10]))));
    const ticks: number[] = [];
    for (let t = low; t <= high; t *= 10) ticks.push(t);
    return { min: low, max: Math.max(high, low * 10), ticks };
  }
  const top = Math.max(1, ...values);
  const step = niceStep(top / 5);
  const max = Math.ceil(top / step) * step;
  return { min: 0, max, ticks: Array.from({ length: Math.round(max / step) + 1 }, (_, i) => i * step) };
}

function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
}

/** A series' line: its colour, width and dash. */
const stroke = (s: number) => `stroke="${COLOURS[s % COLOURS.length]}" stroke-width="2" stroke-dasharray="${DASHES[s % DASHES.length]}"`;

const tickText = (t: number) => (t >= 1000 ? `${t / 1000}k` : String(t));

/** One panel at (x0, 0): axes, gridlines, references, series. */
function renderPanel(chart: Chart, panel: Panel, x0: number, y: (v: number) => number, axis: { ticks: number[] }): string {
  const plotW = PANEL_W - MARGIN.left - MARGIN.right;
  const slanted = slantLabels(chart);
  const x = (i: number) => x0 + MARGIN.left + (chart.categories.length === 1 ? plotW / 2 : (i * plotW) / (chart.categories.length - 1));
  const out: string[] = [
    `<text x="${x0 + MARGIN.left + plotW / 2}" y="${MARGIN.top - 12}" text-anchor="middle" font-weight="bold">${escapeXml(panel.title)}</text>`,
  ];
  for (const t of axis.ticks) {
    out.push(`<line x1="${x0 + MARGIN.left}" x2="${x0 + PANEL_W - MARGIN.right}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/>`);
    out.push(`<text x="${x0 + MARGIN.left - 6}" y="${y(t) + 4}" text-anchor="end">${tickText(t)}</text>`);
  }
  chart.categories.forEach((c, i) => {
    const ly = MARGIN.top + PANEL_H + 16;
    out.push(
      slanted
        ? `<text x="${x(i)}" y="${ly}" text-anchor="end" transform="rotate(-30 ${x(i)} ${ly})">${escapeXml(c)}</text>`
        : `<text x="${x(i)}" y="${ly}" text-anchor="middle">${escapeXml(c)}</text>`,
    );
  });
  out.push(
    `<line x1="${x0 + MARGIN.left}" x2="${x0 + MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + PANEL_H}" stroke="#333"/>`,
    `<line x1="${x0 + MARGIN.left}" x2="${x0 + PANEL_W - MARGIN.right}" y1="${MARGIN.top + PANEL_H}" y2="${MARGIN.top + PANEL_H}" stroke="#333"/>`,
  );
  for (const ref of panel.references ?? []) {
    out.push(
      `<line x1="${x0 + MARGIN.left}" x2="${x0 + PANEL_W - MARGIN.right}" y1="${y(ref.value)}" y2="${y(ref.value)}" stroke="#777" stroke-dasharray="4 4"/>`,
      `<text x="${x0 + MARGIN.left + 4}" y="${y(ref.value) - 4}" fill="#555" ${HALO}>${escapeXml(ref.name)}</text>`,
    );
  }
  panel.series.forEach((series, s) => {
    const points = series.values.flatMap((v, i) => (v === null ? [] : [[x(i), y(v)] as const]));
    const colour = COLOURS[s % COLOURS.length]!;
    if (points.length > 1)
      out.push(`<polyline points="${points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ')}" fill="none" ${stroke(s)}/>`);
    for (const [px, py] of points) out.push(marker(s, px, py, colour));
  });
  return out.join('\n');
}

/** The chart as one SVG document. */
export function renderChart(chart: Chart): string {
  const values = chart.panels.flatMap((p) => [
    ...p.series.flatMap((s) => s.values.filter((v): v is number => v !== null)),
    ...(p.references ?? []).map((r) => r.value),
  ]);
  const axis = yAxis(values, chart.scale);
  const y = (v: number) => {
    const f =
      chart.scale === 'log'
        ? (Math.log10(Math.max(v, axis.min)) - Math.log10(axis.min)) / (Math.log10(axis.max) - Math.log10(axis.min))
        : v / axis.max;
    return MARGIN.top + PANEL_H * (1 - f);
  };
  const names = [...new Set(chart.panels.flatMap((p) => p.series.map((s) => s.name)))];
  // Wide enough for the title and the subtitle whatever the number of panels.
  const width = Math.max(Math.max(1, chart.panels.length) * PANEL_W, MIN_WIDTH);
  const bottom = slantLabels(chart) ? SLANTED_BOTTOM : MARGIN.bottom;
  const legendY = MARGIN.top + PANEL_H + bottom;
  const midY = MARGIN.top + PANEL_H / 2;
  const height = legendY + 20 * names.length + 12;
  const legend = names.map((name, s) => {
    const ly = legendY + 20 * s;
    const colour = COLOURS[s % COLOURS.length]!;
    const line = `<line x1="${MARGIN.left}" x2="${MARGIN.left + 28}" y1="${ly}" y2="${ly}" ${stroke(s)}/>`;
    return `${line}${marker(s, MARGIN.left + 14, ly, colour)}<text x="${MARGIN.left + 36}" y="${ly + 4}">${escapeXml(name)}</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(chart.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="12" y="18" font-size="14" font-weight="bold">${escapeXml(chart.title)}</text>`,
    `<text x="12" y="34" fill="#444">${escapeXml(chart.subtitle)}</text>`,
    `<text x="14" y="${midY}" transform="rotate(-90 14 ${midY})" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`,
    `<text x="${width / 2}" y="${MARGIN.top + PANEL_H + bottom - 14}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`,
    ...chart.panels.map((panel, i) => renderPanel(chart, panel, i * PANEL_W, y, axis)),
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}

/** One bar of a stacked bar chart: its label, and one length per part. */
export interface Bar {
  label: string;
  parts: readonly number[];
}

/** A horizontal stacked bar chart: a bar per row, its parts in order, each part told apart by colour and pattern. */
export interface BarChart {
  title: string;
  subtitle: string;
  /** What each part is, in order. */
  parts: readonly string[];
  unit: string;
  bars: readonly Bar[];
}

const BAR_H = 14;
const LABEL_W = 250;
const BARS_W = 560;

/** The bar chart as one SVG document; parts alternate solid and hatched fills so neighbours differ in grey too. */
export function renderBarChart(chart: BarChart): string {
  const top = 48;
  const longest = Math.max(1, ...chart.bars.map((b) => b.parts.reduce((s, p) => s + p, 0)));
  const step = niceStep(longest / 5);
  const max = Math.ceil(longest / step) * step;
  const scale = (v: number) => (v / max) * BARS_W;
  const height = top + chart.bars.length * (BAR_H + 4) + 40 + 18 * chart.parts.length;
  const width = LABEL_W + BARS_W + 40;
  const fill = (i: number) => (i % 2 === 0 ? COLOURS[i % COLOURS.length]! : `url(#hatch${i})`);
  const defs = chart.parts.map(
    (_, i) =>
      `<pattern id="hatch${i}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
      `<rect width="6" height="6" fill="#fff"/><rect width="3" height="6" fill="${COLOURS[i % COLOURS.length]}"/></pattern>`,
  );
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(chart.title)}</title>`,
    `<defs>${defs.join('')}</defs>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="12" y="18" font-size="14" font-weight="bold">${escapeXml(chart.title)}</text>`,
    `<text x="12" y="34" fill="#444">${escapeXml(chart.subtitle)}</text>`,
  ];
  for (let t = 0; t <= max; t += step) {
    out.push(
      `<line x1="${LABEL_W + scale(t)}" x2="${LABEL_W + scale(t)}" y1="${top - 4}" y2="${top + chart.bars.length * (BAR_H + 4)}" stroke="#ddd"/>`,
    );
    out.push(`<text x="${LABEL_W + scale(t)}" y="${top - 6}" text-anchor="middle">${tickText(t)}</text>`);
  }
  chart.bars.forEach((bar, b) => {
    const y = top + b * (BAR_H + 4);
    out.push(`<text x="${LABEL_W - 6}" y="${y + BAR_H - 3}" text-anchor="end">${escapeXml(bar.label)}</text>`);
    let x = LABEL_W;
    bar.parts.forEach((part, i) => {
      if (part <= 0) return;
      const tip = escapeXml(`${bar.label}: ${chart.parts[i]} ${Math.round(part)} ${chart.unit}`);
      const box = `x="${x.toFixed(1)}" y="${y}" width="${scale(part).toFixed(1)}" height="${BAR_H}"`;
      out.push(`<rect ${box} fill="${fill(i)}" stroke="#fff" stroke-width="0.5"><title>${tip}</title></rect>`);
      x += scale(part);
    });
  });
  const legendY = top + chart.bars.length * (BAR_H + 4) + 24;
  chart.parts.forEach((name, i) => {
    out.push(`<rect x="${LABEL_W}" y="${legendY + 18 * i - 10}" width="24" height="12" fill="${fill(i)}" stroke="#333" stroke-width="0.5"/>`);
    out.push(`<text x="${LABEL_W + 32}" y="${legendY + 18 * i}">${escapeXml(name)}</text>`);
  });
  out.push(`<text x="${LABEL_W + BARS_W}" y="${legendY}" text-anchor="end">${escapeXml(chart.unit)}</text>`, '</svg>', '');
  return out.join('\n');
}
