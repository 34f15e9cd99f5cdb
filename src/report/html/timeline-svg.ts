import { escapeHtml } from './escape.js';
import type { Layout, Mark, MarkKind } from './lanes.js';

/*
 * A scenario's timeline as inline SVG: lanes down, time across. Every mark
 * has a shape of its own as well as a colour, so a grey-scale print still
 * tells a claim from a kill; every mark is focusable and carries its full
 * text as a <title> (the tooltip, and what a screen reader says). Marks
 * that are evidence of a broken invariant get the class `hl`: a thick outline
 * and a halo. A starved span is a hatched grey band the height of its lane,
 * drawn beneath the lane's other marks: the machine's load, the ground the
 * drill ran on, not something that happened to a job.
 */

const WIDTH = 1000;
const LABEL_WIDTH = 120;
const LANE_HEIGHT = 30;
const TOP = 24;
const PLOT = WIDTH - LABEL_WIDTH - 16;

/** The legend's words for each kind of mark. */
export const MARK_MEANING: Record<MarkKind, string> = {
  lease: 'a lease held (job, epoch)',
  pause: 'the process stopped (a pause fault)',
  partition: "the process cut off from its queue's server (a partition)",
  starved: 'starved: the machine did not run the process (load, not a fault)',
  claim: 'claimed',
  release: 'released (retry, compensating)',
  review: 'sent to review',
  done: 'done',
  refused: 'a stale write refused',
  checkpoint: 'a checkpoint in the transaction log',
  effect: 'an effect the world applied',
  incident: 'an incident',
  fault: 'a fault fired',
  kill: 'SIGKILL',
  network: 'its link to the server: connections reset, a reply lost, a slow link',
  restart: 'started again',
  enqueue: 'enqueued',
  note: 'a note',
};

/** The id of the hatch that fills starved spans, defined once per page (HATCH_DEFS). */
const HATCH = 'qd-starved-hatch';

/** The hatch starved spans are filled with: put once in a page that shows timelines or the legend (ids are the page's). */
export const HATCH_DEFS =
  `<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs><pattern id="${HATCH}" width="6" height="6" ` +
  `patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eee"/>` +
  `<line x1="0" y1="0" x2="0" y2="6" stroke="#888" stroke-width="2.5"/></pattern></defs></svg>`;

/** The shape of a point mark, centred on (x, y). */
function shape(kind: MarkKind, x: number, y: number): string {
  switch (kind) {
    case 'claim':
      return `<path d="M${x - 5},${y - 6}L${x + 6},${y}L${x - 5},${y + 6}Z"/>`;
    case 'release':
      return `<path d="M${x + 5},${y - 6}L${x - 6},${y}L${x + 5},${y + 6}Z"/>`;
    case 'done':
      return `<circle cx="${x}" cy="${y}" r="6"/><path class="ink" d="M${x - 3},${y}L${x - 1},${y + 3}L${x + 4},${y - 3}"/>`;
    case 'review':
      return `<path d="M${x},${y - 7}L${x + 7},${y}L${x},${y + 7}L${x - 7},${y}Z"/>`;
    case 'refused':
    case 'kill':
      return `<path class="cross" d="M${x - 6},${y - 6}L${x + 6},${y + 6}M${x + 6},${y - 6}L${x - 6},${y + 6}"/>`;
    case 'checkpoint':
      return `<rect x="${x - 1.5}" y="${y - 8}" width="3" height="16"/>`;
    case 'effect':
      return `<circle cx="${x}" cy="${y}" r="5"/>`;
    case 'fault':
      return `<path d="M${x},${y - 8}L${x + 7},${y + 6}L${x - 7},${y + 6}Z"/>`;
    case 'restart':
      return `<circle class="ring" cx="${x}" cy="${y}" r="6"/>`;
    case 'network':
      return `<path class="ink" d="M${x - 7},${y}L${x - 3},${y - 5}L${x + 3},${y + 5}L${x + 7},${y}"/>`;
    case 'enqueue':
      return `<path class="cross" d="M${x - 6},${y}L${x + 6},${y}M${x},${y - 6}L${x},${y + 6}"/>`;
    default:
      return `<rect x="${x - 5}" y="${y - 5}" width="10" height="10"/>`;
  }
}

function markSvg(mark: Mark, x: (ms: number) => number, y: number, highlighted: ReadonlySet<string>): string {
  const classes = `mark k-${mark.kind}${highlighted.has(mark.id) ? ' hl' : ''}`;
  const title = `<title>${escapeHtml(mark.title)}</title>`;
  if (mark.kind === 'starved') {
    // Beneath what it overlaps, so no label of its own: the tooltip says how long and when.
    const x0 = x(mark.at);
    const width = Math.max(2, x(mark.end ?? mark.at) - x0);
    const band = `<rect x="${x0}" y="${y - LANE_HEIGHT / 2 + 2}" width="${width}" height="${LANE_HEIGHT - 4}"/>`;
    return `<g id="${mark.id}" class="${classes}" tabindex="0">${title}${band}</g>`;
  }
  if (mark.end !== undefined) {
    const x0 = x(mark.at);
    const width = Math.max(2, x(mark.end) - x0);
    const text = width > mark.label.length * 6 + 6 ? `<text x="${x0 + 3}" y="${y + 4}">${escapeHtml(mark.label)}</text>` : '';
    return `<g id="${mark.id}" class="${classes}" tabindex="0">${title}<rect x="${x0}" y="${y - 8}" width="${width}" height="16" rx="2"/>${text}</g>`;
  }
  return `<g id="${mark.id}" class="${classes}" tabindex="0">${title}${shape(mark.kind, x(mark.at), y)}</g>`;
}

/** The order marks are drawn in within a lane: starved bands, then spans, then points. */
function layer(mark: Mark): number {
  return mark.kind === 'starved' ? 0 : mark.end !== undefined ? 1 : 2;
}

/** A round step for the time axis: about eight ticks across the drill. */
function tickStep(span: number): number {
  const rough = span / 8;
  const power = 10 ** Math.floor(Math.log10(Math.max(1, rough)));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough) ?? 10 * power;
}

/** The timeline of one scenario, `highlighted` the ids of the marks that are evidence. */
export function timelineSvg(layout: Layout, highlighted: ReadonlySet<string>, label: string): string {
  const height = TOP + layout.lanes.length * LANE_HEIGHT + 8;
  const x = (ms: number) => LABEL_WIDTH + (ms / layout.span) * PLOT;
  const step = tickStep(layout.span);
  const ticks: string[] = [];
  for (let t = 0; t <= layout.span; t += step) {
    ticks.push(
      `<line class="tick" x1="${x(t)}" y1="${TOP - 6}" x2="${x(t)}" y2="${height - 4}"/>` +
        `<text class="axis" x="${x(t)}" y="${TOP - 10}">${(t / 1000).toFixed(step < 1000 ? 1 : 0)} s</text>`,
    );
  }
  const lanes = layout.lanes.map((lane, i) => {
    const y = TOP + i * LANE_HEIGHT + LANE_HEIGHT / 2;
    const life = `<line class="life" x1="${x(lane.from)}" y1="${y}" x2="${x(lane.to ?? layout.span)}" y2="${y}"/>`;
    const marks = layout.marks
      .filter((mark) => mark.lane === lane.id)
      // Starved bands first, then other spans, so points are drawn over spans and spans over the machine's load.
      .sort((a, b) => layer(a) - layer(b))
      .map((mark) => markSvg(mark, x, y, highlighted))
      .join('');
    return `<g class="lane"><text class="lane-label" x="4" y="${y + 4}">${escapeHtml(lane.label)}</text>${life}${marks}</g>`;
  });
  return (
    `<svg class="timeline" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(label)}" xmlns="http://www.w3.org/2000/svg">` +
    `${ticks.join('')}${lanes.join('')}</svg>`
  );
}

/** The legend: every kind of mark with its shape and meaning. */
export function legendSvg(): string {
  const kinds = Object.keys(MARK_MEANING) as MarkKind[];
  const items = kinds.map((kind) => {
    const mark: Mark = {
      id: `legend-${kind}`,
      lane: '',
      kind,
      at: 0,
      label: '',
      title: MARK_MEANING[kind],
      ...(kind === 'lease' || kind === 'pause' || kind === 'partition' || kind === 'starved' ? { end: 1 } : {}),
    };
    const icon = mark.end !== undefined ? `<rect x="2" y="4" width="24" height="14" rx="2"/>` : shape(kind, 14, 11);
    const svg = `<svg viewBox="0 0 28 22" width="28" height="22" aria-hidden="true"><g class="mark k-${kind}">${icon}</g></svg>`;
    return `<li>${svg} ${escapeHtml(MARK_MEANING[kind])}</li>`;
  });
  return `<ul class="legend">${items.join('')}</ul>`;
}
