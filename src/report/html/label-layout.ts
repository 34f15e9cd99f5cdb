/*
 * Where a timeline's text labels go, so that no two ever overlap: the page is
 * laid out on the server, with no browser to measure text, so each label's
 * width is estimated on the safe side (a wide sans-serif, every glyph of a
 * class as wide as the widest of it), and a label that would touch another, or
 * not fit the span it names, is not drawn: its mark keeps its full text as a
 * tooltip, and a job's mark its line in the job's history under the timeline.
 * The real-browser test measures the result (getBoundingClientRect).
 */

// Advance widths per pixel of font size, rounded up from DejaVu Sans (Debian's default sans) and its bold, the widest common sans.
const NARROW = /[il.,:;'|!()[\]\s]/;
const SLIM = /[frtjI]/;
const WIDE = /[mwMW@%#…→—]/;

/** How wide `text` is at `fontPx` (user units), estimated on the safe side. */
export function textWidth(text: string, fontPx: number, bold = false): number {
  let em = 0;
  for (const c of text) {
    if (NARROW.test(c)) em += 0.42;
    else if (SLIM.test(c)) em += 0.48;
    else if (WIDE.test(c)) em += 1.0;
    else if (/[A-Z]/.test(c)) em += 0.8;
    else em += 0.68;
  }
  return em * fontPx * (bold ? 1.12 : 1);
}

/** `text` cut with an ellipsis to fit `width` at `fontPx` (the whole goes in a tooltip). */
export function fitText(text: string, width: number, fontPx: number, bold = false): string {
  if (textWidth(text, fontPx, bold) <= width) return text;
  const chars = [...text];
  while (chars.length > 1 && textWidth(`${chars.join('')}…`, fontPx, bold) > width) chars.pop();
  return `${chars.join('')}…`;
}

/** A label that wants a place on one row: where it would start, its estimated width, and how far right its mark lets it go. */
export interface LabelCandidate {
  id: string;
  x: number;
  width: number;
  /** Where the span it names ends, less a margin: the label must end before it. */
  limit: number;
}

/** The gap kept between two labels on a row. */
const GAP = 6;

/** Room on a row already taken: by a label, or by a mark a label must not cover. */
export interface Taken {
  from: number;
  to: number;
}

/**
 * Where each candidate on one row gets its label, left to right: at its start, else just after a label or an obstacle
 * (shifted along its own span), wherever it fits before its limit and clears every other label and every obstacle (the
 * row's point marks); a label with no such place is not drawn (absent from the map).
 */
export function placeLabels(candidates: readonly LabelCandidate[], obstacles: readonly Taken[] = []): Map<string, number> {
  const placed: Taken[] = [...obstacles];
  const shown = new Map<string, number>();
  for (const label of [...candidates].sort((a, b) => a.x - b.x)) {
    const starts = [label.x, ...placed.map((other) => other.to + GAP).filter((x) => x > label.x)].sort((a, b) => a - b);
    const x = starts.find(
      (from) => from + label.width <= label.limit && !placed.some((other) => from < other.to + GAP && other.from < from + label.width + GAP),
    );
    if (x === undefined) continue;
    placed.push({ from: x, to: x + label.width });
    shown.set(label.id, x);
  }
  return shown;
}
