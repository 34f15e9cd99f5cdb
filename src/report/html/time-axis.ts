/*
 * A timeline's time axis. The drill proper begins when the producers are
 * released; before that the processes are starting up, which takes seconds
 * on a busy machine and would squeeze what happened into the right half of
 * the plot. So the start-up is folded into one narrow band at the left (its
 * marks still drawn in it, to scale within it), and the axis counts from the
 * release: 0 s is when the producers went. A timeline that does not say when
 * they went keeps one scale from its first event.
 */

/** How wide the folded start-up band is, in user units. */
export const STARTUP_BAND = 56;

/** A tick of the axis: its position and its label. */
export interface Tick {
  x: number;
  label: string;
}

/** Where each time goes across the plot, the ticks, and the start-up band (null when not folded). */
export interface TimeAxis {
  x: (ms: number) => number;
  ticks: Tick[];
  band: { x0: number; x1: number; ms: number } | null;
}

/** A round step for the axis: about eight ticks across. */
function tickStep(span: number): number {
  const rough = span / 8;
  const power = 10 ** Math.floor(Math.log10(Math.max(1, rough)));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough) ?? 10 * power;
}

/** The axis of a drill `span` ms long whose first `startup` ms were start-up, drawn from `left` across `width` units. */
export function timeAxis(span: number, startup: number, left: number, width: number): TimeAxis {
  const folded = startup > 0 && startup < span;
  const from = folded ? startup : 0;
  const zero = folded ? left + STARTUP_BAND : left;
  const plot = width - (folded ? STARTUP_BAND : 0);
  const rest = Math.max(1, span - from);
  const x = (ms: number) => (folded && ms < startup ? left + (ms / startup) * STARTUP_BAND : zero + ((ms - from) / rest) * plot);
  const step = tickStep(rest);
  // As many decimals as the step needs (0.05 s steps: two), so no two ticks read the same.
  const decimals = Math.max(0, Math.ceil(-Math.log10(step / 1000) - 1e-9));
  const ticks: Tick[] = [];
  for (let n = 0; n * step <= rest; n++) ticks.push({ x: zero + ((n * step) / rest) * plot, label: `${((n * step) / 1000).toFixed(decimals)} s` });
  return { x, ticks, band: folded ? { x0: left, x1: zero, ms: startup } : null };
}

/** A time on the axis in words: seconds from the producers' release, or how far into the start-up it came. */
export function axisTime(ms: number, startup: number): string {
  if (startup > 0 && ms < startup) return `start-up, ${(ms / 1000).toFixed(2)} s in`;
  return `${((ms - startup) / 1000).toFixed(2)} s`;
}
