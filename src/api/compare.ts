import { dirname } from 'node:path';
import { compareQueues } from '../compare/compare-queues.js';
import type { Column, CompareReport } from '../compare/schema.js';
import type { WrittenCompare } from '../compare/write-compare.js';
import type { ExitCode } from '../kernel/errors.js';
import { printedCommand } from '../kernel/printed-command.js';
import { toolVersion } from '../kernel/version.js';
import { canonicalQueueName } from '../queues/adapter-module.js';
import { loadQueue } from '../queues/registry.js';
import type { ScenarioReport } from '../report/schema.js';
import { integerOption, namesOption, parallelOption, queueOption, timeScaleOption } from './check-options.js';
import type { LoadedScenarios } from './load-scenarios.js';
import { OptionsError } from './options-error.js';
import { scenariosSource } from './scenarios-source.js';

/** A comparison as a test suite asks for it; every option but `queues` has the default `queue-drill compare` has. */
export interface CompareOptions {
  /** The queue implementations to compare, in order: the matrix's columns (e.g. ['sqlite', 'postgres']). */
  queues: readonly string[];
  /** A scenarios file's path, or what loadScenarios returned (its selection comes with it). @default 'scenarios.yaml' */
  scenarios?: string | LoadedScenarios;
  /** Only these scenarios, by name. @default the loaded scenarios' selection, else every scenario of the file */
  only?: readonly string[];
  /** The seed, the same for every queue. @default 1 */
  seed?: number;
  /** Run each cell this many times, with seeds seed, seed+1, …; a cell whose runs disagree is flaky. @default 1 */
  repeat?: number;
  /** Each queue's own options, by queue: `{ 'graphile-worker': { job_key_mode: 'preserve_run_at' } }`. @default every option at its default */
  queueOptions?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** How many scenarios of one queue run at once (queues run one after another). @default 2 */
  parallel?: number;
  /** Where comparisons are made: OUT/<UTC time>/. @default 'compare-runs' */
  out?: string;
  /** Stretch every duration of every scenario by this factor, the same for every queue. @default 1 */
  timeScale?: number;
  /** A YAML file of the verdicts expected per queue and scenario ('*' for the rest). @default every cell passes */
  expect?: string;
  /** PostgreSQL for the queues that need it. @default QD_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres */
  pgUrl?: string;
  /** Redis for the queues that need it. @default QD_REDIS_URL, else redis://127.0.0.1:6379 */
  redisUrl?: string;
  /** RabbitMQ for the queues that need it. @default QD_AMQP_URL, else amqp://guest:guest@127.0.0.1:5672 */
  amqpUrl?: string;
  /** NATS for the queues that need it. @default QD_NATS_URL, else nats://127.0.0.1:4222 */
  natsUrl?: string;
  /** Let the restart_server fault restart each queue's server for everyone on this machine. @default false */
  restartServers?: boolean;
  /** Stops the comparison: the column running is stopped and the report says it was interrupted (exit code 3). */
  signal?: AbortSignal;
  /** Called when a queue's column starts and when it is done. */
  onColumn?: (event: { phase: 'start'; queue: string } | { phase: 'done'; column: Column }) => void;
  /** Called when a scenario of a queue has its verdict (`index` counts that queue's scenarios done so far). */
  onScenario?: (queue: string, report: ScenarioReport, index: number, total: number) => void;
}

/** A comparison done: the matrix, where it was written, and the exit code the command line would end with. */
export interface Comparison {
  /** compare.json's content: a column per queue, a cell per queue and scenario (its verdict, and whether it was expected). */
  report: CompareReport;
  /** The files written, absolute: json (compare.json), schema, markdown (compare.md), junit (junit.xml). */
  written: WrittenCompare;
  /** The comparison's directory, absolute: OUT/<UTC time>/ (each queue's own run directory in a folder of it). */
  dir: string;
  /** What `queue-drill compare` would exit with: 0 every cell as expected, 1 one is not, 3 interrupted. */
  exitCode: ExitCode;
}

/**
 * Runs the same scenarios, with the same seed, against several queues, one
 * after another, as `queue-drill compare` does, and writes one matrix. A
 * queue that cannot be reached is its column's error, not an exception; bad
 * input (no queue, an unknown one, a scenarios or expectations file) throws an
 * InputError before any queue runs.
 */
export async function compare(options: CompareOptions): Promise<Comparison> {
  const queues = namesOption('compare', 'queues', options?.queues).map(canonicalQueueName);
  if (queues.length === 0) throw new OptionsError('compare: queues names no queue; give one or more');
  if (new Set(queues).size !== queues.length) throw new OptionsError(`compare: queues names a queue twice: ${queues.join(', ')}`);
  for (const queue of queues) await loadQueue(queueOption(queue)!);
  const source = scenariosSource('compare', options.scenarios);
  const only = options.only === undefined ? [...source.names] : namesOption('compare', 'only', options.only);
  const seed = integerOption('compare', 'seed', options.seed, 1);
  const repeat = integerOption('compare', 'repeat', options.repeat, 1, 1);
  const queueOptions = Object.fromEntries(Object.entries(options.queueOptions ?? {}).map(([queue, given]) => [canonicalQueueName(queue), given]));
  const parallel = parallelOption('compare', options.parallel);
  const timeScale = timeScaleOption('compare', options.timeScale);
  const out = options.out ?? 'compare-runs';
  const words = ['compare', source.path, '--queues', queues.join(','), '--seed', String(seed)];
  if (only.length > 0) words.push('--only', only.join(','));
  if (repeat !== 1) words.push('--repeat', String(repeat));
  for (const [queue, given] of Object.entries(queueOptions))
    for (const [key, value] of Object.entries(given)) words.push('--queue-option', `${queue}:${key}=${value}`);
  const command = printedCommand(words);
  const { report, written } = await compareQueues({
    file: source.path,
    ...(source.loaded === undefined ? {} : { loaded: source.loaded }),
    only,
    queues,
    seed,
    repeat,
    queueOptions,
    timeScale,
    restartServers: options.restartServers ?? false,
    parallel,
    out,
    ...(options.expect === undefined ? {} : { expect: options.expect }),
    servers: { pgUrl: options.pgUrl, redisUrl: options.redisUrl, amqpUrl: options.amqpUrl, natsUrl: options.natsUrl },
    signal: options.signal ?? new AbortController().signal,
    command,
    toolVersion: toolVersion(),
    ...(options.onColumn === undefined ? {} : { onColumn: options.onColumn }),
    ...(options.onScenario === undefined ? {} : { onScenario: options.onScenario }),
  });
  return { report, written, dir: dirname(written.json), exitCode: report.exitCode };
}
