/*
 * The words every layer shares, each list defined once: the scenario schema,
 * the report schema, the evidence types, explore's generators and the views
 * all derive from these, so adding a word here is the one edit (the compiler
 * and the schemas follow). Failpoint names and fault actions live beside the
 * failpoints (src/faults/points.ts), world fault kinds beside the world
 * (src/world/faults.ts): each with the module a child loads first.
 */

/**
 * The states a job can be in, as every adapter reports them: the reference
 * queue's own (src/port/states.ts draws its state machine over them), and the
 * words another queue's states are mapped to (BullMQ's `active` is `running`).
 */
export const JOB_STATUSES = ['pending', 'running', 'retry', 'done', 'review', 'compensating'] as const;
/** One job state. */
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Who caused a change: a producer, a worker, the coordinator, or a person. */
export const ACTORS = ['producer', 'worker', 'coordinator', 'human'] as const;
/** One kind of actor. */
export type Actor = (typeof ACTORS)[number];

/**
 * Every invariant the judge knows, with what it promises. A safety invariant
 * is a promise a correct queue keeps under any timing (a stale holder's write is refused however late it
 * comes), so its breach is a breach on any machine. A liveness invariant is
 * about getting somewhere within the drill's time (every job ended, no lease
 * left at a rest reached), which a starved machine can honestly take away:
 * its breach may be inconclusive when starvation explains it
 * (src/judge/starvation.ts).
 */
export const INVARIANT_KINDS = {
  'no-lost-job': 'liveness',
  'no-duplicate-effect': 'safety',
  'dedupe-on-enqueue': 'safety',
  'attempts-bounded': 'safety',
  'retry-backoff': 'safety',
  'lease-released': 'liveness',
  'single-holder': 'safety',
  'lease-respected': 'safety',
  'review-routing': 'safety',
  'review-sticky': 'safety',
  'done-is-verified': 'safety',
  'transitions-allowed': 'safety',
  'history-complete': 'safety',
  'secrets-redacted': 'safety',
  'saga-compensation': 'safety',
} as const satisfies Readonly<Record<string, 'safety' | 'liveness'>>;
/** One invariant's id. */
export type InvariantId = keyof typeof INVARIANT_KINDS;
/** Safety or liveness. */
export type InvariantKind = (typeof INVARIANT_KINDS)[InvariantId];

/**
 * Every invariant the judge knows, in the order reports list them: the keys of
 * INVARIANT_KINDS, the registry of invariants, so an invariant's id and kind
 * are one line here; its judgement is one file named by its id in
 * src/judge/invariants/, where the judge finds it by that name.
 */
export const INVARIANT_IDS = Object.keys(INVARIANT_KINDS) as [InvariantId, ...InvariantId[]];

/** How an invariant came out: it held, it broke, or the queue could not give the evidence it needs. */
export const INVARIANT_STATUSES = ['held', 'broken', 'not_judged'] as const;
/** One invariant's status in a verdict. */
export type InvariantStatus = (typeof INVARIANT_STATUSES)[number];

/**
 * How a job ended, explicitly, where the store used to say it in a reason's
 * prefix: done; in review for a person (a failure, or a prepared step awaiting
 * approval); or in review after its saga (compensated, or a compensation that
 * failed and needs manual recovery).
 */
export const JOB_OUTCOMES = ['done', 'review', 'awaiting_approval', 'compensated', 'compensation_failed'] as const;
/** One job outcome. */
export type JobOutcome = (typeof JOB_OUTCOMES)[number];

/** What a scenario may expect a job to end as; `any` is done or review, as the invariants allow (explored schedules cannot know more). */
export const EXPECTED_STATUSES = ['done', 'review', 'compensated', 'compensation_failed', 'any'] as const;
/** One expected status. */
export type ExpectedStatus = (typeof EXPECTED_STATUSES)[number];

/** What the harness records on its own timeline. */
export const TIMELINE_KINDS = [
  'spawn',
  'exit',
  'fault-hit',
  'fault-fired',
  'kill',
  'pause',
  'resume',
  'restart',
  'world-fault-armed',
  'at-rest',
  'watchdog',
  'stall',
  'ready',
  'starved',
  'enqueue-again',
  'server-restart',
  'network',
  'approve',
  'note',
] as const;
/** The writes a network fault can aim at by what they are (drop_reply's `write`), whatever a queue's wire calls them (QueueAdapter.wireRequests). */
export const WIRE_WRITES = ['complete'] as const;
/** One such write. */
export type WireWrite = (typeof WIRE_WRITES)[number];

/** One kind of timeline event. */
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/**
 * The evidence a queue may or may not be able to give, beyond what every drill
 * has (the jobs' final states, the world's ledger, the harness's timeline and
 * the processes' logs). An adapter states which it gives; an invariant states
 * which it needs; one it needs and the queue lacks makes it "not judged".
 */
export const EVIDENCE_KINDS = ['history', 'refusals', 'epoch', 'holder', 'digest', 'review', 'retry-policy', 'renewals'] as const;
/** One kind of evidence. */
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** What each kind of evidence is, for reports and the README. */
export const EVIDENCE_MEANING: Readonly<Record<EvidenceKind, string>> = {
  history: 'every state change of every job, with its time, worker and attempt',
  refusals: "a stale holder's refused write, recorded in the history",
  epoch: 'a monotonic epoch per job, bumped by every claim and carried by every write',
  holder: "who holds a job's lease and until when",
  digest: "the verified result's digest stored with a done job",
  review: 'a review state that only a person leaves',
  'retry-policy': 'the delay chosen before each retry of a failed job, recorded in the history, and the policy (base, cap, jitter) it follows',
  renewals: "each lease's end as its claim and every renewal set it, told to the harness by the holder's worker as the queue applies it",
};
