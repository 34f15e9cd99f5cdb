import { join } from 'node:path';
import { runDrill } from '../drill/run-drill.js';
import { EXIT } from '../kernel/errors.js';
import type { ServerSettings } from '../port/adapter.js';
import { resolveServers } from '../port/servers.js';
import { queueImpl } from '../queues/registry.js';
import type { ScenarioReport } from '../report/schema.js';
import type { ScenarioFile } from '../scenarios/schema.js';
import { cellOf, columnErrorCell } from './cell.js';
import type { Expectations } from './expectations.js';
import { type Cell, COMPARE_VERSION, type Column, type CompareReport } from './schema.js';

export interface CompareOptions {
  /** The scenarios file: read by each column's drill unless `loaded` is given. */
  file: string;
  /** The file, already read and validated, so no column reads it again. */
  loaded?: ScenarioFile;
  /** The scenario names, in the file's order (already checked against it). */
  scenarios: readonly string[];
  /** The queues, as the command line names them: the columns, in order. */
  queues: readonly string[];
  seed: number;
  /** Every duration of every scenario times this, the same for every queue. */
  timeScale: number;
  /** How many times each cell runs, each run with the next seed; runs that disagree make the cell flaky. @default 1 */
  repeat?: number;
  /** Queue options (--queue-option), by queue. */
  queueOptions?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Let the restart_server fault restart a queue's server. */
  restartServers: boolean;
  parallel: number;
  /** The comparison's directory (each column's drill goes in a folder of it). */
  dir: string;
  servers: ServerSettings;
  expectations: Expectations;
  signal: AbortSignal;
  command: string;
  toolVersion: string;
  onColumn?: (event: { phase: 'start'; queue: string } | { phase: 'done'; column: Column }) => void;
  onScenario?: (queue: string, report: ScenarioReport, index: number, total: number) => void;
}

/** A folder name for a queue's column: `process:python3 x.py` becomes `process-python3-x.py`. */
export function columnFolder(queue: string): string {
  return queue.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'queue';
}

const SERVER_NAMES: Record<keyof ServerSettings, string> = { pgUrl: 'PostgreSQL', redisUrl: 'Redis', amqpUrl: 'RabbitMQ', natsUrl: 'NATS' };

/** A URL with its password hidden. */
function masked(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unreadable URL)';
  }
}

/** The servers a queue needs, each with where it was looked for. */
function needsOf(queue: string, servers: ServerSettings): string[] {
  return (queueImpl(queue).needs ?? []).map((name) => {
    const url = servers[name];
    return `${SERVER_NAMES[name]} at ${url === undefined ? 'its default on 127.0.0.1' : masked(url)}`;
  });
}

/** One column: the drill of every scenario on one queue; a queue that cannot be reached is the column's error, not the comparison's. */
async function runColumn(queue: string, options: CompareOptions): Promise<{ column: Column; cells: Cell[] }> {
  const impl = queueImpl(queue);
  const started = Date.now();
  const base = { queue, version: impl.version, description: impl.description, needs: needsOf(queue, resolveServers(options.servers)) };
  try {
    const { report, written } = await runDrill({
      file: options.file,
      ...(options.loaded === undefined ? {} : { loaded: options.loaded }),
      only: options.scenarios,
      seed: options.seed,
      timeScale: options.timeScale,
      restartServers: options.restartServers,
      repeat: options.repeat ?? 1,
      ...(options.queueOptions === undefined ? {} : { queueOptions: options.queueOptions }),
      parallel: options.parallel,
      out: join(options.dir, columnFolder(queue)),
      queue,
      servers: options.servers,
      signal: options.signal,
      command: options.command,
      toolVersion: options.toolVersion,
      onScenario: (event) => {
        if (event.phase === 'done') options.onScenario?.(queue, event.report, event.index, event.total);
      },
    });
    const cells = options.scenarios.flatMap((name) => {
      const runs = report.scenarios.filter((s) => s.name === name);
      return runs.length === 0 ? [] : [cellOf(runs, options.expectations.of(queue, name))];
    });
    const settings = report.scenarios.find((s) => Object.keys(s.queueSettings).length > 0)?.queueSettings ?? {};
    const queueOptions = report.scenarios[0]?.queueOptions ?? {};
    const column: Column = {
      ...base,
      settings,
      options: queueOptions,
      error: null,
      durationMs: Date.now() - started,
      report: written.json,
      summary: report.summary,
    };
    return { column, cells };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const cells = options.scenarios.map((name) => columnErrorCell(name, queue, reason, options.expectations.of(queue, name)));
    return { column: { ...base, settings: {}, options: {}, error: reason, durationMs: Date.now() - started, report: null, summary: null }, cells };
  }
}

/**
 * The same scenarios, with the same seed, against each queue in turn (one
 * column at a time, so the queues never share the machine), as one matrix.
 * Exit code: 0 when every cell is what was expected of it (without an
 * --expect file: passed, every run), 1 when one is not, 3 when interrupted.
 */
export async function runCompare(options: CompareOptions): Promise<CompareReport> {
  const started = Date.now();
  const columns: Column[] = [];
  const cells: Cell[] = [];
  for (const queue of options.queues) {
    if (options.signal.aborted) break;
    options.onColumn?.({ phase: 'start', queue });
    const result = await runColumn(queue, options);
    columns.push(result.column);
    cells.push(...result.cells);
    options.onColumn?.({ phase: 'done', column: result.column });
  }
  const finished = Date.now();
  const interrupted = options.signal.aborted;
  return {
    version: COMPARE_VERSION,
    tool: 'queue-drill',
    toolVersion: options.toolVersion,
    command: options.command,
    file: options.file,
    seed: options.seed,
    timeScale: options.timeScale,
    repeat: options.repeat ?? 1,
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date(finished).toISOString(),
    durationMs: finished - started,
    exitCode: interrupted ? EXIT.harnessFailed : cells.every((c) => c.matched) ? EXIT.ok : EXIT.violated,
    scenarios: [...options.scenarios],
    queues: columns,
    cells,
  };
}
