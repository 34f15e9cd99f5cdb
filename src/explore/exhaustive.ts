import { POINT_FAULT_ACTIONS } from '../faults/actions/index.js';
import type { ScenarioFile } from '../scenarios/schema.js';
import { EXPLORE_PLANS } from './plans.js';
import { EXPLORE_SETTINGS } from './to-scenario.js';

type ScenarioEntry = ScenarioFile['scenarios'][number];
type Fault = ScenarioEntry['faults'][number];

/** The actions of the matrix, each once at each point: the cells every fault action offers (src/faults/actions/). */
const ACTIONS: ReadonlyArray<{ name: string; fault: Record<string, unknown> }> = POINT_FAULT_ACTIONS.flatMap((action) =>
  action.exhaustive.map((cell) => ({ name: cell.name, fault: { action: action.name, ...cell.fields } })),
);

/** What each point needs to be reached: a plan, and world faults that lead there. */
const POINTS: ReadonlyArray<{ at: string; plan: string; world: Fault[] }> = [
  { at: 'enqueue', plan: 'write-file', world: [] },
  { at: 'after_claim', plan: 'write-then-email', world: [] },
  { at: 'before_call', plan: 'write-then-email', world: [] },
  { at: 'after_write', plan: 'write-then-email', world: [] },
  { at: 'after_verify', plan: 'write-then-email', world: [] },
  { at: 'before_complete', plan: 'write-then-email', world: [] },
  // A slow call, so the lease is renewed while the job holds it.
  { at: 'heartbeat', plan: 'write-file', world: [{ world: { step: 'write' }, action: 'delay', ms: 250, applied: true } as Fault] },
  { at: 'on_timeout', plan: 'write-file', world: [{ world: { step: 'write' }, action: 'delay', ms: 1_000, applied: true } as Fault] },
  { at: 'response_lost', plan: 'write-file', world: [{ world: { step: 'write' }, action: 'drop' } as Fault] },
  { at: 'during_compensation', plan: 'release', world: [{ world: { step: 'publish' }, action: 'fail', status: 401 } as Fault] },
];

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
