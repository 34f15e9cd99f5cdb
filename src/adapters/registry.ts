import type { QueueOptions, SqliteQueue } from './sqlite/sqlite-queue.js';
import { SqliteQueue as ReferenceQueue } from './sqlite/sqlite-queue.js';
import { openStore } from './sqlite/store.js';
import type { SagaRules } from '../saga/rules.js';
import { AttemptsNotCountedQueue } from './attempts-not-counted/attempts-not-counted-queue.js';
import { ClaimNoTransactionQueue } from './claim-no-transaction/claim-no-transaction-queue.js';
import { COMPENSATION_FORWARD_RULES } from './compensation-forward/rules.js';
import { EnqueueCheckThenInsertQueue } from './enqueue-check-then-insert/enqueue-check-then-insert-queue.js';
import { FAILED_COMPENSATION_OK_RULES } from './failed-compensation-ok/rules.js';
import { LeaseNeverExpiresQueue } from './lease-never-expires/lease-never-expires-queue.js';
import { ReviewOnTimerQueue } from './review-on-timer/review-on-timer-queue.js';
import { SeedLiteralQueue } from './seed-literal/seed-literal-queue.js';
import { UnguardedWritesQueue } from './unguarded-writes/unguarded-writes-queue.js';
import { UNKNOWN_RETRIED_RULES } from './unknown-retried/rules.js';
import { InputError } from '../kernel/errors.js';

/** A queue implementation the drills can run: a name, what it is, and how to open it on a store file. */
export interface QueueImpl {
  name: string;
  description: string;
  open(file: string, options: QueueOptions): SqliteQueue;
  /** The saga runtime's decisions where they differ from the reference (seed 003). */
  sagaRules?: SagaRules;
}

/** Every implementation `--queue` can name. */
export const QUEUE_IMPLS: readonly QueueImpl[] = [
  {
    name: 'reference',
    description: "the reference queue: seed 000's design built right (leases that expire, fencing, review)",
    open: (file, options) => new ReferenceQueue(openStore(file), options),
  },
  {
    name: 'seed-literal',
    description: "seed 000's queue as written: claim never takes running jobs back; refused writes pass silently",
    open: (file, options) => new SeedLiteralQueue(openStore(file), options),
  },
  // One plausible mistake each, on the reference queue: the harness's self-test (the drills must fail every one).
  {
    name: 'claim-no-transaction',
    description: 'claim is a look-up then an update outside a transaction, the update unguarded by status: two workers can win one job',
    open: (file, options) => new ClaimNoTransactionQueue(openStore(file), options),
  },
  {
    name: 'unguarded-writes',
    description: "lease holders' writes (heartbeat, complete, retry, review) are guarded by the job id only: a zombie's late write is applied",
    open: (file, options) => new UnguardedWritesQueue(openStore(file), options),
  },
  {
    name: 'unknown-retried',
    description: 'an unknown outcome is retried blind, never reconciled with the world or sent to review',
    open: (file, options) => new ReferenceQueue(openStore(file), options),
    sagaRules: UNKNOWN_RETRIED_RULES,
  },
  {
    name: 'review-on-timer',
    description: 'jobs leave review on a timer (claimed again after 300 ms), the transition trigger that forbade it dropped',
    open: (file, options) => ReviewOnTimerQueue.open(file, options),
  },
  {
    name: 'attempts-not-counted',
    description: 'claim does not count the attempt: max_attempts never ends a run of failures',
    open: (file, options) => new AttemptsNotCountedQueue(openStore(file), options),
  },
  {
    name: 'enqueue-check-then-insert',
    description: 'enqueue looks the key up then inserts, on a store without a UNIQUE idempotency key: racing producers make duplicates',
    open: (file, options) => EnqueueCheckThenInsertQueue.open(file, options),
  },
  {
    name: 'lease-never-expires',
    description: "claims and heartbeats take a day-long lease: a crashed worker's job is never taken back",
    open: (file, options) => new LeaseNeverExpiresQueue(openStore(file), options),
  },
  {
    name: 'compensation-forward',
    description: 'saga compensation undoes the completed steps in plan order instead of reverse order',
    open: (file, options) => new ReferenceQueue(openStore(file), options),
    sagaRules: COMPENSATION_FORWARD_RULES,
  },
  {
    name: 'failed-compensation-ok',
    description: 'a compensation that failed for good is recorded as compensated, with no incident',
    open: (file, options) => new ReferenceQueue(openStore(file), options),
    sagaRules: FAILED_COMPENSATION_OK_RULES,
  },
];

/** Thrown for a `--queue` name that is not known; lists the ones that are. */
export class UnknownQueueError extends InputError {
  readonly code = 'QD_UNKNOWN_QUEUE';
  constructor(name: string) {
    super(`unknown queue implementation ${JSON.stringify(name)}; known: ${QUEUE_IMPLS.map((q) => q.name).join(', ')}`);
  }
}

/** The implementation called `name`. */
export function queueImpl(name: string): QueueImpl {
  const impl = QUEUE_IMPLS.find((q) => q.name === name);
  if (!impl) throw new UnknownQueueError(name);
  return impl;
}
