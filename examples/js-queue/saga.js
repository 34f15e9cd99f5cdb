// @ts-check
import { FileSagaStore } from 'queue-drill/adapter';

/*
 * The saga's checkpoints, in FileSagaStore's SQLite file beside the queue's.
 * On its own, FileSagaStore fences by the highest epoch a holder has shown,
 * which leaves a gap: a holder whose lease was taken back can still write
 * until the next holder opens its log (the judge's single-holder invariant
 * calls such a checkpoint a stale holder's). So each checkpoint is written
 * under the queue's lock, after the check a holder's write gets (the job still
 * running or compensating under this holder and epoch): no checkpoint lands
 * after its lease was taken back.
 */

/**
 * @typedef {import('queue-drill/adapter').SagaStore} SagaStore
 */

/**
 * The saga store of a connection: `file`'s, each holder's append guarded by `queue`.
 * @param {import('./queue.js').JsQueue} queue @param {FileSagaStore} file @returns {SagaStore}
 */
export function guardedSaga(queue, file) {
  return {
    async logFor(writer) {
      const log = await file.logFor(writer);
      return { ...log, append: (entry) => queue.whileHolding(writer, () => file.append(writer, entry)) };
    },
    rows: (jobId) => file.rows(jobId),
    incidents: (jobId) => file.incidents(jobId),
  };
}

/**
 * `write`, run at most once: for checkpoints written under the queue's lock
 * alongside a change (a release, a requeue), whose work runs again after a lost lock.
 * @template {unknown[]} A @param {(...args: A) => void} write @returns {(...args: A) => void}
 */
export function once(write) {
  let done = false;
  return (...args) => {
    if (!done) write(...args);
    done = true;
  };
}
