import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerCheck } from '../servers.js';
import type { SizePlan } from '../sizes.js';
import type { ThroughputTarget } from './child-spec.js';
import { runCell } from './run-cell.js';
import { TARGET_DEFINITIONS, type TargetDefinition } from './targets.js';

/** One measured cell: a target, a number of worker processes, a backlog, and the rate it reached (jobs/s; a raw rate in jobs). */
export interface ThroughputCell {
  target: ThroughputTarget;
  store: TargetDefinition['store'];
  kind: TargetDefinition['kind'];
  workers: number;
  backlog: number;
  /** Jobs done, or raw transactions made. */
  units: number;
  elapsedMs: number;
  /** Jobs per second; for a raw rate, its transactions per second divided by its queue's transactions per job. */
  jobsPerSecond: number;
  /** A raw rate: write transactions per second as measured. */
  transactionsPerSecond: number | null;
  perChild: number[];
  /** Whether the whole backlog (or every raw transaction) was done; false when the cell's time ran out first. */
  finished: boolean;
  error: string | null;
}

/** The throughput family's results. */
export interface ThroughputResults {
  cells: ThroughputCell[];
  /** One line per target not measured, and why (a server that did not answer). */
  skipped: string[];
}

/** Why a target cannot be measured here (its server did not answer), or null. */
function unavailable(definition: TargetDefinition, servers: ServerCheck): string | null {
  if (definition.store === 'postgres' && servers.postgres !== null) return `${definition.target}: ${servers.postgres}`;
  if (definition.store === 'redis' && servers.redis !== null) return `${definition.target}: ${servers.redis}`;
  return null;
}

/**
 * Measures every target at every backlog and number of worker processes of
 * the plan, one cell at a time (cells never share the machine), each queue
 * next to the raw rate it is held against. `onCell` hears of each cell as it ends.
 */
export async function runThroughput(
  plan: SizePlan['throughput'],
  context: {
    dir: string;
    servers: ServerCheck;
    runId: string;
    /** Interrupted: the cell running is stopped, and no other starts. */
    signal: AbortSignal;
    onCell?: (cell: ThroughputCell) => void;
    onSkip?: (line: string) => void;
  },
): Promise<ThroughputResults> {
  const skipped: string[] = [];
  const targets = TARGET_DEFINITIONS.filter((definition) => {
    const why = unavailable(definition, context.servers);
    if (why !== null) {
      skipped.push(why);
      context.onSkip?.(`skipped ${why}`);
    }
    return why === null;
  });
  const cells: ThroughputCell[] = [];
  for (const backlog of plan.backlogs) {
    for (const workers of plan.workers) {
      for (const definition of targets) {
        if (context.signal.aborted) return { cells, skipped };
        const dir = join(context.dir, `${definition.target}-${workers}w-${backlog}`);
        const cell = await measureCell(definition, {
          backlog,
          workers,
          dir,
          runId: context.runId,
          budgetMs: plan.cellBudgetMs,
          signal: context.signal,
        });
        cells.push(cell);
        context.onCell?.(cell);
      }
    }
  }
  return { cells, skipped };
}

/** One cell: its target prepared with the backlog, its children run, its target removed. */
async function measureCell(
  definition: TargetDefinition,
  at: { backlog: number; workers: number; dir: string; runId: string; budgetMs: number; signal: AbortSignal },
): Promise<ThroughputCell> {
  mkdirSync(at.dir, { recursive: true });
  const runId = `${at.runId} ${definition.target} ${at.workers} ${at.backlog}`;
  const prepared = await definition.prepare({ dir: at.dir, runId, backlog: at.backlog, workers: at.workers });
  try {
    const raw = definition.kind === 'raw';
    const transactionsPerChild = raw ? Math.ceil((at.backlog * definition.transactionsPerJob) / at.workers) : 0;
    const measurement = await runCell({
      definition,
      prepared,
      workers: at.workers,
      transactionsPerChild,
      dir: at.dir,
      budgetMs: at.budgetMs,
      signal: at.signal,
    });
    const perSecond = measurement.error === null ? (measurement.units * 1000) / measurement.elapsedMs : 0;
    const planned = raw ? transactionsPerChild * at.workers : at.backlog;
    // Queue workers that stopped on their own (not told to) with jobs left lost them: an error, not a rate.
    const lost = measurement.error === null && !measurement.stoppedEarly && measurement.units !== planned;
    return {
      target: definition.target,
      store: definition.store,
      kind: definition.kind,
      workers: at.workers,
      backlog: at.backlog,
      units: measurement.units,
      elapsedMs: measurement.elapsedMs,
      jobsPerSecond: raw ? perSecond / definition.transactionsPerJob : perSecond,
      transactionsPerSecond: raw ? perSecond : null,
      perChild: measurement.perChild,
      finished: measurement.error === null && measurement.units === planned,
      error: lost ? `the workers stopped with ${measurement.units} of ${planned} done` : measurement.error,
    };
  } finally {
    await prepared.teardown();
  }
}
