import { queueImpl } from '../adapters/registry.js';
import type { DrillFit } from '../port/adapter.js';
import { resolveServers } from '../port/servers.js';
import type { ScenarioReport } from '../report/schema.js';
import { drillDemands } from './drill-demands.js';
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
  const fit: DrillFit = (await impl.fit?.(drillDemands(scenario), resolveServers(options.servers, scenario.settings))) ?? { ok: true, mapping: {} };
  if (!fit.ok) return notJudgedReport(scenario, impl, fit.reason, { ...meta, runDir });
  const run = await runScenario(scenario, runDir, signal, options);
  return judgeScenario({ ...run, queueSettings: fit.mapping }, meta);
}
