import type { Clock } from '../kernel/clock.js';
import { InputError } from '../kernel/errors.js';
import type { Random } from '../kernel/random.js';
import type { EvidenceKind, InvariantId, WireWrite } from '../kernel/vocabulary.js';
import type { SagaStore, TxEntry } from './checkpoint.js';
import type { Claim, DeliveryHandler, WorkOptions, WriteResult } from './delivery.js';
import type { QueueOptionSpecs, QueueOptionValues } from './queue-options.js';
import type { QueueSnapshot } from './snapshot.js';
import type { WakeSignals } from './wake-signals.js';

/*
 * The adapter contract: the only way the harness and its roles (producer,
 * worker, coordinator, the observe commands) touch a queue. An adapter is a
 * description (name, version, what evidence it can give) and two verbs:
 * provision a fresh, isolated queue for one drill, and connect a process to
 * it. A connection enqueues, hosts a worker (the queue's own consumption loop
 * around the drill's handler, so the failpoints stay the harness's), and
 * reads back what the queue knows. The rest is optional, and a queue that
 * lacks a part says so: manual claim and settle (the contract suite drives
 * them), takeover hooks (force a lease to expire, release a dead holder's job,
 * for a coordinator), compensation hand-off, and a person's requeue.
 */

/** What a queue can show and do, stated up front so the judge never passes what it could not see. */
export interface Capabilities {
  /** Each kind of evidence: given (true), or why not ("pg-boss keeps no per-attempt history"). */
  evidence: Readonly<Record<EvidenceKind, true | string>>;
  /**
   * Where the saga's checkpoints live: in the queue's own store, committed in
   * one transaction with the lease writes they go with; or beside the run (a
   * SQLite file), fenced by the epoch.
   */
  sagaStore: 'in-queue' | 'beside-the-run';
  /**
   * Whether a stale holder's write is refused (its lease expired and the job
   * was claimed again: its complete, fail or renewal changes nothing): true,
   * or why not ("complete matches any active job by id"). A queue that says
   * why not is not judged by the contract's stale-write check.
   */
  fencing: true | string;
  /** Who takes a dead holder's job back: the drill's coordinator (through `takeover`), or the queue's own machinery. */
  takeover: 'coordinator' | 'queue';
  /**
   * Whether the queue hands a saga that failed for good to a compensator
   * (CompensationOps): true, or why not. A scenario that expects a saga
   * compensated is "not supported" on a queue without it, never failed.
   */
  compensation: true | string;
  /**
   * Whether an enqueue under a key already used finds the job made with it
   * instead of making another: true (the default), or why not ("RabbitMQ
   * dedupes nothing on publish"). A scenario that checks dedupe-on-enqueue is
   * "not supported" on a queue without it, and the contract does not judge its
   * dedupe check.
   */
  dedupe?: true | string;
  /**
   * Whether a held job is taken back by time once its lease runs out while its
   * holder lives on (it stopped renewing, or never acked): true (the default),
   * or why not ("RabbitMQ takes a message back only when its holder's channel
   * closes"). The contract does not judge its expiry-by-time check on a queue
   * without it.
   */
  leaseExpiry?: true | string;
  /** Whose clock leases and delays run on: the caller's (ConnectOptions.clock, so a test can move it), or the queue's server. */
  clock: 'caller' | 'server';
}

/**
 * A request on the wire: its name's start (a PostgreSQL statement, a Redis command, a script's name; any of several
 * where a write goes out in more than one form), and a text its transaction or arguments hold.
 */
export interface WireRequestSpec {
  command: string | readonly string[];
  within?: string;
}

export type { WireWrite };

/** Servers an adapter may need, from the command line, the environment, or the scenario. */
export interface ServerSettings {
  /** PostgreSQL, e.g. postgres://postgres@127.0.0.1:5432/postgres. */
  pgUrl?: string | undefined;
  /** Redis, e.g. redis://127.0.0.1:6379. */
  redisUrl?: string | undefined;
  /** RabbitMQ (AMQP 0-9-1), e.g. amqp://guest:guest@127.0.0.1:5672. */
  amqpUrl?: string | undefined;
  /** NATS with JetStream, e.g. nats://127.0.0.1:4222. */
  natsUrl?: string | undefined;
}

/** What provisioning a queue for one drill needs to know. */
export interface ProvisionRequest {
  /** The drill's run directory (the scenario's own). */
  runDir: string;
  /** Unique among every drill running now or before (a schema or key prefix is made from it). */
  runId: string;
  servers: ServerSettings;
  /** The queue's own options (./queue-options.ts), defaults filled in. @default every option at its default */
  options?: QueueOptionValues;
  /**
   * The attempt budgets of the jobs the drill will enqueue, for a queue that
   * bounds attempts on the queue rather than per job (RabbitMQ's
   * x-delivery-limit, JetStream's max_deliver): it declares the queue with the
   * largest. Absent: the adapter's own default.
   */
  maxAttempts?: readonly number[];
}

/** A queue made for one drill. */
export interface Provisioned {
  /** What the drill's processes are told to connect to (`--store`): a file, a schema name. Never a password. */
  locator: string;
  /** Environment the drill's processes need besides the locator (a server URL, which may carry a password). */
  env: Readonly<Record<string, string>>;
  /** Where it lives, for the report (passwords hidden). */
  where: string;
  /** Removes it (a schema dropped, a key prefix deleted), unless `keep`; a file in the run directory stays with it. */
  teardown(options: { keep: boolean }): Promise<void>;
}

/** How long a job waits before its next attempt. */
export interface RetryDelayPolicy {
  /** Delay after the first failed attempt; doubles with each attempt. @default 15_000 */
  baseMs: number;
  /** The doubling stops here. @default 900_000 */
  capMs: number;
  /** Up to this much is added at random, so failed jobs do not retry in lockstep. @default 10_000 */
  jitterMs: number;
}

/** How a process's connection behaves: its clock, its randomness, its leases. */
export interface ConnectOptions {
  /** The process's clock; a queue that takes its times from its server says so and uses the server's. */
  clock: Clock;
  /** The retry jitter's source. */
  random: Random;
  /** How long a claim or a renewal holds a job. */
  leaseMs: number;
  /** A lease counts as expired only this long after its end, to absorb clock skew. */
  skewMarginMs: number;
  retryDelay: RetryDelayPolicy;
  /**
   * How long a worker waits for the world's answer to one call. A queue that
   * never renews a lease (pg-boss: expireIn is a handler's deadline) gives a
   * handler room to wait it out. @default 0
   */
  callTimeoutMs?: number;
  /** Servers, where the process was told of them on its command line (else the adapter reads its environment). */
  servers?: ServerSettings;
  /** The queue's own options, defaults filled in (else the adapter reads them from QUEUE_OPTIONS_ENV, as a drill process is given them). */
  queueOptions?: QueueOptionValues;
  /**
   * The provisioned queue's environment (Provisioned.env), for a connection
   * in a process that was not started with it: the harness's own, the
   * contract's. A drill process has it in process.env already.
   */
  env?: Readonly<Record<string, string>>;
}

/** A job to enqueue under its idempotency key. */
export interface EnqueueRequest {
  key: string;
  action: string;
  /** JSON text. */
  payload: string;
  maxAttempts: number;
}

/** The queue's answer to an enqueue: it made the job, or one with the key was already there. */
export interface EnqueueResult {
  outcome: 'created' | 'deduplicated';
  jobId: string;
}

/**
 * An enqueue that failed. Definite: the job was certainly not made. Indefinite:
 * it may have been (a timeout, a lost connection): "when in doubt, indefinite".
 */
export class EnqueueError extends InputError {
  readonly code = 'QD_ENQUEUE_FAILED';
  constructor(
    readonly definite: boolean,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Where a dead holder's job goes: another attempt, or review (none left, or its outcome is unknown). */
export interface ExpiredLeaseRelease {
  to: 'retry' | 'review';
  reason: string;
}

/** Claim and settle by hand (the contract suite's and the demo's way in). */
export interface ManualOps {
  /** The oldest ready job under a fresh lease and epoch, or null. */
  claim(workerId: string): Promise<Claim | null>;
  heartbeat(claim: Claim): Promise<WriteResult>;
  complete(claim: Claim, digest: string): Promise<WriteResult>;
  /** Another attempt later, or review when none is left. */
  retry(claim: Claim, error: string): Promise<WriteResult>;
  review(claim: Claim, reason: string, error?: string): Promise<WriteResult>;
}

/** Taking a dead holder's job back, for a coordinator and for tests. */
export interface TakeoverOps {
  /** Makes a job's lease expire now, as if its holder had stopped renewing it long ago. */
  expireLease(jobId: string): Promise<void>;
  /** Running jobs whose lease expired (by more than the skew margin), each as its last holder's claim. */
  expiredLeases(): Promise<Claim[]>;
  /**
   * Takes an expired lease back if it is still the same one (same epoch, still
   * expired); with a checkpoint, both commit together or neither does.
   */
  releaseExpired(expired: Claim, release: ExpiredLeaseRelease, by: string, checkpoint?: TxEntry): Promise<boolean>;
  /**
   * Runs the queue's own upkeep now, as its scheduler would later (pg-boss's
   * maintenance, BullMQ's stalled-job check, the reference's sweep of expired
   * leases); returns how many jobs it moved.
   */
  maintain(): Promise<number>;
}

/** The saga hand-off: a job whose plan failed for good waits for the coordinator to undo its steps. */
export interface CompensationOps {
  /** The oldest job waiting for compensation, under a fresh lease and epoch for `coordinatorId`, or null. */
  claim(coordinatorId: string): Promise<Claim | null>;
  /** Ends the saga in review, as compensated or as a failed compensation for manual recovery. */
  finish(claim: Claim, outcome: 'compensated' | 'compensation_failed', reason: string): Promise<WriteResult>;
}

/** What only a person does. */
export interface HumanOps {
  /**
   * Sends a job in review back to run, one more attempt allowed, recorded as a
   * person's action (in the history and as a `requeue` checkpoint); with a
   * checkpoint (an approval), it commits with them. False when the job is not in review.
   */
  requeueFromReview(jobId: string, by: string, note: string, checkpoint?: TxEntry): Promise<boolean>;
}

/** One process's connection to a provisioned queue. */
export interface QueueConnection {
  enqueue(request: EnqueueRequest): Promise<EnqueueResult>;
  /** Hosts a worker: the queue's own loop, calling `handler` for each delivery, until stopped (or drained). */
  work(handler: DeliveryHandler, options: WorkOptions): Promise<{ processed: number }>;
  /** What the queue knows now: every job, and its history where it keeps one (not read with `history: false`, for a watcher polling the jobs). */
  snapshot(options?: { history?: boolean }): Promise<QueueSnapshot>;
  /** A cheap value that changes whenever the queue changes: the harness's no-progress watchdog. */
  progress(): Promise<string>;
  saga: SagaStore;
  manual?: ManualOps;
  takeover?: TakeoverOps;
  compensation?: CompensationOps;
  human?: HumanOps;
  /** Lets idle workers and the coordinator sleep until there may be work; without it they poll. */
  wakeSignals?: WakeSignals;
  close(): Promise<void>;
}

/** What one drill asks of the queue, for the adapter to map onto its own options or to refuse. */
export interface DrillDemands {
  /** How long a claim or a renewal must hold a job. */
  leaseMs: number;
  skewMarginMs: number;
  /** How often an idle worker looks for work. */
  pollMs: number;
  /** How long a worker waits for the world's answer to one call (ConnectOptions.callTimeoutMs). @default 0 */
  callTimeoutMs?: number;
  /** Each job's attempt budget. */
  maxAttempts: readonly number[];
  retryDelay: RetryDelayPolicy;
  /** Whether the drill runs the coordinator (takeover of dead holders' jobs, compensation, reconciliation). */
  coordinator: boolean;
  /** Whether a person's action is part of the drill (an approval: `human.requeueFromReview`). */
  approval: boolean;
  /** The tools the jobs' plans call, in the world's catalogue. */
  tools: readonly string[];
  /** The fault points the drill arms. */
  points: readonly string[];
  /** Whether a fault kills or freezes a holder of a job (crash, a zombie's stall): the queue must then take a dead holder's job back. */
  holderDies: boolean;
  /** The queue's own options (./queue-options.ts), defaults filled in. */
  queueOptions: QueueOptionValues;
  /** How long the drill waits for the queue to bring every job to rest. */
  timeoutMs: number;
}

/**
 * How a queue runs a drill: its own options as it set them from the demands
 * (written into the report), or why it cannot (the scenario is then reported
 * not judged for this queue, with the reason: never failed, never passed).
 */
export type DrillFit =
  | {
      ok: true;
      mapping: Readonly<Record<string, string | number | boolean>>;
      /**
       * The queue's own clock, where it is slower than the scenario's: no
       * watchdog shorter than the queue's longest retry delay (it would call a
       * scheduled job lost), no deadline before the queue's own recovery could
       * have run. The drill waits at least this long; the report says so.
       */
      atLeast?: { noProgressMs?: number; timeoutMs?: number; why: string };
    }
  | { ok: false; reason: string; unsupported?: true };

/** A queue implementation the drills can run. */
export interface QueueAdapter {
  /** What `--queue` calls it. */
  name: string;
  /** The queue's own options a user may set (`--queue-option KEY=VALUE`, a scenario's `queue_options`); none when absent. */
  options?: QueueOptionSpecs;
  /** One line: what it is (and, for a broken variant, its mistake). */
  description: string;
  /** The queue's version (a package's, or queue-drill's for the built-in queues). */
  version: string;
  capabilities: Capabilities;
  /**
   * The self-test's expectation: a sound queue is never flagged; a broken one
   * must be caught; an observed one (a queue people run, drilled to show what
   * it does) is held to nothing and left out of the self-test: its findings
   * are the point of a comparison, not a flaw of the judge.
   */
  soundness: 'sound' | 'broken' | 'observed';
  /** For a broken implementation: the invariants its mistake breaks; the self-test holds it to being caught by one of them. */
  breaks?: readonly InvariantId[];
  /**
   * The names of the server-side scripts its processes call by SHA-1 (BullMQ's Lua scripts, called with EVALSHA), so a
   * network fault can aim at one by name (drop_reply's command: moveToFinished). @default none: a script is named by its SHA-1
   */
  scriptNames?(): Promise<ReadonlyMap<string, string>>;
  /**
   * The request on the wire that carries each of its writes (the reference on PostgreSQL: a complete is the COMMIT
   * of a transaction that set status = 'done'; BullMQ: the moveToFinished script with a returnvalue), so a network
   * fault can aim at a write by what it is (drop_reply's `write: complete`) on any queue. @default none: such a fault is not judged
   */
  wireRequests?: Readonly<Partial<Record<WireWrite, WireRequestSpec>>>;
  /** The servers this queue needs (compare names them in its column; each is checked by `preflight`). */
  needs?: readonly (keyof ServerSettings)[];
  /** What a locator (`--store`) names: a file (which must exist to be observed), or a name on a server (a schema). */
  locatorKind: 'file' | 'name';
  /** Fails fast, before any drill starts, when a server it needs cannot be reached (exit 2, one line). */
  preflight?(servers: ServerSettings): Promise<void>;
  /** Makes a fresh, isolated queue for one drill. */
  provision(request: ProvisionRequest): Promise<Provisioned>;
  /** Connects this process to a provisioned queue by its locator. */
  connect(locator: string, options: ConnectOptions): Promise<QueueConnection>;
  /**
   * The retry delays this queue applies when a drill asks for `requested`
   * (ConnectOptions.retryDelay): what the retry-backoff invariant holds it to.
   * Absent: exactly the requested policy.
   */
  retryPolicyFor?(requested: RetryDelayPolicy): RetryDelayPolicy;
  /**
   * Whether this queue can honour a drill's demands (a lease below its
   * minimum, a plan it cannot run), and the options it maps them onto.
   * Absent: every demand is honoured as asked.
   */
  fit?(demands: DrillDemands, servers: ServerSettings): DrillFit | Promise<DrillFit>;
  /**
   * The shortest lease the queue can keep (pg-boss counts whole seconds): a
   * scenario with a shorter one runs with every duration stretched until its
   * lease is this long, in the same shape, instead of not at all.
   */
  shortestLease?: { ms: number; why: string };
  /**
   * Restarts the queue's server (the restart_server fault), resolving once it
   * answers again, with a line saying what was done. Absent for a queue with
   * no server the harness may restart (an embedded file).
   */
  restartServer?(servers: ServerSettings): Promise<string>;
}
