import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import * as z from 'zod';
import { InputError } from '../kernel/errors.js';
import { CELL_VERDICTS, type CellVerdict } from './schema.js';

/*
 * What `compare --expect FILE` holds each cell to: for each queue, for each
 * scenario (or `'*'` for the rest), the verdicts that are fine (a scenario
 * verdict, or flaky). A cell matches when its verdict is one of them. Without
 * a file, a cell is expected to pass: the exit code follows what the matrix
 * found (a failure, a cell not judged or not supported, a flaky one), so a
 * comparison's green means every queue kept every promise it was asked
 * about; what is known of a queue goes in the file, cell by cell.
 *
 *   reference: { '*': pass }
 *   bullmq:
 *     '*': [pass, fail]
 *     zombie-complete: fail
 */

/** A pass: the default expectation of a cell. */
export const PASSED: readonly CellVerdict[] = ['pass'];

const Verdicts = z.union([z.enum(CELL_VERDICTS), z.array(z.enum(CELL_VERDICTS)).min(1)]);
const ExpectFileSchema = z.record(z.string().min(1), z.record(z.string().min(1), Verdicts));

/** Thrown for an expectations file that cannot be read or does not say what it must. */
export class ExpectationsError extends InputError {
  readonly code = 'QD_BAD_EXPECTATIONS';
}

/** The verdicts expected of each scenario on each queue. */
export interface Expectations {
  of(queue: string, scenario: string): readonly CellVerdict[];
}

/** The expectations of an --expect file (YAML or JSON), or the default when there is none. */
export function loadExpectations(file: string | undefined): Expectations {
  if (file === undefined) return { of: () => PASSED };
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ExpectationsError(`--expect ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = ExpectFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ExpectationsError(
      `--expect ${file}: at ${issue.path.join('.') || 'the top'}: ${issue.message} ` +
        `(expected queue → scenario or '*' → one of ${CELL_VERDICTS.join(', ')}, or a list)`,
    );
  }
  const table = parsed.data;
  return {
    of(queue, scenario) {
      const forQueue = table[queue];
      const wanted = forQueue?.[scenario] ?? forQueue?.['*'];
      if (wanted === undefined) return PASSED;
      return typeof wanted === 'string' ? [wanted] : wanted;
    },
  };
}

/** Queues or scenarios an expectations file names that the comparison does not run: a typo would otherwise expect nothing. */
export function unknownNames(file: string | undefined, queues: readonly string[], scenarios: readonly string[]): string[] {
  if (file === undefined) return [];
  const table = ExpectFileSchema.parse(parse(readFileSync(file, 'utf8')));
  const unknown: string[] = [];
  for (const [queue, byScenario] of Object.entries(table)) {
    if (!queues.includes(queue)) unknown.push(`queue ${queue}`);
    for (const scenario of Object.keys(byScenario))
      if (scenario !== '*' && !scenarios.includes(scenario)) unknown.push(`scenario ${scenario} (under ${queue})`);
  }
  return unknown;
}
