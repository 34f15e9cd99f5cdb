import { join } from 'node:path';
import { QUEUE_IMPLS } from '../adapters/registry.js';
import { explore } from '../explore/explore.js';
import type { ScenarioReport } from '../report/schema.js';
import { runDrill } from '../scenarios/run-drill.js';

/** What the self-test found for one queue implementation. */
export interface SelftestRow {
  queue: string;
  description: string;
  /** Should the drills catch it (a broken variant) or pass it (a sound queue)? */
  broken: boolean;
  /** The first invariant and scenario that flagged it, or null. */
  caughtBy: { invariant: string; scenario: string; faults: number; replay: string } | null;
  /** Every scenario that flagged it, with what broke. */
  flagged: Array<{ scenario: string; verdict: ScenarioReport['verdict']; broken: string[] }>;
  exploreViolations: number;
  durationMs: number;
  /** Why it was not run at all (a server it needs did not answer), or null. */
  skipped: string | null;
  /** The variant was caught, or the sound queue was not flagged (or could not be run: see skipped). */
  ok: boolean;
}

export interface SelftestOptions {
  file: string;
  /** Scenarios to run (all when empty). */
  only: readonly string[];
  /** Implementations to test (all when empty). */
  queues: readonly string[];
  exploreRuns: number;
  seed: number;
  parallel: number;
  out: string;
  toolVersion: string;
  signal: AbortSignal;
  onRow?: (row: SelftestRow) => void;
}

function flaggedScenarios(scenarios: ScenarioReport[]): SelftestRow['flagged'] {
  return scenarios
    .filter((s) => s.verdict !== 'pass')
    .map((s) => ({
      scenario: s.name,
      verdict: s.verdict,
      broken: [...s.invariants.filter((v) => v.status === 'broken').map((v) => v.id), ...s.expectations.map(() => 'expected outcome'), ...s.unfired.map(() => 'fault never fired')],
    }));
}

/*
 * Proves the judge: the shipped scenarios and a bounded explore run against
 * every queue implementation. A broken variant must be caught (some scenario
 * fails an invariant); a sound queue (the reference, on SQLite and on
 * PostgreSQL) must never be flagged. A checker
 * never seen failing proves nothing, and a judge that flags a correct queue is
 * no gate.
 */
export async function selftest(options: SelftestOptions): Promise<SelftestRow[]> {
  const impls = QUEUE_IMPLS.filter((q) => options.queues.length === 0 || options.queues.includes(q.name));
  const rows: SelftestRow[] = [];
  for (const impl of impls) {
    if (options.signal.aborted) break;
    const started = Date.now();
    const broken = impl.soundness === 'broken';
    try {
      await impl.preflight?.({});
    } catch (error) {
      // A queue on a server this machine does not run: said in its row, never passed off as clean.
      const row: SelftestRow = { queue: impl.name, description: impl.description, broken, caughtBy: null, flagged: [], exploreViolations: 0, durationMs: Date.now() - started, skipped: error instanceof Error ? error.message : String(error), ok: true };
      rows.push(row);
      options.onRow?.(row);
      continue;
    }
    const { report } = await runDrill({
      file: options.file,
      only: options.only,
      seed: options.seed,
      repeat: 1,
      parallel: options.parallel,
      out: join(options.out, impl.name),
      queue: impl.name,
      signal: options.signal,
      command: `queue-drill selftest (${impl.name})`,
      toolVersion: options.toolVersion,
    });
    const flagged = flaggedScenarios(report.scenarios);
    const catching = report.scenarios.find((s) => s.verdict === 'fail' && s.invariants.some((v) => v.status === 'broken'));
    let caughtBy: SelftestRow['caughtBy'] = catching
      ? {
          invariant: catching.invariants.find((v) => v.status === 'broken')!.id,
          scenario: catching.name,
          faults: catching.faults.length + catching.worldFaults.length,
          replay: catching.replay,
        }
      : null;
    let exploreViolations = 0;
    // Explore where the fixed scenarios saw nothing (a variant they miss), and always for the reference.
    if (options.exploreRuns > 0 && (!caughtBy || !broken) && !options.signal.aborted) {
      const explored = await explore({
        queue: impl.name,
        runs: options.exploreRuns,
        seed: options.seed,
        timeBudgetMs: 10 * 60_000,
        parallel: options.parallel,
        out: join(options.out, impl.name, 'explore'),
        signal: options.signal,
      });
      exploreViolations = explored.counterexamples.length;
      const first = explored.counterexamples[0];
      if (!caughtBy && first) caughtBy = { invariant: first.broken[0] ?? '?', scenario: `explore: ${first.file}`, faults: first.faults, replay: first.replay };
    }
    const row: SelftestRow = {
      queue: impl.name,
      description: impl.description,
      broken,
      caughtBy: broken ? caughtBy : null,
      flagged,
      exploreViolations,
      durationMs: Date.now() - started,
      skipped: null,
      ok: broken ? caughtBy !== null : flagged.length === 0 && exploreViolations === 0,
    };
    rows.push(row);
    options.onRow?.(row);
  }
  return rows;
}

/** The self-test as a table a person reads. */
export function renderSelftest(rows: readonly SelftestRow[]): string {
  const lines = ['queue                      verdict     caught by (invariant @ scenario)                       faults  time'];
  for (const row of rows) {
    const verdict = row.skipped !== null ? 'SKIPPED' : row.broken ? (row.ok ? 'caught' : 'MISSED') : row.ok ? 'clean' : 'FLAGGED';
    const by = row.skipped !== null
      ? row.skipped
      : row.broken
      ? row.caughtBy
        ? `${row.caughtBy.invariant} @ ${row.caughtBy.scenario}`
        : '(nothing caught it)'
      : row.flagged.map((f) => `${f.scenario}: ${f.broken.join(', ')}`).join('; ') || (row.exploreViolations > 0 ? `${row.exploreViolations} explore violation(s)` : '-');
    const faults = row.caughtBy ? String(row.caughtBy.faults) : '-';
    lines.push(`${row.queue.padEnd(26)} ${verdict.padEnd(11)} ${by.padEnd(54)} ${faults.padStart(6)}  ${(row.durationMs / 1000).toFixed(1)}s`);
  }
  return lines.join('\n');
}
