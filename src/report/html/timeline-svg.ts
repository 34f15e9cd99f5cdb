import { escapeHtml } from './escape.js';
import { fitText, placeLabels, textWidth } from './label-layout.js';
import type { Layout, Mark, MarkKind } from './lanes.js';
import { type TimeAxis, timeAxis } from './time-axis.js';

/*
 * A scenario's timeline as inline SVG: lanes down, time across, counted from
 * the producers' release (the start-up before it folded into one narrow band
 * at the left: time-axis.ts). Every mark has a shape of its own as well as a
 * colour, so a grey-scale print still tells a claim from a kill; every mark
 * is focusable and carries its full text as a <title> (the tooltip, and what
 * a screen reader says), and a job's mark is a link to its line in the job's
 * history under the timeline. Marks that are evidence of a finding get the
 * class `hl`: a thick outline and a halo. A starved span is a hatched grey
 * band the height of its lane, drawn beneath the lane's other marks: the
 * machine's load, the ground the drill ran on, not something that happened
 * to a job. No two labels overlap (label-layout.ts): a span's label is drawn
 * only where it fits and clears the others, a lane's name is cut to its
 * column, and the band's label has a row of its own.
 */

const WIDTH = 1000;
const LABEL_WIDTH = 120;
const LANE_HEIGHT = 30;
/** Where the lanes begin: below the start-up band's label row (BAND_ROW) and the axis's labels. */
const TOP = 40;
const BAND_ROW = 12;
/** A timeline with no start-up band has no row for its label: its lanes begin this much higher. */
const AXIS_ROW_SHIFT = 16;
const PLOT = WIDTH - LABEL_WIDTH - 16;
/** The font sizes of the labels (the page's style sets the same): a mark's, a lane's (bold). */
const MARK_FONT = 10;
const LANE_FONT = 11;
/** How far into its span a span's label starts. */
const LABEL_INSET = 3;
/** Half the widest point mark's shape. */
const POINT_HALF = 8;

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

/** A mark's element: a link to its line in the job's history when it has one (so a click leads to the text), else focusable by itself. */
function markElement(mark: Mark, classes: string, body: string): string {
  const title = `<title>${escapeHtml(mark.title)}</title>`;
  if (mark.text !== undefined) return `<a id="${escapeHtml(mark.id)}" class="${classes}" href="#${escapeHtml(mark.text)}">${title}${body}</a>`;
  return `<g id="${escapeHtml(mark.id)}" class="${classes}" tabindex="0">${title}${body}</g>`;
}

function markSvg(mark: Mark, x: (ms: number) => number, y: number, highlighted: ReadonlySet<string>): string {
  const classes = `mark k-${mark.kind}${highlighted.has(mark.id) ? ' hl' : ''}`;
  if (mark.kind === 'starved') {
    // Beneath what it overlaps, so no label of its own: the tooltip says how long and when.
    const x0 = x(mark.at);
    const width = Math.max(2, x(mark.end ?? mark.at) - x0);
    return markElement(mark, classes, `<rect x="${x0}" y="${y - LANE_HEIGHT / 2 + 2}" width="${width}" height="${LANE_HEIGHT - 4}"/>`);
  }
  if (mark.end !== undefined) {
    const x0 = x(mark.at);
    const width = Math.max(2, x(mark.end) - x0);
    return markElement(mark, classes, `<rect x="${x0}" y="${y - 8}" width="${width}" height="16" rx="2"/>`);
  }
  return markElement(mark, classes, shape(mark.kind, x(mark.at), y));
}

/**
 * The order marks are drawn in within a lane: starved bands, then what the process went through (a pause, a partition),
 * then leases, then points: each over the ground it happened on.
 */
function layer(mark: Mark): number {
  if (mark.kind === 'starved') return 0;
  if (mark.kind === 'pause' || mark.kind === 'partition') return 1;
  return mark.end !== undefined ? 2 : 3;
}

/**
 * The labels of one lane's spans, over every mark of the lane (so no span hides one): each where it fits its span and
 * clears the others (label-layout.ts). Its mark's tooltip, and a job's line in its history, say the same and more.
 */
function laneLabels(marks: readonly Mark[], x: (ms: number) => number, y: number): string {
  const spans = marks.filter((mark) => mark.end !== undefined && mark.kind !== 'starved' && mark.label !== '');
  // A point's shape is at most 16 units across: a label does not cover one.
  const points = marks.filter((mark) => mark.end === undefined).map((mark) => ({ from: x(mark.at) - POINT_HALF, to: x(mark.at) + POINT_HALF }));
  const placed = placeLabels(
    spans.map((mark) => ({ id: mark.id, x: x(mark.at) + LABEL_INSET, width: textWidth(mark.label, MARK_FONT), limit: x(mark.end!) - LABEL_INSET })),
    points,
  );
  return spans
    .filter((mark) => placed.has(mark.id))
    .map((mark) => `<text class="span-label" x="${placed.get(mark.id)}" y="${y + 4}" aria-hidden="true">${escapeHtml(mark.label)}</text>`)
    .join('');
}

/** The folded start-up: a band across every lane, and its label in a row of its own above the axis. */
function startupBand(band: NonNullable<TimeAxis['band']>, height: number): string {
  const seconds = `${(band.ms / 1000).toFixed(1)} s`;
  return (
    `<rect class="startup" x="${band.x0}" y="${TOP - 4}" width="${band.x1 - band.x0}" height="${height - TOP}">` +
    `<title>start-up: ${seconds} from the first process started to the producers' release, folded into this band (not to scale)</title></rect>` +
    `<text class="band-label" x="${band.x0}" y="${BAND_ROW}">start-up ${seconds}</text>`
  );
}

/** The timeline of one scenario, `highlighted` the ids of the marks that are evidence. */
export function timelineSvg(layout: Layout, highlighted: ReadonlySet<string>, label: string): string {
  const axis = timeAxis(layout.span, layout.startup, LABEL_WIDTH, PLOT);
  const top = axis.band !== null ? TOP : TOP - AXIS_ROW_SHIFT;
  const height = top + layout.lanes.length * LANE_HEIGHT + 8;
  const ticks = axis.ticks.map(
    (tick) =>
      `<line class="tick" x1="${tick.x}" y1="${top - 6}" x2="${tick.x}" y2="${height - 4}"/>` +
      `<text class="axis" x="${tick.x}" y="${top - 10}">${tick.label}</text>`,
  );
  const lanes = layout.lanes.map((lane, i) => {
    const y = top + i * LANE_HEIGHT + LANE_HEIGHT / 2;
    const life = `<line class="life" x1="${axis.x(lane.from)}" y1="${y}" x2="${axis.x(lane.to ?? layout.span)}" y2="${y}"/>`;
    const mine = layout.marks.filter((mark) => mark.lane === lane.id);
    const marks = [...mine]
      .sort((a, b) => layer(a) - layer(b))
      .map((mark) => markSvg(mark, axis.x, y, highlighted))
      .join('');
    // A name too long for the column is cut; the whole is its tooltip.
    const name = fitText(lane.label, LABEL_WIDTH - 8, LANE_FONT, true);
    const tip = name !== lane.label ? `<title>${escapeHtml(lane.label)}</title>` : '';
    return `<g class="lane"><text class="lane-label" x="4" y="${y + 4}">${tip}${escapeHtml(name)}</text>${life}${marks}${laneLabels(mine, axis.x, y)}</g>`;
  });
  const band = axis.band !== null ? startupBand(axis.band, height) : '';
  return (
    `<svg class="timeline" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(label)}" xmlns="http://www.w3.org/2000/svg">` +
    `${band}${ticks.join('')}${lanes.join('')}</svg>`
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
