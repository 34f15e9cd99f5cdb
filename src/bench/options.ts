import { parseArgs } from 'node:util';
import { UsageError } from '../kernel/errors.js';
import { BENCH_FAMILIES, type BenchFamily } from './results.js';
import { BENCH_SIZES, type BenchSize } from './sizes.js';

/** What a bench run measures, and where it writes. */
export interface BenchOptions {
  families: BenchFamily[];
  size: BenchSize;
  /** Where results go: OUT/<UTC>.json and the charts beside it. @default bench/results */
  out: string;
  /** Keep the work directory (the stores, the drills' run directories) instead of removing it. */
  keep: boolean;
  /** How long a throughput cell's workers may run before they are stopped (--cell-seconds). @default the size's */
  cellBudgetMs?: number;
}

/** The usage line, for --help and bad flags. */
export const USAGE =
  'usage: npm run bench -- [--only throughput,recovery,drill,explore] [--size tiny|small|full] [--cell-seconds N] [--out DIR] [--keep]';

/** Reads the command line; a flag that does not parse is a UsageError (exit 2) naming it. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions | 'help' {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (parsed.help) return 'help';
  const only = parsed.only === undefined ? [...BENCH_FAMILIES] : parsed.only.split(',').map((f) => f.trim());
  const unknown = only.filter((f) => !(BENCH_FAMILIES as readonly string[]).includes(f));
  if (unknown.length > 0 || only.length === 0) throw new UsageError(`--only takes ${BENCH_FAMILIES.join(', ')}; got ${parsed.only}\n${USAGE}`);
  const size = parsed.size ?? 'small';
  if (!(BENCH_SIZES as readonly string[]).includes(size)) throw new UsageError(`--size takes ${BENCH_SIZES.join(', ')}; got ${size}\n${USAGE}`);
  const cellSeconds = parsed['cell-seconds'] === undefined ? undefined : Number(parsed['cell-seconds']);
  if (cellSeconds !== undefined && !(Number.isFinite(cellSeconds) && cellSeconds > 0))
    throw new UsageError(`--cell-seconds takes a number of seconds above 0; got ${parsed['cell-seconds']}\n${USAGE}`);
  return {
    families: only as BenchFamily[],
    size: size as BenchSize,
    out: parsed.out ?? 'bench/results',
    keep: parsed.keep ?? false,
    ...(cellSeconds === undefined ? {} : { cellBudgetMs: cellSeconds * 1000 }),
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      only: { type: 'string' },
      size: { type: 'string' },
      'cell-seconds': { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}
