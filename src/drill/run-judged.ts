import { abortCause } from '../judge/interrupted.js';
import { judgeScenario } from '../judge/judge.js';
import { notJudgedReport } from '../judge/not-judged.js';
import type { WireWrite } from '../kernel/vocabulary.js';
import type { DrillFit, QueueAdapter } from '../port/adapter.js';
import { resolveQueueOptions } from '../port/queue-options.js';
import { resolveServers } from '../port/servers.js';
import type { ScenarioReport } from '../report/schema.js';
import type { QueueUnderDrill } from '../saga/queue-under-drill.js';
import type { ResolvedScenario } from '../scenarios/resolve.js';
import { drillDemands } from './drill-demands.js';
import { DrillFailedError, failureText, harnessErrorReport } from './harness-error.js';
import { scenarioOnQueueClock } from './queue-timing.js';
import { runScenario, type ScenarioRunOptions } from './run-scenario.js';
import { usesNetwork } from './runner/drill-network.js';

/**
 * One scenario, start to verdict: the queue first says whether it has what
 * the scenario needs (a feature it lacks: not supported) and whether it can
 * run it as asked (and with which of its own options, on whose clock); a
 * refusal is the report of a scenario not judged, with no process started;
 * else the drill runs and is judged. Whatever fails in the harness once the
 * drill has started (a queue server lost, a world host dead) is this
 * scenario's error, never the whole drill's end: the scenarios judged before it
 * keep their verdicts, and bad input (exit 2) stays about the user's input.
 */
export async function runJudged(
  scenario: ResolvedScenario,
  impl: QueueUnderDrill,
  runDir: string,
  signal: AbortSignal,
  options: ScenarioRunOptions,
  meta: { repeat: number; replay: string },
): Promise<ScenarioReport> {
  const queueOptions = resolveQueueOptions(impl.name, impl.options, scenario.queueOptions ?? {});
  const refusal = { ...meta, runDir, queueOptions };
  const lacking = lackingFeature(scenario, impl);
  if (lacking !== null) return notJudgedReport(scenario, impl, lacking, { ...refusal, unsupported: true });
  if (!(options.restartServers ?? false) && restartsServer(scenario))
    return notJudgedReport(
      scenario,
      impl,
      "restart_server restarts the queue's server for everyone using it on this machine: run with --restart-servers to allow it",
      refusal,
    );
  const unreachable = unreachablePoint(scenario, impl);
  if (unreachable !== null) return notJudgedReport(scenario, impl, unreachable, refusal);
  const servers = resolveServers(options.servers, scenario.settings);
  const fit: DrillFit = (await impl.fit?.(drillDemands(scenario, queueOptions), servers)) ?? { ok: true, mapping: {} };
  if (!fit.ok) return notJudgedReport(scenario, impl, fit.reason, { ...refusal, unsupported: fit.unsupported === true });
  const timed = scenarioOnQueueClock(scenario, fit.atLeast);
  const started = Date.now();
  try {
    const run = await runScenario(timed.scenario, impl, runDir, signal, { ...options, queueOptions });
    const judging = Date.now();
    const report = judgeScenario(
      { ...run, queueSettings: fit.mapping, queueOptions, queueTiming: timingLine(scenario.stretchedForQueue ?? null, timed.line) },
      { ...meta, interruptedBy: abortCause(signal) },
    );
    return report.phases ? { ...report, phases: { ...report.phases, judgeMs: Date.now() - judging } } : report;
  } catch (caught) {
    const timeline = caught instanceof DrillFailedError ? caught.timeline : [];
    return harnessErrorReport(timed.scenario, impl, failureText(caught), { ...refusal, durationMs: Date.now() - started, timeline });
  }
}

function timingLine(...lines: Array<string | null>): string | null {
  const given = lines.filter((line): line is string => line !== null);
  return given.length > 0 ? given.join('; ') : null;
}

/** Whether the scenario restarts its queue's server (the restart_server fault). */
export function restartsServer(scenario: ResolvedScenario): boolean {
  return scenario.pointFaults.some((fault) => fault.action === 'restart_server');
}

/** A point the scenario arms that the queue's drill never reaches, with why; null when every one can be. */
function unreachablePoint(scenario: ResolvedScenario, impl: QueueAdapter): string | null {
  if (impl.capabilities.takeover === 'queue' && scenario.pointFaults.some((fault) => fault.point === 'before_release'))
    return `${impl.name} takes a dead holder's job back itself: the coordinator's sweep takes nothing back, so before_release can never fire`;
  for (const fault of scenario.pointFaults) {
    const write = fault.action === 'drop_reply' ? fault.arg?.write : undefined;
    if (typeof write === 'string' && impl.wireRequests?.[write as WireWrite] === undefined)
      return `${impl.name} names no request on the wire for its ${write} write, so drop_reply cannot aim at it`;
  }
  return null;
}

const SAGA_ENDS = new Set(['compensated', 'compensation_failed']);

/** The feature the scenario needs and the queue lacks, with the queue's reason; null when it has all it needs. */
function lackingFeature(scenario: ResolvedScenario, impl: QueueAdapter): string | null {
  if (restartsServer(scenario) && !impl.restartServer) return `${impl.name} has no server the harness can restart (an embedded store)`;
  if (usesNetwork(scenario) && (impl.needs ?? []).length === 0)
    return `${impl.name} reaches no server over the network (an embedded store): a network fault has no link to cut`;
  const compensation = impl.capabilities.compensation;
  if (compensation !== true && scenario.jobs.some((job) => SAGA_ENDS.has(job.expect.status)))
    return `the scenario expects a saga compensated, and ${compensation}`;
  const dedupe = impl.capabilities.dedupe ?? true;
  if (dedupe !== true && scenario.checks?.includes('dedupe-on-enqueue')) return `the scenario checks dedupe-on-enqueue, and ${dedupe}`;
  return null;
}
