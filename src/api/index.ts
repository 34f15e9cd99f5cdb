/*
 * queue-drill as a library: `import { runDrill, loadScenarios, compare } from
 * 'queue-drill'`, so a drill runs inside a user's own test suite (vitest,
 * node:test, jest) and its verdicts are asserted like any other result.
 *
 *   const { report, exitCode } = await runDrill({ scenarios: SHIPPED_SCENARIOS, only: ['crash-after-claim'], out: dir });
 *   assert.equal(exitCode, 0, report.scenarios.map((s) => `${s.name}: ${s.verdict}`).join('\n'));
 *
 * Each function wraps exactly what the command of the same name runs (the
 * drill in src/drill/run-drill.ts, the comparison in src/compare/), with
 * the command line's defaults; the drill's child processes run this package's
 * own dist/cli/main.js, found from this module, not from the current
 * directory. This module is the package's only entry point (package.json
 * `exports`): what it exports is the public surface; the rest is internal.
 */

export type { Cell, Column, CompareReport } from '../compare/schema.js';
export { EXIT, type ExitCode, InputError, InternalError, QueueDrillError } from '../kernel/errors.js';
export { INVARIANT_IDS, type InvariantId } from '../kernel/vocabulary.js';
export type {
  DrillReport,
  FaultReport,
  JobReport,
  RecoveryReport,
  ReportSummary,
  ScenarioReport,
  ScenarioVerdict,
  Verdict,
} from '../report/schema.js';
export { SCENARIO_VERDICTS } from '../report/schema.js';
export type { WrittenReport } from '../report/write-report.js';
export { ScenarioFileError, type ScenarioIssue } from '../scenarios/scenario-issue.js';
export { type CompareOptions, type Comparison, compare } from './compare.js';
export { type LoadedScenarios, type LoadScenariosOptions, loadScenarios, type ResolvedScenarioOutline } from './load-scenarios.js';
export { OptionsError } from './options-error.js';
export { type DrillRun, type RunDrillOptions, runDrill, type ScenarioEvent } from './run-drill.js';
export { SHIPPED_SCENARIOS } from './shipped.js';
