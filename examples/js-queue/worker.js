// @ts-check

import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { waitForWork } from 'queue-drill/adapter';

/*
 * The queue's own consumption loop: claim the oldest ready job, hand it to the
 * drill's handler while renewing its lease every third of it, then make the
 * one fenced write its settlement asks for. A refused renewal (someone else
 * holds the job now) or an attempt past its deadline aborts the delivery's
 * signal. A handler that throws is a bug, not a job failure: it is logged,
 * the lease runs out, the job is taken back, and this loop goes on.
 */

/**
 * @typedef {import('queue-drill/adapter').Claim} Claim
 * @typedef {import('queue-drill/adapter').DeliveryHandler} DeliveryHandler
 * @typedef {import('queue-drill/adapter').SagaStore} SagaStore
 * @typedef {import('queue-drill/adapter').WorkOptions} WorkOptions
 * @typedef {import('./queue.js').JsQueue} JsQueue
 */

/**
 * Runs until stopped, after `maxJobs` jobs, or once drained if asked.
 * @param {JsQueue} queue @param {SagaStore} saga @param {DeliveryHandler} handler @param {WorkOptions} options
 */
export async function work(queue, saga, handler, options) {
  let processed = 0;
  while (!options.stop.aborted && (options.maxJobs === 0 || processed < options.maxJobs)) {
    const claim = await queue.claim(options.workerId);
    if (!claim) {
      if (options.exitWhenDrained && queue.drained()) break;
      await waitForWork(undefined, undefined, options.pollMs, options.stop);
      continue;
    }
    try {
      await deliver(queue, saga, claim, handler, options);
    } catch (error) {
      options.log({ event: 'job-crashed', jobId: claim.jobId, error: error instanceof Error ? error.message : String(error) });
    }
    processed++;
    // A turn of the event loop between jobs, so a stop (SIGTERM) is heard even with a backlog.
    await setImmediate();
  }
  return { processed };
}

/** @param {JsQueue} queue @param {SagaStore} saga @param {Claim} claim @param {DeliveryHandler} handler @param {WorkOptions} options */
async function deliver(queue, saga, claim, handler, options) {
  options.log({ event: 'claimed', jobId: claim.jobId, attempt: claim.attempt, epoch: claim.epoch });
  if (claim.leaseUntil !== null) options.onLease?.(claim, claim.leaseUntil, 'claim');
  const lost = new AbortController();
  // The attempt's age on this process's own monotonic clock: a deadline, not a queue time.
  const startedAt = performance.now();
  const renew = async () => {
    if (performance.now() - startedAt > options.maxAttemptMs) {
      options.log({ event: 'attempt-deadline', jobId: claim.jobId, attempt: claim.attempt, maxAttemptMs: options.maxAttemptMs });
      return lost.abort();
    }
    await options.beforeRenewal?.(claim);
    if (lost.signal.aborted) return;
    const { write, leaseUntil } = await queue.heartbeat(claim);
    if (write.ok) options.onLease?.(claim, leaseUntil, 'renewal');
    else {
      options.log({ event: 'lease-lost', jobId: claim.jobId, epoch: claim.epoch, refused: write.refused });
      lost.abort();
    }
  };
  // One renewal at a time (a tick while one is out is skipped), and none after the settlement.
  /** @type {Promise<void> | null} */
  let renewing = null;
  const timer = setInterval(
    () => {
      if (renewing || lost.signal.aborted) return;
      renewing = renew()
        // The store could not be reached now: the next tick tries again, and the lease's expiry decides.
        .catch((error) => options.log({ event: 'renewal-failed', jobId: claim.jobId, error: String(error) }))
        .finally(() => {
          renewing = null;
        });
    },
    Math.max(10, Math.floor(queue.options.leaseMs / 3)),
  );
  try {
    const settlement = await handler({ ...claim, signal: lost.signal, saga: await saga.logFor(claim) });
    clearInterval(timer);
    await renewing;
    // The holder already knows it lost the job (lease_lost): nothing to write.
    const write = settlement.kind === 'lease_lost' ? null : await queue.settle(claim, settlement);
    options.onSettled?.(claim, settlement, write);
  } finally {
    clearInterval(timer);
  }
}
