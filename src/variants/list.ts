import type { QueueAdapter } from '../port/adapter.js';
import { openReference } from '../reference/sqlite/open-reference.js';
import type { SqliteQueueSpec } from '../reference/sqlite/sqlite-adapter.js';
import { openStore } from '../reference/sqlite/store.js';
import type { SagaRules } from '../saga/rules.js';
import { AttemptsNotCountedQueue } from './attempts-not-counted/attempts-not-counted-queue.js';
import { ClaimNoTransactionQueue } from './claim-no-transaction/claim-no-transaction-queue.js';
import { COMPENSATION_FORWARD_RULES } from './compensation-forward/rules.js';
import { CompleteOnDoneSilentlyQueue } from './complete-on-done-silently/complete-on-done-silently-queue.js';
import { CrashLoopQueue } from './crash-loop/crash-loop-queue.js';
import { DoneOnExpiryQueue } from './done-on-expiry/done-on-expiry-queue.js';
import { EnqueueCheckThenInsertQueue } from './enqueue-check-then-insert/enqueue-check-then-insert-queue.js';
import { ExhaustedLeftInRetryQueue } from './exhausted-left-in-retry/exhausted-left-in-retry-queue.js';
import { FAILED_COMPENSATION_OK_RULES } from './failed-compensation-ok/rules.js';
import { HeartbeatRetakesSweptJobQueue } from './heartbeat-retakes-swept-job/heartbeat-retakes-swept-job-queue.js';
import { HistoryGapQueue } from './history-gap/history-gap-queue.js';
import { LeaseNeverExpiresQueue } from './lease-never-expires/lease-never-expires-queue.js';
import { leaseTrustedAfterPartition } from './lease-trusted-after-partition/lease-trusted-adapter.js';
import { NoBackoffQueue } from './no-backoff/no-backoff-queue.js';
import { NoJitterQueue } from './no-jitter/no-jitter-queue.js';
import { PayloadEncodedInErrorQueue } from './payload-encoded-in-error/payload-encoded-in-error-queue.js';
import { PayloadInErrorQueue } from './payload-in-error/payload-in-error-queue.js';
import { ReviewOnTimerQueue } from './review-on-timer/review-on-timer-queue.js';
import { ReviewWithoutReasonQueue } from './review-without-reason/review-without-reason-queue.js';
import { SketchLiteralQueue } from './sketch-literal/sketch-literal-queue.js';
import { SweepBeforeLeaseEndQueue } from './sweep-before-lease-end/sweep-before-lease-end-queue.js';
import { UnguardedWritesQueue } from './unguarded-writes/unguarded-writes-queue.js';
import { UNKNOWN_RETRIED_RULES } from './unknown-retried/rules.js';

/*
 * The broken variants: each is the reference queue on SQLite with one
 * plausible mistake (a queue method rewritten, or the saga's rules changed),
 * and each names the invariants a drill must see broken. The self-test runs
 * the shipped drill against every one and must catch each. Adding one is a
 * folder here and an entry below.
 */

/** A queue on one SQLite file that `--queue` can name, with other names it answers to and saga rules where they differ. */
export type SqliteImpl = SqliteQueueSpec & { aliases?: readonly string[]; sagaRules?: SagaRules; reference?: true };

/** The queue sketch as written, and one plausible mistake each (the drills must catch every one). */
export const BROKEN_VARIANTS: readonly SqliteImpl[] = [
  {
    name: 'sketch-literal',
    // Its name before the design documents were called sketches.
    aliases: ['seed-literal'],
    soundness: 'broken',
    breaks: ['no-lost-job', 'lease-released', 'single-holder'],
    description: 'the queue sketch as written: claim never takes running jobs back; refused writes pass silently',
    open: (file, options) => new SketchLiteralQueue(openStore(file), options),
  },
  {
    name: 'claim-no-transaction',
    soundness: 'broken',
    breaks: ['single-holder'],
    description: 'claim is a look-up then an update outside a transaction, the update unguarded by status: two workers can win one job',
    open: (file, options) => new ClaimNoTransactionQueue(openStore(file), options),
  },
  {
    name: 'unguarded-writes',
    soundness: 'broken',
    breaks: ['single-holder', 'lease-released'],
    description: "lease holders' writes (heartbeat, complete, retry, review) are guarded by the job id only: a zombie's late write is applied",
    open: (file, options) => new UnguardedWritesQueue(openStore(file), options),
  },
  {
    name: 'unknown-retried',
    soundness: 'broken',
    breaks: ['no-duplicate-effect', 'review-routing'],
    description: 'an unknown outcome is retried blind, never reconciled with the world or sent to review',
    open: openReference,
    sagaRules: UNKNOWN_RETRIED_RULES,
  },
  {
    name: 'review-on-timer',
    soundness: 'broken',
    breaks: ['review-routing', 'review-sticky', 'transitions-allowed'],
    description: 'jobs leave review on a timer (claimed again after 300 ms), the transition trigger that forbade it dropped',
    open: (file, options) => ReviewOnTimerQueue.open(file, options),
  },
  {
    name: 'attempts-not-counted',
    soundness: 'broken',
    breaks: ['attempts-bounded'],
    description: 'claim does not count the attempt: max_attempts never ends a run of failures',
    open: (file, options) => new AttemptsNotCountedQueue(openStore(file), options),
  },
  {
    name: 'enqueue-check-then-insert',
    soundness: 'broken',
    breaks: ['dedupe-on-enqueue'],
    description: 'enqueue looks the key up then inserts, on a store without a UNIQUE idempotency key: racing producers make duplicates',
    open: (file, options) => EnqueueCheckThenInsertQueue.open(file, options),
  },
  {
    name: 'lease-never-expires',
    soundness: 'broken',
    breaks: ['no-lost-job', 'lease-released'],
    description: "claims and heartbeats take a day-long lease: a crashed worker's job is never taken back",
    open: (file, options) => new LeaseNeverExpiresQueue(openStore(file), options),
  },
  {
    name: 'compensation-forward',
    soundness: 'broken',
    breaks: ['saga-compensation'],
    description: 'saga compensation undoes the completed steps in plan order instead of reverse order',
    open: openReference,
    sagaRules: COMPENSATION_FORWARD_RULES,
  },
  {
    name: 'failed-compensation-ok',
    soundness: 'broken',
    breaks: ['saga-compensation'],
    description: 'a compensation that failed for good is recorded as compensated, with no incident',
    open: openReference,
    sagaRules: FAILED_COMPENSATION_OK_RULES,
  },
  {
    name: 'no-backoff',
    soundness: 'broken',
    breaks: ['retry-backoff'],
    description: 'a failed job is released to run again at once: the retry delay is never applied',
    open: (file, options) => new NoBackoffQueue(openStore(file), options),
  },
  {
    name: 'no-jitter',
    soundness: 'broken',
    breaks: ['retry-backoff'],
    description: 'retry delays double per attempt but carry no jitter: jobs that failed together retry together',
    open: (file, options) => new NoJitterQueue(openStore(file), options),
  },
  {
    name: 'crash-loop',
    soundness: 'broken',
    breaks: ['attempts-bounded'],
    description: 'an expired lease always goes back to retry and the claim ignores the budget: a poison job kills workers for ever',
    open: (file, options) => new CrashLoopQueue(openStore(file), options),
  },
  {
    name: 'exhausted-left-in-retry',
    soundness: 'broken',
    breaks: ['review-routing', 'no-lost-job'],
    description: 'an expired lease on the last attempt goes back to retry, not review: the job waits for an attempt it will never get',
    open: (file, options) => new ExhaustedLeftInRetryQueue(openStore(file), options),
  },
  {
    name: 'done-on-expiry',
    soundness: 'broken',
    breaks: ['done-is-verified'],
    description: 'an expired lease is taken to mean the job finished: it is marked done, with no digest, by a worker that never ran it',
    open: (file, options) => new DoneOnExpiryQueue(openStore(file), options),
  },
  {
    name: 'history-gap',
    soundness: 'broken',
    breaks: ['history-complete'],
    description: 'the sweep that takes back expired leases writes nothing to the history',
    open: (file, options) => new HistoryGapQueue(openStore(file), options),
  },
  {
    name: 'payload-in-error',
    soundness: 'broken',
    breaks: ['secrets-redacted'],
    description: "a failed job's stored error quotes its payload, secrets and all",
    open: (file, options) => new PayloadInErrorQueue(openStore(file), options),
  },
  {
    name: 'payload-encoded-in-error',
    soundness: 'broken',
    breaks: ['secrets-redacted'],
    description: "a failed job's stored error carries its payload base64-encoded, secrets and all",
    open: (file, options) => new PayloadEncodedInErrorQueue(openStore(file), options),
  },
  {
    name: 'review-without-reason',
    soundness: 'broken',
    breaks: ['review-routing'],
    description: 'a job is moved to review without the reason its worker gave',
    open: (file, options) => new ReviewWithoutReasonQueue(openStore(file), options),
  },
  {
    name: 'complete-on-done-silently',
    soundness: 'broken',
    breaks: ['single-holder'],
    description: "a complete on a job already done answers ok, whoever sends it: a zombie's late complete changes nothing and leaves no trace",
    open: (file, options) => new CompleteOnDoneSilentlyQueue(openStore(file), options),
  },
  {
    name: 'heartbeat-retakes-swept-job',
    soundness: 'broken',
    breaks: ['single-holder'],
    description:
      'a renewal on a lease already swept (nobody has claimed the job since) takes the job back under the old epoch instead of being refused',
    open: (file, options) => new HeartbeatRetakesSweptJobQueue(openStore(file), options),
  },
  {
    name: 'sweep-before-lease-end',
    soundness: 'broken',
    breaks: ['lease-respected'],
    description: "the sweep adds the skew margin to its clock instead of taking it off: a holder's job is taken back before its lease ends",
    open: (file, options) => new SweepBeforeLeaseEndQueue(openStore(file), options),
  },
];

/** The broken variants on a server (the reference on PostgreSQL with one mistake): the self-test runs them where the server answers. */
export const BROKEN_SERVER_VARIANTS: readonly QueueAdapter[] = [leaseTrustedAfterPartition];
