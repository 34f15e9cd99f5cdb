import { fileURLToPath } from 'node:url';
import { runDrill } from '../../drill/run-drill.js';
import { toolVersion } from '../../kernel/version.js';
import { lanesText } from '../../report/starvation-lines.js';
import type { SizePlan } from '../sizes.js';
import { breakdown, type ScenarioBreakdown, startedTimes } from './breakdown.js';

/** The shipped drill's scenarios (the same relative path from src/bench/drill and dist/bench/drill). */
export const SHIPPED_SCENARIOS = fileURLToPath(new URL('../../../scenarios.yaml', import.meta.url));

/** The shipped drill, timed: the whole run, and each scenario's time by where it went. */
export interface DrillResults {
  /** From the bench's call to the written report: what a person waits for. */
  wallMs: number;
  /** The drill's own measure (its report's durationMs): the scenarios, before the report is written. */
  reportDurationMs: number;
  /** How many scenarios ran at once: `npm run drill`'s default (auto: src/drill/drill-lanes.ts) chose it. */
  parallel: number;
  /** The report's words for it: how many, why, and whether auto went back to fewer. */
  parallelWhy?: string;
  passed: number;
  scenarios: ScenarioBreakdown[];
  /** The scenarios' breakdowns summed (they ran `parallel` at a time, so the sum exceeds the wall time). */
  totals: Omit<ScenarioBreakdown, 'name' | 'verdict'>;
  /** Scenarios the queue could not run as asked (no time of their own), with why. */
  notRun: string[];
}

const FIELDS = [
  'wallMs',
  'provisionMs',
  'startupMs',
  'faultWaitMs',
  'restartMs',
  'restCheckMs',
  'workMs',
  'stopMs',
  'evidenceMs',
  'teardownMs',
  'judgeMs',
] as const;

/** Runs the shipped drill on the SQLite reference (as `npm run drill` does) and breaks its time down per scenario. */
export async function runDrillTimes(
  plan: SizePlan['drill'],
  context: { dir: string; signal: AbortSignal; onLine?: (line: string) => void },
): Promise<DrillResults> {
  const started = Date.now();
  const { report } = await runDrill({
    file: SHIPPED_SCENARIOS,
    only: plan.only,
    seed: 1,
    repeat: 1,
    parallel: 'auto',
    timeScale: 'auto',
    out: context.dir,
    signal: context.signal,
    command: 'queue-drill bench (the shipped drill)',
    toolVersion: toolVersion(),
    onScenario: (event) => {
      if (event.phase === 'done')
        context.onLine?.(`drill ${event.report.name}: ${event.report.verdict} in ${(event.report.durationMs / 1000).toFixed(1)} s`);
    },
  });
  const wallMs = Date.now() - started;
  const lanes = lanesText(report);
  const scenarios = report.scenarios.flatMap((s) => {
    const row = breakdown(s, startedTimes(s.runDir));
    return row === null ? [] : [row];
  });
  const totals = Object.fromEntries(FIELDS.map((field) => [field, scenarios.reduce((sum, s) => sum + s[field], 0)])) as DrillResults['totals'];
  return {
    wallMs,
    reportDurationMs: report.durationMs,
    parallel: report.lanes?.count ?? 2,
    ...(lanes === null ? {} : { parallelWhy: lanes }),
    passed: report.summary.passed,
    scenarios,
    totals,
    notRun: report.scenarios.filter((s) => s.notJudged !== null).map((s) => `${s.name}: ${s.notJudged}`),
  };
}
