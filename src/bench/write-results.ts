import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { drillChart, exploreChart, recoveryChart, throughputChart } from './charts.js';
import { type BenchResults, BenchResultsSchema } from './results.js';

/** A UTC instant as a file name's stem: 2026-12-01T07-18-55.338Z. */
export const stampOf = (iso: string) => iso.replace(/:/g, '-');

/**
 * Validates the results (a result that does not fit its schema is the
 * bench's bug, never written) and writes them as OUT/<stamp>.json with a chart
 * per family measured beside it (<stamp>.throughput.svg, …). Returns the files written.
 */
export function writeResults(out: string, results: Omit<BenchResults, 'charts'>): { results: BenchResults; files: string[] } {
  mkdirSync(out, { recursive: true });
  const stamp = stampOf(results.startedAt);
  const provisional = { ...results, charts: [] } as BenchResults;
  const charts = (
    [
      ['throughput', throughputChart(provisional)],
      ['recovery', recoveryChart(provisional)],
      ['drill', drillChart(provisional)],
      ['explore', exploreChart(provisional)],
    ] as const
  ).flatMap(([family, svg]) => (svg === null ? [] : [{ file: `${stamp}.${family}.svg`, svg }]));
  const final = BenchResultsSchema.parse({ ...results, charts: charts.map((c) => c.file) });
  const files: string[] = [];
  for (const chart of charts) {
    writeFileSync(join(out, chart.file), chart.svg);
    files.push(join(out, chart.file));
  }
  const json = join(out, `${stamp}.json`);
  writeFileSync(json, `${JSON.stringify(final, null, 2)}\n`);
  return { results: final, files: [json, ...files] };
}
