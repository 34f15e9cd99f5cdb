/** A plain-text table: a header row, a rule, and the rows, each column as wide as its widest cell; numbers right-aligned. */
export function renderTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => /^[-\d.,%×x ]*$|^—$/.test(r[i] ?? '')));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** A rate for a table: whole numbers, "—" for none. */
export const perSecond = (n: number | null) => (n === null ? '—' : Math.round(n).toString());

/** A share as a percentage, "—" for none. */
export const share = (n: number | null) => (n === null ? '—' : `${Math.round(n * 100)}%`);

/** A ratio as a multiple ("1.3×"), "—" for none. */
export const times = (n: number | null) => (n === null ? '—' : `${n.toFixed(2)}×`);

/** Milliseconds, whole, "—" for none. */
export const millis = (n: number | null) => (n === null ? '—' : Math.round(n).toString());

/** Seconds with one decimal. */
export const seconds = (ms: number) => (ms / 1000).toFixed(1);
