import { join } from 'node:path';
import { columnFolder } from '../../src/compare/run-compare.js';
import { type Cell, type CellVerdict, COMPARE_VERSION, type Column, type CompareReport, CompareReportSchema } from '../../src/compare/schema.js';
import { drillReport, INCONCLUSIVE_LINES } from '../report/fixture.js';

/*
 * A wide comparison, as wide as a page must take: five queue columns and
 * scenarios with long names, and cells whose evidence holds the ids those
 * queues really use: BullMQ's 90-character job keys (its prefix names the
 * drill, the run and the scenario), pg-boss's UUIDs, NATS's stream subjects.
 * Failing cells with two broken invariants, inconclusive ones with the
 * judge's long starvation line, a flaky one, not-judged, not-supported,
 * vacuous and error cells, some not as expected. What compare.html must fit
 * at 1,280 px.
 */

/** A BullMQ job key as a drill's prefix makes it: 90 characters, with no space to wrap at. */
export const BULL_ID = 'bull:qd-drill-20261201t100000000z-lease-expiry-takeover-s42r1-5f0e8c1b9d:1764583200000-017';
/** A pg-boss job id. */
export const PGBOSS_ID = '0b9f6e3c-2d4a-4f1e-9a7b-3c5d8e1f2a6b';
/** A dedupe key as a producer hashes it: 71 characters with nowhere a browser may break a line. */
export const DEDUPE_KEY = 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const NATS_SUBJECT = 'qd-drill-20261201t100000000z.jobs.1764583200000.17';

export const QUEUES = ['sqlite', 'postgres', 'bullmq', 'pg-boss', 'nats-jetstream'] as const;
type Queue = (typeof QUEUES)[number];

export const SCENARIOS = [
  'crash-after-claim',
  'lease-expiry-takeover',
  'response-lost-publish-worker-dies',
  'coordinator-crash-during-compensation',
  'zombie-blocked-event-loop-past-its-lease-while-the-clock-is-behind-the-lease-end',
  'poison-job-queue-alone',
] as const;
type Scenario = (typeof SCENARIOS)[number];

/** Each queue's own id of job 17. */
const JOB: Record<Queue, string> = { sqlite: '17', postgres: '17', bullmq: BULL_ID, 'pg-boss': PGBOSS_ID, 'nats-jetstream': NATS_SUBJECT };

type Shape = Pick<Cell, 'verdict'> & Partial<Pick<Cell, 'broken' | 'why' | 'notJudged' | 'recoveryMs' | 'expected'>>;

/** What each scenario came out as on each queue: mostly passes, the rest every other kind of cell, with its evidence. */
function shape(scenario: Scenario, queue: Queue): Shape {
  const job = JOB[queue];
  const slow = queue === 'bullmq' || queue === 'pg-boss';
  if (scenario === 'lease-expiry-takeover' && slow)
    return {
      verdict: 'fail',
      broken: [
        { id: 'single-holder', evidence: `job ${job} held by w1#2 and w2#1 at once, from 10:00:02.113 to 10:00:02.540 (lock ${job}:lock)` },
        { id: 'no-duplicate-effect', evidence: `ledger: charge key=${job}:charge applied by w1#1 and w1#2` },
      ],
      why: `single-holder: job ${job} held by w1#2 and w2#1 at once`,
    };
  if (scenario === 'response-lost-publish-worker-dies' && queue !== 'sqlite' && queue !== 'postgres')
    return {
      verdict: 'inconclusive',
      why: `inconclusive (starved): ${INCONCLUSIVE_LINES[0]!.replace('every unfinished job', `job ${job}, like every unfinished job,`)}`,
      expected: ['pass', 'inconclusive'],
    };
  if (scenario === 'crash-after-claim' && queue === 'nats-jetstream')
    return {
      verdict: 'flaky',
      why: `flaky: seed 42 pass, seed 43 fail; no-lost-job: job ${job} (dedupe key ${DEDUPE_KEY}) never settled after w1#1 was killed holding it`,
    };
  if (scenario === 'coordinator-crash-during-compensation')
    return queue === 'sqlite' || queue === 'postgres'
      ? { verdict: 'pass', recoveryMs: 2140, notJudged: [{ id: 'history-complete', reason: 'this queue keeps no per-attempt history' }] }
      : { verdict: 'not_supported', why: `not supported: ${queue} has no saga steps (needs: saga)`, expected: ['not_supported'] };
  if (scenario === 'poison-job-queue-alone' && queue === 'nats-jetstream')
    return { verdict: 'error', why: `error: NATS did not answer at nats://127.0.0.1:4222 while acking ${job} (ECONNREFUSED)` };
  if (scenario === 'poison-job-queue-alone' && queue === 'postgres')
    return { verdict: 'vacuous', why: `vacuous: crash at after_claim never fired (job ${job} was claimed before the fault was armed)` };
  if (scenario.startsWith('zombie-') && slow)
    return {
      verdict: 'not_judged',
      why: `not judged: lease-respected needs each write's fencing epoch, and ${queue} keeps none for ${job}`,
      expected: ['not_judged'],
    };
  return { verdict: 'pass', recoveryMs: 1400 + 97 * QUEUES.indexOf(queue) };
}

function cell(scenario: Scenario, queue: Queue, dir: string): Cell {
  const { verdict, broken = [], why = null, notJudged = [], recoveryMs = null, expected = ['pass'] } = shape(scenario, queue);
  const runDir = join(dir, columnFolder(queue), '2026-12-01T10-00-00.000Z', scenario);
  const runVerdict = verdict === 'flaky' ? 'fail' : verdict;
  return {
    scenario,
    queue,
    verdict,
    broken,
    why,
    notJudged: notJudged as Cell['notJudged'],
    checks: [],
    recoveryMs,
    durationMs: 3412.5,
    runs: [{ seed: 42, verdict: runVerdict, why, runDir }],
    expected: expected as CellVerdict[],
    matched: (expected as CellVerdict[]).includes(verdict),
    runDir,
  };
}

function column(queue: Queue, dir: string): Column {
  const server: Partial<Record<Queue, string>> = {
    postgres: 'PostgreSQL at postgres://postgres@127.0.0.1:5432/postgres',
    bullmq: 'Redis at redis://127.0.0.1:6379/',
    'pg-boss': 'PostgreSQL at postgres://postgres@127.0.0.1:5432/postgres',
    'nats-jetstream': 'NATS at nats://127.0.0.1:4222',
  };
  return {
    queue,
    version: queue === 'bullmq' ? '5.81.3' : `${queue} 1.0`,
    description: queue,
    needs: server[queue] ? [server[queue]] : [],
    settings: queue === 'sqlite' ? {} : { leaseSeconds: 2, stalledInterval: 1000, maxStalledCount: 1, prefix: 'qd-drill-20261201t100000000z' },
    options: queue === 'bullmq' ? { stalledIntervalMs: 1000 } : {},
    error: null,
    durationMs: 61_735,
    report: join(dir, columnFolder(queue), '2026-12-01T10-00-00.000Z', 'report.json'),
    summary: drillReport().summary,
  };
}

/** The five-queue comparison, its links relative to `dir` (the page's folder). */
export function fiveQueueReport(dir: string): CompareReport {
  return CompareReportSchema.parse({
    version: COMPARE_VERSION,
    tool: 'queue-drill',
    toolVersion: '0.1.0',
    command: `queue-drill compare scenarios.yaml --queues ${QUEUES.join(',')} --seed 42`,
    file: 'scenarios.yaml',
    seed: 42,
    timeScale: 1,
    repeat: 1,
    startedAt: '2026-12-01T10:00:00.000Z',
    finishedAt: '2026-12-01T10:05:00.000Z',
    durationMs: 300_000,
    exitCode: 1,
    scenarios: [...SCENARIOS],
    queues: QUEUES.map((queue) => column(queue, dir)),
    cells: QUEUES.flatMap((queue) => SCENARIOS.map((scenario) => cell(scenario, queue, dir))),
  });
}
