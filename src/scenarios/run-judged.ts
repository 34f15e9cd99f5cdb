import { queueImpl } from '../adapters/registry.js';
import type { DrillFit, QueueAdapter } from '../port/adapter.js';
import { resolveServers } from '../port/servers.js';
import type { ScenarioReport } from '../report/schema.js';
import { drillDemands } from './drill-demands.js';
import { abortCause } from './interrupted.js';
import { judgeScenario } from './judge.js';
import { notJudgedReport } from './not-judged.js';
import type { ResolvedScenario } from './resolve.js';
import { runScenario, type ScenarioRunOptions } from './run-scenario.js';

/**
 * One scenario, start to verdict: the queue first says whether it can run it
 * as asked (and with which of its own options); a refusal is the report of a
 * scenario not judged, with no process started; else the drill runs and is judged.
 */
export async function runJudged(
  scenario: ResolvedScenario,
  runDir: string,
  signal: AbortSignal,
  options: ScenarioRunOptions,
  meta: { repeat: number; replay: string },
): Promise<ScenarioReport> {
  const impl = queueImpl(scenario.settings.queue);
  const refused = serverRestartRefusal(scenario, impl, options.restartServers ?? false);
  if (refused !== null) return notJudgedReport(scenario, impl, refused, { ...meta, runDir });
  const fit: DrillFit = (await impl.fit?.(drillDemands(scenario), resolveServers(options.servers, scenario.settings))) ?? { ok: true, mapping: {} };
  if (!fit.ok) return notJudgedReport(scenario, impl, fit.reason, { ...meta, runDir });
  const run = await runScenario(scenario, runDir, signal, options);
  const judging = Date.now();
  const report = judgeScenario({ ...run, queueSettings: fit.mapping }, { ...meta, interruptedBy: abortCause(signal) });
  return report.phases ? { ...report, phases: { ...report.phases, judgeMs: Date.now() - judging } } : report;
}

/** Why a scenario that restarts the queue's server cannot run here, or null when it can (or restarts nothing). */
function serverRestartRefusal(scenario: ResolvedScenario, impl: QueueAdapter, allowed: boolean): string | null {
  if (!scenario.pointFaults.some((fault) => fault.action === 'restart_server')) return null;
  if (!impl.restartServer) return `${impl.name} has no server the harness can restart (restart_server)`;
  if (!allowed) return "restart_server restarts the queue's server for everyone using it on this machine: run with --restart-servers to allow it";
  return null;
}
