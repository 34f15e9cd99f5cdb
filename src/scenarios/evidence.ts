import type { FailpointName, FaultActionName } from '../faults/points.js';
import type { EvidenceKind, ExpectedStatus, InvariantId, InvariantStatus, TimelineKind } from '../kernel/vocabulary.js';
import type { Incident, TxRow } from '../port/checkpoint.js';
import type { JobSnapshot, Transition } from '../port/snapshot.js';
import type { Plan } from '../saga/plan.js';
import type { EffectRow } from '../world/ledger.js';

export { INVARIANT_IDS, type InvariantId } from '../kernel/vocabulary.js';

/*
 * Everything a drill judges from, gathered after the processes are stopped,
 * in words every queue can be mapped to (src/port/snapshot.ts). Invariants read
 * only this: the queue's final state and history, the saga's checkpoints, the
 * world's ledger (the ground truth of effects), and the harness's own timeline
 * and the processes' logs. Never what a process said about itself.
 */

/** What the harness itself saw happen, in order. */
export interface TimelineEvent {
  /** UTC, the harness's clock. */
  at: string;
  kind: TimelineKind;
  /** The process concerned, e.g. "w1#2" (name and incarnation). */
  process?: string;
  pid?: number;
  detail: string;
  /** For an event at a failpoint: which point, and where the process was (its worker id, the job, attempt, step). */
  point?: FailpointName;
  /** For a fault that fired: its action, and for a pause or a delay how long it held the process. */
  action?: FaultActionName;
  ms?: number;
  worker?: string;
  job?: string;
  attempt?: number;
  step?: string;
}

/** What a scenario says one job must end as. */
export interface Expectation {
  /** `any`: done or review, as the invariants allow (explored schedules cannot know more). */
  status: ExpectedStatus;
  /** A regular expression the review reason must match. */
  reason?: string;
}

/** One job the producers asked for, and what became of the request. */
export interface Accepted {
  key: string;
  /** The job's plan as enqueued. */
  plan: Plan;
  /** How many producers tried to enqueue it, and how many were told they created it. */
  enqueueAttempts: number;
  createdCount: number;
  expect: Expectation;
}

/** One process log, whole. */
export interface LogFile {
  name: string;
  text: string;
}

/** Each kind of evidence: given by the queue under test (true), or why not. */
export type EvidenceAvailability = Readonly<Record<EvidenceKind, true | string>>;

export interface Evidence {
  scenario: string;
  /** What the queue under test could give (an invariant needing more is not judged). */
  available: EvidenceAvailability;
  /** The queue at rest. */
  jobs: JobSnapshot[];
  /** Every state change and refused write, in order. */
  events: Transition[];
  /** The saga's checkpoints of every plan job, in order. */
  txLog: TxRow[];
  incidents: Incident[];
  /** The world's ledger: every applied effect. */
  effects: EffectRow[];
  /** The keys the producers asked for. */
  accepted: Accepted[];
  timeline: TimelineEvent[];
  logs: LogFile[];
  /**
   * Other artefacts a secret must not reach, as text: the store's error and
   * reason columns, the report being written. (The ledger keeps only digests.)
   */
  artefacts: LogFile[];
  /** Secret values the scenario planted in payloads. */
  secrets: string[];
  /** Whether the drill reached rest (nothing running, nothing left to do) before its deadline. */
  atRest: boolean;
  /** The scenario's lease and margin, for checks that reason about time. */
  leaseMs: number;
  skewMarginMs: number;
}

/** An invariant's judgement: held, broken (with the evidence that breaks it), or not judged (with the reason). */
export interface Verdict {
  id: InvariantId;
  statement: string;
  status: InvariantStatus;
  /** One line per piece of breaking evidence (empty unless broken). */
  evidence: string[];
  /** Why it was not judged; or, for one that held, what it had nothing to judge. */
  note?: string;
}

/** One invariant: its id, its one-line statement, the evidence it needs beyond what every drill has, and its check. */
export interface Invariant {
  id: InvariantId;
  statement: string;
  needs: readonly EvidenceKind[];
  check(evidence: Evidence): Verdict;
}
