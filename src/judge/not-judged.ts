import type { QueueAdapter } from '../port/adapter.js';
import type { QueueOptionValues } from '../port/queue-options.js';
import type { ScenarioReport } from '../report/schema.js';
import type { ResolvedScenario } from '../scenarios/resolve.js';
import { INVARIANTS } from './invariants/index.js';

/**
 * The report of a scenario its queue refused before anything ran (a lease
 * below the queue's minimum, a plan it cannot run): no evidence, so nothing
 * held and nothing broke; every invariant the scenario names is not judged,
 * with the queue's reason. `unsupported`: the queue lacks a feature the
 * scenario needs (a compensator, a server to restart), which is not supported
 * rather than not judged.
 */
export function notJudgedReport(
  scenario: ResolvedScenario,
  impl: QueueAdapter,
  reason: string,
  meta: { repeat: number; replay: string; runDir: string; unsupported?: boolean; queueOptions?: QueueOptionValues },
): ScenarioReport {
  const unsupported = meta.unsupported === true;
  const note = unsupported ? `the queue lacks what this scenario needs: ${reason}` : `the queue cannot run this scenario as asked: ${reason}`;
  return {
    name: scenario.name,
    description: scenario.description,
    queue: scenario.settings.queue,
    queueVersion: impl.version,
    available: { ...impl.capabilities.evidence },
    seed: scenario.seed,
    repeat: meta.repeat,
    verdict: unsupported ? 'not_supported' : 'not_judged',
    notJudged: unsupported ? null : reason,
    notSupported: unsupported ? reason : null,
    checks: scenario.checks ?? [],
    unjudgedChecks: [],
    interrupted: null,
    inconclusive: null,
    starvation: { spans: [], totalMs: 0, worst: null },
    timeScale: scenario.timeScale ?? 1,
    queueSettings: {},
    queueOptions: meta.queueOptions ?? {},
    queueTiming: null,
    durationMs: 0,
    runDir: meta.runDir,
    replay: meta.replay,
    faultPoints: [...new Set(scenario.pointFaults.map((f) => f.point))],
    faults: [],
    worldFaults: [],
    unfired: [],
    nothingJudged: [],
    jobs: [],
    duplicatedEffects: [],
    recovery: [],
    invariants: INVARIANTS.filter((i) => scenario.invariants.includes(i.id)).map((i) => ({
      id: i.id,
      statement: i.statement,
      status: 'not_judged' as const,
      judged: 0,
      evidence: [],
      note,
    })),
    expectations: [],
    timeline: [],
    error: null,
    artefacts: { store: '(none: nothing ran)', ledger: '(none: nothing ran)', logs: [] },
  };
}
