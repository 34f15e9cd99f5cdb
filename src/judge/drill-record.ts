import type { RuleStats } from '../faults/fault-plan.js';
import type { QueueAddress } from '../port/queue-address.js';
import type { ScenarioPhases } from '../report/schema.js';
import type { ResolvedScenario } from '../scenarios/resolve.js';
import type { ArmedFault } from '../world/faults.js';
import type { Evidence } from './evidence.js';

/*
 * What the judge is given: a drill's record. It says what was run, what the
 * evidence is, which faults fired, and how the drill ended, and nothing of
 * how the processes were run: the judge sees a history and nothing else, so
 * it imports nothing of the drill (src/drill/ makes this record).
 */

/** Why a drill stopped. */
export type DrillEnding = 'at-rest' | 'no-progress' | 'timeout' | 'interrupted' | 'harness-error';

/** What one run of one scenario left behind: the evidence, the faults' record, and how it ended. */
export interface ScenarioRun {
  scenario: ResolvedScenario;
  /** The queue implementation's version, as its adapter says. */
  queueVersion: string;
  runDir: string;
  /** Where the drill's queue was (passwords hidden). */
  store: string;
  ledger: string;
  /** How a person reaches the drill's queue once it is over (for the commands the report prints); null when it does not outlive the drill. */
  address?: QueueAddress | null;
  evidence: Evidence;
  pointFaults: RuleStats[];
  worldFaults: Array<{ armed: ArmedFault; describe: string }>;
  /** Why the drill stopped. */
  ending: DrillEnding;
  error: string | null;
  durationMs: number;
  /** Where the wall time went (judging is the judge's to add); absent from a run made by hand (a test's). */
  phases?: Omit<ScenarioPhases, 'judgeMs'>;
}
