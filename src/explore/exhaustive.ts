import { POINT_FAULT_ACTIONS } from '../faults/actions/index.js';
import { FAILPOINTS, type FailpointName } from '../faults/points.js';
import type { ScenarioFile } from '../scenarios/schema.js';
import { EXPLORE_PLANS } from './plans.js';
import { EXPLORE_SETTINGS } from './to-scenario.js';

type ScenarioEntry = ScenarioFile['scenarios'][number];
type Fault = ScenarioEntry['faults'][number];

/** The actions of the matrix, each once at each point: the cells every fault action offers (src/faults/actions/). */
const ACTIONS: ReadonlyArray<{ name: string; fault: Record<string, unknown> }> = POINT_FAULT_ACTIONS.flatMap((action) =>
  action.exhaustive.map((cell) => ({ name: cell.name, fault: { action: action.name, ...cell.fields } })),
);

/** What each point needs to be reached: a plan, and world faults that lead there. Keyed by point, so a new point must say how it is reached. */
const REACH = {
  enqueue: { plan: 'write-file', world: [] },
  // The producer starts over after a crash here and enqueues every key again: the enqueue in doubt.
  after_enqueue: { plan: 'write-file', world: [] },
  after_claim: { plan: 'write-then-email', world: [] },
  before_call: { plan: 'write-then-email', world: [] },
  after_write: { plan: 'write-then-email', world: [] },
  after_verify: { plan: 'write-then-email', world: [] },
  before_complete: { plan: 'write-then-email', world: [] },
  // A slow call, so the lease is renewed while the job holds it.
  heartbeat: { plan: 'write-file', world: [{ world: { step: 'write' }, action: 'delay', ms: 250, applied: true } as Fault] },
  on_timeout: { plan: 'write-file', world: [{ world: { step: 'write' }, action: 'delay', ms: 1_000, applied: true } as Fault] },
  response_lost: { plan: 'write-file', world: [{ world: { step: 'write' }, action: 'drop' } as Fault] },
  during_compensation: { plan: 'release', world: [{ world: { step: 'publish' }, action: 'fail', status: 401 } as Fault] },
  // A holder that dies, so the coordinator's sweep finds an expired lease to take back.
  before_release: { plan: 'write-file', world: [{ at: 'after_claim', action: 'crash', first: 1 } as Fault] },
} satisfies Record<FailpointName, { plan: string; world: Fault[] }>;

/** The matrix's rows, in the order of the points' descriptors (src/faults/points.ts). */
const POINTS = FAILPOINTS.map((at) => ({ at, ...REACH[at] }));

/**
 * Every named stage × every fault action, on one job each, as a deterministic
 * scenarios file: a CI gate that does not depend on luck (in the spirit of
 * CrashMonkey's bounded enumeration). Each cell fires its fault once and is
 * judged by the invariants alone (a job may end done or in review).
 */
export function exhaustiveFile(): ScenarioFile {
  const scenarios: ScenarioEntry[] = [];
  for (const point of POINTS) {
    for (const action of ACTIONS) {
      scenarios.push({
        name: `${point.at.replace(/_/g, '-')}-${action.name}`,
        description: `${action.name} at ${point.at}, on one ${point.plan} job`,
        workers: 2,
        jobs: [{ plan: point.plan, count: 1, expect: 'any' }],
        faults: [...point.world, { at: point.at, first: 1, ...action.fault } as Fault],
        invariants: 'all',
      } as ScenarioEntry);
    }
  }
  const used = new Set(POINTS.map((p) => p.plan));
  return {
    version: 1,
    defaults: { ...EXPLORE_SETTINGS },
    plans: Object.fromEntries(Object.entries(EXPLORE_PLANS).filter(([name]) => used.has(name))),
    scenarios,
  } as ScenarioFile;
}
