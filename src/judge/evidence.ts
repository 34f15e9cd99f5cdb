import type { LeaseReport } from '../faults/clock-book.js';
import type { ClockOffset, QueueClock } from '../kernel/time-base.js';
import type { EvidenceKind, InvariantId } from '../kernel/vocabulary.js';
import type { RetryDelayPolicy } from '../port/adapter.js';
import type { Incident, TxRow } from '../port/checkpoint.js';
import type { JobSnapshot, Transition } from '../port/snapshot.js';
import type { Plan } from '../saga/plan.js';
import type { CallRow, DeliveryRow, EffectRow } from '../world/ledger.js';

export { INVARIANT_IDS, type InvariantId } from '../kernel/vocabulary.js';
export type { Expectation, StarvedSpan, TimelineEvent, Verdict } from '../report/schema.js';

import type { Expectation, StarvedSpan, TimelineEvent, Verdict } from '../report/schema.js';

/*
 * Everything a drill judges from, gathered after the processes are stopped,
 * in words every queue can be mapped to (src/port/snapshot.ts). Invariants read
 * only this: the queue's final state and history, the saga's checkpoints, the
 * world's ledger (the ground truth of effects), and the harness's own timeline
 * and the processes' logs. Never what a process said about itself. The
 * verdict, timeline and expectation shapes are the report's (src/report/schema.ts).
 */

/** One job the producers asked for, and what became of the request. */
export interface Accepted {
  key: string;
  /** The job's plan as enqueued. */
  plan: Plan;
  /** How many producers tried to enqueue it, and how many were told they created it. */
  enqueueAttempts: number;
  createdCount: number;
  /** Whether calls of two different producers on this key were in flight at once (src/drill/accepted-jobs.ts): a real race. */
  raced: boolean;
  /** What the producers were told when an enqueue of it failed (each different error once): why a key never reached the queue. */
  enqueueFailures?: string[];
  expect: Expectation;
}

/** The world's record, in one sequence of its own (src/world/ledger/deliveries-table.ts). */
export interface WorldRecord {
  calls: CallRow[];
  deliveries: DeliveryRow[];
  /** Whether the world refused calls under an older epoch than it had seen (world_fences); absent: not known. */
  fenced?: boolean;
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
  /** The world's own record of who acted when, in its order: every call, and what holders told it of their deliveries; absent: not read. */
  world?: WorldRecord;
  /** The keys the producers asked for. */
  accepted: Accepted[];
  timeline: TimelineEvent[];
  /** Whose clock stamped the queue's records (its capabilities.clock): each writing process's, or the queue's server's. */
  queueClock: QueueClock;
  /** Each drill process's clock offset to the harness's, measured over its control channel (src/kernel/time-base.ts). */
  clocks: ClockOffset[];
  /** Each lease a worker's queue granted (its claim's end, each renewal's), as the worker told the harness; none where it cannot tell (`renewals`). */
  leases: LeaseReport[];
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
  /** The retry delays the queue applies (its declared policy for what the scenario asked). */
  retryPolicy: RetryDelayPolicy;
  /** The scenario's lease and margin, for checks that reason about time. */
  leaseMs: number;
  skewMarginMs: number;
  /** Every time a process of the drill was not run when it should have been (src/drill/starvation-spans.ts); none measured: empty. */
  starved?: StarvedSpan[];
  /** When the producers were let go (the drill's deadline counts from here), and when the drill stopped; unknown: absent. */
  releasedAt?: string | null;
  endedAt?: string;
  /** How the drill stopped: at rest, stuck (no progress), out of time. */
  ending?: 'at-rest' | 'no-progress' | 'timeout' | 'interrupted' | 'harness-error';
  /** The no-progress watchdog's window: a drill it ended ran out of time within the last one. */
  noProgressMs?: number;
  /** How long a worker waits for the world's answer (a starved world times its callers out). */
  callTimeoutMs?: number;
  /** The scenario's poll and tick, for how soon a sound queue takes a job that fell due. */
  pollMs?: number;
  tickMs?: number;
}

/** One invariant: its id, its one-line statement, the evidence it needs beyond what every drill has, and its check. */
export interface Invariant {
  id: InvariantId;
  statement: string;
  needs: readonly EvidenceKind[];
  check(evidence: Evidence): Verdict;
  /**
   * Where the queue cannot give what `needs` names, the part of the invariant
   * that can still be judged from the harness's own evidence (`missing`: why
   * the rest cannot); null when that part had nothing to judge either.
   */
  checkWithout?(evidence: Evidence, missing: string): Verdict | null;
}
