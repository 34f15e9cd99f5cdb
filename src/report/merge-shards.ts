import { cpSync, mkdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Baseline, compareWithBaseline, type RecoveryTolerance } from './baseline.js';
import { reportWithoutSecrets } from './report-without-secrets.js';
import { type DrillReport, REPORT_VERSION, type ScenarioReport } from './schema.js';
import { runKey } from './shard.js';
import { type CheckedShard, checkShards } from './shard-check.js';
import { drillExitCode, summarize } from './verdict.js';
import { readReport, runDirAt, type WrittenReport, writeReport } from './write-report.js';

/*
 * `queue-drill merge`: the reports of a drill's shards (run --shard i/n on
 * several machines) joined into the report one run of the whole drill would
 * have written. The shards are checked to be every share of one drill
 * (shard-check.ts); their scenarios are put back in the drill's order, and the
 * summary, the exit code and (given one) the baseline comparison are computed
 * again by the functions a run uses, never added up from the shards' own: a
 * shard that exited 4 (inconclusive) is merged like any other, its starved
 * scenarios counted apart, and the whole exits 4 only if nothing else failed. Each
 * scenario's directory (its store, ledger and logs) is copied from beside its
 * shard's report into the new run directory, and the report's paths follow,
 * so the merged directory stands on its own as a run's does; replay commands
 * are per scenario and need no change. The report is written by run's own
 * writer, which moves `latest` to it, without the secrets of its command lines
 * (./report-without-secrets.ts).
 */

/** What to merge, and where. */
export interface MergeOptions {
  /** Each shard's run directory, or its report.json. */
  inputs: readonly string[];
  /** Where the merged run directory goes: OUT/<UTC time>/, with OUT/latest pointing at it. */
  out: string;
  /** An earlier run to compare the whole drill with (--baseline): a regression fails the merge as it would a run. */
  baseline?: { baseline: Baseline; tolerance: RecoveryTolerance };
  /** The command line as the user typed it, for the report. */
  command: string;
  /** The clock that names the run directory. @default Date.now */
  now?: () => number;
}

/** The merged report, where it was written, and the scenarios whose directory was not found beside their shard's report. */
export interface MergedReport {
  report: DrillReport;
  written: WrittenReport;
  /** Scenario runs (name#repeat) whose artefacts stay where the shard wrote them: no directory of theirs was beside its report. */
  withoutArtefacts: string[];
}

/** The report.json a merge input names: the file itself, or the one in a run directory. */
export function shardReportFile(input: string): string {
  return statSync(input, { throwIfNoEntry: false })?.isDirectory() ? join(input, 'report.json') : input;
}

/** Reads, checks and joins the shards' reports, and writes the whole drill's report into a new run directory. */
export function mergeShards(options: MergeOptions): MergedReport {
  const files = options.inputs.map(shardReportFile);
  const shards = checkShards(files.map((file) => ({ file, report: readReport(file) })));
  const first = shards[0]!;
  const runDir = runDirAt(options.out, (options.now ?? Date.now)());
  mkdirSync(runDir, { recursive: true });
  const withoutArtefacts: string[] = [];
  const position = new Map(first.shard.order.map((run, index) => [run, index]));
  const scenarios = shards
    .flatMap((shard) => shard.report.scenarios.map((scenario) => moveArtefacts(scenario, dirname(shard.file), runDir, withoutArtefacts)))
    .sort((a, b) => position.get(runKey(a))! - position.get(runKey(b))!);
  const summary = summarize(scenarios);
  const compared = options.baseline ? compareWithBaseline(options.baseline.baseline, scenarios, options.baseline.tolerance) : undefined;
  const started = Math.min(...shards.map((shard) => Date.parse(shard.report.startedAt)));
  const finished = Math.max(...shards.map((shard) => Date.parse(shard.report.finishedAt)));
  const report: DrillReport = {
    version: REPORT_VERSION,
    tool: 'queue-drill',
    toolVersion: first.report.toolVersion,
    command: options.command,
    file: first.report.file,
    queue: first.report.queue,
    seed: first.report.seed,
    // Shares calibrated apart (auto) ran at their own scales, each scenario's in its report: the drill's is the largest.
    timeScale: Math.max(...shards.map((shard) => shard.report.timeScale)),
    // The drill ran from the first shard's start to the last one's finish, whether the shards ran side by side or one after another.
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date(finished).toISOString(),
    durationMs: finished - started,
    exitCode: drillExitCode(summary, { interrupted: false, regressed: (compared?.regressions.length ?? 0) > 0 }),
    // An interrupted shard is refused (checkShards): what is merged ran to its end.
    interruption: null,
    summary,
    scenarios,
    ...(compared ? { baseline: compared } : {}),
    merged: shards.map(provenance),
  };
  // A shard written by an older queue-drill may hold a secret in a command line: the merged report does not pass it on.
  const clean = reportWithoutSecrets(report);
  return { report: clean, written: writeReport(runDir, clean), withoutArtefacts };
}

function provenance(shard: CheckedShard): NonNullable<DrillReport['merged']>[number] {
  const { report } = shard;
  return {
    index: shard.shard.index,
    report: shard.file,
    command: report.command,
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    exitCode: report.exitCode,
  };
}

/**
 * The scenario with its directory copied from beside its shard's report into
 * runDir, and its paths moved with it. A scenario that never ran (not judged)
 * has no directory, as in a run; one whose directory is not there (only the
 * report.json was kept) keeps the paths the shard wrote, and is listed.
 */
function moveArtefacts(scenario: ScenarioReport, shardDir: string, runDir: string, withoutArtefacts: string[]): ScenarioReport {
  const name = basename(scenario.runDir);
  const from = join(shardDir, name);
  const to = join(runDir, name);
  if (statSync(from, { throwIfNoEntry: false })?.isDirectory()) cpSync(from, to, { recursive: true });
  else if (scenario.notJudged === null && scenario.notSupported === null) {
    withoutArtefacts.push(runKey(scenario));
    return scenario;
  }
  const moved = (path: string) =>
    path === scenario.runDir ? to : path.startsWith(`${scenario.runDir}/`) ? to + path.slice(scenario.runDir.length) : path;
  return {
    ...scenario,
    runDir: to,
    artefacts: { ...scenario.artefacts, store: moved(scenario.artefacts.store), ledger: moved(scenario.artefacts.ledger) },
  };
}
