import type { QueueAdapter } from '../port/adapter.js';
import type { ScenarioReport } from '../report/schema.js';
import { INVARIANTS } from './invariants/index.js';
import type { ResolvedScenario } from './resolve.js';

/**
 * The report of a scenario its queue refused before anything ran (a lease
 * below the queue's minimum, a plan it cannot run): no evidence, so nothing
 * held and nothing broke; every invariant the scenario names is not judged,
 * with the queue's reason.
 */
export function notJudgedReport(
  scenario: ResolvedScenario,
  impl: QueueAdapter,
  reason: string,
  meta: { repeat: number; replay: string; runDir: string },
): ScenarioReport {
  const note = `the queue cannot run this scenario as asked: ${reason}`;
  return {
    name: scenario.name,
    description: scenario.description,
    queue: scenario.settings.queue,
    queueVersion: impl.version,
    available: { ...impl.capabilities.evidence },
    seed: scenario.seed,
    repeat: meta.repeat,
    verdict: 'not_judged',
    notJudged: reason,
    interrupted: null,
    inconclusive: null,
    starvation: { spans: [], totalMs: 0, worst: null },
    timeScale: scenario.timeScale ?? 1,
    queueSettings: {},
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
