import { join } from 'node:path';
import { UsageError } from '../kernel/errors.js';
import { makeOutDir } from '../report/out-dir.js';
import { loadScenarioFile } from '../scenarios/load.js';
import { resolveScenarios } from '../scenarios/resolve.js';
import { loadExpectations, unknownNames } from './expectations.js';
import { type CompareOptions, runCompare } from './run-compare.js';
import type { CompareReport } from './schema.js';
import { type WrittenCompare, writeCompare } from './write-compare.js';

/** A comparison as it is asked for: the scenarios by name (or all), where to write it, and an expectations file. */
export interface CompareQueuesOptions extends Omit<CompareOptions, 'scenarios' | 'dir' | 'expectations'> {
  /** Only these scenarios, by name; empty: every scenario of the file. */
  only: readonly string[];
  /** Where comparisons are made: OUT/<UTC time>/. */
  out: string;
  /** A YAML file of the verdicts expected per queue and scenario (`--expect`); absent: every cell judged, i.e. not an error. */
  expect?: string;
}

/** A comparison done: its report, its files, and its directory. */
export interface ComparedQueues {
  report: CompareReport;
  written: WrittenCompare;
  dir: string;
}

/**
 * A whole comparison, as `queue-drill compare` and the library run it: every
 * scenario name and the expectations checked before any queue runs (bad input
 * fails in a moment, not after the first column), then the queues one after
 * another, then the matrix written into a new directory under `out`.
 */
export async function compareQueues(options: CompareQueuesOptions): Promise<ComparedQueues> {
  const { only, out, expect, ...rest } = options;
  const loaded = options.loaded ?? loadScenarioFile(options.file);
  const scenarios = resolveScenarios(loaded, { seed: options.seed, only }).map((s) => s.name);
  const expectations = loadExpectations(expect);
  const unknown = unknownNames(expect, options.queues, scenarios);
  if (unknown.length > 0) throw new UsageError(`--expect ${expect} names what this comparison does not run: ${unknown.join(', ')}`);
  makeOutDir(out);
  const dir = join(out, new Date().toISOString().replace(/:/g, '-'));
  const report = await runCompare({ ...rest, loaded, scenarios, dir, expectations });
  return { report, written: writeCompare(dir, report), dir };
}
