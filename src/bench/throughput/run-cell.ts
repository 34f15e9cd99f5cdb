import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type Child, Supervisor } from '../../harness/supervisor.js';
import { readyNames, release } from '../../kernel/start-barrier.js';
import type { ChildResult, ChildSpec } from './child-spec.js';
import type { PreparedTarget, TargetDefinition } from './targets.js';

/** The compiled child every worker of a cell runs (from dist/, as a drill's processes run). */
export const CHILD_PATH = fileURLToPath(new URL('../../../dist/bench/throughput/child.js', import.meta.url));

/** How far ahead of the release the common instant lies: every child, on a loaded machine, must have seen it first. */
const LEAD_MS = 250;

/** How long children may take to connect and say they are ready. */
const READY_TIMEOUT_MS = 120_000;

/** One cell's measurement: units done (jobs, or raw transactions), over how long, by how many children; or why it failed. */
export interface CellMeasurement {
  units: number;
  elapsedMs: number;
  /** Whether the cell's time ran out first: the children were stopped, and the rate is over what they did by then. */
  stoppedEarly: boolean;
  /** Units per child, in the children's order: how evenly the work was shared. */
  perChild: number[];
  /** A child that failed (with its stderr's last lines), or a deadline passed; null when every child finished. */
  error: string | null;
}

/** What one cell runs: a prepared target, so many children, each with its share of raw transactions. */
export interface CellRun {
  definition: TargetDefinition;
  prepared: PreparedTarget;
  workers: number;
  /** A raw target's transactions per child (0 for a queue). */
  transactionsPerChild: number;
  dir: string;
  /** How long the children may work: then they are told to stop (SIGTERM), and the rate is what they did by then. */
  budgetMs: number;
  /** The bench was interrupted: the children are told to stop at once. */
  signal: AbortSignal;
}

/** How long children told to stop may take to finish the unit in hand and say what they did. */
const STOP_GRACE_MS = 20_000;

/**
 * Runs one cell: starts its children (real processes running compiled JS),
 * waits until each is connected and ready, lets them all go at one instant,
 * and waits until every one has finished. The time is from that instant to
 * the end of the last unit any child did.
 */
export async function runCell(run: CellRun): Promise<CellMeasurement> {
  const barrier = join(run.dir, 'barrier');
  mkdirSync(barrier, { recursive: true });
  // Every target's children keep freed heap, as a drill's own processes do (src/harness/heap-trim.ts): equal terms.
  const supervisor = new Supervisor(run.dir, run.prepared.env, { keepFreedHeap: true });
  try {
    const specs = Array.from({ length: run.workers }, (_, index): ChildSpec => {
      const name = `w${index + 1}`;
      return {
        target: run.definition.target,
        name,
        index,
        barrier,
        resultFile: join(run.dir, `${name}.result.json`),
        locator: run.prepared.locator,
        transactions: run.transactionsPerChild,
      };
    });
    const children = specs.map((spec) => supervisor.spawn(spec.name, [JSON.stringify(spec)], { script: CHILD_PATH }));
    const notReady = await waitReady(barrier, children);
    if (notReady !== null) return failed(run.workers, notReady);
    release(barrier, Date.now() + LEAD_MS);
    let ended = await waitExits(children, Date.now() + LEAD_MS + run.budgetMs, run.signal);
    const stoppedEarly = ended === 'late';
    if (stoppedEarly) {
      for (const child of children) supervisor.signal(child, 'SIGTERM');
      ended = await waitExits(children, Date.now() + STOP_GRACE_MS);
    }
    if (ended !== null) return failed(run.workers, ended === 'late' ? `the children did not stop within ${STOP_GRACE_MS} ms of being told` : ended);
    return { ...measured(specs), stoppedEarly };
  } finally {
    await supervisor.stopAll(1_000);
  }
}

function failed(workers: number, error: string): CellMeasurement {
  return { units: 0, elapsedMs: 0, stoppedEarly: false, perChild: new Array<number>(workers).fill(0), error };
}

/** Null once every child is ready; else why not (a child that died first, or the timeout). */
async function waitReady(barrier: string, children: readonly Child[]): Promise<string | null> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (readyNames(barrier).length < children.length) {
    const dead = children.find((child) => !child.alive);
    if (dead) return `${dead.name} ended before it was ready: ${errorLines(dead)}`;
    if (Date.now() > deadline) return `the children were not all ready within ${READY_TIMEOUT_MS} ms`;
    await sleep(20);
  }
  return null;
}

/** Null once every child ended well; else the first failure (a child's exit), or 'late' at the deadline. */
async function waitExits(children: readonly Child[], deadline: number, signal?: AbortSignal): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  let interrupted: (() => void) | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()));
    interrupted = () => resolve('late');
    signal?.addEventListener('abort', interrupted, { once: true });
  });
  try {
    const exits = children.map(async (child) => {
      const exit = await child.exited;
      return exit.exitCode === 0 ? null : `${child.name} failed (${exit.signal ?? `exit code ${exit.exitCode}`}): ${errorLines(child)}`;
    });
    const first = await Promise.race([late, Promise.all(exits).then((all) => all.find((e) => e !== null) ?? null)]);
    return first;
  } finally {
    clearTimeout(timer);
    if (interrupted) signal?.removeEventListener('abort', interrupted);
  }
}

/** The first lines a child wrote to stderr (its error and where), for the reason it failed. */
function errorLines(child: Child): string {
  const file = `${child.logFile}.err`;
  const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  return text === '' ? '(nothing on stderr)' : text.split('\n').slice(0, 3).join(' | ');
}

function measured(specs: readonly ChildSpec[]): CellMeasurement {
  const results = specs.map((spec) => JSON.parse(readFileSync(spec.resultFile, 'utf8')) as ChildResult);
  const releasedAt = Math.min(...results.map((r) => r.releasedAt));
  const lastAt = Math.max(...results.map((r) => r.lastAt));
  return {
    units: results.reduce((n, r) => n + r.units, 0),
    elapsedMs: Math.max(1, lastAt - releasedAt),
    stoppedEarly: false,
    perChild: results.map((r) => r.units),
    error: null,
  };
}
