import type { JobEvent, JobRow } from '../queue/job.js';
import type { Incident } from '../saga/incidents.js';
import type { Plan } from '../saga/plan.js';
import type { TxRow } from '../saga/tx-log.js';
import type { EffectRow } from '../world/ledger.js';

/*
 * Everything a drill judges from, gathered after the processes are stopped.
 * Invariants read only this: the store's final state and history, the world's
 * ledger (the ground truth of effects), and the harness's own timeline and the
 * processes' logs. Never what a process said about itself.
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

export interface Evidence {
  scenario: string;
  /** The store at rest. */
  jobs: JobRow[];
  /** Every state change and refused write, in order. */
  events: JobEvent[];
  /** The transaction log of every plan job, in order. */
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

/** An invariant's judgement: holds or not, and the evidence that breaks it. */
export interface Verdict {
  id: InvariantId;
  statement: string;
  holds: boolean;
  /** One line per piece of breaking evidence (empty when it holds). */
  evidence: string[];
  /** Set when the invariant had nothing to judge in this drill (still holds). */
  note?: string;
}

export { INVARIANT_IDS, type InvariantId } from '../kernel/vocabulary.js';
import type { ExpectedStatus, InvariantId, TimelineKind } from '../kernel/vocabulary.js';

/** One invariant: its id, its one-line statement, and its check. */
export interface Invariant {
  id: InvariantId;
  statement: string;
  check(evidence: Evidence): Verdict;
}
