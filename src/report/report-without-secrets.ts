import { redactKnown } from '../kernel/redact.js';
import { commandLineSecrets, redactCommandLine } from '../kernel/redact-command-line.js';
import type { DrillReport, ScenarioReport } from './schema.js';

/*
 * A report carries command lines besides the one it was run with: the queue's
 * name (`process:python3 q.py --token abc` is a command line), each scenario's
 * replay command, a job's approve command, each merged shard's command. Every
 * one of them is redacted here (src/kernel/redact-command-line.ts), and a secret
 * found in one is taken out of every other text of the report too (an error
 * that quotes the queue's command, a timeline line), wherever it was built.
 * Every view is made from the report this gives, so none can show what another
 * hides; merge applies it to shards written by an older queue-drill.
 */

/**
 * Shorter than this a secret found in a command line is redacted in the command
 * lines alone: replaced in every text it could hit a status or a name
 * (`--token done`). A scenario's declared secret is at least as long.
 */
const MIN_SPREAD_SECRET = 8;

const done = new WeakMap<DrillReport, DrillReport>();

/** The report with no secret of a command line anywhere in it; the same object when it holds none. */
export function reportWithoutSecrets(report: DrillReport): DrillReport {
  const known = done.get(report);
  if (known) return known;
  const lines = commandLinesOf(report);
  const secrets = [...new Set(lines.flatMap(commandLineSecrets))].filter((s) => s.length >= MIN_SPREAD_SECRET);
  // Nothing to take out when no command line changes under redaction (then no secret was found in one either).
  const holdsNone = lines.every((line) => redactCommandLine(line) === line);
  const result = holdsNone ? report : redactCommandLines(secrets.length === 0 ? report : withoutKnown(report, secrets));
  done.set(report, result);
  return result;
}

/** Every command line a report holds. */
function commandLinesOf(report: DrillReport): string[] {
  return [
    report.command,
    report.queue,
    ...(report.merged ?? []).map((shard) => shard.command),
    ...(report.interruption?.notStarted ?? []).map((run) => run.queue),
    ...report.scenarios.flatMap((scenario) => [scenario.queue, scenario.replay]),
  ];
}

/** Each command line of the report, redacted. */
function redactCommandLines(report: DrillReport): DrillReport {
  const interruption = report.interruption && {
    ...report.interruption,
    notStarted: report.interruption.notStarted.map((run) => ({ ...run, queue: redactCommandLine(run.queue) })),
  };
  return {
    ...report,
    command: redactCommandLine(report.command),
    queue: redactCommandLine(report.queue),
    interruption,
    scenarios: report.scenarios.map(redactScenarioCommands),
    ...(report.merged ? { merged: report.merged.map((shard) => ({ ...shard, command: redactCommandLine(shard.command) })) } : {}),
  };
}

/** One scenario's command lines redacted (its queue, its replay): for what is printed as the drill goes. */
export function redactScenarioCommands(scenario: ScenarioReport): ScenarioReport {
  return { ...scenario, queue: redactCommandLine(scenario.queue), replay: redactCommandLine(scenario.replay) };
}

/** The report with each of these secrets replaced in every text of it (a job's approve command, an error, a timeline line). */
function withoutKnown(report: DrillReport, secrets: readonly string[]): DrillReport {
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string') return redactKnown(value, secrets);
    if (Array.isArray(value)) return value.map(visit);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visit(item)]));
    return value;
  };
  return visit(report) as DrillReport;
}
