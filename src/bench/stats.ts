/** The p-th percentile (0 to 100) of `values` by the nearest-rank method; null for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** A span of time, [start, end) in ms since the epoch. */
export interface Span {
  start: number;
  end: number;
}

/**
 * How much of `window` each category covers, where the categories do not
 * overlap: the time a category claims is not counted again for any after it
 * (so they are in order of precedence). The rest of the window is `rest`.
 */
export function exclusiveDurations<K extends string>(
  window: Span,
  categories: ReadonlyArray<readonly [K, readonly Span[]]>,
): { byCategory: Record<K, number>; rest: number } {
  const taken: Span[] = [];
  const byCategory = {} as Record<K, number>;
  for (const [name, spans] of categories) {
    const own = union(spans.map((s) => clip(s, window)).filter((s) => s.end > s.start));
    byCategory[name] = own.reduce<number>((total, span) => total + length(subtract(span, taken)), 0);
    taken.push(...own);
  }
  const covered = length(union(taken));
  return { byCategory, rest: Math.max(0, window.end - window.start - covered) };
}

function clip(span: Span, window: Span): Span {
  return { start: Math.max(span.start, window.start), end: Math.min(span.end, window.end) };
}

/** The spans merged where they overlap, in order. */
export function union(spans: readonly Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** What is left of `span` once `others` are taken out of it. */
function subtract(span: Span, others: readonly Span[]): Span[] {
  let left: Span[] = [span];
  for (const other of union(others)) {
    left = left.flatMap((s) => {
      if (other.end <= s.start || other.start >= s.end) return [s];
      return [
        { start: s.start, end: other.start },
        { start: other.end, end: s.end },
      ].filter((piece) => piece.end > piece.start);
    });
  }
  return left;
}

function length(spans: readonly Span[]): number {
  return spans.reduce((total, s) => total + (s.end - s.start), 0);
}
