/*
 * The named fault points of a job's stages (docs/design.md, "Named fault
 * points"), and the two lines that cross the control channel when a
 * child reaches one: the child's request, the harness's answer. This module is
 * imported by children on every start, so it holds types and constants only.
 */

/** What a fault point is: who passes it, whether it is about one step of a plan, and where exactly it is. */
export interface FailpointDescriptor {
  passedBy: 'worker' | 'producer' | 'coordinator';
  /** Reached for one step of a plan: its context names the step and its tool (the rest name at most a job). */
  step: boolean;
  /** Where it is, for a person: the docs (docs/faults.md) are made from this. */
  where: string;
}

/**
 * Every point a child may stop at and ask the harness what to do, each
 * described once: the list, the step points, the holders' points and the
 * docs all come from here.
 */
export const FAILPOINT_DESCRIPTORS = {
  after_claim: { passedBy: 'worker', step: false, where: 'right after the queue handed it a job, before anything else happens' },
  after_write: { passedBy: 'worker', step: true, where: 'after the world answered a call and its `success` checkpoint was written' },
  after_verify: { passedBy: 'worker', step: false, where: 'after every effect was verified and before the done write' },
  on_timeout: {
    passedBy: 'worker',
    step: true,
    where: 'after a call to the world timed out (the effect may or may not have happened) and the `unknown` checkpoint was written',
  },
  response_lost: {
    passedBy: 'worker',
    step: true,
    where: 'after a call ended with an unknown outcome other than a timeout (the connection dropped, or a 500 after the effect was applied)',
  },
  heartbeat: { passedBy: 'worker', step: false, where: 'just before it renews a held lease' },
  before_complete: { passedBy: 'worker', step: false, where: 'just before it writes done' },
  during_compensation: { passedBy: 'coordinator', step: true, where: 'just before it calls the tool that undoes a step' },
  before_release: {
    passedBy: 'coordinator',
    step: false,
    where: "in its sweep, just before it takes back a job whose holder's lease expired (after asking the world about a step in doubt)",
  },
  enqueue: { passedBy: 'producer', step: false, where: 'just before it enqueues a job' },
  after_enqueue: {
    passedBy: 'producer',
    step: false,
    where:
      'after the queue answered an enqueue and before the producer said so: a crash here leaves an enqueue in doubt (the job may exist, and nobody was told)',
  },
  before_call: {
    passedBy: 'worker',
    step: true,
    where: 'just before a call to the world leaves the process: the last moment at which nothing has happened yet',
  },
} as const satisfies Readonly<Record<string, FailpointDescriptor>>;

/** The name of one fault point. */
export type FailpointName = keyof typeof FAILPOINT_DESCRIPTORS;

/** Every fault point, in the order the docs list them. */
export const FAILPOINTS = Object.keys(FAILPOINT_DESCRIPTORS) as [FailpointName, ...FailpointName[]];

/** The points reached for one step of a plan: their context names the step and its tool (the rest name at most a job). */
export const STEP_FAILPOINTS: readonly FailpointName[] = FAILPOINTS.filter((point) => FAILPOINT_DESCRIPTORS[point].step);

/** Whether a point is reached for one step of a plan (its context names the step and its tool). */
export function isStepPoint(point: FailpointName): boolean {
  return FAILPOINT_DESCRIPTORS[point].step;
}

/** Whether a worker reaches this point while it holds a job (an attempt of it): every point but the producers' and the compensator's. */
export function isHoldersPoint(point: FailpointName): boolean {
  return FAILPOINT_DESCRIPTORS[point].passedBy === 'worker';
}

/** Where a child is when it reaches a point: what a fault rule's `where` filters on. */
export interface FailpointContext {
  point: FailpointName;
  worker: string;
  jobId?: string;
  /** The job's idempotency key, by which a scenario names a job before the queue has given it an id. */
  jobKey?: string;
  attempt?: number;
  step?: string;
  tool?: string;
  /** The idempotency key the point is about: the job's at enqueue, the step's (or its compensation's) at a step's points. */
  key?: string;
}

/** The typed failures a failpoint can throw; each maps to one class of src/kernel/job-errors.ts. */
export const INJECTED_ERROR_KINDS = ['transient', 'permanent', 'unknown_outcome', 'policy', 'business'] as const;

/** The kind of an injected error. */
export type InjectedErrorKind = (typeof INJECTED_ERROR_KINDS)[number];

/** Whether `name` is a known fault point (for input read from a channel or a file). */
export function isFailpointName(name: unknown): name is FailpointName {
  return typeof name === 'string' && (FAILPOINTS as readonly string[]).includes(name);
}

/**
 * A child's clock on a line it sends (src/kernel/time-base.ts): its reading as
 * the line leaves, and when, by the same clock, the answer to its line before
 * arrived. Absent where the child was given no clock to measure (useClock).
 */
export interface ClockReading {
  clock: number;
  answered?: { seq: number; clock: number };
}

/** The child's request: one JSON line. `seq` pairs it with its answer. */
export interface FailpointRequest {
  seq: number;
  pid: number;
  context: FailpointContext;
  reading?: ClockReading;
}

/**
 * A lease as a worker's queue applied it: the end its claim or a renewal set,
 * in the queue's own clock (the worker's on the caller's clock, the server's
 * on a server's), for the job's attempt under its epoch.
 */
export interface LeaseGranted {
  job: string;
  attempt: number;
  epoch: number;
  worker: string;
  leaseUntil: string;
  by: 'claim' | 'renewal';
}

/**
 * What a child tells the harness without asking it anything: its clock (a
 * reading alone), or a lease its queue granted. One JSON line, answered
 * `continue` like a failpoint, so the channel stays one answer per line.
 */
export interface ChannelReport {
  seq: number;
  pid: number;
  reading: ClockReading;
  report: { kind: 'clock' } | ({ kind: 'lease' } & LeaseGranted);
}

/**
 * The harness's answer: one JSON line, `continue` or the name of a fault
 * action with what it needs (src/faults/actions/: each says what it answers and
 * what the child does with it). Some are never sent: a crash is a SIGKILL while
 * the child waits, a pause is carried out by the parent before it answers `continue`.
 */
export type FailpointAnswer = { seq: number; action: string } & Record<string, unknown>;

/** The environment variable naming the child's end of the control channel (a file descriptor number). */
export const CONTROL_FD_ENV = 'QUEUE_DRILL_CONTROL_FD';
