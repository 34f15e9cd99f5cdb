import { join } from 'node:path';
import { runDrill } from '../drill/run-drill.js';
import { explore } from '../explore/explore.js';
import { NEVER_AT_REST } from '../judge/invariants/no-lost-job.js';
import { printedCommand } from '../kernel/printed-command.js';
import { QUEUE_IMPLS, type QueueImpl } from '../queues/registry.js';
import type { ScenarioReport } from '../report/schema.js';

/** What the self-test found for one queue implementation. */
export interface SelftestRow {
  queue: string;
  description: string;
  /** Should the drills catch it (a broken variant) or pass it (a sound queue)? */
  broken: boolean;
  /** The invariants a broken variant declares its mistake breaks (its `breaks`); only one of them breaking catches it. Empty for a sound queue. */
  expectedBreaks: string[];
  /** For a broken variant, the first of its declared invariants to break, and where; else null. */
  caughtBy: { invariant: string; scenario: string; faults: number; replay: string } | null;
  /** Every scenario that flagged it, with what broke. */
  flagged: Array<{ scenario: string; verdict: ScenarioReport['verdict']; broken: string[] }>;
  exploreViolations: number;
  durationMs: number;
  /** Why it was not run at all (a server it needs did not answer), or null. */
  skipped: string | null;
  /** The variant was caught by one of its declared invariants, or the sound queue was not flagged (or could not be run: see skipped). */
  ok: boolean;
}

export interface SelftestOptions {
  file: string;
  /** Scenarios to run (all when empty). */
  only: readonly string[];
  /** Implementations to test (all when empty). */
  queues: readonly string[];
  /** Where the implementations come from. @default QUEUE_IMPLS */
  impls?: readonly QueueImpl[];
  exploreRuns: number;
  seed: number;
  parallel: number;
  out: string;
  toolVersion: string;
  signal: AbortSignal;
  onRow?: (row: SelftestRow) => void;
}

/** The invariants a scenario broke, by id. */
function brokenIn(scenario: ScenarioReport): string[] {
  return scenario.invariants.filter((invariant) => invariant.status === 'broken').map((invariant) => invariant.id);
}

/**
 * The invariants a scenario broke on evidence about the queue: a verdict whose
 * only line is that the drill ran out of time (no-lost-job's) says nothing
 * about what the queue did wrong, and catches nothing.
 */
export function brokenOnEvidence(scenario: ScenarioReport): string[] {
  return scenario.invariants
    .filter((invariant) => invariant.status === 'broken' && invariant.evidence.some((line) => !line.startsWith(NEVER_AT_REST)))
    .map((invariant) => invariant.id);
}

/**
 * The scenarios that flagged the queue: a failure, a vacuous run or a harness error. A scenario the queue cannot
 * run as asked (not judged, with its reason: an embedded queue has no server to restart) flags nothing, nor does
 * an inconclusive one (the machine starved it), which catches nothing either (catchIn).
 */
function flaggedScenarios(scenarios: ScenarioReport[]): SelftestRow['flagged'] {
  return scenarios
    .filter((scenario) => scenario.verdict === 'fail' || scenario.verdict === 'vacuous' || scenario.verdict === 'error')
    .map((scenario) => ({
      scenario: scenario.name,
      verdict: scenario.verdict,
      broken: [
        ...brokenIn(scenario),
        ...scenario.expectations.map(() => 'expected outcome'),
        ...scenario.unfired.map(() => 'fault never fired'),
        ...scenario.nothingJudged.map(() => 'nothing judged'),
      ],
    }));
}

/** The first of `expected` among the invariants a run broke (in the run's order), or undefined. */
function expectedBreak(broken: readonly string[], expected: readonly string[]): string | undefined {
  return broken.find((id) => expected.includes(id));
}

/**
 * The first scenario in which one of the variant's declared invariants broke
 * on evidence, and which one: a variant flagged only by some other invariant is
 * caught by luck (or by a checker wrong about something else), not by its own
 * mistake; one flagged only because a drill timed out, or only by a harness
 * error (verdict `error`), is not caught at all.
 */
export function catchIn(scenarios: readonly ScenarioReport[], expected: readonly string[]): SelftestRow['caughtBy'] {
  for (const scenario of scenarios) {
    if (scenario.verdict !== 'fail') continue;
    const invariant = expectedBreak(brokenOnEvidence(scenario), expected);
    const faults = scenario.faults.length + scenario.worldFaults.length;
    if (invariant) return { invariant, scenario: scenario.name, faults, replay: scenario.replay };
  }
  return null;
}

/*
 * Proves the judge: the shipped scenarios and a bounded explore run against
 * every queue implementation. A broken variant must be caught by one of the
 * invariants it declares its mistake breaks (some scenario fails it); a sound
 * queue (the reference, on SQLite and on PostgreSQL) must never be flagged. A
 * checker never seen failing proves nothing, a checker that catches a mistake
 * it is not about proves little, and a judge that flags a correct queue is no gate.
 */
export async function selftest(options: SelftestOptions): Promise<SelftestRow[]> {
  const known = (options.impls ?? QUEUE_IMPLS).filter((q) => q.soundness !== 'observed');
  // The queues named run in the order named (the rows read as the command was written); none named: all, in the registry's order.
  const impls =
    options.queues.length === 0 ? known : options.queues.flatMap((name) => known.filter((q) => q.name === name || q.aliases?.includes(name)));
  const rows: SelftestRow[] = [];
  for (const impl of impls) {
    if (options.signal.aborted) break;
    const row = await selftestQueue(impl, options);
    rows.push(row);
    options.onRow?.(row);
  }
  return rows;
}

/** One queue's row: its drill, then explore where the drill saw nothing (and always for a sound queue). */
async function selftestQueue(impl: QueueImpl, options: SelftestOptions): Promise<SelftestRow> {
  const started = Date.now();
  const broken = impl.soundness === 'broken';
  const expectedBreaks = broken ? [...(impl.breaks ?? [])] : [];
  const base = { queue: impl.name, description: impl.description, broken, expectedBreaks };
  try {
    await impl.preflight?.({});
  } catch (error) {
    // A queue on a server this machine does not run: said in its row, never passed off as clean.
    const skipped = error instanceof Error ? error.message : String(error);
    return { ...base, caughtBy: null, flagged: [], exploreViolations: 0, durationMs: Date.now() - started, skipped, ok: true };
  }
  const { report } = await runDrill({
    file: options.file,
    only: options.only,
    seed: options.seed,
    repeat: 1,
    parallel: options.parallel,
    out: join(options.out, impl.name),
    queue: impl.name,
    // Measured on this machine before each queue's drill: a busy machine stretches every duration rather than starve a sound queue.
    timeScale: 'auto',
    signal: options.signal,
    command: printedCommand(['selftest', '--queues', impl.name]),
    toolVersion: options.toolVersion,
  });
  const flagged = flaggedScenarios(report.scenarios);
  let caughtBy = catchIn(report.scenarios, expectedBreaks);
  let exploreViolations = 0;
  if (options.exploreRuns > 0 && (!caughtBy || !broken) && !options.signal.aborted) {
    const explored = await explore({
      queue: impl.name,
      adapter: impl,
      runs: options.exploreRuns,
      seed: options.seed,
      timeBudgetMs: 10 * 60_000,
      parallel: options.parallel,
      out: join(options.out, impl.name, 'explore'),
      signal: options.signal,
    });
    // A flaky finding on a sound queue is still a run that broke an invariant: it flags the queue as a counterexample does.
    exploreViolations = explored.counterexamples.length + explored.flaky.length;
    const first = explored.counterexamples.find((c) => expectedBreak(c.broken, expectedBreaks));
    if (!caughtBy && first)
      caughtBy = {
        invariant: expectedBreak(first.broken, expectedBreaks)!,
        scenario: `explore: ${first.file}`,
        faults: first.faults,
        replay: first.replay,
      };
  }
  const ok = broken ? caughtBy !== null : flagged.length === 0 && exploreViolations === 0;
  return { ...base, caughtBy: broken ? caughtBy : null, flagged, exploreViolations, durationMs: Date.now() - started, skipped: null, ok };
}

/** What caught a row's queue (or what flagged it, or why it was not run), for the table. */
function caughtText(row: SelftestRow): string {
  if (row.skipped !== null) return row.skipped;
  const flagged = row.flagged.map((f) => `${f.scenario}: ${f.broken.join(', ')}`).join('; ');
  if (!row.broken) return flagged || (row.exploreViolations > 0 ? `${row.exploreViolations} explore violation(s)` : '-');
  if (row.caughtBy) return `${row.caughtBy.invariant} @ ${row.caughtBy.scenario}`;
  if (row.expectedBreaks.length === 0) return '(declares no invariant its mistake breaks)';
  // Flagged, but not for its own mistake: said, so a wrong declaration and a wrong checker both show.
  return flagged ? `none of its own; flagged by ${flagged}` : '(nothing caught it)';
}

// Wide enough for the longest declaration (review-on-timer's three invariants) and a space.
const EXPECTED_WIDTH = 52;

/** The self-test as a table a person reads. */
export function renderSelftest(rows: readonly SelftestRow[]): string {
  const lines = [
    `${'queue'.padEnd(26)} ${'verdict'.padEnd(11)} ${'expected to break'.padEnd(EXPECTED_WIDTH)} ${'caught by (invariant @ scenario)'.padEnd(54)} faults  time`,
  ];
  for (const row of rows) {
    const verdict = row.skipped !== null ? 'SKIPPED' : row.broken ? (row.ok ? 'caught' : 'MISSED') : row.ok ? 'clean' : 'FLAGGED';
    const expected = row.expectedBreaks.join(', ') || '-';
    const faults = row.caughtBy ? String(row.caughtBy.faults) : '-';
    lines.push(
      `${row.queue.padEnd(26)} ${verdict.padEnd(11)} ${expected.padEnd(EXPECTED_WIDTH)} ` +
        `${caughtText(row).padEnd(54)} ${faults.padStart(6)}  ${(row.durationMs / 1000).toFixed(1)}s`,
    );
  }
  return lines.join('\n');
}
