import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { InputError } from '../kernel/errors.js';
import type { ScenarioReport } from './schema.js';

/*
 * A run against a baseline: an earlier run's report (the default branch's
 * last good one, say). A CI gate must say what got worse, not only what
 * fails. Three kinds of regression fail the run:
 *   - a scenario that passed there and fails now (fail or error);
 *   - a fault that fired there and never fires now (the scenario is vacuous:
 *     it no longer tests what it says);
 *   - a recovery time (from a kill to the job settled again, the longest in
 *     the scenario) grown past the tolerance: more than `ratio` times the
 *     baseline's and more than `slackMs` longer (both, so neither a 30 ms
 *     jitter on a 50 ms recovery nor a slow machine's uniform 10% counts).
 *     Each side is taken at its scenario's own time scale: a run at ×2 waits
 *     out leases twice as long, and its recovery is compared halved (CI
 *     runners calibrate --time-scale auto apart, a busy one higher, and that
 *     is the machine, not the queue).
 * Improvements (failed there, passes now), scenarios new or gone, and
 * scenarios not judged on either side are listed and never fail. A scenario
 * inconclusive on either side (the machine starved it) is neither a
 * regression nor an improvement: a starved run shows nothing about the queue,
 * and its recovery times are the machine's as much as the queue's.
 *
 * The baseline is read leniently, by the few fields compared, so a report of
 * an earlier report version still serves.
 */

/** How much longer a recovery may take before it is a regression. */
export interface RecoveryTolerance {
  /** Now over then, at most. @default 1.5 */
  ratio: number;
  /** Now minus then, at most. @default 500 */
  slackMs: number;
}

export const DEFAULT_RECOVERY_TOLERANCE: RecoveryTolerance = { ratio: 1.5, slackMs: 500 };

const BaselineScenarioSchema = z.looseObject({
  name: z.string(),
  repeat: z.int().default(1),
  verdict: z.string(),
  faults: z.array(z.looseObject({ id: z.string(), fired: z.number() })).default([]),
  worldFaults: z.array(z.looseObject({ id: z.union([z.number(), z.string()]), fired: z.number() })).default([]),
  recovery: z.array(z.looseObject({ killToSettledMs: z.number().nullable() })).default([]),
  // Reports before version 8 ran every scenario at ×1.
  timeScale: z.number().positive().default(1),
});

const BaselineSchema = z.looseObject({ tool: z.literal('queue-drill'), version: z.number(), scenarios: z.array(BaselineScenarioSchema) });

type BaselineScenario = z.infer<typeof BaselineScenarioSchema>;

/** An earlier run, as far as a comparison reads it. */
export interface Baseline {
  path: string;
  scenarios: BaselineScenario[];
}

/** A --baseline that cannot be read: bad input, naming the path and what was expected. */
export class BaselineError extends InputError {
  readonly code = 'QD_BAD_BASELINE';
}

/** The report.json at `path`: the file itself, or a run directory (its report.json), or runs' parent (its `latest`). */
export function readBaseline(path: string): Baseline {
  let file = path;
  try {
    if (statSync(path).isDirectory()) {
      const candidates = [join(path, 'report.json'), join(path, 'latest', 'report.json')];
      file = candidates.find((candidate) => statSync(candidate, { throwIfNoEntry: false })?.isFile()) ?? candidates[0]!;
    }
    const parsed = BaselineSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new BaselineError(`--baseline ${file}: not a queue-drill report (${parsed.error.issues[0]?.message ?? 'bad shape'})`);
    return { path: file, scenarios: parsed.data.scenarios };
  } catch (error) {
    if (error instanceof BaselineError) throw error;
    const why = error instanceof SyntaxError ? 'not JSON' : error instanceof Error ? error.message : String(error);
    throw new BaselineError(
      `--baseline ${path}: cannot read a report there (${why}); give a report.json, a run directory, or the directory holding latest`,
      {
        cause: error,
      },
    );
  }
}

/** One scenario that got worse, and how. */
export interface Regression {
  scenario: string;
  kind: 'now-fails' | 'now-vacuous' | 'slower-recovery';
  detail: string;
}

/** What changed against the baseline. */
export interface BaselineComparison {
  baseline: string;
  tolerance: RecoveryTolerance;
  regressions: Regression[];
  improvements: string[];
  added: string[];
  missing: string[];
  /** With --only: how many of the baseline's scenario runs this run left out on purpose (neither compared nor listed as missing). */
  notRun?: number;
}

const keyOf = (s: { name: string; repeat: number }) => `${s.name}#${s.repeat}`;
const label = (s: { name: string; repeat: number }) => (s.repeat > 1 ? `${s.name} (run ${s.repeat})` : s.name);

function slowestRecovery(recovery: ReadonlyArray<{ killToSettledMs: number | null }>): number | null {
  const times = recovery.map((r) => r.killToSettledMs).filter((ms): ms is number => ms !== null);
  return times.length > 0 ? Math.max(...times) : null;
}

/** Why the recovery is a regression, or null: each side's slowest, at its own time scale, past both tolerances. */
function slowerRecovery(then: BaselineScenario, now: ScenarioReport, tolerance: RecoveryTolerance): string | null {
  const was = slowestRecovery(then.recovery);
  const is = slowestRecovery(now.recovery);
  if (was === null || is === null) return null;
  const scaled = (ms: number, scale: number) => Math.round(ms / scale);
  const [wasAt1, isAt1] = [scaled(was, then.timeScale), scaled(is, now.timeScale)];
  if (!(isAt1 > wasAt1 * tolerance.ratio && isAt1 - wasAt1 > tolerance.slackMs)) return null;
  const limits = `tolerance: ×${tolerance.ratio} and +${tolerance.slackMs} ms`;
  if (then.timeScale === 1 && now.timeScale === 1) return `recovery ${is} ms, was ${was} ms (${limits})`;
  return `recovery ${is} ms at ×${now.timeScale}, was ${was} ms at ×${then.timeScale}: ${isAt1} ms against ${wasAt1} ms at ×1 (${limits})`;
}

function firedIds(scenario: Pick<BaselineScenario, 'faults' | 'worldFaults'>): string[] {
  return [
    ...scenario.faults.filter((f) => f.fired > 0).map((f) => f.id),
    ...scenario.worldFaults.filter((f) => f.fired > 0).map((f) => `world #${f.id}`),
  ];
}

function regressionsOf(then: BaselineScenario, now: ScenarioReport, tolerance: RecoveryTolerance): Regression[] {
  const found: Regression[] = [];
  // Starved on either side: nothing to compare (neither now-fails, nor now-vacuous, nor a recovery slowed by the machine).
  if (then.verdict === 'inconclusive' || now.verdict === 'inconclusive') return found;
  const name = label(now);
  if (then.verdict === 'pass' && (now.verdict === 'fail' || now.verdict === 'error')) {
    const broken = now.invariants.filter((v) => v.status === 'broken').map((v) => v.id);
    found.push({
      scenario: name,
      kind: 'now-fails',
      detail: `passed in the baseline, ${now.verdict} now${broken.length > 0 ? ` (broke ${broken.join(', ')})` : ''}`,
    });
  }
  if (now.verdict === 'vacuous') {
    const unfired = new Set(firedIds(then).filter((id) => !firedIds(now).includes(id)));
    if (unfired.size > 0)
      found.push({ scenario: name, kind: 'now-vacuous', detail: `fault(s) ${[...unfired].join(', ')} fired in the baseline, never now` });
  }
  const slower = slowerRecovery(then, now, tolerance);
  if (slower !== null) found.push({ scenario: name, kind: 'slower-recovery', detail: slower });
  return found;
}

/**
 * This run's scenarios against the baseline's. `only`: the names the run was asked for (--only); a baseline
 * scenario not among them was left out on purpose, counted in `notRun`, never listed as gone.
 */
export function compareWithBaseline(
  baseline: Baseline,
  scenarios: readonly ScenarioReport[],
  tolerance: RecoveryTolerance = DEFAULT_RECOVERY_TOLERANCE,
  only: readonly string[] = [],
): BaselineComparison {
  const earlier = new Map(baseline.scenarios.map((s) => [keyOf(s), s]));
  const comparison: BaselineComparison = { baseline: baseline.path, tolerance, regressions: [], improvements: [], added: [], missing: [] };
  for (const now of scenarios) {
    const then = earlier.get(keyOf(now));
    if (!then) {
      comparison.added.push(label(now));
      continue;
    }
    comparison.regressions.push(...regressionsOf(then, now, tolerance));
    // Inconclusive then is not a failure then, so a pass now is no improvement on it.
    if ((then.verdict === 'fail' || then.verdict === 'error' || then.verdict === 'vacuous') && now.verdict === 'pass') {
      comparison.improvements.push(`${label(now)}: ${then.verdict} in the baseline, pass now`);
    }
  }
  const present = new Set(scenarios.map(keyOf));
  const absent = baseline.scenarios.filter((s) => !present.has(keyOf(s)));
  const leftOut = absent.filter((s) => only.length > 0 && !only.includes(s.name));
  comparison.missing = absent.filter((s) => !leftOut.includes(s)).map(label);
  if (only.length > 0) comparison.notRun = leftOut.length;
  return comparison;
}
