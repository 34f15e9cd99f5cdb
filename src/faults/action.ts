import type fc from 'fast-check';
import type { FieldSpec } from '../kernel/action-fields.js';
import type { TimelineKind, WireWrite } from '../kernel/vocabulary.js';
import type { FailpointName } from './points.js';

/*
 * What one fault action at a named point is, in one place: the fields a
 * scenario gives it, how a rule's argument is checked and resolved, what the
 * harness does when it fires (answer the waiting child, or act on its process
 * group), what the child does with the answer, what the harness's timeline
 * records, and how explore and the exhaustive matrix draw it. The scenario
 * schema, the controller, the failpoint, explore and the docs all read these
 * (src/faults/actions/index.ts): adding an action is one file and one entry.
 * Action files import nothing heavy: children load them on every start.
 */

/** A field a scenario gives a fault action, besides `at`, `action` and the limits: a duration, an exit code, one of the injected error kinds, or free text. */
export type ActionField = FieldSpec<'ms' | 'exit-code' | 'error-kind' | 'text'>;

/** What the controller can do at a point where a rule fired. */
export interface FiringControl {
  /** Answers the child waiting at the point (it carries the answer out). */
  answer(answer: { action: string } & Record<string, unknown>): void;
  /** Signals the child's whole process group. */
  signal(signal: NodeJS.Signals): void;
  /** Stops the child's group for `ms`, then continues it; resolves when it goes on (or the controller stopped). */
  hold(ms: number): Promise<void>;
  /** As hold, but goes on as soon as the job of this point is claimed again by a later attempt (at most `ms`); says which ended it. */
  holdUntilClaimedAgain(ms: number): Promise<'claimed' | 'timed-out'>;
  /** Waits, without stopping the child, until the job of this point is claimed again by a later attempt (at most `ms`); says which ended it. */
  claimedAgain(ms: number): Promise<'claimed' | 'timed-out'>;
  /** Whether the controller still answers (a hold may end with it stopped). */
  readonly active: boolean;
  /** Records that a held child goes on: the end of a hold on the timeline. */
  resumed(): void;
  /** Restarts the queue's server (the drill's queue says how) and resolves with what was done; throws when it cannot. */
  restartServer(): Promise<string>;
  /** The firing process's own links to its queue's servers (src/faults/network/); throws when the drill has none. */
  network(): NetworkControl;
}

/** What a network fault does to one process's links to its servers. */
export interface NetworkControl {
  /** Black-holes its connections for `ms` (nothing passes, nothing is closed); resolves when they heal. */
  partition(ms: number): Promise<void>;
  /** Ends a partition now: what was held goes through. */
  heal(): void;
  /** Delays every chunk each way by `ms`, plus up to `jitterMs` from the seed; 0 ends it. */
  setLatency(ms: number, jitterMs?: number): void;
  /** Closes its connections with RST. */
  reset(): void;
  /**
   * Swallows the reply to its next request named `command` (a prefix, case aside), then resets that connection; with
   * `within`, only a request whose transaction (PostgreSQL) or arguments (Redis) hold that text. A `write` is the
   * request the drill's queue says carries it (QueueAdapter.wireRequests). `rule` names the fault.
   */
  dropReply(target: { command: string; within?: string } | { write: WireWrite }, rule: string): void;
}

/** One fault action: `Action` is what a rule carries once its argument is resolved. */
export interface PointFaultAction<Name extends string = string, Action extends { type: Name } = { type: Name }> {
  name: Name;
  /** One line for the docs and the scenario schema. */
  summary: string;
  fields: Readonly<Record<string, ActionField>>;
  /** Firing holds the process (a drill is not at rest until the hold ends). */
  holds: boolean;
  /**
   * Fired in a worker holding a job, the job is left with a holder that will
   * not finish it in time (killed, exited, hung, frozen, its event loop
   * blocked): the queue must take a dead holder's job back (DrillDemands.holderDies).
   */
  stopsHolder: boolean;
  /** It acts on the process's network links: the drill puts a fault proxy between each process and its queue's servers. */
  network?: true;
  /** A rule's argument as a caller built it, checked: the problem in one line, or null. */
  checkArg(arg: Readonly<Record<string, unknown>> | undefined): string | null;
  /** The action a rule carries, its argument resolved and its defaults filled in. */
  resolve(arg: Readonly<Record<string, unknown>> | undefined, rule: { id: string; point: FailpointName }): Action;
  /** What the harness does when a rule with this action fires. */
  fire(action: Action, control: FiringControl): Promise<void>;
  /** Whether an answer the child read is a well-formed answer of this action. */
  isAnswer(answer: Readonly<Record<string, unknown>>): boolean;
  /** What the child does with the answer: throw, exit, wait, hang. */
  carryOut(answer: Readonly<Record<string, unknown>>): Promise<void>;
  /** The timeline's line when a held process goes on (`resumed`). @default "SIGCONT after the NAME at WHERE" */
  resumeDetail?: (where: string) => string;
  /** The harness's timeline entries when it fires, besides `fault-fired` (`where` says the point and the job). */
  timeline(action: Action, where: string): Array<{ kind: TimelineKind; detail: string }>;
  /** Explore's draw of this action's fields; absent when explore never picks it. */
  explore?: (fast: typeof fc) => fc.Arbitrary<Record<string, unknown>>;
  /** The exhaustive matrix's cells for this action: a name each, and the fields. */
  exhaustive: ReadonlyArray<{ name: string; fields: Readonly<Record<string, unknown>> }>;
}

/** `ms >= 0`, for the actions that take a duration. */
export function isDuration(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
